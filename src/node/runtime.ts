/**
 * The Node host's composition root: reads the environment once, opens the ROOT, and builds a
 * core instance over the Node adapters (transport, files, image fetcher).
 */
import { BridgeError } from "../core/errors";
import { systemClock, systemRandom, systemSleep, type Logger } from "../core/ports";
import { createClientConfig, STANDALONE_TOKEN_HINT, type ClientConfig } from "../hackmd/config";
import { createBridgeCore, type BridgeCore } from "../mcp/core";
import { NodeHttpTransport } from "./http-transport";
import { NodeImageFetcher } from "./image-fetcher";
import { NodeLocalFiles } from "./local-files";
import { VERSION } from "../core/version";

/**
 * Settings read from the environment and flags (TOOLS.md §2.1). `token` is a non-enumerable
 * property, so serialising, spreading or inspecting settings never reveals it (§2.3): build
 * settings with `makeSettings`, never with an object spread.
 */
export interface NodeSettings {
  readonly token: string | undefined;
  apiUrl: string | undefined;
  root: string | undefined;
  configDir: string | undefined;
  protectAgentFiles: boolean;
}

/** Reads the environment (once, at start); a blank token counts as missing. */
export function readSettings(env: NodeJS.ProcessEnv, flags: { root?: string | undefined; configDir?: string | undefined; protectAgentFiles?: boolean | undefined }): NodeSettings {
  const token = env.HACKMD_API_TOKEN?.trim() ? env.HACKMD_API_TOKEN.trim() : undefined;
  return makeSettings(
    {
      apiUrl: env.HACKMD_API_URL,
      root: flags.root ?? (env.HACKMD_BRIDGE_ROOT?.trim() ? env.HACKMD_BRIDGE_ROOT : undefined),
      configDir: flags.configDir,
      protectAgentFiles: flags.protectAgentFiles ?? true,
    },
    token,
  );
}

/** Settings with the token attached as a non-enumerable property. */
export function makeSettings(fields: Omit<NodeSettings, "token">, token: string | undefined): NodeSettings {
  const settings = { apiUrl: fields.apiUrl, root: fields.root, configDir: fields.configDir, protectAgentFiles: fields.protectAgentFiles };
  Object.defineProperty(settings, "token", { value: token, enumerable: false, writable: false });
  return settings as NodeSettings;
}

/** Builds the client configuration; an unusable API URL is refused without echoing it. */
export function clientConfig(settings: NodeSettings): ClientConfig {
  return createClientConfig({ apiUrl: settings.apiUrl, tokenHint: STANDALONE_TOKEN_HINT });
}

/** A core instance for `mcp` and `serve`. */
export async function createNodeCore(settings: NodeSettings, logger: Logger): Promise<BridgeCore> {
  if (settings.root === undefined) {
    throw new BridgeError("invalid_input", "No root folder is set; pass --root <dir> or set HACKMD_BRIDGE_ROOT.");
  }
  const config = clientConfig(settings);
  const files = await NodeLocalFiles.open({
    root: settings.root,
    protectAgentFiles: settings.protectAgentFiles,
    ...(settings.configDir === undefined ? {} : { configDir: settings.configDir }),
  });
  if (settings.token === undefined) {
    logger.warn("no_token", { message: `No HackMD API token is configured; tools that need HackMD will fail until you ${STANDALONE_TOKEN_HINT}.` });
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
  });
}
