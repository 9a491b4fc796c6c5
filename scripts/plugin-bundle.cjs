// Builds the Obsidian plugin bundle (main.js): esbuild.config.mjs and the bundle smoke test
// (tests/bundle) both build through here, so the test loads exactly what ships. Issue 13.
//
// Two things happen beyond a plain esbuild build:
//
// 1. Stubs. The MCP SDK's `Server` imports its ajv-based JSON-schema validator at module level,
//    even when a `jsonSchemaValidator` is passed (we pass our own, src/mcp/elicitation-validator.ts);
//    the stub keeps ajv, ajv-formats and fast-uri (~130 KB) out. zod v4's `locales` namespace
//    (every language's error messages, ~145 KB) is re-exported by `zod/v4` and never used: only
//    the English messages, which zod imports on its own, are kept.
//
// 2. Chunks (production only). esbuild keeps the modules reached only through `import()` from
//    running until the import, but in one CommonJS file V8 still scans and pre-parses all of
//    their text when main.js is required. So the bundle is built with code splitting (ESM), each
//    chunk is turned into CommonJS, and main.js becomes a small module table: the entry and the
//    chunks it imports statically are plain functions; the chunks reached only through
//    `import()` are string literals, compiled with `new Function` by the table's `require` the
//    first time one is imported. At load V8 only has to find the end of those strings. The source
//    code itself never uses eval (eslint-plugin-obsidianmd forbids it there); only this build
//    step writes the loader. docs/architecture.md ("The bundle") and bench/README.md say why.
"use strict";
const { builtinModules } = require("node:module");
const { writeFile } = require("node:fs/promises");
const { deflateRawSync, inflateRawSync } = require("node:zlib");
const esbuild = require("esbuild");

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/**
 * The CodeMirror packages Obsidian provides at runtime (its sample plugin's list): they must stay
 * external so that one instance of each exists. `@codemirror/merge` is NOT among them: Obsidian
 * does not ship it, so it is bundled (and loaded lazily by the merge editor).
 */
const obsidianProvided = [
  "@codemirror/autocomplete",
  "@codemirror/collab",
  "@codemirror/commands",
  "@codemirror/language",
  "@codemirror/lint",
  "@codemirror/search",
  "@codemirror/state",
  "@codemirror/view",
  "@lezer/*",
];

/** Modules replaced by a stub in the plugin bundle (see the header). */
const stubs = {
  name: "hackmd-bridge-stubs",
  setup(build) {
    build.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](esm|cjs)[\\/]validation[\\/]ajv-provider\.js$/ }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('ajv is not bundled: pass jsonSchemaValidator (ElicitationSchemaValidator)'); } }",
      loader: "js",
    }));
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: "export {};", loader: "js" }));
  },
};

/** The esbuild options of the plugin: CommonJS for Obsidian's loader; Obsidian, Electron and CodeMirror come from the app. */
const pluginOptions = ({ version, dev = false, outfile = "main.js", plugins = [] }) => {
  return {
    entryPoints: ["src/main.ts"],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "es2022",
    external: ["obsidian", "electron", ...obsidianProvided, ...nodeBuiltins],
    sourcemap: dev ? "inline" : false,
    minify: !dev,
    treeShaking: true,
    define: { __HACKMD_BRIDGE_VERSION__: JSON.stringify(version) },
    logLevel: "info",
    plugins: [stubs, ...plugins],
  };
};

/**
 * The inflater the loader uses for the packed chunks: fflate's `inflateSync` and `strFromU8`,
 * bundled once per build into a function expression (it runs only at the first lazy import).
 */
const inflaterSource = async (minify) => {
  const result = await esbuild.build({
    stdin: { contents: 'export { inflateSync, strFromU8 } from "fflate";', resolveDir: __dirname, loader: "js" },
    bundle: true,
    format: "iife",
    globalName: "__hbFflate",
    target: "es2022",
    minify,
    write: false,
    logLevel: "warning",
  });
  return `function(){${result.outputFiles[0].text.trim()}\nreturn __hbFflate}`;
};

