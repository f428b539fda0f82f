// Issue 30 (audit F10, F6): what the module sets up in `init` survives a system that changes Foundry's
// configuration after it, and header buttons work on v12's ApplicationV2 sheets.
import assert from "node:assert/strict";
import { test } from "node:test";

import { statusForCondition } from "../../scripts/core/apply-patch.mjs";
import { statusEffectIds } from "../../scripts/foundry/compat.mjs";
import { installChatCards } from "../../scripts/foundry/ruling-messages.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";
import { clearChatGlobals, installChatGlobals } from "../helpers/chat-globals.mjs";

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`v${generation} F10: a system that replaces CONFIG.statusEffects after the module's init still gets the module's statuses at setup`, (t) => {
    const world = new FakeWorld({ generation });
    installChatGlobals(world, []);
    t.after(clearChatGlobals);
    const config = { statusEffects: world.config.statusEffects };
    installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: () => "public", config });
    assert.ok(statusEffectIds(config.statusEffects).has("worsening"), "added at init");
    // the system's own init (after the module's) replaces the list with its own statuses
    config.statusEffects = generation >= 14 ? { prone: { id: "prone", name: "Prone" } } : [{ id: "prone", name: "Prone" }];
    assert.equal(statusForCondition("worsening", statusEffectIds(config.statusEffects)), null, "gone: the condition would be skipped");
    world.hooks.callAll("setup");
    const ids = statusEffectIds(config.statusEffects);
    assert.ok(ids.has("worsening") && ids.has("prone"), "the module's statuses are back, the system's kept");
    assert.equal(statusForCondition("worsening", ids), "worsening");
  });
}
