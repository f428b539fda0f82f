// The module's copies of the sidecar's declarations (the actor fields, the derived fields and
// conditions, the condition ids, the Health statuses) against the sidecar's own JSON Schema
// (`vtt-bridge schema`), so a name added or dropped on one side and not on the other fails here.
import assert from "node:assert/strict";
import { test } from "node:test";

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { ACTOR_FIELDS, DERIVED_CONDITIONS, FORWARDED_ACTOR_FIELDS, SERVER_ACTOR_FIELDS } from "../../scripts/core/constants.mjs";
import { HEALTH_STATUSES } from "../../scripts/core/health-track.mjs";
import { SIDECAR_CONDITIONS } from "../../scripts/foundry/status-effects.mjs";
import { actorState, buildState } from "../../scripts/core/messages.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";
import { sidecarSchema } from "../helpers/schema-check.mjs";


test("ACTOR_FIELDS + SERVER_ACTOR_FIELDS + name are exactly the sidecar's Actor fields", () => {
  const actor = sidecarSchema().$defs.Actor; // every type is in the one document's $defs
  const sidecar = Object.keys(actor.properties).sort();
  const module = ["name", ...ACTOR_FIELDS, ...SERVER_ACTOR_FIELDS].sort();
  assert.deepEqual(module, sidecar);
  assert.ok(FORWARDED_ACTOR_FIELDS.every((f) => ACTOR_FIELDS.includes(f)));
});

/**
 * The properties a schema object marks `readOnly`: derived, the sidecar's to write (PROTOCOL.md
 * "Derived fields").
 * @param {Record<string, any>} properties
 */
const readOnly = (properties) => Object.keys(properties).filter((name) => properties[name].readOnly === true).sort();

test("DERIVED_CONDITIONS are the conditions the sidecar's schema marks readOnly (HEALTH-3..5, WP-5); SERVER_ACTOR_FIELDS its readOnly Actor fields", () => {
  const actor = sidecarSchema().$defs.Actor;
  const derived = readOnly(actor.properties.conditions.properties);
  assert.ok(derived.length > 0, "the schema declares the derived conditions");
  assert.deepEqual([...DERIVED_CONDITIONS].sort(), derived);
  assert.deepEqual([...SERVER_ACTOR_FIELDS].sort(), readOnly(actor.properties));
});

test("a sync's actor leaves out exactly the conditions the sidecar derives, and keeps the rest", () => {
  const derived = readOnly(sidecarSchema().$defs.Actor.properties.conditions.properties);
  const w = new FakeWorld();
  const conditions = Object.fromEntries([...derived, "prone", "blinded"].map((id) => [id, true]));
  const ann = w.addActor("a", "Ann", { health: { max: 7 }, conditions, status: "dying" });
  assert.deepEqual(actorState(ann).conditions, { prone: true, blinded: true });
  assert.equal(actorState(ann).status, undefined);
});

test("SIDECAR_CONDITIONS are the sidecar's Condition ids; HEALTH_STATUSES its HealthStatus values", () => {
  const defs = sidecarSchema().$defs;
  assert.deepEqual([...SIDECAR_CONDITIONS].sort(), [...defs.Condition.enum].sort());
  assert.deepEqual([...HEALTH_STATUSES].sort(), [...defs.HealthStatus.enum].sort());
  assert.ok(DERIVED_CONDITIONS.every((id) => SIDECAR_CONDITIONS.includes(id)));
});

test("a field the sidecar writes comes back in the next sync (cannotGainAgain survives a resync)", async () => {
  const w = new FakeWorld();
  const ann = w.addActor("a", "Ann", { health: { max: 7 } });
  w.addToken("t1", ann, 0, 0);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator(w.env),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
  const bar = [{ class: "ki", until: 120 }];
  await applier.apply({
    mode: "sync",
    rev: 1,
    patch: [{ op: "replace", path: "/actors", value: { "Actor.a": { name: "Ann", cannotGainAgain: bar } } }],
    log: [],
    source: "result",
  });
  assert.deepEqual(ann.flags["vtt-bridge"].cannotGainAgain, bar);
  assert.deepEqual(actorState(ann).cannotGainAgain, bar);
  const state = buildState({ scene: /** @type {any} */ (w.scene), settings: { woundPenalty: false, unconsciousAtZeroWillpower: false } });
  assert.deepEqual(state.actors["Actor.a"].cannotGainAgain, bar);
});
