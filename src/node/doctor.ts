/** `hackmd-bridge doctor`: one JSON health report (TOOLS.md §2.6). */
import { randomBytes } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import * as nodePath from "node:path";
import { isBridgeError } from "../core/errors";
import { scrubSecrets } from "../core/secrets";
import { silentLogger } from "../core/ports";
import { syncStateFolder } from "../core/paths";
import { CallContext } from "../hackmd/call-context";
import { HackmdClient } from "../hackmd/client";
import { systemClock, systemRandom, systemSleep } from "../core/ports";
import { NodeHttpTransport } from "./http-transport";
import { clientConfig, type NodeSettings } from "./runtime";
import { VERSION } from "../core/version";

/** The report printed by `doctor`. */
export interface DoctorReport {
  ok: boolean;
  version: string;
  token_present: boolean;
  api_origin: string | null;
  root: { configured: boolean; exists: boolean; writable: boolean; is_vault: boolean };
  sync_state: { path: string; writable: boolean };
  problems: string[];
  api_probe?: { requested: true; ok: boolean; error?: string };
}

/** Runs every check; writes nothing that stays (probe files are removed at once). */
export async function runDoctor(settings: NodeSettings, probeApi: boolean): Promise<DoctorReport> {
  const problems: string[] = [];
  let apiOrigin: string | null = null;
  let config: ReturnType<typeof clientConfig> | undefined;
  try {
    config = clientConfig(settings);
    apiOrigin = config.api.origin;
  } catch (error) {
    problems.push(isBridgeError(error) ? error.message : "The HackMD API URL is not usable.");
  }
  const root = settings.root === undefined ? undefined : nodePath.resolve(settings.root);
  const rootExists = root !== undefined && (await isFolder(root));
  const configDir = settings.configDir ?? ".obsidian";
  const isVault = rootExists && (settings.configDir !== undefined || (await isFolder(nodePath.join(root, ".obsidian"))));
  const statePath = syncStateFolder({ isVault, configDir });
  const rootWritable = rootExists && (await canCreateFile(root));
  let stateWritable = false;
  if (rootExists) stateWritable = await canCreateFile(await nearestExisting(root, statePath));
  if (root === undefined) problems.push("No root folder is configured; pass --root <dir> or set HACKMD_BRIDGE_ROOT.");
  else if (!rootExists) problems.push("The root folder does not exist or is not a folder.");
  else if (!rootWritable) problems.push("The root folder is not writable.");
  if (rootExists && !stateWritable) problems.push(`The sync state location ${statePath} is not writable.`);

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
      }
      if (!report.api_probe.ok) problems.push("The API probe (GET /me) failed; see api_probe.error.");
    }
  }
  report.ok = problems.length === 0;
  return report;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await fsp.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The state folder, or its nearest existing ancestor inside the root (doctor never creates it). */
async function nearestExisting(root: string, relative: string): Promise<string> {
  let current = nodePath.join(root, relative);
  while (current !== root && !(await isFolder(current))) current = nodePath.dirname(current);
  return current;
}

/** A real probe: create a private hidden file exclusively, then remove it. */
async function canCreateFile(folder: string): Promise<boolean> {
  const probe = nodePath.join(folder, `.hackmd-bridge-doctor.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await fsp.open(probe, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    await handle.close();
    await fsp.rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}
