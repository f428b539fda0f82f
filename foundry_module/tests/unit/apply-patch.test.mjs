import assert from "node:assert/strict";
import { test } from "node:test";

import {
  isOwnWrite,
  planPatch,
  statusForCondition,
  toFoundryBatches,
  updateOptions,
} from "../../scripts/core/apply-patch.mjs";
import { applyJsonPatch } from "../../scripts/core/json-patch.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { seeded } from "../helpers/big-scene.mjs";
import { ForcedDeletion, legacyOperatorWarnings, mergeUpdate } from "../helpers/fake-foundry.mjs";

const v13 = deletionOperator({});
const v14 = deletionOperator({ foundry: { data: { operators: { ForcedDeletion } } } });
const statusIds = new Set(["blind", "deaf", "unconscious", "dead", "prone"]);
const A = "Actor.aaa";
const B = "Scene.s1.Token.t2.Actor.bbb";

/** @returns {any} */
function mirror() {
  return {
    rev: 4,
    scene: { id: "s1", round: 1 },
    settings: { woundPenalty: false },
    actors: {
      [A]: {
        name: "Ann",
        health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 },
        status: "unharmed",
        conditions: { blinded: false },
        immunities: [{ kind: "poison", rank: "C" }],
      },
      [B]: { name: "Bob", health: { max: 6, bashing: 1, lethal: 0, aggravated: 0 }, conditions: {} },
    },
    tokens: { t1: { actor: A, x: 0, y: 0, elevation: 0 }, t2: { actor: B, x: 100, y: 0, elevation: 0 } },
    visibility: { t1: { t2: "pinpointed" }, t2: { t1: "approximate" } },
  };
}

/** @param {any[]} ops */
const ruling = (ops, from = 4) => [{ op: "test", path: "/rev", value: from }, ...ops, { op: "replace", path: "/rev", value: from + 1 }];

test("health ops become one flat flag update on the actor, status too", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: `/actors/${A}/health/lethal`, value: 2 },
    { op: "replace", path: `/actors/${A}/status`, value: "lightly" },
  ]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, false);
  assert.equal(plan.rev, 5);
  assert.deepEqual(Object.fromEntries(plan.actorUpdates), {
    [A]: { "flags.vtt-bridge.health.lethal": 2, "flags.vtt-bridge.status": "lightly" },
  });
  assert.equal(plan.tokenUpdates.size, 0);
});

test("a failing test op means resync and writes nothing", () => {
  const plan = planPatch(mirror(), ruling([{ op: "replace", path: `/actors/${A}/health/lethal`, value: 2 }], 3), { statusIds, deletion: v13 });
  assert.equal(plan.resync, true);
  assert.match(plan.reason ?? "", /test/);
  assert.equal(plan.actorUpdates.size, 0);
  assert.equal(plan.state.rev, 4);
});

test("an op that does not apply (unknown actor) also means resync", () => {
  const plan = planPatch(mirror(), ruling([{ op: "replace", path: "/actors/Actor.zzz/health/lethal", value: 2 }]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, true);
});

test("arrays are replaced whole, even when the op edits one element", () => {
  const plan = planPatch(mirror(), ruling([{ op: "replace", path: `/actors/${A}/immunities/0/rank`, value: "B" }]), { statusIds, deletion: v13 });
  assert.deepEqual(plan.actorUpdates.get(A), { "flags.vtt-bridge.immunities": [{ kind: "poison", rank: "B" }] });
});

test("a removed object key is deleted with the version's syntax (v13 -=, v14 ForcedDeletion)", () => {
  const m = mirror();
  m.actors[A].conditionPoints = { burn: 2, fear: 1 };
  const ops = ruling([{ op: "remove", path: `/actors/${A}/conditionPoints/burn` }]);
  assert.deepEqual(planPatch(m, ops, { statusIds, deletion: v13 }).actorUpdates.get(A), {
    "flags.vtt-bridge.conditionPoints.-=burn": null,
  });
  const update = planPatch(m, ops, { statusIds, deletion: v14 }).actorUpdates.get(A) ?? {};
  assert.deepEqual(Object.keys(update), ["flags.vtt-bridge.conditionPoints.burn"]);
  assert.ok(update["flags.vtt-bridge.conditionPoints.burn"] instanceof ForcedDeletion);
});

test("a whole object replaced is diffed key by key, so Foundry's merge cannot keep stale keys", () => {
  const m = mirror();
  m.actors[A].conditionPoints = { burn: 2, fear: 1 };
  const plan = planPatch(m, ruling([{ op: "replace", path: `/actors/${A}/conditionPoints`, value: { fear: 3 } }]), { statusIds, deletion: v13 });
  const update = plan.actorUpdates.get(A) ?? {};
  assert.deepEqual(update, { "flags.vtt-bridge.conditionPoints.fear": 3, "flags.vtt-bridge.conditionPoints.-=burn": null });
  const flags = { "vtt-bridge": { conditionPoints: { burn: 2, fear: 1 } } };
  mergeUpdate({ flags }, update);
  assert.deepEqual(flags["vtt-bridge"].conditionPoints, { fear: 3 });
});

test("conditions with a status effect become toggleStatusEffect calls (aliases blinded→blind)", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: `/actors/${A}/conditions/blinded`, value: true },
    { op: "add", path: `/actors/${A}/conditions/unconscious`, value: true },
    { op: "add", path: `/actors/${A}/conditions/nauseated`, value: true },
  ]), { statusIds, deletion: v13 });
  assert.deepEqual(plan.statusToggles, [
    { actor: A, status: "blind", active: true },
    { actor: A, status: "unconscious", active: true },
  ]);
  assert.deepEqual(plan.actorUpdates.get(A), {
    "flags.vtt-bridge.conditions.blinded": true,
    "flags.vtt-bridge.conditions.unconscious": true,
    "flags.vtt-bridge.conditions.nauseated": true,
  });
  assert.equal(statusForCondition("deafened", statusIds), "deaf");
  assert.equal(statusForCondition("prone", statusIds), "prone");
  assert.equal(statusForCondition("nauseated", statusIds), null);
});

