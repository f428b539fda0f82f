// main.mjs's hook wiring, imported as Foundry imports it (before `game` exists) with the stand-in's
// hooks; only what can be checked without a running Foundry.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FakeHooks } from "../helpers/fake-foundry.mjs";

const g = /** @type {any} */ (globalThis);

/** @param {number} generation */
async function wiring(generation) {
  const hooks = new FakeHooks();
  g.Hooks = hooks;
  delete g.game; // Foundry imports the module before it creates `game`
  await import(`../../scripts/main.mjs?v${generation}`);
  const atImport = [...hooks.handlers.keys()];
  g.game = { release: { generation } };
  for (const fn of hooks.handlers.get("init") ?? []) {
    try {
      fn();
    } catch {
      // the module's own init needs a running Foundry (settings, canvas); only the hooks matter here
    }
  }
  return { atImport, after: [...hooks.handlers.keys()].filter((k) => (hooks.handlers.get(k) ?? []).length) };
}

test("item 6: renderChatMessage is listened to on v12 only; v13+ uses renderChatMessageHTML alone", async () => {
  const v13 = await wiring(13);
  assert.ok(!v13.atImport.includes("renderChatMessage"), "nothing version-specific is registered before game exists");
  assert.ok(v13.after.includes("renderChatMessageHTML"));
  assert.ok(!v13.after.includes("renderChatMessage"));
  const v12 = await wiring(12);
  assert.ok(v12.after.includes("renderChatMessage"));
  assert.ok(!v12.after.includes("renderChatMessageHTML"));
});
