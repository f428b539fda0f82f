/**
 * What the module does with the adapters: which one is picked, the state sent (flags with the
 * system's fields over them), a system-sheet edit → upserts, a sidecar patch → one update of flags
 * and system fields, tagged, and problems reported once per actor and field.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { isOwnWrite, planPatch } from "../../../scripts/core/apply-patch.mjs";
import { executeBatches, PatchApplier } from "../../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../../scripts/foundry/compat.mjs";
import { actorState } from "../../../scripts/core/messages.mjs";
import {
  ADAPTERS,
  actorDataOf,
  addSystemWrites,
  adapterSelection,
  ProblemLog,
  problemMessage,
  readSystem,
  systemPlanAmender,
  upsertsFromConditionItem,
  upsertsFromSystemChange,
  withSystemFields,
} from "../../../scripts/systems/index.mjs";
import { FakeWorld, mergeUpdate } from "../../helpers/fake-foundry.mjs";
import { mtaCharacter, mtaEphemeral } from "../../helpers/mta-actors.mjs";

const sw = { type: "character", system: { health: { value: 5, min: 0, max: 5 }, power: { value: 1, min: 0, max: 1 }, attributes: {} }, flags: {} };
const other = { type: "pc", system: { hp: { now: 4, top: 6 } }, flags: {} };

test("ADAPTERS: most specific first; each has the one shape", () => {
  assert.deepEqual(ADAPTERS.map((a) => a.id), ["mta", "worldbuilding"]);
  for (const a of ADAPTERS) {
    for (const fn of ["detect", "read", "write"]) assert.equal(typeof (/** @type {any} */ (a)[fn]), "function", `${a.id}.${fn}`);
    assert.ok(Array.isArray(a.fields));
  }
});

test("adapterSelection: auto by shape, the world's mapping, forced, off; a broken mapping says why", () => {
  const auto = adapterSelection({ choice: "auto", mapping: "" });
  assert.equal(auto.pick(mtaCharacter("0.16"))?.id, "mta");
  assert.equal(auto.pick(sw)?.id, "worldbuilding");
  assert.equal(auto.pick(other), null);
  const mapped = adapterSelection({ choice: "auto", mapping: '{"health.max": "system.hp.top"}' });
  assert.equal(mapped.pick(other)?.id, "generic");
  assert.equal(mapped.pick(mtaCharacter("0.11"))?.id, "mta", "a known system keeps its own adapter");
  assert.equal(adapterSelection({ choice: "off", mapping: "" }).pick(mtaCharacter("0.16")), null);
  assert.equal(adapterSelection({ choice: "mta", mapping: "" }).pick(other)?.id, "mta", "forced, whatever the shape");
  assert.equal(adapterSelection({ choice: "generic", mapping: '{"speed": "system.move"}' }).pick(mtaCharacter("0.16"))?.id, "generic");
  assert.equal(adapterSelection({ choice: "generic", mapping: "" }).pick(mtaCharacter("0.16")), null, "generic without a mapping maps nothing");
  assert.equal(adapterSelection({ choice: "gone-adapter", mapping: "" }).pick(sw)?.id, "worldbuilding", "an unknown choice is auto");
  const broken = adapterSelection({ choice: "auto", mapping: "{" });
  assert.equal(broken.mappingError, "json");
  assert.equal(broken.pick(other), null);
});

test("withSystemFields: the system's fields win, what it does not hold stays ours", () => {
  const flags = {
    health: { max: 7, bashing: 0, lethal: 0, aggravated: 0, tempHp: 2, stabilized: true },
    willpower: { max: 2, current: 2, temporary: 1 },
    attributes: { STR: 1, PER: 5 },
    detection: [{ name: "sight" }],
    conditions: { frozen: true },
  };
  const state = withSystemFields(flags, {
    health: { max: 8, bashing: 1, lethal: 0, aggravated: 0 },
    willpower: { max: 4, current: 3 },
    attributes: { STR: 3 },
    speed: 9,
    conditions: { prone: true },
  });
  assert.deepEqual(state, {
    health: { max: 8, bashing: 1, lethal: 0, aggravated: 0, tempHp: 2, stabilized: true },
    willpower: { max: 4, current: 3, temporary: 1 },
    attributes: { STR: 3, PER: 5 },
    detection: [{ name: "sight" }],
    conditions: { frozen: true, prone: true },
    speed: 9,
  });
  assert.deepEqual(flags.attributes, { STR: 1, PER: 5 }, "the flags are not changed");
});