/** The chunks of `entry` reachable from it by static imports (evaluated at load anyway). */
const eagerChunks = (metafile, entry) => {
  const eager = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const output = metafile.outputs[queue.pop()];
    for (const edge of output.imports) {
      if (edge.kind === "import-statement" && !edge.external && !eager.has(edge.path)) {
        eager.add(edge.path);
        queue.push(edge.path);
      }
    }
  }
  return eager;
};

/**
 * Builds main.js as a module table (see the header). `options` are pluginOptions(...); the
 * result is written to `options.outfile`. Returns the sizes of the eager and lazy parts.
 */
const buildChunkedPlugin = async (options) => {
  const { outfile, format: _format, ...rest } = options;
  const outdir = "hb-chunks";
  const result = await esbuild.build({
    ...rest,
    format: "esm",
    splitting: true,
    outdir,
    entryNames: "main",
    chunkNames: "chunk-[hash]",
    write: false,
    metafile: true,
    logLevel: "warning",
  });
  const names = Object.keys(result.metafile.outputs);
  // Every import() target is an entry point of the split build too; ours is the first entry point.
  const entry = names.find((name) => result.metafile.outputs[name].entryPoint === options.entryPoints[0]);
  const eager = eagerChunks(result.metafile, entry);
  const byName = new Map(result.outputFiles.map((file) => [names.find((name) => file.path.endsWith(name.slice(outdir.length))), file.text]));
  const table = [];
  let entryCode = "";
  // The lazy chunks' code, concatenated; each table entry is its [start, end) in this text.
  let packed = "";
  let lazyChunks = 0;
  for (const name of names) {
    const transformed = await esbuild.transform(byName.get(name), {
      format: "cjs",
      target: options.target,
      minify: options.minify,
      logLevel: "warning",
    });
    // import("./chunk-X.js") becomes __hbImport("./chunk-X.js"): it inflates the packed chunks
    // first (natively where it can, so asynchronously), then requires the chunk from the table.
    const dynamicImports = result.metafile.outputs[name].imports.filter((edge) => edge.kind === "dynamic-import").length;
    let rewritten = 0;
    const code = transformed.code.trim().replace(/(?<![\w$.])import\((["'])([^"'\\]+)\1\)/g, (_match, quote, target) => {
      rewritten++;
      return `__hbImport(${quote}${target}${quote})`;
    });
    if (rewritten < dynamicImports || /(?<![\w$.])import\(/.test(code)) throw new Error(`${name}: ${dynamicImports} import() expected, ${rewritten} rewritten; one is left or not a plain string`);
    const key = `./${name.slice(outdir.length + 1)}`;
    if (name === entry) entryCode = code;
    else if (eager.has(name)) table.push(`${JSON.stringify(key)}:function(require,module,exports){${code}\n}`);
    else {
      const start = packed.length;
      packed += `${code}\n//# sourceURL=hackmd-bridge/${key.slice(2)}\n`;
      table.push(`${JSON.stringify(key)}:[${start},${packed.length}]`);
      lazyChunks++;
    }
  }
  // One deflate stream for all of them compresses better than one per chunk (shared vocabulary).
  const deflated = deflateRawSync(Buffer.from(packed, "utf8"), { level: 9 }).toString("base64");
  const loader = [
    '"use strict";',
    "// HackMD Bridge. The chunks reached only through import() are kept deflated and are inflated and",
    "// compiled on first import, so loading the plugin does not parse them (issue 13; docs/architecture.md,",
    '// "The bundle"). The readable source is in the repository named in manifest.json.',
    `var __hbChunks={${table.join(",\n")}},__hbCache={},__hbLeft=${lazyChunks},__hbText,__hbInflater=${await inflaterSource(options.minify)};`,
    `var __hbPacked="${deflated}";`,
    // Inflated once, at the first lazy import, and dropped when every lazy chunk is compiled. On
    // desktop by Node's zlib (native, synchronous); on mobile by the WebView's DecompressionStream
    // (native, asynchronous: import() waits for it); where neither exists, by fflate.
    "function __hbBytes(){if(typeof Uint8Array.fromBase64===\"function\")return Uint8Array.fromBase64(__hbPacked);var bin=atob(__hbPacked),bytes=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)bytes[i]=bin.charCodeAt(i);return bytes}",
    "function __hbZlib(){try{if(!__hbRequire(\"obsidian\").Platform.isDesktopApp)return undefined;var zlib=require(\"zlib\");return function(){return zlib.inflateRawSync(Buffer.from(__hbPacked,\"base64\")).toString(\"utf8\")}}catch(e){return undefined}}",
    "function __hbSet(text){if(__hbText===undefined)__hbText=text;__hbPacked=\"\"}",
    "function __hbUnpack(){if(__hbText===undefined){var zlib=__hbZlib();if(zlib)__hbSet(zlib());else{var fflate=__hbInflater();__hbSet(fflate.strFromU8(fflate.inflateSync(__hbBytes())))}}return __hbText}",
    "var __hbUnpacking;function __hbUnpacked(){if(__hbText!==undefined||__hbLeft===0)return Promise.resolve();",
    "if(__hbUnpacking===undefined)__hbUnpacking=__hbZlib()||typeof DecompressionStream!==\"function\"?Promise.resolve().then(__hbUnpack):",
    "new Response(new Blob([__hbBytes()]).stream().pipeThrough(new DecompressionStream(\"deflate-raw\"))).text().then(__hbSet,__hbUnpack);",
    "return __hbUnpacking}",
    // import(): the chunk's exports (esbuild's chunks mark themselves __esModule), or a namespace
    // of an external module, as esbuild's own interop would give.
    "function __hbNamespace(m){if(m&&m.__esModule)return m;var ns={default:m};if(m&&(typeof m===\"object\"||typeof m===\"function\"))for(var k in m)if(k!==\"default\")ns[k]=m[k];return ns}",
    "function __hbImport(name){return __hbUnpacked().then(function(){return __hbNamespace(__hbRequire(name))})}",
    // An external module (obsidian, electron, CodeMirror, Node built-ins) is asked of the host's
    // require once, like the one-file bundle did at load, and kept: a chunk compiled later gets
    // the same instance. A require that throws (Node built-ins on mobile) is not kept.
    "function __hbRequire(name){",
    "var cached=__hbCache[name];if(cached)return cached.exports;",
    "if(!Object.prototype.hasOwnProperty.call(__hbChunks,name)){var external=require(name);__hbCache[name]={exports:external};return external}",
    "var module={exports:{}};__hbCache[name]=module;var chunk=__hbChunks[name];",
    'if(Array.isArray(chunk)){var text=__hbUnpack();chunk=new Function("require","module","exports","__hbImport",text.slice(chunk[0],chunk[1]));if(--__hbLeft===0)__hbText="";}',
    "chunk(__hbRequire,module,module.exports,__hbImport);return module.exports}",
    `(function(require,module,exports){${entryCode}\n})(__hbRequire,module,exports);`,
    "",
  ].join("\n");
  await writeFile(outfile, loader);
  return { bytes: Buffer.byteLength(loader), lazyBytes: packed.length, packedBytes: deflated.length, chunks: names.length };
};

/** Builds the plugin: chunked in production, one plain file in development (inline source map). */
const buildPlugin = async (options) => {
  if (options.sourcemap) return esbuild.build(options);
  const sizes = await buildChunkedPlugin(options);
  if (options.logLevel === "info") {
    process.stdout.write(`\n  ${options.outfile}  ${(sizes.bytes / 1024).toFixed(1)}kb (${sizes.chunks} chunks; ${(sizes.lazyBytes / 1024).toFixed(1)}kb of code deflated to ${(sizes.packedBytes / 1024).toFixed(1)}kb, inflated and compiled on first import)\n\n`);
  }
  return sizes;
};

/** The code a built main.js holds: its own text with the packed chunks inflated (for tests and reports). */
const bundleCode = (text) => {
  const packed = /var __hbPacked="([A-Za-z0-9+/=]*)";/.exec(text);
  if (!packed) return text;
  return `${text.replace(packed[0], "")}\n${inflateRawSync(Buffer.from(packed[1], "base64")).toString("utf8")}`;
};

module.exports = { bundleCode, pluginOptions, buildPlugin, buildChunkedPlugin, nodeBuiltins, obsidianProvided };
