// Jest environment for *.dom.test.ts: jest-environment-obsidian (Obsidian's DOM helpers on jsdom).
// Its only release requires "../node_modules/jest-message-util/build/index.js", a nested path
// that npm hoists away; we redirect that one require to the hoisted package instead of patching
// node_modules (a postinstall patch would not survive later installs).
const Module = require("node:module");
const path = require("node:path");

const brokenSuffix = path.join("node_modules", "jest-message-util", "build", "index.js");
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolveFilename(request, parent, ...rest) {
  if (typeof request === "string" && request.endsWith(brokenSuffix.split(path.sep).join("/")) && request.startsWith("..")) {
    return originalResolve.call(this, "jest-message-util", parent, ...rest);
  }
  return originalResolve.call(this, request, parent, ...rest);
};

const loaded = require("jest-environment-obsidian");
module.exports = loaded.default ?? loaded;
