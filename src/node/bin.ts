/**
 * The `hackmd-bridge` executable (dist/cli.js is built from this file): runs the command line of
 * ./cli.ts on this process's arguments and sets the exit code. Kept apart from cli.ts so that
 * importing the command's modules (tests, benches) never starts it.
 */
import process from "node:process";
import { main } from "./cli";

// `hackmd-bridge status | head`: a reader that stops early is not an error (as for cat or git).
process.stdout.on("error", (error: Error & { code?: string }) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
