/**
 * Host-neutral image upload rules (docs/tools.md §16): type sniffing, size limits, upload file names,
 * `image_url` syntax, the `publicly_readable` classification, and the ImageFetcher port through
 * which a host downloads an `image_url`.
 */
import { BridgeError, invalidInput } from "./errors";

/** The image types HackMD accepts, as found by sniffing (docs/tools.md §16.3). */
export type ImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Above this many bytes an image needs `confirm_large_file: true` (5 MiB). */
export const IMAGE_CONFIRM_THRESHOLD_BYTES = 5 * 1024 * 1024;

/** Above this many bytes an image is refused even when confirmed (10 MiB). */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;

/** How many leading bytes sniffing needs (the WebP signature ends at byte 12). */
export const IMAGE_SNIFF_BYTES = 12;

/** The message of every "not an image" refusal. */
export const NOT_AN_IMAGE_MESSAGE = "the file is not a PNG, JPEG, GIF or WebP image; nothing was uploaded";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const GIF87A = ascii("GIF87a");
const GIF89A = ascii("GIF89a");
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

/** The image type announced by the leading bytes, or undefined for anything else (docs/tools.md §16.3). */
export function sniffImageType(head: Uint8Array): ImageType | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return "image/png";
  if (startsWith(head, JPEG_SIGNATURE)) return "image/jpeg";
  if (startsWith(head, GIF87A) || startsWith(head, GIF89A)) return "image/gif";
  if (startsWith(head, RIFF) && startsWith(head.subarray(8), WEBP)) return "image/webp";
  return undefined;
}

/** The sniffed type, or `invalid_input` when the bytes are not a PNG, JPEG, GIF or WebP image. */
export function requireImageType(head: Uint8Array): ImageType {
  const type = sniffImageType(head);
  if (type === undefined) throw invalidInput(NOT_AN_IMAGE_MESSAGE);
  return type;
}

/** Size facts of one image: its byte count and whether the caller confirmed a large file. */
export interface ImageSizeInput {
  size: number;
  confirmLargeFile: boolean;
}

/**
 * Applies docs/tools.md §16.2 to a known size: above 10 MiB → `too_large` (even when confirmed);
 * above 5 MiB without confirmation → `confirmation_required`.
 */
export function imageSizeRule({ size, confirmLargeFile }: ImageSizeInput): void {
  if (size > IMAGE_MAX_BYTES) {
    throw new BridgeError(
      "too_large",
      `the image is ${size} bytes, above the 10 MiB (${IMAGE_MAX_BYTES} bytes) ceiling that applies even with confirm_large_file; resize it below 10 MiB`,
      { details: { size } },
    );
  }
  if (size > IMAGE_CONFIRM_THRESHOLD_BYTES && !confirmLargeFile) {
    throw new BridgeError(
      "confirmation_required",
      `the image is ${size} bytes; confirm with confirm_large_file: true or resize it below 5 MiB (${IMAGE_CONFIRM_THRESHOLD_BYTES} bytes)`,
      { details: { size } },
    );
  }
}

/** The limit in force for a download whose size was not declared: 5 MiB, or 10 MiB once confirmed. */
export function imageDownloadLimit(confirmLargeFile: boolean): number {
  return confirmLargeFile ? IMAGE_MAX_BYTES : IMAGE_CONFIRM_THRESHOLD_BYTES;
}

/**
 * The error for an undeclared download cut off after passing `imageDownloadLimit(confirmLargeFile)`
 * bytes: the image is larger than that many bytes (docs/tools.md §16.2).
 */
export function imageCutOffError(confirmLargeFile: boolean): BridgeError {
  const limit = imageDownloadLimit(confirmLargeFile);
  if (confirmLargeFile) {
    return new BridgeError(
      "too_large",
      `the image is larger than ${limit} bytes, above the 10 MiB ceiling that applies even with confirm_large_file; resize it below 10 MiB`,
      { details: { larger_than: limit } },
    );
  }
  return new BridgeError(
    "confirmation_required",
    `the image is larger than ${limit} bytes; confirm with confirm_large_file: true or resize it below 5 MiB`,
    { details: { larger_than: limit } },
  );
}

