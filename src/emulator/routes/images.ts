/** `POST /notes/{noteId}/images` (§2.5): multipart upload, dialect B errors. */
import { Buffer } from "node:buffer";
import { jsonReply, messageReply, type Reply, type RouteContext, type RouteDef } from "../http";
import { hasFullAccess } from "./common";

/** One part of a multipart body. */
interface Part {
  name: string | null;
  filename: string | null;
  data: Buffer;
}

/** Splits a multipart/form-data body; hand-written because Node has no multipart parser for servers. */
function parseMultipart(body: Buffer, contentType: string): Part[] | null {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  while (pos !== -1) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    const chunk = body.subarray(start + 2, next - 2);
    const headerEnd = chunk.indexOf("\r\n\r\n");
    if (headerEnd !== -1) {
      const head = chunk.subarray(0, headerEnd).toString("utf8");
      const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? "";
      parts.push({
        name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? null,
        filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null,
        data: chunk.subarray(headerEnd + 4),
      });
    }
    pos = next;
  }
  return parts;
}

/** The image type by leading bytes, as `[extension, content type]`. */
function sniff(data: Buffer): [string, string] | null {
  const hex = data.subarray(0, 12).toString("hex");
  if (hex.startsWith("89504e470d0a1a0a")) return ["png", "image/png"];
  if (hex.startsWith("ffd8ff")) return ["jpg", "image/jpeg"];
  const ascii = data.subarray(0, 12).toString("latin1");
  if (ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a")) return ["gif", "image/gif"];
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") return ["webp", "image/webp"];
  return null;
}

function upload(ctx: RouteContext): Reply {
  const parts = ctx.contentType.toLowerCase().startsWith("multipart/form-data")
    ? parseMultipart(ctx.rawBody, ctx.contentType)
    : null;
  const image = parts?.find((p) => p.name === "image");
  if (!image) return messageReply(400, "No image provided");
  const entry = ctx.store.notes.get(ctx.params.noteId ?? "");
  if (!entry || entry.committed.trashedAt !== null) return messageReply(404, "Note not found");
  if (!hasFullAccess(ctx, entry.committed)) return messageReply(403, "Forbidden");
  if (image.data.byteLength > ctx.quirks.imageMaxBytes) return messageReply(413, "Image too large");
  const type = sniff(image.data);
  if (!type) return messageReply(415, "Unsupported image type");
  const name = `${ctx.ids.noteId((id) => [...ctx.store.images.keys()].some((k) => k.startsWith(`${id}.`)))}.${type[0]}`;
  ctx.store.images.set(name, {
    name,
    bytes: Buffer.from(image.data),
    contentType: type[1],
    noteId: entry.committed.id,
  });
  const origin = ctx.quirks.imageOrigin ?? ctx.origin;
  return jsonReply(201, { data: { link: `${origin}/_uploads/${name}` } }, true);
}

/** The image route (personal form only; the team form is a 404 on HackMD). */
export const imageRoutes: RouteDef[] = [
  { method: "POST", path: "/notes/:noteId/images", family: "images", handler: upload },
];
