// The strict stand-in itself: each documented behaviour the module's tests rely on.
import assert from "node:assert/strict";
import { test } from "node:test";

import { expandObject, FakeCanvas, FakeKeybindings, FakeNetwork, FakeWorld, ForcedDeletion, ForcedReplacement, legacyOperatorWarnings, mergeUpdate } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";

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

// ---- issue 30: where the stand-in was kinder than Foundry (audit K1-K14) ----

test("K2: v14 warns of each legacy -= / == key (deprecated, removed in v16); v13 does not", () => {
  legacyOperatorWarnings.length = 0;
  mergeUpdate({ a: { b: 1 } }, { "a.-=b": null }, 13);
  assert.deepEqual(legacyOperatorWarnings, []);
  mergeUpdate({ a: { b: 1 } }, { "a.-=b": null, "==c": { d: 1 } }, 14);
  assert.deepEqual(legacyOperatorWarnings, ["-=b", "==c"]);
  legacyOperatorWarnings.length = 0;
});

test("K4: v13+ TokenLayer#setTargets targets without going through Token#setTarget, firing targetToken; v12 has none", () => {
  for (const generation of /** @type {const} */ ([12, 13])) {
    const w = new FakeWorld({ generation });
    const a = w.addActor("a", "A", {});
    w.addToken("t1", a, 0, 0);
    w.addToken("t2", a, 100, 0);
    const canvas = new FakeCanvas(w, { PIXI: FAKE_PIXI });
    canvas.draw();
    if (generation === 12) {
      assert.throws(() => canvas.tokens.setTargets(["t1"]), TypeError);
      continue;
    }
    let viaSetTarget = 0;
    for (const t of canvas.tokens.placeables) t.setTarget = () => void (viaSetTarget += 1);
    /** @type {string[]} */
    const fired = [];
    w.hooks.on("targetToken", (/** @type {any} */ _u, /** @type {any} */ t, /** @type {boolean} */ on) => void fired.push(`${t.document.id}:${on}`));
    canvas.tokens.setTargets(["t1", "t2"]);
    canvas.tokens.setTargets(["t2"], { mode: "replace" });
    assert.equal(viaSetTarget, 0, "a guard on setTarget alone is not enough");
    assert.deepEqual(fired, ["t1:true", "t2:true", "t1:false"]);
    assert.deepEqual([...(w.user.targets ?? [])].map((t) => t.document.id), ["t2"]);
  }
});

test("K9 K10 K13: each browser has its own hooks; a query handler is told who asks; activeGM prefers a full GM to an assistant", async () => {
  const w = new FakeWorld({ generation: 13 });
  w.addUser("aa", "Assistant", { isGM: true, assistant: true });
  w.addUser("pia", "Pia");
  const net = new FakeNetwork(w);
  const gm = net.connect("gm");
  const pia = net.connect("pia");
  assert.notEqual(gm.hooks, pia.hooks);
  /** @type {any[]} */
  const callers = [];
  gm.queries.ask = (/** @type {unknown} */ _data, /** @type {any} */ options) => void callers.push(options.user?.id);
  await /** @type {any} */ (pia.users().get("gm")).query("ask", {}, { timeout: 10_000 });
  assert.deepEqual(callers, ["pia"]);
  assert.equal(pia.users().activeGM?.id, "gm", "the full GM, though the assistant's id sorts first");
  /** @type {any[]} */
  const left = [];
  pia.hooks.on("userConnected", (/** @type {any} */ u, /** @type {boolean} */ on) => void left.push(`${u.id}:${on}`));
  net.disconnect("gm");
  assert.deepEqual(left, ["gm:false"]);
  assert.equal(pia.users().activeGM?.id, "aa", "then the assistant");
  await assert.rejects(net.setUserFlag(/** @type {any} */ (w.users.get("pia")), "aa", "vtt-bridge", "bridge", { since: 1 }), /lacks permission/, "a player cannot write a GM's flag");
});

test("K12: toggleStatusEffect is an Actor method only", async () => {
  const w = new FakeWorld({ generation: 13 });
  const a = w.addActor("a", "A", {});
  const token = w.addToken("t1", a, 0, 0);
  await assert.rejects(token.toggleStatusEffect("prone", { active: true }), TypeError);
  await a.toggleStatusEffect("prone", { active: true });
  assert.ok(a.statuses.has("prone"));
});