test("visibility pairs land on the TARGET token keyed by observer token id", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: "/visibility/t1/t2", value: "approximate" },
    { op: "remove", path: "/visibility/t2/t1" },
  ]), { statusIds, deletion: v13 });
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), {
    t2: { "flags.vtt-bridge.visibility.t1": "approximate" },
    t1: { "flags.vtt-bridge.visibility.-=t2": null },
  });
});

test("a whole observer row added or removed touches every target", () => {
  const plan = planPatch(mirror(), ruling([{ op: "remove", path: "/visibility/t1" }]), { statusIds, deletion: v13 });
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), { t2: { "flags.vtt-bridge.visibility.-=t1": null } });
});

test("token moves from the sidecar update the token's position; unchanged values are skipped", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: "/tokens/t1/x", value: 200 },
    { op: "replace", path: "/tokens/t1/y", value: 0 },
  ]), { statusIds, deletion: v13 });
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), { t1: { x: 200 } });
});

test("scene, settings and rev changes write nothing to documents", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: "/scene/round", value: 2 },
    { op: "replace", path: "/settings/woundPenalty", value: true },
  ]), { statusIds, deletion: v13 });
  assert.equal(plan.actorUpdates.size + plan.tokenUpdates.size + plan.statusToggles.length, 0);
  assert.equal(plan.state.scene.round, 2);
});

test("the name field is never written (it is the Foundry actor's own)", () => {
  const plan = planPatch(mirror(), ruling([{ op: "replace", path: `/actors/${A}/name`, value: "X" }]), { statusIds, deletion: v13 });
  assert.equal(plan.actorUpdates.size, 0);
});

test("sync mode: the sidecar's full replace patch builds the document from empty and writes every field", () => {
  const full = mirror();
  full.contests = {};
  const ops = [
    { op: "test", path: "/rev", value: 9 },
    ...["scene", "settings", "actors", "tokens", "visibility", "contests"].map((name) => ({ op: "replace", path: `/${name}`, value: /** @type {any} */ (full)[name] })),
    { op: "replace", path: "/rev", value: 10 },
  ];
  const plan = planPatch(null, /** @type {any} */ (ops), {
    mode: "sync",
    statusIds,
    deletion: v13,
    foundryVisibility: { t2: { t1: "pinpointed", t9: "unlocated" } },
  });
  assert.equal(plan.resync, false, "a top-level part the module does not mirror (contests) is skipped, not refused");
  assert.equal(plan.state.contests, undefined, "the stage-three results are not mirrored");
  assert.equal(plan.rev, 10);
  assert.deepEqual(plan.actorUpdates.get(A)?.["flags.vtt-bridge.health"], { max: 7, bashing: 0, lethal: 0, aggravated: 0 });
  assert.equal(plan.actorUpdates.get(A)?.["flags.vtt-bridge.name"], undefined);
  // stale pair t9→t2 deleted, unchanged t1→t2 not rewritten, new t2→t1 written
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), {
    t2: { "flags.vtt-bridge.visibility.-=t9": null },
    t1: { "flags.vtt-bridge.visibility.t2": "approximate" },
  });
  // every condition present is asserted (idempotent), even false ones
  assert.deepEqual(plan.statusToggles, [{ actor: A, status: "blind", active: false }]);
});

