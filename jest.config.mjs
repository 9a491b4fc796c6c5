/** Two projects: `unit` runs in Node; `dom` runs *.dom.test.ts with Obsidian's DOM helpers. */
const common = {
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json", diagnostics: false }],
  },
  moduleNameMapper: {
    "^obsidian$": "<rootDir>/tests/__mocks__/obsidian.ts",
  },
  moduleFileExtensions: ["ts", "js", "json"],
  // Node's modules for the code the plugin shares with the command (src/node/node-apis.ts), as
  // the command installs them at start.
  setupFiles: ["<rootDir>/src/node/node-apis-install.ts"],
};

export default {
  testTimeout: 30000,
  // One worker per core. Jest's default (cores − 1) is a single worker on a 2-core machine, and
  // most suites wait on loopback HTTP and child processes: two workers took the suite from
  // 453 s to 190 s on the 2-core CI machine.
  maxWorkers: "100%",
  projects: [
    {
      ...common,
      displayName: "unit",
      testEnvironment: "node",
      testMatch: ["<rootDir>/tests/**/*.test.ts"],
      testPathIgnorePatterns: ["\\.dom\\.test\\.ts$", "/node_modules/"],
    },
    {
      ...common,
      displayName: "dom",
      testEnvironment: "<rootDir>/tests/dom-environment.cjs",
      // jsdom resolves the "browser" export condition; the MCP SDK's HTTP client (test tooling that
      // talks to the plugin's endpoint) needs pkce-challenge's Node build, as Electron would load it.
      moduleNameMapper: {
        ...common.moduleNameMapper,
        "^pkce-challenge$": "<rootDir>/node_modules/pkce-challenge/dist/index.node.cjs",
      },
      testMatch: ["<rootDir>/tests/**/*.dom.test.ts"],
    },
  ],
};
