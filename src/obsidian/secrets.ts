/**
 * The plugin's two secrets in Obsidian's secret storage (`app.secretStorage`, since 1.11.4; the
 * manifest's minAppVersion): the HackMD API token and the MCP endpoint's bearer token. Neither is
 * ever in `data.json`, logged, or shown by serialising or inspecting these objects (the storage is
 * held in a private field and `toJSON` names only the id). A blank value counts as missing (docs/tools.md
 * §2.3). SecretStorage has no delete, so clearing stores an empty string.
 *
 * The API token's id is the user's pick in the settings tab's secret picker (`SecretComponent`,
 * settings.apiTokenSecret), so a secret can be shared with other plugins from the app's keychain;
 * it is read at every use. The default pick is the id earlier versions stored the token under,
 * so a token stored before the picker existed keeps working without any step (the migration).
 */
import type { App, SecretStorage } from "obsidian";
import type { SecretSource } from "../core/ports";
import { DEFAULT_API_TOKEN_SECRET } from "../settings/schema";

/** Secret storage id the HackMD API token was stored under before the picker, and the default pick. */
export const HACKMD_TOKEN_SECRET_ID = DEFAULT_API_TOKEN_SECRET;

/** Secret storage id of the MCP endpoint's bearer token. */
export const ENDPOINT_TOKEN_SECRET_ID = "hackmd-bridge-mcp-token";

/** Random bytes in a generated endpoint token (docs/architecture.md §4). */
const ENDPOINT_TOKEN_BYTES = 32;

/** Fills a buffer with random bytes; injected so tests can be deterministic. */
export type RandomBytes = (bytes: Uint8Array) => Uint8Array;

/** One secret in secret storage, read at call time; a SecretSource for the core. */
export class StoredSecret implements SecretSource {
  readonly #id: () => string;
  // A private field: JSON.stringify and util.inspect never show it.
  readonly #storage: Pick<SecretStorage, "getSecret" | "setSecret">;

  /** `id`: the secret storage id, or a function read at every use (a user's pick; `""`: none). */
  constructor(options: { storage: Pick<SecretStorage, "getSecret" | "setSecret">; id: string | (() => string) }) {
    this.#storage = options.storage;
    const id = options.id;
    this.#id = typeof id === "string" ? () => id : id;
  }

  /** The secret storage id in use now (`""` when no secret is picked). */
  get id(): string {
    return this.#id();
  }

  /** The secret, or undefined when it is missing, blank, not picked or the storage cannot be read. */
  getToken(): string | undefined {
    const id = this.id;
    if (id === "") return undefined;
    let value: string | null;
    try {
      value = this.#storage.getSecret(id);
    } catch {
      // A locked or unavailable keychain reads as "no token": calls then fail with `auth`.
      return undefined;
    }
    const trimmed = value?.trim();
    return trimmed === undefined || trimmed === "" ? undefined : trimmed;
  }

  /** Whether a non-blank secret is stored. */
  isSet(): boolean {
    return this.getToken() !== undefined;
  }

  /** Stores the secret trimmed; a blank value clears it. Nothing happens when no id is picked. */
  set(value: string): void {
    if (this.id !== "") this.#storage.setSecret(this.id, value.trim());
  }

  /** Forgets the secret (stores an empty string: SecretStorage has no delete). */
  clear(): void {
    if (this.id !== "") this.#storage.setSecret(this.id, "");
  }

  /** Serialises to the id only, never the value. */
  toJSON(): { id: string } {
    return { id: this.id };
  }
}

/** Both secrets of the plugin. */
export class PluginSecrets {
  /** The HackMD API token (the core's SecretSource). */
  readonly hackmdToken: StoredSecret;
  /** The bearer token MCP clients must send to the endpoint. */
  readonly endpointToken: StoredSecret;
  readonly #random: RandomBytes;

  /** `tokenSecretId`: the API token's id, read at every use (settings.apiTokenSecret; default the old fixed id). */
  constructor(options: { app: Pick<App, "secretStorage">; random?: RandomBytes; tokenSecretId?: () => string }) {
    this.hackmdToken = new StoredSecret({
      storage: options.app.secretStorage,
      id: options.tokenSecretId ?? HACKMD_TOKEN_SECRET_ID,
    });
    this.endpointToken = new StoredSecret({ storage: options.app.secretStorage, id: ENDPOINT_TOKEN_SECRET_ID });
    this.#random = options.random ?? ((bytes) => crypto.getRandomValues(bytes));
  }

  /** The endpoint token, generating and storing one first when none is set. */
  ensureEndpointToken(): string {
    return this.endpointToken.getToken() ?? this.regenerateEndpointToken();
  }

  /** Replaces the endpoint token with 32 fresh random bytes (base64url) and returns it. */
  regenerateEndpointToken(): string {
    const token = base64url(this.#random(new Uint8Array(ENDPOINT_TOKEN_BYTES)));
    this.endpointToken.set(token);
    return token;
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
