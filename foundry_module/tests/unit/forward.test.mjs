import assert from "node:assert/strict";
import { test } from "node:test";

import { updateOptions } from "../../scripts/core/apply-patch.mjs";
import {
  moveFromTokenUpdate,
  oncePerTick,
  roundFromCombatUpdate,
  upsertsFromActorUpdate,
  upsertsFromEffectEvent,
  upsertsFromStatusChange,
  upsertsFromTokenLifecycle,
} from "../../scripts/core/forward.mjs";

const mirror = {
  rev: 2,
  scene: { id: "s1", round: 1 },
  actors: {
    "Actor.a": { name: "Ann", iwr: { immunities: [], weaknesses: [], resistances: [] }, conditions: { blinded: false }, detection: [] },
  },
  tokens: { t1: { actor: "Actor.a", x: 0, y: 0, elevation: 0 } },
  visibility: {},
};

test("a token move becomes a move action; the module's own writes are not echoed", () => {
  const token = { id: "t1", x: 100, y: 200, elevation: 0, parent: { id: "s1" } };
  assert.deepEqual(moveFromTokenUpdate(token, { x: 100, y: 200 }, {}, mirror), { kind: "move", token: "t1", x: 100, y: 200, elevation: 0 });
  assert.equal(moveFromTokenUpdate(token, { x: 100 }, updateOptions(), mirror), null);
  assert.equal(moveFromTokenUpdate(token, { name: "x" }, {}, mirror), null);
  assert.equal(moveFromTokenUpdate({ ...token, id: "other" }, { x: 1 }, {}, mirror), null, "not on the synced scene");
  assert.equal(moveFromTokenUpdate({ ...token, x: 0, y: 0 }, { x: 0, y: 0 }, {}, mirror), null, "where the mirror has it");
});

test("a new combat round becomes a round action, once", () => {
  const combat = { scene: { id: "s1" }, active: true };
  assert.deepEqual(roundFromCombatUpdate(combat, { round: 2 }, {}, mirror), { kind: "round", round: 2 });
  assert.equal(roundFromCombatUpdate(combat, { round: 1 }, {}, mirror), null);
  assert.equal(roundFromCombatUpdate(combat, { turn: 3 }, {}, mirror), null);
  assert.equal(roundFromCombatUpdate(combat, { round: 2 }, updateOptions(), mirror), null);
});

test("flag edits of senses, IWR and conditions become upserts; derived conditions never", () => {
  const actor = {
    uuid: "Actor.a",
    name: "Ann",
    flags: {
      "vtt-bridge": {
        iwr: { immunities: [{ type: "fire", exceptions: [] }], weaknesses: [], resistances: [] },
        conditions: { blinded: true, dead: true },
        detection: [],
      },
    },
  };
  const changes = { flags: { "vtt-bridge": { iwr: { immunities: [] }, conditions: { blinded: true, dead: true }, detection: [] } } };
  assert.deepEqual(upsertsFromActorUpdate(actor, changes, {}, mirror), [
    { path: "/actors/Actor.a/iwr", value: { immunities: [{ type: "fire", exceptions: [] }], weaknesses: [], resistances: [] } },
    { path: "/actors/Actor.a/conditions/blinded", value: true },
  ]);
  assert.deepEqual(upsertsFromActorUpdate(actor, changes, updateOptions(), mirror), []);
  assert.deepEqual(upsertsFromActorUpdate({ ...actor, uuid: "Actor.zz" }, changes, {}, mirror), [], "actor not in the world");
  assert.deepEqual(upsertsFromActorUpdate({ ...actor, name: "Anna" }, { name: "Anna" }, {}, mirror), [{ path: "/actors/Actor.a/name", value: "Anna" }]);
});

