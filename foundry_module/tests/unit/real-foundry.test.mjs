// What a real Foundry breaks (issue 14), each run against the strict stand-in: a test per item.
import assert from "node:assert/strict";
import { test } from "node:test";

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import * as forward from "../../scripts/core/forward.mjs";
import { moveFromTokenUpdate, roundFromCombatUpdate, upsertsFromActorUpdate } from "../../scripts/core/forward.mjs";
import { actorState, tokenAreaFlags, tokenVisibilityFlags } from "../../scripts/core/messages.mjs";
import { defineRulesSheet, parseSheetForm, rulesSheetHtml } from "../../scripts/foundry/rules-sheet.mjs";
import { readForm } from "../helpers/form-reader.mjs";
import { i18nFor } from "../helpers/i18n.mjs";
import { locateStateFor } from "../../scripts/core/visibility.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

/** What main.mjs reads on a sync: the scene's actors' rules flags now (messages.mjs `actorFlags`). @param {any} scene */
function actorFlags(scene) {
  return Object.fromEntries(scene.tokens.map((/** @type {any} */ t) => [t.actor.uuid, structuredClone(t.actor.flags["vtt-bridge"])]));
}

const POOL = { name: "Ki", category: "general", region: "eastern", keyAttributes: ["STA"], max: 3, current: 3 };

/**
 * A GM client: a world of one version, an applier writing into it as main.mjs wires it (scenes by
 * id, Foundry's flags read on a sync).
 * @param {12|13|14} [generation]
 */
function gm(generation = 13) {
  const w = new FakeWorld({ generation });
  const ann = w.addActor("a", "Ann", { health: { max: 7 }, energyPools: { ki: POOL, old: { ...POOL, name: "Old" } } });
  const t1 = w.addToken("t1", ann, 0, 0);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator(w.env),
    foundryVisibility: (id) => (id ? tokenVisibilityFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryAreas: (id) => (id ? tokenAreaFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryActors: (id) => (id ? actorFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
  return { w, ann, t1, applier };
}

/** @param {Record<string, any>} actors @param {Record<string, any>} [tokens] @returns {any} */
function syncResult(actors, tokens = { t1: { actor: "Actor.a", x: 0, y: 0, elevation: 0 } }) {
  return {
    mode: /** @type {const} */ ("sync"),
    rev: 1,
    patch: [
      { op: "replace", path: "/scene", value: { id: "scene1", round: 0 } },
      { op: "replace", path: "/actors", value: actors },
      { op: "replace", path: "/tokens", value: tokens },
      { op: "replace", path: "/visibility", value: {} },
    ],
    log: [],
    source: /** @type {const} */ ("result"),
  };
}

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`item 3 (v${generation}): a key a sync result lacks is deleted from Foundry's flags, not merged back`, async () => {
    const { ann, applier } = gm(generation);
    assert.ok(await applier.apply(syncResult({ "Actor.a": { name: "Ann", health: { max: 7 }, energyPools: { ki: POOL } } })));
    assert.deepEqual(Object.keys(ann.flags["vtt-bridge"].energyPools), ["ki"]);
    assert.deepEqual(actorState(ann).energyPools, { ki: POOL });
  });
}

test("item 3: a sync writes only what Foundry does not have already", async () => {
  const { ann, applier } = gm();
  await applier.apply(syncResult({ "Actor.a": { name: "Ann", health: { max: 7 }, energyPools: { ki: POOL }, status: "unharmed" } }));
  const written = Object.keys(ann.updates[0].changes).filter((k) => k !== "_id").sort();
  assert.deepEqual(written, ["flags.vtt-bridge.energyPools.-=old", "flags.vtt-bridge.status"]);
});

test("item 4: a move on a duplicated scene (same token ids) is not forwarded", () => {
  const w = new FakeWorld();
  const copy = w.addScene("copy");
  const ann = w.addActor("a", "Ann", {});
  w.addToken("t1", ann, 0, 0);
  const twin = w.addToken("t1", ann, 0, 0, copy);
  const mirror = { scene: { id: "scene1" }, tokens: { t1: { actor: "Actor.a", x: 0, y: 0, elevation: 0 } } };
  assert.equal(moveFromTokenUpdate(twin, { x: 100 }, {}, mirror), null);
  assert.deepEqual(moveFromTokenUpdate(w.scene.tokens[0], { x: 100 }, {}, mirror)?.kind, "move");
});

test("item 4: only a combat of the synced scene (or the active unlinked one) ticks rounds", () => {
  const mirror = { scene: { id: "scene1", round: 1 } };
  assert.equal(roundFromCombatUpdate({ scene: { id: "other" }, active: true }, { round: 2 }, {}, mirror), null);
  assert.equal(roundFromCombatUpdate({ scene: null, active: false }, { round: 2 }, {}, mirror), null);
  assert.deepEqual(roundFromCombatUpdate({ scene: null, active: true }, { round: 2 }, {}, mirror), { kind: "round", round: 2 });
  assert.deepEqual(roundFromCombatUpdate({ scene: { id: "scene1" } }, { round: 2 }, {}, mirror), { kind: "round", round: 2 });
});

test("item 4: a patch in flight during a scene change lands on the synced scene, not the viewed one", async () => {
  const w = new FakeWorld();
  const copy = w.addScene("copy");
  const ann = w.addActor("a", "Ann", {});
  const t1 = w.addToken("t1", ann, 0, 0);
  const twin = w.addToken("t1", ann, 0, 0, copy);
  const viewed = copy; // the GM switched to the duplicate while the patch was in flight
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator(w.env),
    // (id === undefined) is what the module asked for before: "the scene on the canvas"
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id === undefined ? viewed : w.scenes.get(id)), fromUuid: (u) => w.fromUuid(u) }),
  });
  await applier.apply(syncResult({ "Actor.a": { name: "Ann" } }));
  await applier.apply({
    mode: "patch",
    rev: 2,
    patch: [{ op: "test", path: "/rev", value: 1 }, { op: "replace", path: "/tokens/t1/x", value: 300 }, { op: "replace", path: "/rev", value: 2 }],
    log: [],
    source: "patch",
  });
  assert.equal(t1.x, 300);
  assert.equal(twin.x, 0);
});

