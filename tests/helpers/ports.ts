/** Loopback port helpers shared by the tests. */
import { createServer } from "node:net";

/** A port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

/** Whether a port on 127.0.0.1 can be listened on right now. */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}