test("batches: world actors in one updateDocuments array, synthetic actors by uuid, tokens by _id, tagged", () => {
  const plan = planPatch(mirror(), ruling([
    { op: "replace", path: `/actors/${A}/health/lethal`, value: 1 },
    { op: "replace", path: `/actors/${B}/health/bashing`, value: 2 },
    { op: "replace", path: "/visibility/t1/t2", value: "unlocated" },
  ]), { statusIds, deletion: v13 });
  const batches = toFoundryBatches(plan);
  assert.deepEqual(batches.worldActors, [{ _id: "aaa", "flags.vtt-bridge.health.lethal": 1 }]);
  assert.deepEqual(batches.syntheticActors, [{ uuid: B, update: { "flags.vtt-bridge.health.bashing": 2 } }]);
  assert.deepEqual(batches.tokens, [{ _id: "t2", "flags.vtt-bridge.visibility.t1": "unlocated" }]);
  assert.ok(isOwnWrite(batches.options));
  assert.ok(!isOwnWrite({}));
  assert.ok(!isOwnWrite({ "vtt-bridge": { origin: "player" } }));
  assert.deepEqual(updateOptions(), { "vtt-bridge": { origin: "sidecar" }, animate: false });
});

test("the mirror given in is never mutated", () => {
  const m = mirror();
  const copy = structuredClone(m);
  planPatch(m, ruling([{ op: "replace", path: `/actors/${A}/health/lethal`, value: 2 }]), { statusIds, deletion: v13 });
  assert.deepEqual(m, copy);
});

test("sparse visibility: an older module's flags (every pair, pinpointed ones too) are rewritten on the first sync", () => {
  // What an older module wrote: an entry per observer on every target, two thirds of them pinpointed.
  const foundryVisibility = {
    t1: { t2: "pinpointed", t3: "approximate" },
    t2: { t1: "pinpointed", t3: "pinpointed" },
    t3: { t1: "unlocated", t2: "pinpointed" },
  };
  // The sidecar's sync result: a row per observer with only the pairs that are not pinpointed.
  const visibility = { t1: { t3: "unlocated" }, t2: {}, t3: { t1: "approximate" } };
  const ops = [
    { op: "test", path: "/rev", value: 0 },
    { op: "replace", path: "/tokens", value: { t1: { actor: A, x: 0, y: 0 }, t2: { actor: A, x: 1, y: 0 }, t3: { actor: A, x: 2, y: 0 } } },
    { op: "replace", path: "/visibility", value: visibility },
    { op: "replace", path: "/rev", value: 1 },
  ];
  const plan = planPatch(null, /** @type {any} */ (ops), { mode: "sync", statusIds, deletion: v13, foundryVisibility });
  assert.equal(plan.resync, false);
  const flags = Object.fromEntries(
    Object.entries(foundryVisibility).map(([target, byObserver]) => [target, { flags: { "vtt-bridge": { visibility: { ...byObserver } } } }]),
  );
  for (const [target, update] of plan.tokenUpdates) mergeUpdate(/** @type {any} */ (flags)[target], update);
  const after = Object.fromEntries(Object.entries(flags).map(([target, doc]) => [target, doc.flags["vtt-bridge"].visibility]));
  // target -> observer: only the pairs that are not pinpointed are left
  assert.deepEqual(after, { t1: { t3: "approximate" }, t2: {}, t3: { t1: "unlocated" } });
});

test("sparse visibility: a pair that becomes pinpointed is removed from the document, its flag entry deleted", () => {
  const m = mirror();
  m.visibility = { t1: {}, t2: { t1: "approximate" } };
  const plan = planPatch(m, ruling([
    { op: "remove", path: "/visibility/t2/t1" },
    { op: "add", path: "/visibility/t1/t2", value: "unlocated" },
  ]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, false);
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), {
    t1: { "flags.vtt-bridge.visibility.-=t2": null },
    t2: { "flags.vtt-bridge.visibility.t1": "unlocated" },
  });
  assert.deepEqual(plan.state.visibility, { t1: { t2: "unlocated" }, t2: {} });
});