const NAME_STEM = /^[A-Za-z0-9_-]+$/;
const MAX_NAME_STEM_BYTES = 100;

/** The file extension for a type: `jpg` for JPEG, otherwise the MIME subtype. */
export function imageExtension(type: ImageType): string {
  return type === "image/jpeg" ? "jpg" : type.slice("image/".length);
}

/**
 * The multipart file name for an image downloaded from `url` (docs/tools.md §16.4): the final path
 * segment without its last extension, inner dots turned into `-`, kept only when it is plain
 * ASCII `[A-Za-z0-9_-]` (else `image`), cut to 100 bytes, plus the extension of the sniffed type.
 * The segment is judged as written in the URL, so percent-encoded names become `image`.
 */
export function uploadNameFromUrl(url: string, type: ImageType): string {
  let segment = "";
  try {
    const path = new URL(url).pathname;
    segment = path.slice(path.lastIndexOf("/") + 1);
  } catch {
    segment = "";
  }
  const lastDot = segment.lastIndexOf(".");
  const stem = (lastDot === -1 ? segment : segment.slice(0, lastDot)).replace(/\./g, "-");
  // The stem is ASCII once it passes the pattern, so 100 characters are 100 bytes.
  const name = NAME_STEM.test(stem) ? stem.slice(0, MAX_NAME_STEM_BYTES) : "image";
  return `${name}.${imageExtension(type)}`;
}

/** The multipart file name for a local file: its own name, or `image` if it has none (docs/tools.md §16.4). */
export function uploadNameFromPath(path: string): string {
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  return name === "" ? "image" : name;
}

/** Why a parsed URL may not be fetched as an image (docs/tools.md §16.5), or undefined when it may. */
export function imageUrlSyntaxProblem(url: URL): string | undefined {
  // The URL parser drops a written default port, so `:443` leaves `port` empty.
  if (url.protocol !== "https:" || url.port !== "" || url.username !== "" || url.password !== "") {
    return "image_url must use https on its default port, with no credentials";
  }
  return undefined;
}

/**
 * Checks an `image_url` without any I/O (docs/tools.md §16.5) and returns it parsed. Refusals are
 * `invalid_input` and never echo the URL, which may hold credentials.
 */
export function checkImageUrlSyntax(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidInput("image_url is not a valid absolute URL");
  }
  const problem = imageUrlSyntaxProblem(url);
  if (problem !== undefined) throw invalidInput(problem);
  return url;
}

/** Scheme, host and port of a URL, for refusal messages that must not show credentials or path. */
export function describeUrlTarget(url: URL): string {
  const port = url.port === "" ? "" : `:${url.port}`;
  return url.hostname === "" ? url.protocol : `${url.protocol}//${url.hostname}${port}`;
}

/**
 * The origins that count as HackMD itself for the readability probe (docs/tools.md §16.8): the API
 * origin, and the API origin with a leading `api.` removed from the host. Empty when the API
 * URL does not parse.
 */
export function hackmdSiteOrigins(apiUrl: string): string[] {
  let api: URL;
  try {
    api = new URL(apiUrl);
  } catch {
    return [];
  }
  const origins = [api.origin];
  if (api.hostname.startsWith("api.")) {
    const site = new URL(api.origin);
    site.hostname = api.hostname.slice("api.".length);
    origins.push(site.origin);
  }
  return origins;
}

/** Whether an uploaded image link belongs to HackMD itself, so it may be probed (docs/tools.md §16.8). */
export function isHackmdSiteLink({ link, apiUrl }: { link: string; apiUrl: string }): boolean {
  let origin: string;
  try {
    origin = new URL(link).origin;
  } catch {
    return false;
  }
  return hackmdSiteOrigins(apiUrl).includes(origin);
}

/** The answer to the signed-out `HEAD` probe; header names lower-case. */
export interface ReadabilityProbeAnswer {
  status: number;
  headers: Record<string, string>;
}

