/**
 * The Node host's composition root: reads the environment once, opens the ROOT, and builds a
 * core instance over the Node adapters (transport, files, image fetcher).
 */
import { BridgeError, isBridgeError } from "../core/errors";
import type { Words } from "../core/wording";
import { systemClock, systemRandom, systemSleep, type Logger } from "../core/ports";
import { createClientConfig, DEFAULT_API_URL, STANDALONE_TOKEN_HINT, type ClientConfig } from "../hackmd/config";
import { createBridgeCore, type BridgeCore } from "../mcp/core";
import { NodeHttpTransport } from "./http-transport";
import { NodeImageFetcher } from "./image-fetcher";
// Node's modules for the code the plugin shares (node-apis.ts): this host has them at start.
import "./node-apis-install";
import { NodeLocalFiles } from "./local-files";
import { VERSION } from "../core/version";

/**
 * Settings read from the environment and flags (docs/tools.md §2.1). `token` is a non-enumerable
 * property, so serialising, spreading or inspecting settings never reveals it (§2.3): build
 * settings with `makeSettings`, never with an object spread.
 */
export interface NodeSettings {
  readonly token: string | undefined;
  apiUrl: string | undefined;
  root: string | undefined;
  configDir: string | undefined;
  protectAgentFiles: boolean;
  /** HACKMD_BRIDGE_REQUIRE_VERSION=1: refuse an overwrite when no version of HackMD's text could be saved first. */
  requireVersion?: boolean;
  /** What a failed connection means (set for a sandbox folder: the sandbox is not running). */
  unreachableHint?: string;
}

/** The environment variables the command reads: process.env, or the ones a test passes. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Reads the environment (once, at start); a blank token counts as missing. */
export function readSettings(
  env: Environment,
  flags: { root?: string | undefined; configDir?: string | undefined; protectAgentFiles?: boolean | undefined },
): NodeSettings {
  const token = env.HACKMD_API_TOKEN?.trim() ? env.HACKMD_API_TOKEN.trim() : undefined;
  return makeSettings(
    {
      apiUrl: env.HACKMD_API_URL,
      root: flags.root ?? (env.HACKMD_BRIDGE_ROOT?.trim() ? env.HACKMD_BRIDGE_ROOT : undefined),
      configDir: flags.configDir,
      protectAgentFiles: flags.protectAgentFiles ?? true,
      requireVersion: env.HACKMD_BRIDGE_REQUIRE_VERSION?.trim() === "1",
    },
    token,
  );
}

/** Settings with the token attached as a non-enumerable property. */
export function makeSettings(fields: Omit<NodeSettings, "token">, token: string | undefined): NodeSettings {
  const settings = {
    apiUrl: fields.apiUrl,
    root: fields.root,
    configDir: fields.configDir,
    protectAgentFiles: fields.protectAgentFiles,
    ...(fields.requireVersion === undefined ? {} : { requireVersion: fields.requireVersion }),
    ...(fields.unreachableHint === undefined ? {} : { unreachableHint: fields.unreachableHint }),
  };
  Object.defineProperty(settings, "token", { value: token, enumerable: false, writable: false });
  return settings as NodeSettings;
}

/** Where the standalone command's API URL is fixed. */
export const API_URL_HINT = `set HACKMD_API_URL to the API URL (HackMD's is ${DEFAULT_API_URL}, or unset it for that) and restart hackmd-bridge`;

/** The message of an unusable HACKMD_API_URL; it never repeats the value (it may hold credentials). */
export const INVALID_API_URL =
  "HACKMD_API_URL is not usable: it must be an absolute https URL without credentials, query or fragment " +
  `(plain http only for a loopback host such as 127.0.0.1); set it to HackMD's ${DEFAULT_API_URL}, or unset it.`;

/** Builds the client configuration; an unusable API URL is refused naming HACKMD_API_URL, without echoing it. */
export function clientConfig(settings: NodeSettings, words?: Words): ClientConfig {
  try {
    return createClientConfig({
      apiUrl: settings.apiUrl,
      tokenHint: STANDALONE_TOKEN_HINT,
      apiUrlHint: API_URL_HINT,
      ...(words === undefined ? {} : { words }),
      ...(settings.unreachableHint === undefined ? {} : { unreachableHint: settings.unreachableHint }),
    });
  } catch (error) {
    if (isBridgeError(error, "invalid_input")) throw new BridgeError("invalid_input", INVALID_API_URL);
    throw error;
  }
}

/**
 * A core instance over the settings. `words` is the vocabulary its messages use for their fixes:
 * the tools' (default) for `mcp` and `serve`, the command line's for the human subcommands.
 */
export async function createNodeCore(
  settings: NodeSettings,
  logger: Logger,
  options: { words?: Words } = {},
): Promise<BridgeCore> {
  if (settings.root === undefined) {
    throw new BridgeError("invalid_input", "No root folder is set; pass --root <dir> or set HACKMD_BRIDGE_ROOT.");
  }
  const config = clientConfig(settings, options.words);
  const files = await NodeLocalFiles.open({
    root: settings.root,
    protectAgentFiles: settings.protectAgentFiles,
    ...(options.words === undefined ? {} : { words: options.words }),
    ...(settings.configDir === undefined ? {} : { configDir: settings.configDir }),
  });
  if (settings.token === undefined) {
    logger.warn("no_token", {
      message: `No HackMD API token is configured; tools that need HackMD will fail until you ${STANDALONE_TOKEN_HINT}.`,
    });
  }
  return createBridgeCore({
    transport: new NodeHttpTransport(),
    config,
    secrets: { getToken: () => settings.token },
    files,
    images: new NodeImageFetcher({ version: VERSION }),
    clock: systemClock,
    sleep: systemSleep,
    random: systemRandom,
    logger,
    ...(options.words === undefined ? {} : { words: options.words }),
    // In an Obsidian vault, notes are written in Obsidian's syntax (docs/conversion-rules.md); any other folder byte for byte.
    convertByDefault: () => files.root.isVault,
    hostLabel: "hackmd-bridge",
    requireVersion: () => settings.requireVersion === true,
    requireVersionHint: "unset HACKMD_BRIDGE_REQUIRE_VERSION (or set it to 0)",
  });
}