test("a round's contest ops are skipped, whatever their form, and the rest of its patch applied", () => {
  const synced = planPatch(null, /** @type {any} */ ([
    { op: "test", path: "/rev", value: 0 },
    { op: "replace", path: "/actors", value: mirror().actors },
    { op: "replace", path: "/tokens", value: mirror().tokens },
    { op: "replace", path: "/visibility", value: {} },
    { op: "replace", path: "/contests", value: { t1: { t2: { stageTwo: "approximate", round: 1, won: false } } } },
    { op: "replace", path: "/rev", value: 1 },
  ]), { mode: "sync", statusIds, deletion: v13, foundryVisibility: {} });
  assert.equal(synced.resync, false);
  assert.equal(synced.state.contests, undefined);
  const round = planPatch(synced.state, /** @type {any} */ ([
    { op: "test", path: "/rev", value: 1 },
    { op: "replace", path: "/contests/t1/t2/round", value: 2 },
    { op: "add", path: "/contests/t2", value: { t1: { stageTwo: "unlocated", round: 2, won: true } } },
    { op: "replace", path: "/contests/t1", value: {} },
    { op: "remove", path: "/contests/t2/t1" },
    { op: "add", path: "/visibility/t1", value: { t2: "a" } },
    { op: "replace", path: "/rev", value: 2 },
  ]), { statusIds, deletion: v13 });
  assert.equal(round.resync, false, "ops on a part the mirror does not hold do not ask for a resync");
  assert.equal(round.state.contests, undefined);
  assert.deepEqual(round.state.visibility, { t1: { t2: "a" } });
  assert.equal(round.tokenUpdates.get("t2")?.["flags.vtt-bridge.visibility.t1"], "a");
});

// DET-4 on the map: the sidecar keys its areas by TARGET (`areas: {<target>: {<observer>: [x, y, r]}}`),
// as the module keeps them on the target token (`flags.vtt-bridge.areas.<observer>`): a target's row
// is its flag's content. A row op and a cell op each land on the target's token alone.

/** The mirror with areas: t2 is approximate to t1 and t3, t3 to t1. @returns {any} */
function areasMirror() {
  const m = mirror();
  m.tokens.t3 = { actor: A, x: 900, y: 900, elevation: 0 };
  m.visibility = { t1: { t2: "a", t3: "a" }, t2: {}, t3: { t2: "a" } };
  m.areas = { t2: { t1: [100, 0, 300], t3: [150, 50, 300] }, t3: { t1: [900, 800, 300] } };
  return m;
}

/** @param {string} key @returns {string} */
const areaKey = (key) => `flags.vtt-bridge.areas.${key}`;

test("DET-4 an area cell /areas/<target>/<observer> lands on the TARGET token keyed by observer: add, replace, remove (v13 -=, v14 ForcedDeletion)", () => {
  const plan = planPatch(areasMirror(), ruling([
    { op: "add", path: "/areas/t3/t2", value: [880, 900, 300] },
    { op: "replace", path: "/areas/t2/t1", value: [120, 10, 300] },
    { op: "remove", path: "/areas/t2/t3" },
  ]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, false, plan.reason);
  // the old reading (`/areas/<observer>/<target>`) would have written t2's area on t3 and t1's on t2
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), {
    t3: { [areaKey("t2")]: [880, 900, 300] },
    t2: { [areaKey("t1")]: [120, 10, 300], [areaKey("-=t3")]: null },
  });
  const v14plan = planPatch(areasMirror(), ruling([{ op: "remove", path: "/areas/t2/t3" }]), { statusIds, deletion: v14 });
  const [[id, update]] = [...v14plan.tokenUpdates];
  assert.equal(id, "t2");
  assert.deepEqual(Object.keys(update), [areaKey("t3")]);
  assert.ok(update[areaKey("t3")] instanceof ForcedDeletion);
  assert.deepEqual(plan.state.areas, { t2: { t1: [120, 10, 300] }, t3: { t1: [900, 800, 300], t2: [880, 900, 300] } });
});

