import { z } from "zod/v4";
import { invalidInput } from "../../core/errors";
import {
  checkImageUrlSyntax,
  classifyPubliclyReadable,
  imageDownloadLimit,
  imageSizeRule,
  imageUrlUnavailableError,
  IMAGE_MAX_BYTES,
  IMAGE_SNIFF_BYTES,
  isHackmdSiteLink,
  requireImageType,
  uploadNameFromPath,
  uploadNameFromUrl,
  type ReadabilityProbeAnswer,
} from "../../core/image";
import { parseNoteRef } from "../../hackmd/note-ref";
import type { ImageUpload } from "../../hackmd/types";
import type { ToolDeps } from "./tool";
import { noteRefInput, refreshInput, resolutionOutput, teamPathInput } from "./schemas";
import { resolveRef } from "../../app/notes";
import { workspaceArg } from "../../app/inputs";
import { unresolved } from "./shared";
import { tool } from "./tool";

const input = z
  .object({
    note_ref: noteRefInput,
    refresh: refreshInput,
    image_path: z.string().optional().describe("A PNG, JPEG, GIF or WebP file under the root."),
    image_url: z.string().optional().describe("A public https image URL (default port, no credentials)."),
    confirm_large_file: z.boolean().default(false).describe("Needed for images above 5 MiB (10 MiB is the ceiling)."),
  })
  .strict();

/** `hackmd_upload_note_image` (docs/tools.md §9.7, §16). */
export const uploadNoteImageTool = tool({
  name: "hackmd_upload_note_image",
  title: "Upload HackMD Note Image",
  description:
    "Uploads one image to a note from a local file under the root (image_path) or a public https URL (image_url) — exactly one — and returns the CDN link to put in the note's Markdown, plus publicly_readable: true if a signed-out reader can fetch it, false if not (the note is probably not guest-readable), null if unknown. Above 5 MiB needs confirm_large_file; above 10 MiB is refused. Uploading again creates another copy.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input,
  // team_path is accepted but not advertised: one upload route serves personal and team notes.
  decodeInput: input.extend({ team_path: teamPathInput }),
  output: z.union([z.object({ link: z.string(), publicly_readable: z.boolean().nullable() }), resolutionOutput]),
  create: (deps) => async (rawArgs, call) => {
    const args = rawArgs as z.output<typeof input> & { team_path?: string | null };
    if ((args.image_path === undefined) === (args.image_url === undefined)) {
      throw invalidInput("Pass exactly one of image_path (a file under the root) or image_url (a public https URL).");
    }
    // Checks that need no I/O first, then those that need no network (docs/tools.md §3.1, §16.1).
    parseNoteRef(args.note_ref);
    const teamPath = workspaceArg(args.team_path);
    let loadImage: () => Promise<ImageUpload>;
    if (args.image_path !== undefined) {
      loadImage = await localImage(deps, args.image_path, args.confirm_large_file);
    } else {
      if (!deps.images.available) throw imageUrlUnavailableError();
      const url = checkImageUrlSyntax(args.image_url ?? "");
      loadImage = async () => {
        const fetched = await deps.images.fetch(url.href, {
          maxBytes: imageDownloadLimit(args.confirm_large_file),
          confirmLargeFile: args.confirm_large_file,
        });
        imageSizeRule({ size: fetched.bytes.byteLength, confirmLargeFile: args.confirm_large_file });
        const type = requireImageType(fetched.bytes.subarray(0, IMAGE_SNIFF_BYTES));
        return { bytes: fetched.bytes, contentType: type, filename: uploadNameFromUrl(url.href, type) };
      };
    }
    const resolution = await resolveRef(deps, call, args.note_ref, { teamPath, refresh: args.refresh });
    if (resolution.status !== "resolved") return unresolved(resolution);
    const image = await loadImage();
    await call.beforeChange({
      action: "upload_image",
      note: { teamPath: resolution.teamPath, noteId: resolution.noteId },
      fields: { image: args.image_path ?? args.image_url ?? "", bytes: String(image.bytes.byteLength) },
    });
    // Every non-folder write clears the list cache around it (docs/tools.md §6.5), uploads included.
    const { link } = await deps.lists.aroundWrite(() =>
      deps.client.uploadImage(call, { noteId: resolution.noteId, image }),
    );
    const readable = classifyPubliclyReadable({ link, apiUrl: deps.apiOrigin, answer: await probe(deps, link) });
    const meaning =
      readable === true
        ? "a signed-out reader can fetch it"
        : readable === false
          ? "signed-out readers are refused (the note is probably not guest-readable)"
          : "whether signed-out readers can fetch it is unknown";
    return {
      summary: `Uploaded the image to note ${resolution.noteId}; ${meaning}.`,
      output: { link, publicly_readable: readable },
    };
  },
});

/** Checks a local image (policy, regular file, size from metadata, leading bytes) and returns its loader. */
async function localImage(
  deps: ToolDeps,
  imagePath: string,
  confirmLargeFile: boolean,
): Promise<() => Promise<ImageUpload>> {
  const info = await deps.files.stat(imagePath);
  if (info.kind !== "file")
    throw invalidInput(`image_path must name a readable regular file; ${info.path} is not one.`);
  imageSizeRule({ size: info.size, confirmLargeFile });
  const head = await deps.files.readHead(info.path, IMAGE_SNIFF_BYTES);
  const type = requireImageType(head.bytes);
  return async () => {
    const read = await deps.files.read(info.path, { maxBytes: IMAGE_MAX_BYTES });
    if (read.truncated) imageSizeRule({ size: IMAGE_MAX_BYTES + 1, confirmLargeFile });
    imageSizeRule({ size: read.bytes.byteLength, confirmLargeFile });
    return { bytes: read.bytes, contentType: type, filename: uploadNameFromPath(info.path) };
  };
}

/** The single signed-out HEAD of §16.8, only for links on HackMD's own site; never retried. */
async function probe(deps: ToolDeps, link: string): Promise<ReadabilityProbeAnswer | undefined> {
  if (!isHackmdSiteLink({ link, apiUrl: deps.apiOrigin })) return undefined;
  try {
    const response = await deps.transport.request({
      method: "HEAD",
      url: link,
      headers: {},
      timeouts: { connectMs: 10_000, headersMs: 30_000, idleMs: 30_000, totalMs: 40_000 },
      maxResponseBytes: 1_048_576,
    });
    return { status: response.status, headers: response.headers };
  } catch {
    return undefined;
  }
}
