// The strict stand-in itself: each documented behaviour the module's tests rely on.
import assert from "node:assert/strict";
import { test } from "node:test";

import { expandObject, FakeKeybindings, FakeWorld, ForcedDeletion, ForcedReplacement, mergeUpdate } from "../helpers/fake-foundry.mjs";

test("dot-notation is expanded at every level, not only the top", () => {
  assert.deepEqual(expandObject({ "flags.vtt-bridge.energyPools": { "Potion 1.5": { current: 1 } } }), {
    flags: { "vtt-bridge": { energyPools: { "Potion 1": { 5: { current: 1 } } } } },
  });
});

test("objects are merged, so a key missing from the new value stays", () => {
  const doc = { flags: { m: { pools: { a: 1, b: 2 } } } };
  mergeUpdate(doc, { "flags.m.pools": { a: 3 } });
  assert.deepEqual(doc.flags.m.pools, { a: 3, b: 2 });
});

test("v12/v13 operators: -=key deletes (v13 only with null), ==key replaces whole", () => {
  const doc = { f: { a: { x: 1 }, b: 2 } };
  mergeUpdate(doc, { "f.==a": { y: 2 }, "f.-=b": null }, 13);
  assert.deepEqual(doc.f, { a: { y: 2 } });
  assert.throws(() => mergeUpdate({ f: { b: 1 } }, { "f.-=b": true }, 13), /needs the value null/);
  const v12 = { f: { b: 1 } };
  mergeUpdate(v12, { "f.-=b": true }, 12);
  assert.deepEqual(v12.f, {});
});

test("v14 operators: ForcedDeletion and ForcedReplacement on the plain key; v13 keeps them as values", () => {
  const doc = { f: { a: { x: 1 }, b: 2 } };
  mergeUpdate(doc, { "f.a": ForcedReplacement.create({ y: 2 }), "f.b": new ForcedDeletion() }, 14);
  assert.deepEqual(doc.f, { a: { y: 2 } });
  /** @type {Record<string, any>} */
  const v13 = { f: { b: 2 } };
  mergeUpdate(v13, { "f.b": new ForcedDeletion() }, 13);
  assert.ok(v13.f.b instanceof ForcedDeletion, "v13 has no operators: the value is stored, the key stays");
});

test("an update fires preUpdate and update with the differential data, and nothing when nothing changes", async () => {
  const w = new FakeWorld();
  const actor = w.addActor("a", "Ann", { speed: 5 });
  /** @type {any[]} */
  const seen = [];
  w.hooks.on("updateActor", (_doc, changed, _options, userId) => seen.push([changed, userId]));
  await actor.update({ "flags.vtt-bridge.speed": 5 });
  assert.deepEqual(seen, []);
  await actor.update({ "flags.vtt-bridge.speed": 6, "flags.vtt-bridge.humanoid": true });
  assert.deepEqual(seen, [[{ flags: { "vtt-bridge": { speed: 6, humanoid: true } } }, "gm"]]);
  w.hooks.on("preUpdateActor", () => false);
  await actor.update({ "flags.vtt-bridge.speed": 9 });
  assert.equal(actor.flags["vtt-bridge"].speed, 6, "a preUpdate handler returning false cancels");
});

test("a user below OWNER cannot update; a Game Master and an owner can", async () => {
  const w = new FakeWorld();
  w.addUser("p1", "Pia");
  const mine = w.addActor("a", "Ann", {}, { default: 0, p1: 3 });
  const theirs = w.addActor("b", "Bob", {}, { default: 2 });
  w.loginAs("p1");
  await mine.update({ "flags.vtt-bridge.speed": 1 });
  await assert.rejects(theirs.update({ "flags.vtt-bridge.speed": 1 }), /lacks permission/);
  assert.equal(theirs.testUserPermission(w.user, "OBSERVER"), true);
  w.loginAs("gm");
  await theirs.update({ "flags.vtt-bridge.speed": 1 });
});

test("updateEmbeddedDocuments reaches only the tokens of that scene", async () => {
  const w = new FakeWorld();
  const other = w.addScene("scene2");
  const a = w.addActor("a", "Ann", {});
  w.addToken("t1", a, 0, 0);
  const copy = w.addToken("t1", a, 0, 0, other);
  await other.updateEmbeddedDocuments("Token", [{ _id: "t1", x: 50 }]);
  assert.equal(copy.x, 50);
  assert.equal(w.scene.tokens[0].x, 0, "the token of the same id on the other scene is untouched");
  await assert.rejects(other.updateEmbeddedDocuments("Token", [{ _id: "nope", x: 1 }]), /does not exist/);
});

test("toggleStatusEffect creates and deletes an ActiveEffect, fires its hooks, then recomputes statuses", async () => {
  const w = new FakeWorld({ generation: 14 });
  const a = w.addActor("a", "Ann", {});
  /** @type {any[]} */
  const events = [];
  for (const hook of ["createActiveEffect", "deleteActiveEffect"]) {
    w.hooks.on(hook, (effect) => events.push([hook, [...effect.statuses], effect.parent.statuses.has("prone")]));
  }
  assert.ok(await a.toggleStatusEffect("prone", { active: true }));
  assert.equal(await a.toggleStatusEffect("prone", { active: true }), true, "already there");
  assert.ok(a.statuses.has("prone"));
  assert.equal(await a.toggleStatusEffect("prone", { active: false }), false);
  assert.equal(await a.toggleStatusEffect("prone", { active: false }), undefined);
  assert.deepEqual(events, [
    ["createActiveEffect", ["prone"], false],
    ["deleteActiveEffect", ["prone"], true],
  ]);
  await assert.rejects(a.toggleStatusEffect("not-configured", { active: true }), /Invalid status ID/);
});

test("[keys] keybindings: a binding names a KeyboardEvent#code and the modifiers as Foundry writes them; a key runs the actions bound to exactly it", () => {
  const keys = new FakeKeybindings();
  const bad = [{ key: "z" }, { key: "KeyZ", modifiers: ["ALT"] }, { key: "KeyZ", modifiers: ["Meta"] }, { key: "F5" }, { key: 90 }];
  for (const [i, binding] of bad.entries()) {
    assert.throws(() => keys.register("m", `bad${i}`, { name: "x", editable: [binding] }), /KeyboardEvent#code|modifier/, JSON.stringify(binding));
  }
  /** @type {string[]} */
  const ran = [];
  keys.register("m", "gm", { name: "a", editable: [{ key: "KeyZ", modifiers: ["Alt"] }], restricted: true, onDown: (/** @type {any} */ c) => (ran.push(`gm:${c.action}:${c.isAlt}`), true) });
  keys.register("m", "all", { name: "b", uneditable: [{ key: "KeyZ", modifiers: ["Alt"] }], onDown: () => (ran.push("all"), true) });
  assert.equal(keys.pressKey("KeyZ", ["Alt"], { isGM: true }), true);
  assert.deepEqual(ran, ["gm:m.gm:true"], "consumed: no further keybinds execute");
  assert.equal(keys.pressKey("KeyZ", ["Alt"], { isGM: false }), true);
  assert.deepEqual(ran.at(-1), "all", "a restricted action is skipped for a player");
  assert.equal(keys.pressKey("KeyZ", ["Alt", "Shift"], { isGM: true }), false, "other modifiers: another binding");
  assert.equal(keys.pressKey("KeyY", ["Alt"], { isGM: true }), false);
  keys.initialized = true;
  assert.throws(() => keys.register("m", "late", { name: "c" }), /after init/);
});