test("item 3: after a sidecar deletion the forwarder still sees the Foundry edit that follows", async () => {
  const { w, ann, applier } = gm();
  await applier.apply(syncResult({ "Actor.a": { name: "Ann", health: { max: 7 }, energyPools: { ki: POOL, old: { ...POOL, name: "Old" } } } }));
  /** @type {any[]} */
  const upserts = [];
  w.hooks.on("updateActor", (actor, changes, options) => upserts.push(...upsertsFromActorUpdate(actor, changes, options, applier.state)));
  await ann.update({ "flags.vtt-bridge.energyPools.-=old": null });
  assert.deepEqual(upserts, [{ path: "/actors/Actor.a/energyPools", value: { ki: POOL } }]);
});

/** The form as the sheet renders it for `flags` (what FormDataExtended would submit untouched). @param {Record<string, any>} flags */
function renderedForm(flags) {
  return readForm(rulesSheetHtml(flags, { fields: [], name: "" }, i18nFor("en")));
}

/** `form` without the row of `list` that came from `from` (the GM clicked its remove button). @param {Record<string, unknown>} form @param {string} list @param {string} from */
function withoutRow(form, list, from) {
  const row = Object.keys(form).find((k) => k.startsWith(`list.${list}.`) && k.endsWith("._from") && form[k] === from);
  const prefix = row?.slice(0, -"_from".length) ?? "\0";
  return Object.fromEntries(Object.entries(form).filter(([k]) => !k.startsWith(prefix)));
}