/** What the readability classification needs: the link, the API URL, and the probe's answer. */
export interface PubliclyReadableInput {
  link: string;
  apiUrl: string;
  /** The probe's answer; undefined when the probe failed (or was not sent). */
  answer: ReadabilityProbeAnswer | undefined;
}

/**
 * `publicly_readable` of docs/tools.md §16.8: `null` for a link off HackMD's site or a failed probe;
 * `true` for a 2xx image or a 3xx to a presigned https storage URL; `false` for 401/403;
 * `null` for every other answer (login redirects, unsigned storage, 304, 404, a non-image 200).
 */
export function classifyPubliclyReadable({ link, apiUrl, answer }: PubliclyReadableInput): boolean | null {
  if (!isHackmdSiteLink({ link, apiUrl }) || answer === undefined) return null;
  const { status, headers } = answer;
  if (status >= 200 && status <= 299) {
    return (headers["content-type"] ?? "").trim().toLowerCase().startsWith("image/") ? true : null;
  }
  if (status === 401 || status === 403) return false;
  if (status >= 300 && status <= 399 && status !== 304) {
    return isPresignedStorageUrl(headers["location"]) ? true : null;
  }
  return null;
}

const S3_V2_PARAMS = ["AWSAccessKeyId", "Expires", "Signature"];
const S3_V4_PARAMS = ["X-Amz-Credential", "X-Amz-Expires", "X-Amz-Signature"];

/**
 * Whether a `Location` is an absolute https URL carrying a complete S3 v2 or v4 presigned query.
 * A login redirect (even a signed SAML one) lacks one of the three parameters of either set.
 */
function isPresignedStorageUrl(location: string | undefined): boolean {
  if (location === undefined) return false;
  let url: URL;
  try {
    // No base: relative and scheme-relative (`//host`) locations do not parse, so they fail here.
    url = new URL(location.trim());
  } catch {
    return false;
  }
  if (url.protocol !== "https:") return false;
  const hasAll = (names: string[]): boolean => names.every((name) => (url.searchParams.get(name) ?? "") !== "");
  return hasAll(S3_V2_PARAMS) || hasAll(S3_V4_PARAMS);
}

/** Limits of one image download. */
export interface ImageFetchOptions {
  /**
   * Most bytes to accept: normally `imageDownloadLimit(confirmLargeFile)`; a lower value tightens
   * the limit, a higher one is ignored.
   */
  maxBytes: number;
  /** Whether the caller passed `confirm_large_file: true` (chooses the limit and the error kind). */
  confirmLargeFile: boolean;
}

/** A downloaded image. */
export interface FetchedImage {
  /** The whole body; its leading bytes have already been sniffed as an image. */
  bytes: Uint8Array;
  /** The `Content-Type` the image host declared, if any (informational; the sniffed type rules). */
  contentType?: string;
  /** The URL the body came from after redirects. */
  finalUrl: string;
}

/**
 * Port: downloads an `image_url` under docs/tools.md §16.5–16.7. Hosts without direct DNS and socket
 * control provide one with `available: false` (docs/tools.md §16.9).
 */
export interface ImageFetcher {
  /** Whether this host can fetch `image_url` at all; checked before any other URL rule. */
  readonly available: boolean;
  /** Downloads the image; failures are BridgeErrors with the kinds of docs/tools.md §16.7. */
  fetch(url: string, options: ImageFetchOptions): Promise<FetchedImage>;
}

/** The refusal for `image_url` on a host without DNS and sockets (docs/tools.md §16.9). */
export function imageUrlUnavailableError(): BridgeError {
  return invalidInput(
    "image_url cannot be fetched on this device (it has no direct DNS and socket access, e.g. Obsidian mobile); save the image into the vault and pass image_path instead",
  );
}

/** The ImageFetcher of hosts that cannot fetch URLs (Obsidian mobile): refuses before any request. */
export const unavailableImageFetcher: ImageFetcher = {
  available: false,
  fetch: () => Promise.reject(imageUrlUnavailableError()),
};

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.length < prefix.length) return false;
  return prefix.every((value, index) => bytes[index] === value);
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0));
}
