import assert from "node:assert/strict";
import { test } from "node:test";

import {
  isOwnWrite,
  planPatch,
  statusForCondition,
  toFoundryBatches,
  updateOptions,
} from "../../scripts/core/apply-patch.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { ForcedDeletion, mergeUpdate } from "../helpers/fake-foundry.mjs";

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