test("item 2: what a dotted key becomes in Foundry (why it must never be written)", async () => {
  const w = new FakeWorld();
  const ann = w.addActor("a", "Ann", {});
  await ann.update({ "flags.vtt-bridge.energyPools.Potion 1.5": POOL });
  assert.deepEqual(Object.keys(actorState(ann).energyPools), ["Potion 1"], "stored as energyPools['Potion 1']['5']");
});

test("item 2: the rules sheet refuses a pool id Foundry would expand, and says which slug to use", () => {
  const flags = { energyPools: {} };
  const form = { ...renderedForm(flags), "list.energyPools.0.id": "Potion 1.5", "list.energyPools.0.name": "Potion", "list.energyPools.0.category": "general", "list.energyPools.0.current": "1", "list.energyPools.0.max": "1" };
  const { update, errors } = parseSheetForm(form, flags);
  assert.deepEqual(update, {});
  assert.deepEqual(errors.map((e) => [e.field, e.problem, e.cell?.suggestion]), [["list.energyPools.0.id", "key", "potion-1-5"]]);
});

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`item 3 (v${generation}): a pool removed in the rules sheet is deleted from the actor`, async () => {
    const { w, ann } = gm(generation);
    const flags = ann.flags["vtt-bridge"];
    assert.deepEqual(Object.keys(flags.energyPools).sort(), ["ki", "old"]);
    const form = withoutRow(renderedForm(flags), "energyPools", "old");
    const { update, errors } = parseSheetForm(form, flags, { deletion: deletionOperator(w.env), rendered: flags });
    assert.deepEqual(errors, []);
    await ann.update(update);
    assert.deepEqual(Object.keys(ann.flags["vtt-bridge"].energyPools), ["ki"]);
  });
}

test("item 6: the rules sheet is a DocumentSheetV2 that saves only what the GM changed, never a stale value", async () => {
  const { w, ann } = gm();
  class DocumentSheetV2 {
    /** @param {any} options */
    constructor(options) {
      this.document = options.document;
    }
  }
  const Sheet = defineRulesSheet({ DocumentSheetV2, HandlebarsApplicationMixin: (base) => class extends base {} }, { localize: (k) => k, notifyError: () => {}, deletion: deletionOperator(w.env) });
  const sheet = new Sheet({ document: ann });
  await sheet._prepareContext();
  const form = { ...renderedForm(ann.flags["vtt-bridge"]), speed: 9 };
  // the sidecar spends a Ki point while the sheet is open
  await ann.update({ "flags.vtt-bridge.energyPools.ki.current": 2 }, { "vtt-bridge": { origin: "sidecar" } });
  await Sheet.DEFAULT_OPTIONS.form.handler.call(sheet, new Event("submit"), /** @type {any} */ ({}), { object: form });
  assert.equal(ann.flags["vtt-bridge"].speed, 9);
  assert.equal(ann.flags["vtt-bridge"].energyPools.ki.current, 2, "the spent point is not refunded by a stale form");
  assert.deepEqual(Object.keys(ann.updates.at(-1)?.changes ?? {}), ["flags.vtt-bridge.speed"]);
});

/**
 * What main.mjs runs on create/deleteActiveEffect: `upsertsFromEffectEvent`, or (the module as it
 * was) the statuses read back from Actor#statuses inside the hook.
 * @param {any} effect @param {boolean} created @param {any} mirror
 */
function effectUpserts(effect, created, mirror) {
  if (typeof forward.upsertsFromEffectEvent === "function") return forward.upsertsFromEffectEvent(effect, created, mirror);
  const actor = effect.parent;
  return forward.upsertsFromStatusChange(actor, effect.statuses, (/** @type {string} */ s) => !!actor.statuses?.has(s), mirror);
}

