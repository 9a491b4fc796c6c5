/**
 * A scripted HTTP server on loopback for exact status, header and timing scenarios the emulator
 * cannot produce (stalled bodies, oversized declared lengths, odd reset headers, `OK` bodies).
 * Every request is recorded; each one consumes the next scripted step.
 */
import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One recorded request. */
export interface RecordedRequest {
  method: string;
  /** Raw path as received, query included. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One scripted answer. */
export type Step =
  /** A plain response. */
  | { status: number; headers?: Record<string, string>; body?: string | Uint8Array }
  /** Read the request, then destroy the socket without answering. */
  | { drop: true }
  /** Never answer (the client must time out). */
  | { hang: true }
  /** Send headers and these chunks (with a pause before each), then end unless `stall`. */
  | {
      status: number;
      headers?: Record<string, string>;
      chunks: Array<string | Uint8Array>;
      chunkDelayMs?: number;
      /** Keep the response open after the last chunk without ending it. */
      stall?: boolean;
      /** Destroy the socket after the last chunk instead of ending. */
      cut?: boolean;
    }
  /** Full control. */
  | { handle: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void };

/** A running scripted server. */
export interface ScriptedServer {
  /** Base URL, e.g. `http://127.0.0.1:1234/v1`. */
  url: string;
  origin: string;
  /** Appends steps; each request consumes one. Unscripted requests get 599. */
  script(...steps: Step[]): void;
  /** Every request received so far. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a scripted server on 127.0.0.1 with a random port. */
export async function startScriptedServer(basePath = "/v1"): Promise<ScriptedServer> {
  const steps: Step[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const step = steps.shift() ?? { status: 599, body: "unscripted request" };
      if ("drop" in step) {
        req.socket.destroy();
      } else if ("hang" in step) {
        // Leave it open; close() destroys the socket.
      } else if ("handle" in step) {
        step.handle(req, res, body);
      } else if ("chunks" in step) {
        res.writeHead(step.status, step.headers ?? {});
        res.flushHeaders();
        const delay = step.chunkDelayMs ?? 0;
        const sendFrom = (index: number): void => {
          const chunk = step.chunks[index];
          if (chunk === undefined) {
            if (step.cut === true) req.socket.destroy();
            else if (step.stall !== true) res.end();
            return;
          }
          later(delay, () => {
            if (res.destroyed) return;
            res.write(chunk);
            sendFrom(index + 1);
          });
        };
        sendFrom(0);
      } else {
        res.writeHead(step.status, step.headers ?? {});
        res.end(step.body ?? "");
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${basePath}`,
    origin,
    script: (...more) => {
      steps.push(...more);
    },
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
