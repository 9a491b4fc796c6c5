/**
 * The command's (and the test suite's) Node modules for node-apis.ts, and Node's timer for the
 * core's waits (core/ports.ts `useHostTimer`): imported for its effect by
 * the Node hosts before they use the desktop path checks, the image fetcher or the listener.
 * Never bundled into main.js (the plugin loads them through obsidian/desktop-node.ts).
 */
import * as buffer from "node:buffer";
import * as crypto from "node:crypto";
import * as dns from "node:dns";
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import * as net from "node:net";
import * as path from "node:path";
import * as process from "node:process";
import * as timers from "node:timers";
import { useHostTimer } from "../core/ports";
import { installNodeApis } from "./node-apis";

installNodeApis({ buffer, crypto, dns, fs, http, https, net, path, process, timers });
// The core's real waits (systemSleep) run on Node's timers in the Node hosts.
useHostTimer((callback, ms) => {
  timers.setTimeout(callback, ms);
});
