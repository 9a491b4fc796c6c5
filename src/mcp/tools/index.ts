/** The tool registry: every tool the MCP server lists, in the order of docs/tools.md §9.0. */
import { createFolderTool } from "./create-folder";
import { createNoteTool } from "./create-note";
import { createVersionTool } from "./create-version";
import { deleteFolderTool } from "./delete-folder";
import { deleteNoteTool } from "./delete-note";
import { getMeTool } from "./get-me";
import { getNoteTool } from "./get-note";
import { getVersionTool } from "./get-version";
import { listCommentsTool } from "./list-comments";
import { listFoldersTool } from "./list-folders";
import { listJournalTool } from "./list-journal";
import { listNotesTool } from "./list-notes";
import { listVersionsTool } from "./list-versions";
import { pullNoteTool } from "./pull-note";
import { pushNoteTool } from "./push-note";
import { resolveCommentTool } from "./resolve-comment";
import { searchNotesTool } from "./search-notes";
import type { BridgeTool } from "./tool";
import { updateFolderTool } from "./update-folder";
import { untrackNoteTool } from "./untrack-note";
import { updateNoteTool } from "./update-note";
import { uploadNoteImageTool } from "./upload-note-image";

/** All tools, in their documented order: the 14 of docs/tools.md §9.0, then the additions of docs/tool-contract-extensions.md. */
export const TOOLS: readonly BridgeTool[] = [
  getMeTool,
  listNotesTool,
  getNoteTool,
  createNoteTool,
  updateNoteTool,
  deleteNoteTool,
  uploadNoteImageTool,
  listFoldersTool,
  createFolderTool,
  updateFolderTool,
  deleteFolderTool,
  pullNoteTool,
  pushNoteTool,
  untrackNoteTool,
  listVersionsTool,
  getVersionTool,
  createVersionTool,
  listCommentsTool,
  resolveCommentTool,
  searchNotesTool,
  // The sync journal (docs/sync-journal.md).
  listJournalTool,
];