test("DET-4 a target's row /areas/<target> added, replaced or removed whole is one update of that token: changed keys written, lost keys deleted, kept ones left", () => {
  const opts = { statusIds, deletion: v13 };
  const added = planPatch(areasMirror(), ruling([{ op: "add", path: "/areas/t1", value: { t2: [0, 10, 300], t3: [10, 0, 300] } }]), opts);
  assert.deepEqual(Object.fromEntries(added.tokenUpdates), { t1: { [areaKey("t2")]: [0, 10, 300], [areaKey("t3")]: [10, 0, 300] } });
  // a far move of t2: its row redrawn, t3's area gone, t1's new; the t3 row and t1 are not touched
  const moved = planPatch(areasMirror(), ruling([
    { op: "replace", path: "/tokens/t2/x", value: 2000 },
    { op: "replace", path: "/areas/t2", value: { t1: [1900, 100, 300] } },
  ]), opts);
  assert.deepEqual(Object.fromEntries(moved.tokenUpdates), { t2: { x: 2000, [areaKey("t1")]: [1900, 100, 300], [areaKey("-=t3")]: null } });
  // a row replaced by the ruling with one area the same: that key is not written again
  const kept = planPatch(areasMirror(), ruling([{ op: "replace", path: "/areas/t2", value: { t1: [100, 0, 300], t3: [160, 50, 300] } }]), opts);
  assert.deepEqual(Object.fromEntries(kept.tokenUpdates), { t2: { [areaKey("t3")]: [160, 50, 300] } });
  const removed = planPatch(areasMirror(), ruling([{ op: "remove", path: "/areas/t2" }]), opts);
  assert.deepEqual(Object.fromEntries(removed.tokenUpdates), { t2: { [areaKey("-=t1")]: null, [areaKey("-=t3")]: null } });
  assert.deepEqual(removed.state.areas, { t3: { t1: [900, 800, 300] } });
});

test("DET-4 a far move of T at 500 tokens: T's row in one op is one update of T; T's cells as observer one update per target they are in", () => {
  const ids = Array.from({ length: 500 }, (_, i) => `t${i}`);
  const m = mirror();
  m.tokens = Object.fromEntries(ids.map((id, i) => [id, { actor: A, x: i * 100, y: 0, elevation: 0 }]));
  m.visibility = {};
  m.areas = {};
  // t0 is approximate to 120 observers; t0 holds 3 targets approximate
  m.areas.t0 = Object.fromEntries(ids.slice(1, 121).map((o) => [o, [0, 0, 300]]));
  for (const target of ["t300", "t301", "t302"]) m.areas[target] = { t0: [30000, 0, 300], t5: [30000, 0, 300] };
  const row = Object.fromEntries(ids.slice(2, 122).map((o) => [o, [5000, 5000, 300]]));
  const ops = ruling([
    { op: "replace", path: "/tokens/t0/x", value: 5000 },
    { op: "replace", path: "/areas/t0", value: row },
    { op: "remove", path: "/areas/t300/t0" },
    { op: "remove", path: "/areas/t301/t0" },
    { op: "add", path: "/areas/t400", value: { t0: [40000, 0, 300] } },
  ]);
  const plan = planPatch(m, ops, { statusIds, deletion: v13 });
  assert.equal(plan.resync, false, plan.reason);
  assert.deepEqual([...plan.tokenUpdates.keys()].sort(), ["t0", "t300", "t301", "t400"]);
  const t0 = /** @type {Record<string, unknown>} */ (plan.tokenUpdates.get("t0"));
  assert.equal(Object.keys(t0).length, 1 + 120 + 1, "its position, 120 areas written, the one observer lost deleted");
  assert.equal(t0[areaKey("-=t1")], null);
  assert.deepEqual(plan.tokenUpdates.get("t300"), { [areaKey("-=t0")]: null });
  assert.deepEqual(plan.tokenUpdates.get("t400"), { [areaKey("t0")]: [40000, 0, 300] });
  assert.equal(toFoundryBatches(plan).tokens.length, 4, "one embedded update per token, in one call");
});

