/**
 * The plugin's use-cases (BridgeActions) without loading them at start-up (issue 13): an object
 * with the same async methods that loads `actions.ts` (and the sync engine, HackMD client and
 * conversion it reaches) on the first call, builds the one BridgeActions instance, and forwards
 * every call to it. Every public method of BridgeActions is async, so forwarding keeps their
 * types; a command run before the load finishes just waits for it.
 */
import type { BridgeActions, BridgeActionsOptions } from "./actions";

/** A BridgeActions whose module loads on first use. */
export function lazyActions(options: BridgeActionsOptions): BridgeActions {
  let loaded: Promise<BridgeActions> | undefined;
  const load = (): Promise<BridgeActions> => (loaded ??= import("./actions").then(({ BridgeActions: Actions }) => new Actions(options)));
  const methods = new Map<PropertyKey, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy({} as BridgeActions, {
    get(_target, name) {
      // Not a thenable: `await lazyActions(...)` must not call a `then` method.
      if (name === "then") return undefined;
      let forward = methods.get(name);
      if (forward === undefined) {
        forward = async (...args: unknown[]) => {
          const actions = await load();
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