/** A mirror holding the actor as read. @param {string} uuid @param {any} actorData */
function mirrorOf(uuid, actorData) {
  const { fields } = readSystem(ADAPTERS[0], actorData);
  return { rev: 3, actors: { [uuid]: withSystemFields({ name: "Ann", conditions: {} }, fields) }, tokens: {}, visibility: {} };
}

test("a system-sheet edit → the upserts it means: Stamina up (and the max Health the system derives), damage marked by hand", () => {
  const uuid = "Actor.ann";
  const actor = mtaCharacter("0.16", { sta: 2 });
  const mirror = mirrorOf(uuid, actor);
  const [mtaAdapter] = ADAPTERS;
  assert.deepEqual(upsertsFromSystemChange(mtaAdapter, actor, uuid, mirror), [], "nothing changed, nothing sent");
  // Stamina 2 → 3; the system's own recalculation raises the track by one box
  mergeUpdate(actor, { "system.attributes_physical.stamina.value": 3, "system.attributes_physical.stamina.final": 3 });
  mergeUpdate(actor, { "system.health.max": 8, "system.health.value": 8, "system.health.lethal": 8, "system.health.aggravated": 8 });
  assert.deepEqual(upsertsFromSystemChange(mtaAdapter, actor, uuid, mirror), [
    { path: "/actors/Actor.ann/attributes/STA", value: 3 },
    { path: "/actors/Actor.ann/health", value: { max: 8, bashing: 0, lethal: 0, aggravated: 0 } },
  ]);
  // one lethal box marked on the system's sheet
  const mirror2 = mirrorOf(uuid, actor);
  mirror2.actors[uuid].health.tempHp = 1; // ours, kept
  mergeUpdate(actor, { "system.health.value": 7, "system.health.lethal": 7 });
  assert.deepEqual(upsertsFromSystemChange(mtaAdapter, actor, uuid, mirror2), [
    { path: "/actors/Actor.ann/health", value: { max: 8, bashing: 0, lethal: 1, aggravated: 0, tempHp: 1 } },
  ]);
  // refused data is not sent
  mergeUpdate(actor, { "system.health.max": -2 });
  assert.deepEqual(upsertsFromSystemChange(mtaAdapter, actor, uuid, mirror2), []);
  assert.deepEqual(upsertsFromSystemChange(null, actor, uuid, mirror2), [], "no adapter, nothing");
  assert.deepEqual(upsertsFromSystemChange(mtaAdapter, actor, "Actor.unknown", mirror2), [], "not in the mirror");
});

test("a Condition or Tilt Item created or deleted → the condition's upsert, unless nothing changes", () => {
  const uuid = "Actor.ann";
  const [mtaAdapter] = ADAPTERS;
  const actor = mtaCharacter("0.16");
  const mirror = mirrorOf(uuid, actor);
  const tilt = { type: "tilt", name: "Knocked Down" };
  /** @type {Array<{type: string, name: string}>} */ (actor.items).push(tilt);
  assert.deepEqual(upsertsFromConditionItem(mtaAdapter, actor, tilt, true, uuid, mirror), [{ path: "/actors/Actor.ann/conditions/prone", value: true }]);
  mirror.actors[uuid].conditions.prone = true;
  assert.deepEqual(upsertsFromConditionItem(mtaAdapter, actor, tilt, true, uuid, mirror), [], "already held");
  actor.items = [];
  assert.deepEqual(upsertsFromConditionItem(mtaAdapter, { ...actor, statusConditions: ["prone"] }, tilt, false, uuid, mirror), [], "a status effect still holds it");
  assert.deepEqual(upsertsFromConditionItem(mtaAdapter, actor, tilt, false, uuid, mirror), [{ path: "/actors/Actor.ann/conditions/prone", value: false }]);
  assert.deepEqual(upsertsFromConditionItem(mtaAdapter, actor, { type: "merit", name: "Prone" }, true, uuid, mirror), []);
});

test("actorDataOf: a plain copy with items and the conditions of the status effects", () => {
  const data = actorDataOf({ type: "character", system: { a: 1 }, flags: {}, items: [/** @type {{type: string, name: string}} */ ({ type: "tilt", name: "Blinded", id: "x" })], statuses: new Set(["blind"]) });
  assert.deepEqual(data, { type: "character", system: { a: 1 }, flags: {}, items: [{ type: "tilt", name: "Blinded" }], statusConditions: ["blinded"] });
});

