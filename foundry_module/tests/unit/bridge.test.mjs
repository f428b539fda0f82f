import assert from "node:assert/strict";
import { test } from "node:test";

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { actionCardHtml, actionFromButton, actionFromDialog } from "../../scripts/core/damage.mjs";
import { moveFromTokenUpdate, upsertsFromActorUpdate } from "../../scripts/core/forward.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

/** @param {12|13|14} [generation] */
function world(generation = 13) {
  const w = new FakeWorld({ generation });
  const ann = w.addActor("aaa", "Ann", { health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 }, conditions: {} });
  const t1 = w.addToken("t1", ann, 0, 0);
  const t2 = w.addToken("t2", ann, 100, 0);
  t2.flags = { "vtt-bridge": { visibility: { gone: "approximate" } } };
  return { w, ann, t1, t2 };
}

/** @param {FakeWorld} w */
function applier(w) {
  return new PatchApplier({
    statusIds: () => new Set(["unconscious"]),
    deletion: deletionOperator(w.env),
    foundryVisibility: () => ({ t2: { gone: "approximate" } }),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
}

const full = {
  scene: { id: "scene1", round: 0 },
  settings: {},
  actors: { "Actor.aaa": { name: "Ann", health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 }, status: "unharmed", conditions: {} } },
  tokens: { t1: { actor: "Actor.aaa", x: 0, y: 0, elevation: 0 }, t2: { actor: "Actor.aaa", x: 100, y: 0, elevation: 0 } },
  visibility: { t1: { t2: "pinpointed" } },
};
const syncPatch = [
  { op: "test", path: "/rev", value: 0 },
  ...Object.entries(full).map(([k, v]) => ({ op: "replace", path: `/${k}`, value: v })),
  { op: "replace", path: "/rev", value: 1 },
];

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`v${generation}: a sync then a ruling land in Foundry-shaped documents, with stale pairs deleted`, async () => {
    const { w, ann, t2 } = world(generation);
    const a = applier(w);
    assert.equal(await a.apply({ mode: "patch", rev: 1, patch: [], log: [], source: "patch" }), false, "no mirror yet");
    assert.ok(await a.apply({ mode: "sync", rev: 1, patch: /** @type {any} */ (syncPatch), log: [], source: "result" }));
    assert.deepEqual(t2.flags["vtt-bridge"].visibility, { t1: "pinpointed" });
    assert.equal(ann.flags["vtt-bridge"].status, "unharmed");
    const ok = await a.apply({
      mode: "patch",
      rev: 2,
      patch: [
        { op: "test", path: "/rev", value: 1 },
        { op: "replace", path: "/actors/Actor.aaa/health/lethal", value: 3 },
        { op: "add", path: "/actors/Actor.aaa/conditions/unconscious", value: true },
        { op: "replace", path: "/rev", value: 2 },
      ],
      log: [],
      source: "result",
    });
    assert.ok(ok);
    assert.equal(ann.flags["vtt-bridge"].health.lethal, 3);
    assert.ok(ann.statuses.has("unconscious"));
    assert.equal(a.state.rev, 2);
    // every write the module made is tagged, so the forwarders ignore it
    for (const { changes, options } of ann.updates) {
      assert.deepEqual(upsertsFromActorUpdate(ann, changes, options, a.state), []);
    }
    assert.equal(await a.apply({ mode: "patch", rev: 3, patch: [{ op: "test", path: "/rev", value: 7 }], log: [], source: "patch" }), false);
  });
}

test("a token moved by the sidecar is not sent back as a move", async () => {
  const { w, t1 } = world();
  const a = applier(w);
  await a.apply({ mode: "sync", rev: 1, patch: /** @type {any} */ (syncPatch), log: [], source: "result" });
  /** @type {any[]} */
  const sent = [];
  w.hooks.on("updateToken", (token, changes, options) => sent.push(moveFromTokenUpdate(token, changes, options, a.state)));
  await a.apply({
    mode: "patch",
    rev: 2,
    patch: [{ op: "test", path: "/rev", value: 1 }, { op: "replace", path: "/tokens/t1/x", value: 300 }, { op: "replace", path: "/rev", value: 2 }],
    log: [],
    source: "patch",
  });
  assert.equal(t1.x, 300);
  assert.deepEqual(sent, [null]);
});

test("damage dialog and chat button carry a valid action", () => {
  assert.deepEqual(actionFromDialog("Actor.a", { mode: "damage", amount: "3", grade: "L", type: " Fire " }), {
    kind: "damage",
    target: "Actor.a",
    instances: [{ amount: 3, grade: "L", type: "fire" }],
  });
  assert.deepEqual(actionFromDialog("Actor.a", { mode: "heal", amount: 2, grade: "any", source: "firstAid" }), {
    kind: "heal",
    target: "Actor.a",
    amount: 2,
    source: "firstAid",
    grade: "any",
  });
  assert.throws(() => actionFromDialog("Actor.a", { mode: "damage", amount: "-1", grade: "L" }), TypeError);
  const action = { kind: "damage", target: "Actor.a", instances: [{ amount: 1, grade: "B", type: "<b>\"x\"" }] };
  const html = actionCardHtml(action, "Apply", "1 bashing <to> Ann");
  assert.ok(!html.includes("<to>") && !html.includes('"x"'));
  const attr = /data-vtt-bridge-action="([^"]*)"/.exec(html)?.[1] ?? "";
  const decoded = attr.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  assert.deepEqual(actionFromButton({ getAttribute: () => decoded }), action);
  assert.equal(actionFromButton({ getAttribute: () => "{nope" }), null);
});

test("F5: a world actor deleted while its patch is in flight: the other actors, the tokens and the statuses of the ruling are still written", async () => {
  const { w, ann, t1 } = world(13);
  const bea = w.addActor("bbb", "Bea", {});
  const batches = {
    options: {},
    worldActors: [
      { _id: "aaa", "flags.vtt-bridge.health.lethal": 2 },
      { _id: "bbb", "flags.vtt-bridge.health.lethal": 1 },
    ],
    syntheticActors: [],
    sceneId: "scene1",
    tokens: [{ _id: "t1", "flags.vtt-bridge.visibility.t2": "approximate" }],
    statusToggles: [{ actor: "Actor.aaa", status: "unconscious", active: true }],
  };
  // Bea is deleted in Foundry meanwhile
  w.actors.delete("bbb");
  w.byUuid.delete(bea.uuid);
  await executeBatches(/** @type {any} */ (batches), { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u), actors: w.actors });
  assert.equal(ann.flags["vtt-bridge"].health.lethal, 2);
  assert.equal(t1.flags["vtt-bridge"].visibility.t2, "approximate");
  assert.ok(ann.statuses.has("unconscious"));
});