test("status effects toggled in Foundry become condition upserts unless the mirror agrees", () => {
  const actor = { uuid: "Actor.a", name: "Ann" };
  assert.deepEqual(upsertsFromStatusChange(actor, ["blind"], () => true, mirror), [{ path: "/actors/Actor.a/conditions/blinded", value: true }]);
  assert.deepEqual(upsertsFromStatusChange(actor, ["blind"], () => false, mirror), [], "echo of the module's own toggle");
  assert.deepEqual(upsertsFromStatusChange(actor, ["unconscious", "dead"], () => true, mirror), [], "derived");
});

test("tokens placed or removed on the synced scene become upserts", () => {
  const actor = { uuid: "Actor.b", name: "Bob", flags: {} };
  assert.deepEqual(upsertsFromTokenLifecycle({ id: "t9", x: 5, y: 6, actor, parent: { id: "s1" } }, true, mirror), [
    { path: "/actors/Actor.b", value: { name: "Bob" } },
    { path: "/tokens/t9", value: { actor: "Actor.b", x: 5, y: 6, elevation: 0 } },
  ]);
  assert.deepEqual(upsertsFromTokenLifecycle({ id: "t1", x: 0, y: 0, parent: { id: "s1" } }, false, mirror), [{ path: "/tokens/t1", value: null }]);
  assert.deepEqual(upsertsFromTokenLifecycle({ id: "t9", x: 0, y: 0, actor, parent: { id: "other" } }, true, mirror), []);
});


test("F18: a status granted by an Item's transferred ActiveEffect is forwarded for the Item's actor; one that does not transfer is not", () => {
  const actor = { uuid: "Actor.a", name: "Ann", effects: [], allApplicableEffects: () => [] };
  const item = { documentName: "Item", uuid: "Actor.a.Item.i1", parent: actor };
  const effect = { id: "e1", parent: item, statuses: new Set(["blind"]) };
  assert.deepEqual(upsertsFromEffectEvent(effect, true, mirror), [{ path: "/actors/Actor.a/conditions/blinded", value: true }]);
  assert.deepEqual(upsertsFromEffectEvent({ ...effect, transfer: false }, true, mirror), [], "not transferred: not the actor's");
  // deleted while another Item's effect still grants it: the actor stays blinded
  const other = { id: "e2", parent: { documentName: "Item", parent: actor }, statuses: new Set(["blind"]) };
  const still = { ...actor, allApplicableEffects: () => [effect, other] };
  const mirrorBlind = { ...mirror, actors: { "Actor.a": { ...mirror.actors["Actor.a"], conditions: { blinded: true } } } };
  assert.deepEqual(upsertsFromEffectEvent({ ...effect, parent: { ...item, parent: still } }, false, mirrorBlind), []);
  assert.deepEqual(upsertsFromEffectEvent({ ...effect, parent: item }, false, mirrorBlind), [{ path: "/actors/Actor.a/conditions/blinded", value: false }]);
});

test("F22: an unlinked token's system edit, told as updateActor and as updateToken's delta in one tick, is forwarded once, read after both", async () => {
  /** @type {string[]} */
  const forwarded = [];
  const forward = oncePerTick((/** @type {{uuid: string, wp: number}} */ actor) => void forwarded.push(`${actor.uuid}:${actor.wp}`));
  forward("Scene.s.Token.t.Actor.a", { uuid: "Scene.s.Token.t.Actor.a", wp: 3 }); // updateActor (synthetic)
  forward("Scene.s.Token.t.Actor.a", { uuid: "Scene.s.Token.t.Actor.a", wp: 3 }); // updateToken delta
  forward("Actor.b", { uuid: "Actor.b", wp: 1 });
  assert.deepEqual(forwarded, [], "not before the tick ends");
  await Promise.resolve();
  assert.deepEqual(forwarded, ["Scene.s.Token.t.Actor.a:3", "Actor.b:1"]);
  forward("Actor.b", { uuid: "Actor.b", wp: 2 });
  await Promise.resolve();
  assert.deepEqual(forwarded.at(-1), "Actor.b:2", "a later edit is forwarded again");
});
