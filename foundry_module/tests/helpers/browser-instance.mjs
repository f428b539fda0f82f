/**
 * K9: each simulated browser runs its own instance of the module. Foundry loads a module's
 * `esmodules` in every browser page (https://foundryvtt.com/article/module-development/, the
 * manifest's `esmodules`), so module-level state (main.mjs's bridge link, relay queue, election;
 * visibility-canvas's runtime) is one per browser. In Node one URL is one instance: each browser
 * imports `main.mjs?browser=<user id>`, and browser-loader.mjs carries the query to the module's own
 * relative imports, so no file of the module is shared between two browsers.
 *
 * Limits: `Hooks` is read from globalThis while the module's top level runs (set to the browser's
 * own hooks here); `game`, `CONFIG` and `ui` are one per Node process, so a test running two copies'
 * handlers sets them per browser before each call.
 */
import { once } from "node:events";
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const scripts = new URL("../../scripts/", import.meta.url);

/** @type {string[]} every module file a browser's copy imported (URLs with `?browser=`) */
export const loaded = [];
const { port1, port2 } = new MessageChannel();
port1.on("message", (/** @type {string} */ url) => loaded.push(url));
port1.unref();
register("./browser-loader.mjs", import.meta.url, { data: { port: port2, root: scripts.href }, transferList: [port2] });

/**
 * Import this browser's own copy of the module; its top-level `Hooks.on`/`once` go to `hooks`.
 * @param {string} browser the browser's user id
 * @param {import("./fake-foundry.mjs").FakeHooks} hooks that browser's Hooks
 */
export async function importModuleFor(browser, hooks) {
  const g = /** @type {any} */ (globalThis);
  const before = g.Hooks;
  g.Hooks = hooks;
  try {
    await import(new URL(`main.mjs?browser=${encodeURIComponent(browser)}`, scripts).href);
  } finally {
    g.Hooks = before;
  }
}

/** Wait (on the hooks' messages, not a clock) until a browser's copy imported a file matching `predicate`. @param {(url: string) => boolean} predicate */
export async function untilLoaded(predicate) {
  while (!loaded.some(predicate)) await once(port1, "message");
}