test("DET-4 sync: the full /areas replace is diffed against the areas flags Foundry holds; stale cells and rows are deleted, held ones not rewritten", () => {
  const areas = { t2: { t1: [100, 0, 300], t3: [150, 50, 300] }, t3: { t1: [900, 800, 300] } };
  // what the tokens hold after an outage: t2 lost t3's area and keeps a stale one of t9, t3's is
  // stale, t1's whole flag is stale (nobody holds t1 approximate any more)
  const foundryAreas = { t1: { t2: [0, 0, 300] }, t2: { t1: [100, 0, 300], t9: [1, 1, 300] }, t3: { t1: [0, 0, 300] } };
  const ops = [
    { op: "test", path: "/rev", value: 7 },
    { op: "replace", path: "/tokens", value: areasMirror().tokens },
    { op: "replace", path: "/visibility", value: areasMirror().visibility },
    { op: "replace", path: "/areas", value: areas },
    { op: "replace", path: "/rev", value: 8 },
  ];
  for (const [generation, deletion] of /** @type {const} */ ([[13, v13], [14, v14]])) {
    const plan = planPatch(null, /** @type {any} */ (ops), { mode: "sync", statusIds, deletion, foundryAreas, foundryVisibility: {} });
    assert.equal(plan.resync, false, plan.reason);
    assert.deepEqual(plan.state.areas, areas);
    const tokens = Object.fromEntries(Object.entries(foundryAreas).map(([id, flag]) => [id, { flags: { "vtt-bridge": { areas: structuredClone(flag) } } }]));
    const areaKeys = (/** @type {Record<string, unknown>} */ update) => Object.keys(update).filter((k) => k.startsWith("flags.vtt-bridge.areas."));
    assert.deepEqual(areaKeys(/** @type {any} */ (plan.tokenUpdates.get("t2"))).sort(), [areaKey("t3"), generation === 13 ? areaKey("-=t9") : areaKey("t9")].sort(), "t1's area, which t2 holds, is not rewritten");
    for (const [id, update] of plan.tokenUpdates) mergeUpdate(/** @type {any} */ (tokens)[id], update, generation);
    const held = Object.fromEntries(Object.entries(tokens).map(([id, doc]) => [id, doc.flags["vtt-bridge"].areas]));
    assert.deepEqual(held, { t1: {}, t2: areas.t2, t3: areas.t3 }, `v${generation}`);
  }
});

test("DET-4 a /areas replace in a ruling (not a sync) is diffed row by row against the mirror", () => {
  const plan = planPatch(areasMirror(), ruling([{ op: "replace", path: "/areas", value: { t2: { t1: [100, 0, 300] } } }]), { statusIds, deletion: v13 });
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), { t2: { [areaKey("-=t3")]: null }, t3: { [areaKey("-=t1")]: null } });
});

test("DET-4 the old layout is not read as areas: an observer-keyed row lands on the token the path names, never transposed", () => {
  // 0.7.0 sent `/areas/<observer>/<target>`; read by target, `/areas/t1/t2` is t1's row, cell t2
  const plan = planPatch(areasMirror(), ruling([{ op: "add", path: "/areas/t1/t2", value: [0, 0, 300] }]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, true, "t1 has no row: the cell does not apply, the module resyncs");
  const row = planPatch(areasMirror(), ruling([{ op: "add", path: "/areas/t1", value: { t2: [0, 0, 300] } }]), { statusIds, deletion: v13 });
  assert.deepEqual(Object.fromEntries(row.tokenUpdates), { t1: { [areaKey("t2")]: [0, 0, 300] } }, "written on t1 keyed by t2, not on t2 keyed by t1");
  // a sync's Foundry flags are read target-first as they are held: no inversion
  const synced = planPatch(null, /** @type {any} */ ([{ op: "replace", path: "/areas", value: { t2: { t1: [1, 2, 300] } } }]), {
    mode: "sync", statusIds, deletion: v13, foundryAreas: { t2: { t1: [1, 2, 300] } },
  });
  assert.equal(synced.tokenUpdates.size, 0, "what t2 holds is the row: nothing to write");
});

test("DET-4 move and test ops on areas, a key named like an Object method, and the mirror left as it was", () => {
  const m = areasMirror();
  const copy = structuredClone(m);
  const plan = planPatch(m, ruling([
    { op: "test", path: "/areas/t3/t1", value: [900, 800, 300] },
    { op: "move", from: "/areas/t2/t3", path: "/areas/t3/t2" },
    { op: "add", path: "/areas/t3/constructor", value: [1, 1, 300] },
  ]), { statusIds, deletion: v13 });
  assert.equal(plan.resync, false, plan.reason);
  assert.deepEqual(Object.fromEntries(plan.tokenUpdates), {
    t2: { [areaKey("-=t3")]: null },
    t3: { [areaKey("t2")]: [150, 50, 300], [areaKey("constructor")]: [1, 1, 300] },
  });
  assert.deepEqual(m, copy, "the mirror given in is not mutated");
  const removed = planPatch(plan.state, ruling([{ op: "remove", path: "/areas/t3" }], 5), { statusIds, deletion: v13 });
  assert.ok(Object.hasOwn(/** @type {any} */ (removed.tokenUpdates.get("t3")), areaKey("-=constructor")));
});


const WALK_KINDS = ["rowAdd", "rowReplace", "rowRemove", "cellAdd", "cellReplace", "cellRemove"];

/**
 * One ruling's ops on a part of the document keyed row → cell: 1 to 3 of them, each valid after
 * the ones before it (so a patch may touch a cell twice, or a cell and then its row).
 * @param {string} part
 * @param {Record<string, Record<string, unknown>>} rows the part now
 * @param {string[]} ids
 * @param {() => number} random
 * @param {() => unknown} value a cell's value
 */
function rulingOps(part, rows, ids, random, value) {
  const pick = (/** @type {string[]} */ list) => list[Math.floor(random() * list.length)];
  /** @type {any[]} */
  const ops = [];
  /** @type {string[]} */
  const kinds = [];
  let now = rows;
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
    const kind = pick(WALK_KINDS);
    const keys = Object.keys(now);
    const bare = ids.filter((id) => !keys.includes(id));
    const row = keys.length ? pick(keys) : undefined;
    const cells = row ? Object.keys(now[row]) : [];
    const fresh = () => Object.fromEntries(ids.filter(() => random() < 0.5).map((id) => [id, value()]));
    let op;
    if (kind === "rowAdd" && bare.length) op = { op: "add", path: `/${part}/${pick(bare)}`, value: fresh() };
    else if (kind === "rowReplace" && row) op = { op: "replace", path: `/${part}/${row}`, value: fresh() };
    else if (kind === "rowRemove" && row) op = { op: "remove", path: `/${part}/${row}` };
    else if (kind === "cellAdd" && row && cells.length < ids.length) op = { op: "add", path: `/${part}/${row}/${pick(ids.filter((id) => !cells.includes(id)))}`, value: value() };
    else if (kind === "cellReplace" && cells.length) op = { op: "replace", path: `/${part}/${row}/${pick(cells)}`, value: value() };
    else if (kind === "cellRemove" && cells.length) op = { op: "remove", path: `/${part}/${row}/${pick(cells)}` };
    if (!op) continue;
    ops.push(op);
    kinds.push(kind);
    now = /** @type {any} */ (applyJsonPatch({ [part]: now }, [/** @type {any} */ (op)]))[part];
  }
  return { ops, kinds };
}

