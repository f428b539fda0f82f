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

test("F6: v12 ApplicationV2 actor sheet: the header buttons' actions are the sheet's own actions (v12 entries have no onClick); v13 keeps onClick", async () => {
  for (const generation of [12, 13]) {
    const hooks = new FakeHooks();
    g.Hooks = hooks;
    delete g.game;
    await import(`../../scripts/main.mjs?f6v${generation}`);
    g.game = { release: { generation } };
    const [handler] = hooks.handlers.get("getHeaderControlsActorSheetV2") ?? [];
    assert.ok(handler);
    const app = { document: { isOwner: true, uuid: "Actor.a", name: "Ann" }, options: { actions: { existing: () => "kept" } } };
    /** @type {any[]} */
    const controls = [];
    handler(app, controls);
    assert.equal(controls.length, 4);
    for (const control of controls) {
      assert.equal(typeof control.action, "string");
      if (generation === 12) {
        assert.ok(!("onClick" in control), "v12: no onClick");
        assert.equal(typeof (/** @type {any} */ (app.options.actions)[control.action]), "function", `v12: ${control.action} is an action of the sheet`);
      } else {
        assert.equal(typeof control.onClick, "function");
      }
    }
    assert.equal(app.options.actions.existing(), "kept", "the sheet's own actions stay");
    const notOwner = { document: { isOwner: false }, options: { actions: {} } };
    /** @type {any[]} */
    const none = [];
    handler(notOwner, none);
    assert.deepEqual(none, []);
  }
  delete g.game;
  delete g.Hooks;
});
