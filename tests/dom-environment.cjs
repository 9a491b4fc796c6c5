// Jest environment for *.dom.test.ts: jest-environment-obsidian (Obsidian's DOM helpers on jsdom).
// Its only release requires "../node_modules/jest-message-util/build/index.js", a nested path
// that npm hoists away; we redirect that one require to the hoisted package instead of patching
// node_modules (a postinstall patch would not survive later installs).
const Module = require("node:module");
const path = require("node:path");

const brokenSuffix = path.join("node_modules", "jest-message-util", "build", "index.js");
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolveFilename(request, parent, ...rest) {
  if (
    typeof request === "string" &&
    request.endsWith(brokenSuffix.split(path.sep).join("/")) &&
    request.startsWith("..")
  ) {
    return originalResolve.call(this, "jest-message-util", parent, ...rest);
  }
  return originalResolve.call(this, request, parent, ...rest);
};

const loaded = require("jest-environment-obsidian");
const ObsidianEnvironment = loaded.default ?? loaded;

// Obsidian's renderer is a browser with Node beside it: it has TextEncoder, WebCrypto's subtle,
// fetch and Node's timers, which jsdom lacks. The plugin tests that render real DOM against the
// emulator need them; they are taken from this Node process, as Electron would supply them.
const nodeGlobals = [
  "TextEncoder",
  "TextDecoder",
  "fetch",
  "Request",
  "Response",
  "Headers",
  "AbortController",
  "AbortSignal",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "TextDecoderStream",
  "TextEncoderStream",
  "setImmediate",
  "clearImmediate",
  "structuredClone",
  "Blob",
];

class DomEnvironment extends ObsidianEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of nodeGlobals)
      if (this.global[name] === undefined && globalThis[name] !== undefined) this.global[name] = globalThis[name];
    if (this.global.crypto?.subtle === undefined)
      Object.defineProperty(this.global, "crypto", { value: require("node:crypto").webcrypto, configurable: true });
  }
}

module.exports = DomEnvironment;