test("DET-4 any walk of area ops and syncs: the strict stand-in's areas flags equal the document's rows, and only targets whose row changed are updated", () => {
  const ids = ["t1", "t2", "t3", "t4", "t5", "t6"];
  const warned = legacyOperatorWarnings.length;
  for (const [generation, deletion] of /** @type {const} */ ([[13, v13], [14, v14]])) {
    const random = seeded(33 + generation);
    const pick = (/** @type {string[]} */ list) => list[Math.floor(random() * list.length)];
    const area = () => [Math.floor(random() * 40) * 50, Math.floor(random() * 40) * 50, 300];
    /** @type {Record<string, any>} the tokens Foundry holds */
    const tokens = Object.fromEntries(ids.map((id) => [id, { flags: { "vtt-bridge": {} } }]));
    const held = () => Object.fromEntries(ids.flatMap((id) => {
      const flag = tokens[id].flags["vtt-bridge"].areas;
      return flag && Object.keys(flag).length ? [[id, structuredClone(flag)]] : [];
    }));
    /** @type {any} */
    let state = { ...mirror(), rev: 0, areas: {} };
    const kinds = new Set();
    for (let step = 0; step < 400; step++) {
      if (random() < 1 / 7) {
        // an outage: Foundry's flags drifted (a stale cell, a changed one), then the whole document
        const drifted = pick(ids);
        tokens[drifted].flags["vtt-bridge"].areas = { ...tokens[drifted].flags["vtt-bridge"].areas, [pick(ids)]: area() };
        const doc = structuredClone(state.areas);
        const foundryAreas = Object.fromEntries(ids.flatMap((id) => (tokens[id].flags["vtt-bridge"].areas ? [[id, structuredClone(tokens[id].flags["vtt-bridge"].areas)]] : [])));
        const plan = planPatch(null, /** @type {any} */ ([{ op: "replace", path: "/areas", value: doc }, { op: "replace", path: "/rev", value: state.rev }]), { mode: "sync", statusIds, deletion, foundryAreas, foundryVisibility: {} });
        assert.equal(plan.resync, false, plan.reason);
        const differing = ids.filter((id) => !deepEqualJson(foundryAreas[id] ?? {}, doc[id] ?? {}));
        assert.deepEqual([...plan.tokenUpdates.keys()].sort(), differing.sort(), `step ${step}: a sync updates the tokens whose flags differ`);
        for (const [id, update] of plan.tokenUpdates) mergeUpdate(tokens[id], update, generation);
        state = { ...mirror(), ...plan.state, rev: state.rev };
        kinds.add("sync");
      } else {
        const { ops, kinds: made } = rulingOps("areas", state.areas, ids, random, area);
        if (!ops.length) continue;
        const plan = planPatch(state, ruling(ops, state.rev), { statusIds, deletion });
        assert.equal(plan.resync, false, plan.reason);
        const changed = ids.filter((id) => !deepEqualJson(state.areas[id] ?? {}, plan.state.areas[id] ?? {}));
        assert.deepEqual([...plan.tokenUpdates.keys()].sort(), changed.sort(), `step ${step} ${made}: only the changed rows' tokens`);
        for (const [id, update] of plan.tokenUpdates) mergeUpdate(tokens[id], update, generation);
        state = plan.state;
        for (const kind of made) kinds.add(kind);
      }
      const rowsNow = Object.fromEntries(Object.entries(state.areas).filter(([, r]) => Object.keys(/** @type {any} */ (r)).length));
      assert.deepEqual(held(), rowsNow, `v${generation} step ${step}`);
    }
    assert.equal(kinds.size, 7, "every kind of op was walked");
    if (generation === 14) assert.deepEqual(legacyOperatorWarnings.slice(warned), [], "v14: no legacy -= key written");
  }
});

