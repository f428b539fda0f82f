import assert from "node:assert/strict";
import { test } from "node:test";

import {
  actorFlags,
  actorState,
  buildState,
  contestAction,
  damageAction,
  envelope,
  healAction,
  helloPayload,
  moveAction,
  roundAction,
  spendWillpowerAction,
  tokenVisibilityFlags,
  upsertPayload,
} from "../../scripts/core/messages.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

test("the envelope is {v: 1, id, type, payload}, replies add re", () => {
  assert.deepEqual(envelope("sync", { state: {} }, "m1"), { v: 1, id: "m1", type: "sync", payload: { state: {} } });
  assert.equal(envelope("result", {}, "m2", "m1").re, "m1");
});

test("hello carries the token, the world and the client", () => {
  assert.deepEqual(helloPayload({ token: "s3cret", world: "w1", version: "0.1.0" }), {
    token: "s3cret",
    world: "w1",
    client: { name: "foundry-vtt-bridge", version: "0.1.0" },
  });
});

test("sync state from Foundry-shaped documents: actors by uuid, tokens by id, scene grid, settings", () => {
  const world = new FakeWorld();
  const ann = world.addActor("aaa", "Ann", {
    health: { max: 7, bashing: 1, lethal: 0, aggravated: 0 },
    status: "lightly",
    conditions: { blinded: true, unconscious: true, dead: false },
    approximateRange: null,
    speed: 6,
  });
  world.addToken("t1", ann, 100, 200);
  world.addToken("t2", ann, 300, 200);
  world.scene.flags = { "vtt-bridge": { noisy: true } };
  const state = buildState({ scene: world.scene, round: 3, settings: { woundPenalty: true, unconsciousAtZeroWillpower: false } });
  assert.deepEqual(state, {
    scene: { id: "scene1", round: 3, noisy: true, gridSize: 100, gridDistance: 1.5, gridUnits: "m" },
    settings: { woundPenalty: true, unconsciousAtZeroWillpower: false },
    actors: {
      "Actor.aaa": {
        name: "Ann",
        speed: 6,
        health: { max: 7, bashing: 1, lethal: 0, aggravated: 0 },
        approximateRange: null,
        conditions: { blinded: true },
      },
    },
    tokens: {
      t1: { actor: "Actor.aaa", x: 100, y: 200, elevation: 0 },
      t2: { actor: "Actor.aaa", x: 300, y: 200, elevation: 0 },
    },
  });
  assert.ok(!JSON.stringify(state).includes("token\""), "no token secret in the state");
});

test("derived fields are left out of sync (status, derived conditions) and null only where it means none", () => {
  const state = actorState({ uuid: "Actor.x", name: "X", flags: { "vtt-bridge": { status: "dead", health: null, sensoryRange: null, conditions: { worsening: true, dying: true } } } });
  assert.deepEqual(state, { name: "X", sensoryRange: null, conditions: {} });
});

test("tokens without an actor are skipped; visibility flags are read per target", () => {
  const world = new FakeWorld();
  const t = world.addToken("t1", /** @type {any} */ (null), 0, 0);
  t.flags = { "vtt-bridge": { visibility: { t2: "approximate" } } };
  assert.deepEqual(buildState({ scene: world.scene, settings: { woundPenalty: false, unconsciousAtZeroWillpower: false } }).tokens, {});
  assert.deepEqual(tokenVisibilityFlags(world.scene), { t1: { t2: "approximate" } });
});

test("actorFlags reads each actor of the scene's tokens once, as a JSON copy", () => {
  const world = new FakeWorld();
  const ann = world.addActor("a", "Ann", { speed: 4, energyPools: { ki: { current: 1 } } });
  world.addToken("t1", ann, 0, 0);
  world.addToken("t2", ann, 100, 0);
  const flags = actorFlags(world.scene);
  assert.deepEqual(flags, { "Actor.a": { speed: 4, energyPools: { ki: { current: 1 } } } });
  assert.notEqual(flags["Actor.a"], ann.flags["vtt-bridge"]);
});

test("action builders produce the protocol's payloads", () => {
  assert.deepEqual(damageAction("Actor.a", [{ amount: 3, grade: "L", type: "fire" }]), {
    kind: "damage",
    target: "Actor.a",
    instances: [{ amount: 3, grade: "L", type: "fire" }],
  });
  assert.deepEqual(healAction("Actor.a", 2, "firstAid", "B"), { kind: "heal", target: "Actor.a", amount: 2, source: "firstAid", grade: "B" });
  assert.deepEqual(moveAction("t1", 100, 50), { kind: "move", token: "t1", x: 100, y: 50 });
  assert.deepEqual(moveAction("t1", 100, 50, 10), { kind: "move", token: "t1", x: 100, y: 50, elevation: 10 });
  assert.deepEqual(roundAction(4), { kind: "round", round: 4 });
  assert.deepEqual(contestAction("t1", "t2", { observer: [10, 3], target: [8] }), {
    kind: "contest",
    observer: "t1",
    target: "t2",
    dice: { observer: [10, 3], target: [8] },
  });
  assert.deepEqual(spendWillpowerAction("Actor.a", "reroll"), { kind: "spendWillpower", actor: "Actor.a", use: "reroll" });
  assert.deepEqual(upsertPayload(["actors", "Actor.a", "iwr"], { immunities: [] }), { path: "/actors/Actor.a/iwr", value: { immunities: [] } });
});

test("action builders refuse what the protocol would refuse", () => {
  assert.throws(() => damageAction("Actor.a", [{ amount: 1.5, grade: "L" }]), TypeError);
  assert.throws(() => damageAction("Actor.a", [{ amount: 1, grade: /** @type {any} */ ("X") }]), /B, L, A/);
  assert.throws(() => damageAction("Actor.a", []), TypeError);
  assert.throws(() => healAction("Actor.a", 1, "nap"), /fastHealing/);
  assert.throws(() => moveAction("t1", Number.NaN, 0), TypeError);
  assert.throws(() => roundAction(-1), TypeError);
  assert.throws(() => contestAction("t1", "t2", { observer: [11], target: [] }), TypeError);
  assert.throws(() => spendWillpowerAction("", "x"), TypeError);
});

test("buildState: the canvas the scene occupies (Scene#dimensions, padding included) as the scene's width and height; none or nonsense: left out", () => {
  const world = new FakeWorld();
  const scene = /** @type {any} */ (world.scene);
  scene.dimensions = { width: 2400, height: 1900, sceneRect: { x: 200, y: 200, width: 2000, height: 1500 } };
  const settings = { woundPenalty: false, unconsciousAtZeroWillpower: false };
  assert.deepEqual(buildState({ scene, settings }).scene, { id: "scene1", round: 0, noisy: false, gridSize: 100, gridDistance: 1.5, gridUnits: "m", width: 2400, height: 1900 });
  scene.dimensions = { width: Number.NaN, height: -5 };
  assert.equal("width" in buildState({ scene, settings }).scene || "height" in buildState({ scene, settings }).scene, false);
});
