/**
 * The HackMD emulator (docs/hackmd-api.md Part 2): a stateful in-memory HackMD API v1 on 127.0.0.1
 * with quirk switches, fault injection, a request log and an in-process control interface.
 * Node only; never reachable from main.ts.
 */
import process from "node:process";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { handleHttpControl } from "./control";
import { EmulatorCore } from "./core";
import { seededRandom, IdSource } from "./ids";
import { EmulatorStateError, readStateFile, writeStateFile } from "./persist";
import { copyQuirks } from "./quirks";
import { handleRequest } from "./server";
import type { Emulator, EmulatorClock, EmulatorOptions } from "./types";

export type * from "./types";
export { defaultQuirks } from "./quirks";
export { DEMO_COMMENT_IDS, DEMO_NOTE_IDS } from "./seed/demo";
export { SANDBOX_TEAM_ID, SANDBOX_USER_ID } from "./seed/empty";
export { EmulatorStateError } from "./persist";

function toClock(clock: EmulatorOptions["clock"]): EmulatorClock {
  if (clock === undefined) return { now: () => Date.now() };
  if (typeof clock === "function") return { now: clock };
  return clock;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Starts an emulator on 127.0.0.1; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const random = options.random ?? seededRandom();
  const token = options.token ?? new IdSource(random).token();
  const basePath = (options.basePath ?? "/v1").replace(/\/+$/, "");
  const core = new EmulatorCore({
    clock: toClock(options.clock),
    random,
    token,
    seed: options.seed ?? "empty",
    quirks: options.quirks ?? {},
    logCapacity: options.logCapacity ?? 10_000,
  });
  const stateFile = options.stateFile;
  if (stateFile !== undefined) {
    const loaded = readStateFile(stateFile);
    if (loaded !== undefined) {
      if (!loaded.tokens.has(token))
        throw new EmulatorStateError(`${stateFile} belongs to another token; start over with a fresh state file`);
      core.store = loaded;
    }
    writeStateFile(stateFile, core.store);
  }
  /** Writes the data to the state file, if there is one; a failed write is reported, not thrown. */
  const save = (): void => {
    if (stateFile === undefined) return;
    try {
      writeStateFile(stateFile, core.store);
    } catch (error) {
      process.stderr.write(
        `emulator: could not save ${stateFile}: ${(error as { code?: string }).code ?? String(error)}\n`,
      );
    }
  };
  /** Runs an in-process change, then saves. */
  const changing =
    <A extends unknown[], R>(change: (...args: A) => R) =>
    (...args: A): R => {
      const result = change(...args);
      save();
      return result;
    };
  let origin = "";
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handleRequest(
      core,
      {
        basePath,
        origin: () => origin,
        control: options.control === true ? (rq, rs, body) => handleHttpControl(core, rq, rs, body) : null,
        afterWrite: save,
      },
      req,
      res,
    ).catch((error: unknown) => {
      process.stderr.write(`emulator: request failed: ${String(error)}\n`);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ error: "Internal server error" }));
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listen(server, options.port ?? 0);
  origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | null = null;

  return {
    url: `${origin}${basePath}`,
    origin,
    port,
    token,
    get quirks() {
      return copyQuirks(core.quirks);
    },
    reset: changing((seed?: Parameters<Emulator["reset"]>[0]) => core.reset(seed)),
    seed: changing((data: Parameters<Emulator["seed"]>[0]) => core.seed(data)),
    setQuirks: (partial) => core.setQuirks(partial),
    injectFault: (spec) => core.faults.add(spec),
    clearFaults: () => core.faults.clear(),
    requests: (filter) => core.log.list(filter),
    clearRequests: () => core.log.clear(),
    collaboratorEdit: changing(
      (noteId: string, change: Parameters<Emulator["collaboratorEdit"]>[1], opts?: { as?: string }) =>
        core.collaboratorEdit(noteId, change, opts),
    ),
    collaboratorDelete: changing((noteId: string) => core.collaboratorDelete(noteId)),
    setComments: changing((noteId: string, threads: Parameters<Emulator["setComments"]>[1]) =>
      core.setComments(noteId, threads),
    ),
    flushPending: () => core.store.flushAll(),
    inspect: () => core.store.snapshot(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          save();
          resolve();
        });
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
