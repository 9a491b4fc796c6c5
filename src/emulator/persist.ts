/**
 * Keeping an emulator's data in a file (the sandbox's state that survives a restart): the
 * committed state of every user, token, team, note, folder, folder order, visit, image, version and comment, as
 * one JSON document. Visibility delays, faults, quirks, the request log and rate-limit counts are
 * run-time state and are not kept. Writes replace the file atomically (temporary file + rename)
 * with mode 0600, because the file holds the emulator's API tokens.
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { Store } from "./store";
import type { CommentRecord, FolderState, NoteState, TeamRecord, UserRecord, VersionRecord } from "./types";

/** The format this code reads and writes. */
export const STATE_FORMAT = 1;

/** The document kept in a state file. */
interface StateDocument {
  format: number;
  kind: "hackmd-emulator-state";
  users: UserRecord[];
  teams: TeamRecord[];
  notes: Array<NoteState & { counter: number }>;
  folders: FolderState[];
  folderOrders: Record<string, Record<string, string[]>>;
  history: Record<string, Array<[string, number]>>;
  images: Array<{ name: string; contentType: string; noteId: string; base64: string }>;
  /** Added after format 1 shipped; absent in older files (read as none). */
  versions?: VersionRecord[];
  comments?: CommentRecord[];
  versionSerial?: number;
}

/** A state file that cannot be used; the message says which file and why, never its content. */
export class EmulatorStateError extends Error {
  override readonly name = "EmulatorStateError";
}

/** The committed state of a store as a JSON-ready document (pending changes count as done). */
export function storeToDocument(store: Store): StateDocument {
  return {
    format: STATE_FORMAT,
    kind: "hackmd-emulator-state",
    users: [...store.users.values()].map((user) => structuredClone(user)),
    teams: [...store.teams.values()].map((team) => structuredClone(team)),
    notes: [...store.notes.values()].map((entry) => ({ ...structuredClone(entry.committed), counter: entry.counter })),
    folders: [...store.folders.values()].map((entry) => structuredClone(entry.committed)),
    folderOrders: Object.fromEntries([...store.folderOrders].map(([key, order]) => [key, structuredClone(order)])),
    history: Object.fromEntries([...store.history].map(([user, visits]) => [user, [...visits]])),
    images: [...store.images.values()].map((image) => ({
      name: image.name,
      contentType: image.contentType,
      noteId: image.noteId,
      base64: image.bytes.toString("base64"),
    })),
    versions: [...store.versions.values()].flatMap((list) => list.map((version) => structuredClone(version))),
    comments: [...store.comments.values()].flatMap((list) => list.map((comment) => structuredClone(comment))),
    versionSerial: store.versionSerial,
  };
}

/** A store holding a document's data; throws EmulatorStateError when the document is not one. */
export function storeFromDocument(value: unknown): Store {
  if (!isObject(value) || value.kind !== "hackmd-emulator-state")
    throw new EmulatorStateError("it is not an emulator state file");
  if (value.format !== STATE_FORMAT)
    throw new EmulatorStateError(`it has format ${String(value.format)}, this emulator reads format ${STATE_FORMAT}`);
  const doc = value as unknown as StateDocument;
  for (const key of ["users", "teams", "notes", "folders", "images"] as const) {
    if (!Array.isArray(doc[key])) throw new EmulatorStateError(`its "${key}" is not a list`);
  }
  if (!isObject(doc.folderOrders) || !isObject(doc.history))
    throw new EmulatorStateError("its folder orders or visits are not objects");
  const store = new Store();
  for (const user of doc.users) {
    if (!isObject(user) || typeof user.id !== "string" || !Array.isArray(user.tokens))
      throw new EmulatorStateError("a user record is malformed");
    store.users.set(user.id, user);
    for (const token of user.tokens) store.tokens.set(token, user.id);
  }
  for (const team of doc.teams) {
    if (!isObject(team) || typeof team.id !== "string") throw new EmulatorStateError("a team record is malformed");
    store.teams.set(team.id, team);
  }
  for (const { counter, ...note } of doc.notes) {
    if (typeof note.id !== "string" || typeof note.content !== "string" || typeof counter !== "number")
      throw new EmulatorStateError("a note record is malformed");
    store.notes.set(note.id, { committed: note, visible: { ...note }, pending: [], counter });
  }
  for (const folder of doc.folders) {
    if (!isObject(folder) || typeof folder.id !== "string")
      throw new EmulatorStateError("a folder record is malformed");
    store.folders.set(folder.id, { committed: folder, visible: { ...folder }, pending: [] });
  }
  for (const [key, order] of Object.entries(doc.folderOrders)) store.folderOrders.set(key, order);
  for (const [user, visits] of Object.entries(doc.history)) store.history.set(user, new Map(visits));
  for (const image of doc.images) {
    store.images.set(image.name, {
      name: image.name,
      contentType: image.contentType,
      noteId: image.noteId,
      bytes: Buffer.from(image.base64, "base64"),
    });
  }
  for (const version of doc.versions ?? []) store.versionsOf(version.noteId).push(version);
  for (const comment of doc.comments ?? []) {
    const list = store.comments.get(comment.noteId) ?? [];
    list.push(comment);
    store.comments.set(comment.noteId, list);
  }
  store.versionSerial = typeof doc.versionSerial === "number" ? doc.versionSerial : 0;
  return store;
}

/** Reads a state file; undefined when it does not exist. Throws EmulatorStateError when unusable. */
export function readStateFile(file: string): Store | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new EmulatorStateError(`${file} cannot be read (${(error as { code?: string }).code ?? "error"})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EmulatorStateError(`${file} is not valid JSON`);
  }
  try {
    return storeFromDocument(parsed);
  } catch (error) {
    throw new EmulatorStateError(`${file} cannot be used: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Writes a store to its state file atomically, readable by the owner only. */
export function writeStateFile(file: string, store: Store): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(storeToDocument(store))}\n`, { mode: 0o600 });
  // The mode of a file that already existed is not changed by writeFileSync.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