test("item 6: a status toggled in the token HUD reaches the sidecar, read from the event's effect", async () => {
  const w = new FakeWorld();
  const ann = w.addActor("a", "Ann", {});
  const mirror = { scene: { id: "scene1" }, actors: { "Actor.a": { name: "Ann", conditions: { prone: false } } } };
  /** @type {any[]} */
  const upserts = [];
  w.hooks.on("createActiveEffect", (effect) => upserts.push(...effectUpserts(effect, true, mirror)));
  w.hooks.on("deleteActiveEffect", (effect) => upserts.push(...effectUpserts(effect, false, mirror)));
  await ann.toggleStatusEffect("prone", { active: true });
  assert.deepEqual(upserts, [{ path: "/actors/Actor.a/conditions/prone", value: true }]);
  mirror.actors["Actor.a"].conditions.prone = true;
  upserts.length = 0;
  await ann.toggleStatusEffect("prone", { active: false });
  assert.deepEqual(upserts, [{ path: "/actors/Actor.a/conditions/prone", value: false }]);
});

test("item 4: a token deleted in Foundry while its visibility update is in flight does not fail the batch", async () => {
  const { w, ann, applier } = gm();
  const t2 = w.addToken("t2", ann, 100, 0);
  await applier.apply(syncResult({ "Actor.a": { name: "Ann" } }, { t1: { actor: "Actor.a", x: 0, y: 0, elevation: 0 }, t2: { actor: "Actor.a", x: 100, y: 0, elevation: 0 } }));
  w.scene.tokens.splice(w.scene.tokens.indexOf(t2), 1); // deleted; the sidecar has not heard yet
  const ok = await applier.apply({
    mode: "patch",
    rev: 2,
    patch: [
      { op: "test", path: "/rev", value: 1 },
      { op: "add", path: "/visibility/t1", value: { t2: "approximate" } },
      { op: "add", path: "/visibility/t2", value: { t1: "pinpointed" } },
      { op: "replace", path: "/rev", value: 2 },
    ],
    log: [],
    source: "patch",
  });
  assert.ok(ok);
  assert.deepEqual(w.scene.tokens[0].flags["vtt-bridge"].visibility, { t2: "pinpointed" });
});

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`codes (v${generation}): the first sync rewrites the flags a 0.3.0 module wrote (state names, pinpointed entries) as codes`, async () => {
    const { w, ann, t1, applier } = gm(generation);
    // 0.3.0's flags: target → observer → state name, a pinpointed entry kept on some targets
    t1._source.flags["vtt-bridge"] = { visibility: { t2: "approximate", t3: "pinpointed" } };
    const t2 = w.addToken("t2", ann, 100, 0, w.scene, { flags: { "vtt-bridge": { visibility: { t1: "unlocated", t3: "pinpointed" } } } });
    const t3 = w.addToken("t3", ann, 200, 0, w.scene, { flags: { "vtt-bridge": { visibility: { t1: "approximate" } } } });
    const tokens = Object.fromEntries([t1, t2, t3].map((t, i) => [t.id, { actor: "Actor.a", x: 100 * i, y: 0, elevation: 0 }]));
    const result = syncResult({ "Actor.a": { name: "Ann" } }, tokens);
    // observer → target: t2 approximately locates t1, t1 does not locate t3; every other pair pinpointed
    result.patch[3] = { op: "replace", path: "/visibility", value: { t1: { t3: "u" }, t2: { t1: "a" }, t3: {} } };
    assert.ok(await applier.apply(result));
    assert.deepEqual(t1.flags["vtt-bridge"].visibility, { t2: "a" });
    assert.deepEqual(t2.flags["vtt-bridge"].visibility, {});
    assert.deepEqual(t3.flags["vtt-bridge"].visibility, { t1: "u" });
    assert.equal(locateStateFor(t1.flags["vtt-bridge"].visibility, ["t2"]), "approximate");
    assert.equal(locateStateFor(t3.flags["vtt-bridge"].visibility, ["t1"]), "unlocated");
    assert.equal(locateStateFor(t2.flags["vtt-bridge"].visibility, ["t1"]), "pinpointed");
  });
}