test("addSystemWrites: a damage patch → the flags and the system's thresholds in ONE update, tagged as the module's own", async () => {
  const w = new FakeWorld();
  const ann = /** @type {any} */ (w.addActor("ann", "Ann", {}));
  Object.assign(ann, { type: "character", system: mtaCharacter("0.16", { sta: 2 }).system });
  const pick = adapterSelection({ choice: "auto", mapping: "" }).pick;
  const state = withSystemFields(actorState(ann), readSystem(pick(actorDataOf(ann)), actorDataOf(ann)).fields);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator({}),
    amendPlan: (plan) =>
      addSystemWrites(plan.actorUpdates, plan.state, (uuid) => {
        const doc = w.byUuid.get(uuid);
        return doc ? { adapter: pick(actorDataOf(doc)), actorData: actorDataOf(doc) } : null;
      }),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: () => w.scene, fromUuid: (u) => w.fromUuid(u) }),
  });
  const doc = { rev: 0, scene: null, settings: {}, actors: { "Actor.ann": state }, tokens: {}, visibility: {} };
  assert.ok(await applier.apply({ mode: "sync", rev: 1, patch: [{ op: "add", path: "", value: doc }], log: [], source: "result" }));
  assert.equal(ann.updates.length, 1, "the sync writes the flags");
  assert.ok(!Object.keys(ann.updates[0].changes).some((k) => k.startsWith("system.")), "and nothing to the system: it already shows this");
  const ok = await applier.apply({
    mode: "patch",
    rev: 2,
    patch: [
      { op: "replace", path: "/actors/Actor.ann/health/bashing", value: 2 },
      { op: "replace", path: "/actors/Actor.ann/health/lethal", value: 1 },
    ],
    log: [],
    source: "result",
  });
  assert.ok(ok);
  assert.equal(ann.updates.length, 2);
  const { changes, options } = ann.updates[1];
  assert.deepEqual(changes, {
    "flags.vtt-bridge.health.bashing": 2,
    "flags.vtt-bridge.health.lethal": 1,
    "system.health.value": 4,
    "system.health.lethal": 6,
  });
  assert.ok(isOwnWrite(options));
  assert.deepEqual([ann.system.health.max, ann.system.health.value, ann.system.health.lethal, ann.system.health.aggravated], [7, 4, 6, 7]);
  // the system shows the ruling, so the hook's forwarder finds nothing to send back
  assert.deepEqual(upsertsFromSystemChange(pick(actorDataOf(ann)), actorDataOf(ann), "Actor.ann", applier.state), []);
});

test("addSystemWrites: actors without an adapter, or gone, are left as planned", () => {
  const plan = planPatch(
    { rev: 1, actors: { "Actor.a": { name: "A", health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 } } }, tokens: {}, visibility: {} },
    [{ op: "replace", path: "/actors/Actor.a/health/bashing", value: 1 }],
    { statusIds: new Set(), deletion: deletionOperator({}) },
  );
  const before = structuredClone([...plan.actorUpdates]);
  addSystemWrites(plan.actorUpdates, plan.state, () => null);
  addSystemWrites(plan.actorUpdates, plan.state, () => ({ adapter: null, actorData: mtaEphemeral("0.16") }));
  assert.deepEqual([...plan.actorUpdates], before);
});

test("ProblemLog: each problem once per actor and field; the warning names the field", () => {
  const log = new ProblemLog();
  const problem = /** @type {const} */ ({ field: "health", path: "system.health.max", problem: "range" });
  assert.deepEqual(log.fresh("Actor.a", [problem]), [problem]);
  assert.deepEqual(log.fresh("Actor.a", [problem, { ...problem, problem: "number" }]), [], "the same field again is not news");
  assert.deepEqual(log.fresh("Actor.b", [problem]), [problem]);
  assert.deepEqual(problemMessage("Ann", problem), {
    key: "VTTBRIDGE.System.Problem.range",
    data: { actor: "Ann", field: "health", path: "system.health.max" },
  });
});

