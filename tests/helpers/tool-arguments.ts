/**
 * Valid arguments for every tool against the emulator's demo seed, so that a test or a benchmark
 * that changes one parameter makes that the only fault in the call (tests/mcp/hostile-arguments.test.ts,
 * bench/hostile.bench.ts).
 */
import { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "../../src/emulator";

const READING = DEMO_NOTE_IDS.readingList;
/** A folder id of the demo team. */
export const DEMO_FOLDER_ID = "91722050-bf47-4334-9e5d-87125a724c29";

/** Valid arguments per tool name (all 20). */
export const VALID_ARGUMENTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  hackmd_get_me: {},
  hackmd_list_notes: {},
  hackmd_get_note: { note_ref: READING },
  hackmd_create_note: { title: "Hostile", content: "x" },
  hackmd_update_note: { note_ref: READING, content: "x" },
  hackmd_delete_note: { note_ref: READING },
  hackmd_upload_note_image: { note_ref: READING, image_path: "pic.png" },
  hackmd_list_folders: {},
  hackmd_create_folder: { name: "Hostile" },
  hackmd_update_folder: { team_path: "sandbox-team", folder_id: DEMO_FOLDER_ID, name: "x" },
  hackmd_delete_folder: { folder_id: DEMO_FOLDER_ID, confirm: true },
  hackmd_pull_note: { note_ref: READING, local_path: "hostile.md" },
  hackmd_push_note: { local_path: "hostile.md", note_ref: READING },
  hackmd_untrack_note: { note_id: READING, confirm: true },
  hackmd_list_versions: { note_ref: READING },
  hackmd_get_version: { note_ref: READING, version_id: DEMO_FOLDER_ID },
  hackmd_create_version: { note_ref: READING, name: "v" },
  hackmd_list_comments: { note_ref: READING },
  hackmd_resolve_comment: { note_ref: READING, comment_id: DEMO_COMMENT_IDS.checklist },
  hackmd_search_notes: { query: "reading" },
  hackmd_list_journal: { limit: 10 },
};