test("visibility: any walk of cell and row ops and syncs: each target's flag holds its column of the matrix, and only targets whose column changed are updated", () => {
  const ids = ["t1", "t2", "t3", "t4", "t5"];
  const random = seeded(6);
  const pick = (/** @type {string[]} */ list) => list[Math.floor(random() * list.length)];
  const code = () => pick(["a", "u"]);
  /** @type {Record<string, any>} */
  const tokens = Object.fromEntries(ids.map((id) => [id, { flags: { "vtt-bridge": {} } }]));
  /** @param {Record<string, Record<string, string>>} matrix observer → target → code */
  const columns = (matrix) => Object.fromEntries(ids.map((t) => [t, Object.fromEntries(ids.flatMap((o) => (matrix[o]?.[t] === undefined ? [] : [[o, matrix[o][t]]])))]));
  const held = () => Object.fromEntries(ids.map((id) => [id, { ...(tokens[id].flags["vtt-bridge"].visibility ?? {}) }]));
  /** @type {any} */
  let state = { ...mirror(), rev: 0, visibility: {} };
  const kinds = new Set();
  for (let step = 0; step < 400; step++) {
    const before = columns(state.visibility);
    /** @type {any} */
    let plan;
    if (random() < 1 / 7) {
      const drifted = pick(ids);
      tokens[drifted].flags["vtt-bridge"].visibility = { ...tokens[drifted].flags["vtt-bridge"].visibility, [pick(ids)]: code() };
      const foundryVisibility = held();
      plan = planPatch(null, /** @type {any} */ ([{ op: "replace", path: "/visibility", value: structuredClone(state.visibility) }, { op: "replace", path: "/rev", value: state.rev }]), { mode: "sync", statusIds, deletion: v13, foundryVisibility });
      const differing = ids.filter((id) => !deepEqualJson(foundryVisibility[id], columns(plan.state.visibility)[id]));
      assert.deepEqual([...plan.tokenUpdates.keys()].sort(), differing.sort(), `step ${step}: a sync updates the tokens whose flags differ`);
      plan.state.rev = state.rev;
      kinds.add("sync");
    } else {
      const { ops, kinds: made } = rulingOps("visibility", state.visibility, ids, random, code);
      if (!ops.length) continue;
      plan = planPatch(state, ruling(ops, state.rev), { statusIds, deletion: v13 });
      const after = columns(plan.state.visibility);
      assert.deepEqual([...plan.tokenUpdates.keys()].sort(), ids.filter((id) => !deepEqualJson(before[id], after[id])).sort(), `step ${step} ${made}`);
      for (const kind of made) kinds.add(kind);
    }
    assert.equal(plan.resync, false, plan.reason);
    for (const [id, update] of plan.tokenUpdates) mergeUpdate(tokens[id], update);
    state = { ...mirror(), ...plan.state };
    assert.deepEqual(held(), columns(state.visibility), `step ${step}`);
  }
  assert.equal(kinds.size, 7, "every kind of op was walked");
});

/** @param {unknown} a @param {unknown} b */
const deepEqualJson = (a, b) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
/** @param {any} value @returns {any} */
const sortKeys = (value) => (value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])])) : value);
