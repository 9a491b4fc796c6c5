/**
 * The HackMD emulator (HACKMD_API.md Part 2): a stateful in-memory HackMD API v1 on 127.0.0.1
 * with quirk switches, fault injection, a request log and an in-process control interface.
 * Node only; never reachable from main.ts.
 */
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { handleHttpControl } from "./control";
import { EmulatorCore } from "./core";
import { seededRandom, IdSource } from "./ids";
import { copyQuirks } from "./quirks";
import { handleRequest } from "./server";
import type { Emulator, EmulatorClock, EmulatorOptions } from "./types";

export type * from "./types";
export { defaultQuirks } from "./quirks";
export { DEMO_NOTE_IDS } from "./seed/demo";
export { SANDBOX_TEAM_ID, SANDBOX_USER_ID } from "./seed/empty";

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
  let origin = "";
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handleRequest(core, {
      basePath,
      origin: () => origin,
      control: options.control === true ? (rq, rs, body) => handleHttpControl(core, rq, rs, body) : null,
    }, req, res).catch((error: unknown) => {
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
    reset: (seed) => core.reset(seed),
    seed: (data) => core.seed(data),
    setQuirks: (partial) => core.setQuirks(partial),
    injectFault: (spec) => core.faults.add(spec),
    clearFaults: () => core.faults.clear(),
    requests: (filter) => core.log.list(filter),
    clearRequests: () => core.log.clear(),
    collaboratorEdit: (noteId, change, opts) => core.collaboratorEdit(noteId, change, opts),
    collaboratorDelete: (noteId) => core.collaboratorDelete(noteId),
    flushPending: () => core.store.flushAll(),
    inspect: () => core.store.snapshot(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
