/**
 * The plugin's use-cases (BridgeActions) without loading them at start-up (issue 13): an object
 * with the same async methods that loads what it forwards to on the first call, and forwards
 * every call to it. Every public method of BridgeActions is async, so forwarding keeps their
 * types; a command run before the load finishes just waits for it. Two layers use it: the shell
 * (main.ts) forwards to the plugin body's actions, and the body forwards to `actions.ts` (and the
 * sync engine, HackMD client and conversion it reaches), loaded on the first command.
 */
import type { BridgeActions, BridgeActionsOptions } from "./actions";

/** A BridgeActions that forwards every call to the one `load()` resolves (called once, on first use). */
export function forwardActions(load: () => Promise<BridgeActions>): BridgeActions {
  let loaded: Promise<BridgeActions> | undefined;
  const methods = new Map<PropertyKey, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy({} as BridgeActions, {
    get(_target, name) {
      // Not a thenable: `await forwardActions(...)` must not call a `then` method.
      if (name === "then") return undefined;
      let forward = methods.get(name);
      if (forward === undefined) {
        forward = async (...args: unknown[]) => {
          const actions = await (loaded ??= load());
          const method = (actions as unknown as Record<PropertyKey, unknown>)[name];
          if (typeof method !== "function") throw new TypeError(`BridgeActions has no method ${String(name)}`);
          return (method as (...a: unknown[]) => Promise<unknown>).apply(actions, args);
        };
        methods.set(name, forward);
      }
      return forward;
    },
  });
}

/** A BridgeActions whose module loads on first use. */
export function lazyActions(options: BridgeActionsOptions): BridgeActions {
  return forwardActions(() => import("./actions").then(({ BridgeActions: Actions }) => new Actions(options)));
}