test("F11, F12: a patch writes the system's Health or Willpower only when it changed them: a hand edit of Willpower on its way is not overwritten by a Health ruling", async () => {
  const w = new FakeWorld();
  const ann = /** @type {any} */ (w.addActor("ann", "Ann", {}));
  Object.assign(ann, { type: "character", system: mtaCharacter("0.16", { sta: 2 }).system });
  const pick = adapterSelection({ choice: "auto", mapping: "" }).pick;
  const state = withSystemFields(actorState(ann), readSystem(pick(actorDataOf(ann)), actorDataOf(ann)).fields);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator({}),
    amendPlan: systemPlanAmender(pick, (uuid) => w.byUuid.get(uuid) ?? null),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: () => w.scene, fromUuid: (u) => w.fromUuid(u) }),
  });
  const doc = { rev: 0, scene: null, settings: {}, actors: { "Actor.ann": state }, tokens: {}, visibility: {} };
  assert.ok(await applier.apply({ mode: "sync", rev: 1, patch: [{ op: "add", path: "", value: doc }], log: [], source: "result" }));
  const wpBefore = ann.system.willpower.value;
  // the GM types a new Willpower on the system's sheet; its upsert has not reached the sidecar yet
  ann.system.willpower.value = wpBefore - 1;
  // meanwhile a ruling changes Ann's Health only
  assert.ok(
    await applier.apply({ mode: "patch", rev: 2, patch: [{ op: "replace", path: "/actors/Actor.ann/health/bashing", value: 1 }], log: [], source: "result" }),
  );
  const { changes } = ann.updates.at(-1);
  assert.ok(Object.hasOwn(changes, "system.health.value"), "the Health the ruling changed is written");
  assert.ok(!Object.hasOwn(changes, "system.willpower.value"), "the Willpower it did not change is left as typed");
  assert.equal(ann.system.willpower.value, wpBefore - 1);
  // a ruling that changes Willpower writes it
  const current = applier.state.actors["Actor.ann"].willpower.current;
  assert.ok(
    await applier.apply({ mode: "patch", rev: 3, patch: [{ op: "replace", path: "/actors/Actor.ann/willpower/current", value: current - 1 }], log: [], source: "result" }),
  );
  assert.equal(ann.system.willpower.value, current - 1);
});

test("F12 K14: an mta brief nightmare's prepared Willpower max is 0 (its derived trait is never computed) while its stored Willpower is 2: a Health ruling leaves the stored Willpower alone", async () => {
  const w = new FakeWorld();
  // the system prepares willpower.max from derivedTraits.willpower for every actor type; a brief
  // nightmare's is never computed, so it stays at its stored value (0) + mod
  w.prepareSystem = (system) => ({ ...system, willpower: { ...system.willpower, max: Number(system.derivedTraits?.willpower?.value ?? 0) } });
  const night = /** @type {any} */ (w.addActor("night", "Nightmare", {}));
  const base = mtaEphemeral("0.16").system;
  Object.assign(night, { type: "brief_nightmare" });
  night._source.system = { ...base, derivedTraits: { ...base.derivedTraits, willpower: { value: 0, final: 0 } }, willpower: { value: 2, max: 2 } };
  assert.equal(night.system.willpower.max, 0, "prepared");
  assert.equal(night._source.system.willpower.value, 2, "stored");
  const pick = adapterSelection({ choice: "auto", mapping: "" }).pick;
  const state = withSystemFields(actorState(night), readSystem(pick(actorDataOf(night)), actorDataOf(night)).fields);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator({}),
    amendPlan: systemPlanAmender(pick, (uuid) => w.byUuid.get(uuid) ?? null),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: () => w.scene, fromUuid: (u) => w.fromUuid(u) }),
  });
  const doc = { rev: 0, scene: null, settings: {}, actors: { "Actor.night": state }, tokens: {}, visibility: {} };
  assert.ok(await applier.apply({ mode: "sync", rev: 1, patch: [{ op: "add", path: "", value: doc }], log: [], source: "result" }));
  night._source.system.willpower.value = 2; // the stored value, whatever the sync aligned
  assert.ok(await applier.apply({ mode: "patch", rev: 2, patch: [{ op: "replace", path: "/actors/Actor.night/health/bashing", value: 1 }], log: [], source: "result" }));
  assert.ok(!Object.hasOwn(night.updates.at(-1).changes, "system.willpower.value"), "no Willpower write for a Health ruling");
  assert.equal(night._source.system.willpower.value, 2, "the stored Willpower the sheet shows is kept");
});
