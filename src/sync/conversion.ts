/**
 * The sync engine's side of the Obsidian ↔ HackMD conversion (the rules are
 * docs/conversion-rules.md, the pure module is src/convert/). Baselines stay in the remote form
 * (what collaborators see); a working file is compared, merged and pushed as `toRemote(file)`,
 * and a pull writes `toLocal(body)`.
 *
 * Stability: each save keeps what its conversion consulted (`convert/<key>.json` beside the
 * record, SyncStateStore), and the file is compared in a context that answers as recorded
 * (`preferRecorded`), so a file nobody edited never churns when a linked note becomes tracked or
 * untracked or an image is uploaded for another note.
 *
 * State, in the sync state folder: `convert/salt` (a random string per vault for comment
 * placeholder ids, created once, exclusively) and `convert/images.json` (uploaded images: vault
 * path → content hash and HackMD link, per workspace; rewritten under the `images` lock).
 */
import { BridgeError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import { IMAGE_MAX_BYTES, sniffImageType, uploadNameFromPath, uploadNameFromUrl } from "../core/image";
import { sameStamp, type FileStamp, type LocalFiles } from "../core/local-files";
import type { Logger } from "../core/ports";
import {
  buildConversionContext,
  contextFromDependencies,
  preferRecorded,
  toLocal,
  toRemote,
  type ConversionContext,
  type ConversionDependencies,
  type TrackedNote,
} from "../convert";
import type { CallContext } from "../hackmd/call-context";
import type { HackmdClient } from "../hackmd/client";
import { CONVERT, type SyncStateStore } from "./store";

const SALT_FILE = `${CONVERT}/salt`;
const IMAGES_FILE = `${CONVERT}/images.json`;
const IMAGES_MAX_BYTES = 4 * 1_048_576;
/** At most this many vault paths are listed to resolve new links. */
const VAULT_PATHS_MAX = 200_000;
/** At most this many linked notes are read for their headings per conversion. */
const HEADING_NOTES_MAX = 100;
/** At most this much of a linked note is read for its headings. */
const HEADING_NOTE_MAX_BYTES = 1_048_576;
/** Image content hashes kept in memory (`SyncConversion.imageHashes`). */
const IMAGE_HASHES_KEPT = 4096;
const decoder = new TextDecoder("utf-8", { fatal: false });

/** The saved conversion of a note switched off (the per-file switch): synced byte for byte. */
export const CONVERSION_OFF: ConversionDependencies = {
  enabled: false,
  linkFormat: "shortest",
  answers: [],
  comments: [],
};

/** What the host decides about conversion. */
export interface ConversionSettings {
  /** Whether a pull converts when it does not say (the vault-wide setting; the command: on in a vault). */
  enabled(): boolean;
  /** The HackMD URL a link to a tracked note carries. */
  noteUrl(teamPath: string | null, noteId: string): string;
  /**
   * Downloads of images a collaborator put in a note, into the vault (the host's setting, on by
   * default): `fetch` reads an image from HackMD's own site only; `folder` is where it goes for a
   * note at a vault path (Obsidian's attachment setting). Absent: such images stay links.
   */
  downloads?: {
    enabled(): boolean;
    /** The image's bytes, or undefined when the URL is not on HackMD's site or cannot be read. */
    fetch(url: string): Promise<Uint8Array | undefined>;
    /**
     * Whether `fetch` may read this URL at all (on HackMD's site): a pull looks for images to
     * download, converting the body once more, only when one of these is unknown. Absent: any URL.
     */
    downloadable?(url: string): boolean;
    folder(notePath: string): Promise<string>;
  };
}

/** One uploaded image as kept in `convert/images.json`. */
interface ImageEntry {
  /** `personal` or `team:<path>`: an upload is reused within its workspace only. */
  workspace: string;
  path: string;
  hash: string;
  url: string;
}

/** A working file in remote form. */
export interface RemoteForm {
  text: string;
  /** What the conversion consulted; undefined when the note is synced byte for byte. */
  conversion?: ConversionDependencies;
  /** Vault paths of embedded images that have no HackMD link yet (uploaded by a push). */
  missingImages: string[];
  /** Vault paths of every image the text embeds where a conversion applies. */
  images: string[];
}

/** The engine's conversion helper (one per SyncService). */
export class SyncConversion {
  private salt: Promise<string> | undefined;
  /**
   * Content hashes of vault images this process read, by path, with the stamp the file had: a
   * push checks every uploaded image its note embeds for edits, and an unchanged file (same
   * stamp) is not read and hashed again. Bounded like the store's conversions.
   */
  private readonly imageHashes = new Map<string, { stamp: FileStamp; hash: string }>();

  constructor(
    private readonly store: SyncStateStore,
    private readonly files: LocalFiles,
    private readonly settings: ConversionSettings,
    private readonly logger: Logger,
  ) {}

  /** The URL a link to a tracked note carries. */
  noteUrl(teamPath: string | null, noteId: string): string {
    return this.settings.noteUrl(teamPath, noteId);
  }

  /** Whether a pull that does not say converts. */
  get enabledByDefault(): boolean {
    return this.settings.enabled();
  }

  /**
   * The working file's text as the baseline's conversion reads it, to tell whether it was edited:
   * answers only as recorded, so a file nobody edited gives its baseline exactly, and any edit
   * gives something else (every rule is one-to-one). No record scan, no listing: cheap enough for
   * the status bar and for every note of a sync-all. What a push sends comes from `remoteForm`.
   */
  async compareForm(conversion: ConversionDependencies | undefined, local: string): Promise<string> {
    if (conversion === undefined || !conversion.enabled) return local;
    const salted = buildConversionContext({ commentSalt: await this.commentSalt() });
    return toRemote(local, contextFromDependencies(conversion, salted)).text;
  }

  /**
   * The working file's text in the baseline's form, under the record's saved conversion (answers
   * as recorded, what is new as now), as a push sends it. Byte for byte when the record has no
   * conversion.
   */
  async remoteForm(
    conversion: ConversionDependencies | undefined,
    local: string,
    options: { extraImages?: ReadonlyMap<string, string>; listVault?: boolean; notePath?: string } = {},
  ): Promise<RemoteForm> {
    if (conversion === undefined) return { text: local, missingImages: [], images: [] };
    if (!conversion.enabled) return { text: local, conversion, missingImages: [], images: [] };
    // A push resolves links the file did not have at its last sync against every file in the
    // vault, as Obsidian does; the sync check and the status bar answer from the record only.
    const vaultPaths = options.listVault === true && local.includes("[[") ? await this.vaultPaths() : undefined;
    // Images just uploaded replace the links kept for them.
    const fresh = options.extraImages;
    const kept =
      fresh === undefined
        ? conversion
        : {
            ...conversion,
            answers: conversion.answers.filter(
              ([question]) => !(question.startsWith("image-url:") && fresh.has(question.slice("image-url:".length))),
            ),
          };
    const context = preferRecorded(
      kept,
      await this.current({
        comments: conversion,
        extraImages: fresh,
        vaultPaths,
        notePath: options.notePath,
        text: local,
      }),
    );
    const result = toRemote(local, context);
    const missingImages = result.images.filter((path) => context.answers.imageUrl(path) === null);
    return { text: result.text, conversion: result.dependencies, missingImages, images: [...result.images] };
  }

  /**
   * `conversion` without the answers that differ now (a note tracked or untracked since, a name
   * that became ambiguous, an image uploaded): converting under the result asks those again. The
   * same object when nothing changed. Comment answers are kept.
   */
  async freshened(
    conversion: ConversionDependencies,
    local: string,
    notePath?: string,
  ): Promise<ConversionDependencies> {
    const vaultPaths = local.includes("[[") ? await this.vaultPaths() : undefined;
    // Heading answers are never stale (a renamed heading is no reason to relink): no headings read.
    const now = (await this.current({ comments: conversion, vaultPaths, notePath })).answers;
    const stale = (question: string, answer: string | null): boolean => {
      const colon = question.indexOf(":");
      const kind = question.slice(0, colon);
      const rest = question.slice(colon + 1);
      switch (kind) {
        case "target": {
          const second = rest.indexOf(":");
          return now.target(rest.slice(0, second) as "note" | "file", rest.slice(second + 1)) !== answer;
        }
        case "note-url":
          return now.noteUrl(rest) !== answer;
        case "note-id":
          return now.noteId(rest) !== answer;
        case "image-url":
          return now.imageUrl(rest) !== answer;
        case "note-by-url":
          return now.noteByUrl(rest) !== answer;
        case "note-by-id":
          return now.noteById(rest) !== answer;
        case "image-by-url":
          return now.imageByUrl(rest) !== answer;
        default:
          return false;
      }
    };
    const answers = conversion.answers.filter(([question, answer]) => !stale(question, answer));
    return answers.length === conversion.answers.length ? conversion : { ...conversion, answers };
  }

  /**
   * The embedded images a push must upload: those without a link, and those whose file no longer
   * has the content hash their link was uploaded with (edited since).
   */
  async imagesToUpload(form: RemoteForm): Promise<string[]> {
    const known = new Map((await this.readImages()).map((entry) => [entry.path, entry.hash]));
    const out = [...form.missingImages];
    for (const path of form.images) {
      if (out.includes(path)) continue;
      const recorded = known.get(path);
      if (recorded === undefined) continue; // linked by an answer kept with the baseline: left as it was
      const hash = await this.imageHash(path);
      if (hash !== undefined && hash !== recorded) out.push(path);
    }
    return out;
  }

  /**
   * `sha256:` and the hex SHA-256 of a vault image's bytes; undefined when it cannot be read or is
   * larger than HackMD takes. Answered from `imageHashes` while the file's stamp is the one read.
   */
  private async imageHash(path: string): Promise<string | undefined> {
    const kept = this.imageHashes.get(path);
    if (kept !== undefined) {
      const info = await this.files.stat(path).catch(() => undefined);
      if (info?.stamp !== undefined && sameStamp(info.stamp, kept.stamp)) return kept.hash;
    }
    const read = await this.files.read(path, { maxBytes: IMAGE_MAX_BYTES + 1 }).catch(() => undefined);
    if (read === undefined || read.truncated) {
      this.imageHashes.delete(path);
      return undefined;
    }
    const hash = `sha256:${await sha256Hex(read.bytes)}`;
    this.rememberHash(path, read.stamp, hash);
    return hash;
  }

  private rememberHash(path: string, stamp: FileStamp, hash: string): void {
    this.imageHashes.delete(path);
    this.imageHashes.set(path, { stamp, hash });
    if (this.imageHashes.size > IMAGE_HASHES_KEPT) {
      const oldest = this.imageHashes.keys().next().value;
      if (oldest !== undefined) this.imageHashes.delete(oldest);
    }
  }

  /**
   * A pulled body in local form, and the conversion to save with it; byte for byte when `convert`
   * is false. A body whose local form would not convert back exactly (it cannot happen with the
   * module's rules; checked all the same) is written byte for byte, with a warning.
   */
  async localForm(
    remote: string,
    options: {
      convert: boolean;
      previous?: ConversionDependencies | undefined;
      keepOff?: boolean;
      download?: { notePath: string; teamPath: string | null };
      /** The note's vault path: a name several notes share resolves to the one beside it. */
      notePath?: string;
    },
  ): Promise<{ text: string; conversion?: ConversionDependencies; unknownImages?: readonly string[] }> {
    // A note switched off stays off: its record keeps saying so.
    if (!options.convert)
      return options.keepOff === true || options.previous?.enabled === false
        ? { text: remote, conversion: CONVERSION_OFF }
        : { text: remote };
    const now = (): Promise<ConversionContext> => this.pullContext({ ...options, text: remote });
    let context = await now();
    let local = toLocal(remote, context);
    if (options.download !== undefined && (await this.downloadImages(local.imageUrls, context, options.download)) > 0) {
      context = await now();
      local = toLocal(remote, context);
    }
    const back = toRemote(local.text, context);
    if (back.text !== remote) {
      this.logger.warn("sync_conversion_not_reversible", {});
      return { text: remote };
    }
    const unknownImages = this.unknownImages(local.imageUrls, context);
    return { text: local.text, conversion: back.dependencies, ...(unknownImages.length > 0 ? { unknownImages } : {}) };
  }

  /**
   * A pulled body's local form once the images `localForm` reported as `unknownImages` are in the
   * vault (downloaded, or linked to a vault file with the same bytes): undefined when none was
   * added, so the form already made stands and the body is not converted again.
   */
  async downloadedForm(
    remote: string,
    urls: readonly string[],
    options: Parameters<SyncConversion["localForm"]>[1] & { download: { notePath: string; teamPath: string | null } },
  ): Promise<Awaited<ReturnType<SyncConversion["localForm"]>> | undefined> {
    const context = await this.pullContext({ ...options, text: remote });
    if ((await this.downloadImages(urls, context, options.download)) === 0) return undefined;
    const { download: _download, ...rest } = options;
    return this.localForm(remote, rest);
  }

  /**
   * The context a pulled body converts in: answers as the baseline's conversion recorded them
   * where it asked (so a wikilink HackMD kept as text because its note was not tracked then stays
   * a plain wikilink, not an escaped one), today's for what is new.
   */
  private async pullContext(options: {
    /** The pulled body: the headings of the notes it links to a heading of are read for it. */
    text: string;
    previous?: ConversionDependencies | undefined;
    notePath?: string;
    download?: { notePath: string };
  }): Promise<ConversionContext> {
    const current = await this.current({
      text: options.text,
      comments: options.previous,
      notePath: options.notePath ?? options.download?.notePath,
    });
    if (options.previous === undefined || !options.previous.enabled) return current;
    const recorded = preferRecorded(options.previous, current);
    // Kept comments are only ever added to: a placeholder restores whenever its source is kept.
    return { ...recorded, answers: { ...recorded.answers, comment: (id) => current.answers.comment(id) } };
  }

  /** The image URLs among `urls` that a pull could download and the vault has no link for. */
  private unknownImages(urls: readonly string[], context: ConversionContext): string[] {
    const downloads = this.settings.downloads;
    if (downloads === undefined || !downloads.enabled()) return [];
    return urls.filter((url) => context.answers.imageByUrl(url) === null && (downloads.downloadable?.(url) ?? true));
  }

  /**
   * Uploads the images a push embeds that HackMD has no link for (once per content hash per
   * workspace; an image already uploaded under another path is reused) and returns vault path →
   * link for them. One request per new image.
   */
  async uploadImages(options: {
    call: CallContext;
    client: HackmdClient;
    teamPath: string | null;
    noteId: string;
    paths: readonly string[];
  }): Promise<Map<string, string>> {
    const links = new Map<string, string>();
    if (options.paths.length === 0) return links;
    const workspace = options.teamPath === null ? "personal" : `team:${options.teamPath}`;
    for (const path of options.paths) {
      const read = await this.files.read(path, { maxBytes: IMAGE_MAX_BYTES + 1 });
      if (read.truncated)
        throw new BridgeError(
          "too_large",
          `The image ${path} is larger than ${IMAGE_MAX_BYTES / 1_048_576} MiB, more than HackMD accepts; shrink it, or link it instead of embedding it.`,
        );
      const type = sniffImageType(read.bytes.subarray(0, 12));
      if (type === undefined) continue; // not an image HackMD takes: the embed stays as written
      const hash = `sha256:${await sha256Hex(read.bytes)}`;
      this.rememberHash(path, read.stamp, hash);
      const known = (await this.readImages()).find((entry) => entry.workspace === workspace && entry.hash === hash);
      const url =
        known?.url ??
        (
          await options.client.uploadImage(options.call, {
            noteId: options.noteId,
            image: { bytes: read.bytes, filename: uploadNameFromPath(path), contentType: type },
          })
        ).link;
      await this.rememberImage({ workspace, path, hash, url });
      links.set(path, url);
    }
    return links;
  }

  /**
   * Brings HackMD-hosted images the vault has no file for into the attachment folder, and remembers
   * them as uploaded (so they convert to embeds, and a push sends the same link back). Returns how
   * many it added. A failure leaves that image a link, with a warning; the pull goes on.
   */
  private async downloadImages(
    urls: readonly string[],
    context: ConversionContext,
    target: { notePath: string; teamPath: string | null },
  ): Promise<number> {
    const downloads = this.settings.downloads;
    if (downloads === undefined || !downloads.enabled()) return 0;
    const unknown = urls.filter((url) => context.answers.imageByUrl(url) === null);
    if (unknown.length === 0) return 0;
    const workspace = target.teamPath === null ? "personal" : `team:${target.teamPath}`;
    let added = 0;
    let inVault: Promise<Map<string, string>> | undefined;
    for (const url of unknown) {
      try {
        const bytes = await downloads.fetch(url);
        const type = bytes === undefined ? undefined : sniffImageType(bytes.subarray(0, 12));
        if (bytes === undefined || type === undefined) continue;
        const hash = `sha256:${await sha256Hex(bytes)}`;
        // An image whose bytes are already in the vault is linked to that file, not saved again.
        inVault ??= this.vaultImagesByHash();
        const same = (await inVault).get(hash);
        const path =
          same ??
          (await this.freeImagePath(await downloads.folder(target.notePath), uploadNameFromUrl(url, type), bytes));
        await this.rememberImage({ workspace, path, hash, url });
        added += 1;
      } catch (error) {
        this.logger.warn("sync_image_download_failed", {
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return added;
  }

  /**
   * The vault's image files (by extension, up to the listing bound) by content hash; the first
   * path in code-unit order for bytes two files share. Read only when a pull meets an image the
   * vault has no link for.
   */
  private async vaultImagesByHash(): Promise<Map<string, string>> {
    const byHash = new Map<string, string>();
    const paths = ((await this.vaultPaths()) ?? []).filter((path) => /\.(?:png|jpe?g|gif|webp)$/i.test(path)).sort();
    for (const path of paths) {
      const read = await this.files.read(path, { maxBytes: IMAGE_MAX_BYTES + 1 }).catch(() => undefined);
      if (read === undefined || read.truncated) continue;
      const hash = `sha256:${await sha256Hex(read.bytes)}`;
      if (!byHash.has(hash)) byHash.set(hash, path);
    }
    return byHash;
  }

  /** Writes the image at the first free name in `folder` (`name`, `name 1`, …), or reuses a file with the same bytes. */
  private async freeImagePath(folder: string, name: string, bytes: Uint8Array): Promise<string> {
    const dot = name.lastIndexOf(".");
    const [stem, extension] = [name.slice(0, dot), name.slice(dot)];
    if (folder !== "" && (await this.files.stat(folder)).kind === "missing") await this.files.createFolders(folder);
    const hash = await sha256Hex(bytes);
    for (let n = 0; n < 100; n += 1) {
      const path = `${folder === "" ? "" : `${folder}/`}${n === 0 ? stem : `${stem} ${n}`}${extension}`;
      const info = await this.files.stat(path);
      if (info.kind === "missing") {
        await this.files.write(path, bytes, { expect: "absent" });
        return path;
      }
      if (info.kind === "file") {
        const read = await this.files.read(path, { maxBytes: IMAGE_MAX_BYTES + 1 });
        if (!read.truncated && (await sha256Hex(read.bytes)) === hash) return path;
      }
    }
    throw new BridgeError(
      "local_io",
      `No free name for the image ${name} in ${folder === "" ? "the vault's top folder" : folder}; tidy that folder.`,
    );
  }

  /** The context of now: tracked notes, uploaded images, the vault's salt and the comments `comments` kept. */
  private async current(options: {
    comments?: ConversionDependencies | undefined;
    extraImages?: ReadonlyMap<string, string> | undefined;
    vaultPaths?: string[] | undefined;
    notePath?: string | undefined;
    /** The text to convert: the tracked notes its heading links name are read for their headings. */
    text?: string | undefined;
  }): Promise<ConversionContext> {
    const notes = new Map<string, TrackedNote>();
    for (const { record } of await this.store.list())
      notes.set(record.local_path, {
        url: this.settings.noteUrl(record.team_path, record.internal_id),
        id: record.internal_id,
      });
    const images = new Map<string, string>();
    for (const entry of await this.readImages()) images.set(entry.path, entry.url);
    for (const [path, url] of options.extraImages ?? []) images.set(path, url);
    // Read when a question is asked: filled below, once the context can resolve the links.
    const headings = new Map<string, readonly string[]>();
    const context = buildConversionContext({
      notes,
      images,
      headings,
      comments: new Map(options.comments?.comments ?? []),
      commentSalt: await this.commentSalt(),
      ...(options.vaultPaths === undefined ? {} : { vaultPaths: options.vaultPaths }),
      ...(options.notePath === undefined
        ? {}
        : { folder: options.notePath.slice(0, Math.max(0, options.notePath.lastIndexOf("/"))) }),
    });
    if (options.text !== undefined) await this.readHeadings(options.text, context, notes, options.comments, headings);
    return context;
  }

  /**
   * The headings of the tracked notes `text` links to a heading of (`[[Note#Heading]]` in the vault
   * form, a note URL with a `#fragment` in HackMD's), read from their files, so a heading link
   * written in another case gets the anchor HackMD gives the heading as the note spells it. A note
   * whose every such question `recorded` already answers is not read (those answers are used). At
   * most HEADING_NOTES_MAX notes, read at once; a note that cannot be read is left out (the link's
   * own spelling is used).
   */
  private async readHeadings(
    text: string,
    context: ConversionContext,
    notes: ReadonlyMap<string, TrackedNote>,
    recorded: ConversionDependencies | undefined,
    into: Map<string, readonly string[]>,
  ): Promise<void> {
    if (!text.includes("#")) return;
    const known = new Set((recorded?.answers ?? []).map(([question]) => question));
    const paths = new Set<string>();
    const want = (path: string | null, heading: string): void => {
      if (path === null || paths.size >= HEADING_NOTES_MAX || !notes.has(path)) return;
      if (!known.has(`heading:${path}#${heading}`)) paths.add(path);
    };
    for (const link of headingLinks(text)) {
      if (link.name !== undefined) {
        const name = link.name.trimEnd();
        if (name !== "") want(context.answers.target("note", name), link.heading);
      } else want(context.answers.noteByUrl(link.url), link.heading);
    }
    await Promise.all(
      [...paths].map(async (path) => {
        const read = await this.files.read(path, { maxBytes: HEADING_NOTE_MAX_BYTES }).catch(() => undefined);
        if (read !== undefined) into.set(path, atxHeadings(decoder.decode(read.bytes)));
      }),
    );
  }

  /** Every file in the ROOT outside hidden folders (Obsidian's index skips them), up to a bound. */
  private async vaultPaths(): Promise<string[] | undefined> {
    return this.files.listAllFiles?.(VAULT_PATHS_MAX);
  }

  /** The vault's comment salt, created once (exclusively, so two processes agree). */
  private commentSalt(): Promise<string> {
    this.salt ??= (async () => {
      const existing = await this.files.state.read(SALT_FILE, { maxBytes: 256 });
      if (existing !== undefined) return decoder.decode(existing.bytes).trim();
      const fresh = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
        byte.toString(16).padStart(2, "0"),
      ).join("");
      if (await this.files.state.create(SALT_FILE, `${fresh}\n`)) return fresh;
      const raced = await this.files.state.read(SALT_FILE, { maxBytes: 256 });
      return raced === undefined ? fresh : decoder.decode(raced.bytes).trim();
    })();
    return this.salt;
  }

  private async readImages(): Promise<ImageEntry[]> {
    const read = await this.files.state.read(IMAGES_FILE, { maxBytes: IMAGES_MAX_BYTES });
    if (read === undefined || read.truncated) return [];
    try {
      const json = JSON.parse(decoder.decode(read.bytes)) as { images?: unknown };
      if (!Array.isArray(json.images)) return [];
      return json.images.filter(
        (entry): entry is ImageEntry =>
          typeof entry === "object" &&
          entry !== null &&
          ["workspace", "path", "hash", "url"].every(
            (field) => typeof (entry as Record<string, unknown>)[field] === "string",
          ),
      );
    } catch {
      this.logger.warn("sync_images_unreadable", {});
      return [];
    }
  }

  /** Adds or replaces the entry of a path (under the `images` lock: two processes may upload at once). */
  private async rememberImage(entry: ImageEntry): Promise<void> {
    await this.store.withLock("images", async () => {
      const kept = (await this.readImages()).filter(
        (other) => !(other.path === entry.path && other.workspace === entry.workspace),
      );
      kept.push(entry);
      await this.files.state.write(IMAGES_FILE, `${JSON.stringify({ format: 1, images: kept }, null, 1)}\n`);
    });
  }
}

/** A heading link `headingLinks` found: the note by name (a wikilink) or by URL (a link), and the heading asked about. */
export type HeadingLink =
  { name: string; url?: undefined; heading: string } | { name?: undefined; url: string; heading: string };

/**
 * The heading links of `text`: `[[Name#Heading]]` and `[label](url#fragment)` (with an optional
 * title `"Note#Heading|alias"` that `encodeTitled` in src/convert/inline.ts writes). The heading
 * is the last `#` section (`Note#A#B` asks about B), as the converter asks `heading:path#B`; a
 * title's `&#96;` is a backtick first, as `decodeLink` reads it; an untitled link's label
 * (`Note > Heading`) gives what follows its first ` > `. One pass with indexOf and
 * forward scans that never go back over what they read: linear in the text's length whatever
 * it holds (a line of `[` or `[[#` included).
 */
export function headingLinks(text: string): HeadingLink[] {
  const links: HeadingLink[] = [];
  const last = (heading: string): string => heading.slice(heading.lastIndexOf("#") + 1);
  // `[[name#heading` where name has no `]`, `|`, `#` or newline and heading no `]`, `|` or newline.
  for (let at = text.indexOf("[["); at !== -1;) {
    let i = at + 2;
    while (i < text.length && !"]|#\n".includes(text[i] as string)) i++;
    if (text[i] !== "#") {
      at = text.indexOf("[[", i);
      continue;
    }
    const name = text.slice(at + 2, i);
    let end = i + 1;
    while (end < text.length && !"]|\n".includes(text[end] as string)) end++;
    let heading = text.slice(i + 1, end);
    // In a table the alias separator is `\|`: its backslash is not the heading's.
    if (text[end] === "|" && heading.endsWith("\\")) heading = heading.slice(0, -1);
    links.push({ name, heading: last(heading) });
    at = text.indexOf("[[", end);
  }
  // `[label](url#fragment)` or `[label](url#fragment "title")`: label has no `]` or newline, url
  // no `(`, `)`, whitespace or `#`, fragment no `(`, `)` or whitespace, title no `"` or newline.
  let done = 0;
  for (let close = text.indexOf("](", done); close !== -1; close = text.indexOf("](", Math.max(close + 2, done))) {
    // The label starts at the first `[` after the previous `]`, newline or matched link.
    let open = -1;
    for (let j = close - 1; j >= done && text[j] !== "]" && text[j] !== "\n"; j--) if (text[j] === "[") open = j;
    if (open === -1) continue;
    let i = close + 2;
    while (i < text.length && !/[()\s#]/.test(text[i] as string)) i++;
    if (i === close + 2 || text[i] !== "#") continue;
    const url = text.slice(close + 2, i);
    i++;
    while (i < text.length && !/[()\s]/.test(text[i] as string)) i++;
    let heading: string | undefined;
    if (text[i] === " " && text[i + 1] === '"') {
      const quote = i + 2;
      let end = quote;
      while (end < text.length && text[end] !== '"' && text[end] !== "\n") end++;
      if (text[end] !== '"' || text[end + 1] !== ")") continue;
      const title = text.slice(text[quote] === "!" ? quote + 1 : quote, end).replace(/&#96;/g, "`");
      const bar = title.indexOf("|");
      heading = last(bar === -1 ? title : title.slice(0, bar));
      i = end + 1;
    } else if (text[i] !== ")") continue;
    if (heading === undefined) {
      // An untitled link's heading is all after the label's first ` > `, as `decodeLink` cuts it
      // (`[Note > a > b](…)` asks about `a > b`); without one the converter asks about none.
      const label = text.slice(open + 1, close);
      const cut = label.indexOf(" > ");
      if (cut !== -1) heading = label.slice(cut + 3);
    }
    if (heading !== undefined) links.push({ url, heading });
    done = i + 1;
  }
  return links;
}

/** Spaces and tabs. */
const isBlank = (code: number): boolean => code === 32 || code === 9;

/**
 * The text of an ATX heading line: after ` {0,3}#{1,6}` and spaces or tabs, without trailing
 * spaces and tabs nor a closing `#` run that follows a space or tab. What the regex
 * `^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$` captured, found with backward loops in linear
 * time (that regex was quadratic on a long run of spaces inside the heading).
 */
export function atxText(line: string): string | undefined {
  const prefix = /^ {0,3}#{1,6}[ \t]+/.exec(line);
  if (prefix === null) return undefined;
  const start = prefix[0].length;
  // `.` stops at U+2028 and U+2029, so that regex matched no line holding them.
  if (line.includes("\u2028", start) || line.includes("\u2029", start)) return undefined;
  let end = line.length;
  while (end > start && isBlank(line.charCodeAt(end - 1))) end--;
  let hashes = end;
  while (hashes > start && line.charCodeAt(hashes - 1) === 35) hashes--;
  if (hashes < end && hashes > start && isBlank(line.charCodeAt(hashes - 1))) {
    end = hashes;
    while (end > start && isBlank(line.charCodeAt(end - 1))) end--;
  }
  return line.slice(start, end);
}

/** The ATX headings of a note as written (outside front matter and fenced code), in order. */
export function atxHeadings(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  const headings: string[] = [];
  let i = 0;
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end !== -1) i = end + 1;
  }
  let fence: string | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const marks = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (
        marks !== undefined &&
        marks[0] === fence[0] &&
        marks.length >= fence.length &&
        /^ {0,3}[`~]+[ \t]*$/.test(line)
      )
        fence = undefined;
      continue;
    }
    if (marks !== undefined) {
      fence = marks;
      continue;
    }
    const heading = atxText(line);
    if (heading !== undefined && heading !== "") headings.push(heading);
  }
  return headings;
}
