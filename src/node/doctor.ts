/**
 * `hackmd-bridge doctor`: one JSON health report (docs/tools.md §2.6). Beyond §2.6, a missing token
 * and an API URL whose path does not end in `/v1` are problems too (`ok: false`): either stops
 * every tool that needs HackMD. With `--probe-api`, an unreachable host, a host that does not
 * answer like HackMD and a rejected token are each named with their fix. Every problem names the
 * variable to change (HACKMD_API_TOKEN, HACKMD_API_URL).
 */
import * as nodePath from "node:path";
import { isBridgeError } from "../core/errors";
import { scrubSecrets } from "../core/secrets";
import { silentLogger } from "../core/ports";
import { parseRootRelative } from "../core/paths";
import { CallContext } from "../hackmd/call-context";
import { HackmdClient } from "../hackmd/client";
import { systemClock, systemRandom, systemSleep } from "../core/ports";
import { NodeHttpTransport } from "./http-transport";
import { DEFAULT_CONFIG_DIR, NodeLocalFiles } from "./local-files";
import { DEFAULT_API_URL } from "../hackmd/config";
import { clientConfig, type NodeSettings } from "./runtime";
import type { FoundSandbox } from "./sandbox-state";
import { VERSION } from "../core/version";

/** The report printed by `doctor`. */
export interface DoctorReport {
  ok: boolean;
  version: string;
  token_present: boolean;
  api_origin: string | null;
  root: { configured: boolean; exists: boolean; writable: boolean; is_vault: boolean };
  /** `path` is null when the location cannot be determined (an unusable `--config-dir`). */
  sync_state: { path: string | null; writable: boolean };
  problems: string[];
  api_probe?: { requested: true; ok: boolean; error?: string };
  /** Present when the root is a sandbox folder whose emulator the checks used (no HACKMD_API_TOKEN set). */
  sandbox?: { api_url: string };
}

/** Where a HackMD API token comes from, for the messages. */
const GET_A_TOKEN = "create one in HackMD under Settings → API";

/**
 * Runs every check and always returns a report (a failed check is a problem, never a throw).
 * Paths are judged by the Node LocalFiles adapter, exactly as the tools judge them, so a probe
 * never lands outside the ROOT; probe files are removed at once and no folder is created.
 */
export async function runDoctor(
  settings: NodeSettings,
  probeApi: boolean,
  options: { sandbox?: FoundSandbox | undefined } = {},
): Promise<DoctorReport> {
  const problems: string[] = [];
  const sandbox = options.sandbox;
  let apiOrigin: string | null = null;
  let config: ReturnType<typeof clientConfig> | undefined;
  try {
    config = clientConfig(settings);
    apiOrigin = config.api.origin;
  } catch (error) {
    problems.push(
      isBridgeError(error)
        ? error.message
        : "HACKMD_API_URL is not usable; set it to https://api.hackmd.io/v1, or unset it.",
    );
  }
  if (settings.token === undefined) {
    problems.push(
      `No HackMD API token is set, so every tool that needs HackMD fails: ${GET_A_TOKEN}, set HACKMD_API_TOKEN to it, and run doctor again (or run the sandbox, npm start, which needs none).`,
    );
  }
  if (config !== undefined && !/\/v1$/.test(config.api.basePath)) {
    const path =
      config.api.basePath === "" ? "no path" : `the path ${JSON.stringify(config.api.basePath.slice(0, 60))}`;
    problems.push(
      `HACKMD_API_URL has ${path}, but the HackMD API lives under /v1 (HackMD's is ${DEFAULT_API_URL}); add /v1 to HACKMD_API_URL, or unset it.`,
    );
  }
  const configDirUsable = settings.configDir === undefined || usableConfigDir(settings.configDir);
  if (!configDirUsable) {
    problems.push(
      `--config-dir ${JSON.stringify(settings.configDir).slice(0, 120)} does not name a folder inside the ROOT; give the vault configuration folder relative to the ROOT, e.g. --config-dir ${DEFAULT_CONFIG_DIR}.`,
    );
  }
  const root = settings.root === undefined ? undefined : nodePath.resolve(settings.root);
  const files =
    root === undefined
      ? undefined
      : await openRoot(root, configDirUsable ? settings.configDir : undefined, settings.configDir !== undefined);
  const rootExists = files !== undefined;
  const isVault = files?.root.isVault ?? false;
  const statePath = files !== undefined && configDirUsable ? files.root.stateFolder : null;
  const rootProbe = files === undefined ? undefined : await probe(files, "root");
  const stateProbe = files === undefined || statePath === null ? undefined : await probe(files, "state");
  const rootWritable = rootProbe?.writable ?? false;
  const stateWritable = stateProbe?.writable ?? false;
  if (root === undefined) problems.push("No root folder is configured; pass --root <dir> or set HACKMD_BRIDGE_ROOT.");
  else if (!rootExists) problems.push("The root folder does not exist or is not a folder.");
  else if (!rootWritable) problems.push(rootProbe?.refused ?? "The root folder is not writable.");
  if (stateProbe !== undefined && !stateWritable)
    problems.push(stateProbe.refused ?? `The sync state location ${statePath} is not writable.`);

  const report: DoctorReport = {
    ok: false,
    version: VERSION,
    token_present: settings.token !== undefined,
    api_origin: apiOrigin,
    root: { configured: root !== undefined, exists: rootExists, writable: rootWritable, is_vault: isVault },
    sync_state: { path: statePath, writable: stateWritable },
    problems,
    ...(probeApi ? { api_probe: { requested: true as const, ok: false } } : {}),
  };
  if (probeApi && report.api_probe) {
    if (config === undefined) {
      report.api_probe.error = "not sent: the API URL is not usable";
    } else {
      try {
        const client = new HackmdClient({
          transport: new NodeHttpTransport(),
          config,
          secrets: { getToken: () => settings.token },
          clock: systemClock,
          sleep: systemSleep,
          random: systemRandom,
          logger: silentLogger,
        });
        // Exactly one read-only GET /me; its profile data is deliberately not reported.
        await client.me(new CallContext());
        report.api_probe.ok = true;
      } catch (error) {
        const message = isBridgeError(error) ? error.message : "the probe failed unexpectedly";
        report.api_probe.error = scrubSecrets(message, [settings.token]).slice(0, 400);
        // A missing token is already a problem of its own.
        if (settings.token !== undefined) problems.push(probeProblem(error, config.api.origin, sandbox));
      }
    }
  }
  if (sandbox !== undefined) report.sandbox = { api_url: sandbox.apiUrl };
  report.ok = problems.length === 0;
  return report;
}

