/** The `hackmd-bridge` standalone command. */
async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === "--version") {
    process.stdout.write("hackmd-bridge 0.1.0\n");
    return 0;
  }
  process.stderr.write("usage: hackmd-bridge <mcp|serve|doctor|emulator> [options]\n");
  return 2;
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