/** What a failed probe says about the setup, and the fix. */
function probeProblem(error: unknown, origin: string, sandbox: FoundSandbox | undefined): string {
  const kind = isBridgeError(error) ? error.kind : "internal";
  if (sandbox !== undefined && kind === "network") {
    return `The sandbox in ${sandbox.root} is not running (nothing answers at ${sandbox.apiUrl}); start it with npm start.`;
  }
  switch (kind) {
    case "auth":
      return `HackMD rejected HACKMD_API_TOKEN (GET /me: 401); ${GET_A_TOKEN} and set HACKMD_API_TOKEN to it.`;
    case "network":
      return `Nothing answers at ${origin} (the connection failed or timed out); check HACKMD_API_URL (HackMD's is ${DEFAULT_API_URL}) and your network.`;
    case "not_found":
      return `${origin} has no HackMD API at that path (GET /me: 404); HACKMD_API_URL should end in /v1, e.g. ${DEFAULT_API_URL}.`;
    case "rate_limited":
      return "HackMD's rate limit was reached (GET /me: 429); wait a few minutes and run doctor again.";
    default:
      return `${origin} does not answer like the HackMD API (see api_probe.error); check HACKMD_API_URL (HackMD's is ${DEFAULT_API_URL}).`;
  }
}

/** Whether a `--config-dir` value is a ROOT-relative folder name, as the tools require. */
function usableConfigDir(configDir: string): boolean {
  try {
    parseRootRelative(configDir);
    return true;
  } catch {
    return false;
  }
}

/** The ROOT through the tools' adapter, or undefined when it does not exist or is not a folder. */
async function openRoot(
  root: string,
  configDir: string | undefined,
  configDirGiven: boolean,
): Promise<NodeLocalFiles | undefined> {
  try {
    // An unusable --config-dir still makes the ROOT a vault; only its state location is unknown.
    return await NodeLocalFiles.open({
      root,
      ...(configDir === undefined ? {} : { configDir }),
      ...(configDirGiven ? { isVault: true } : {}),
    });
  } catch {
    return undefined;
  }
}

/** One writability probe; a location the tools refuse is not writable, and `refused` says why. */
async function probe(files: NodeLocalFiles, where: "root" | "state"): Promise<{ writable: boolean; refused?: string }> {
  try {
    return { writable: await files.probeWritable(where) };
  } catch (error) {
    const what = where === "root" ? "The root folder" : "The sync state location";
    return {
      writable: false,
      refused: isBridgeError(error)
        ? `${what} is refused as the tools would refuse it: ${error.message}`
        : `${what} could not be checked.`,
    };
  }
}
