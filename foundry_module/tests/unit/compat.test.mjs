import assert from "node:assert/strict";
import { test } from "node:test";

import { deletesKey, deletionOperator, detectionModeIds, namespacedClass, statusEffectIds } from "../../scripts/compat.mjs";
import { ForcedDeletion } from "../helpers/fake-foundry.mjs";

test("v12/v13 deletion is the -=key syntax with the value null", () => {
  const del = deletionOperator({});
  assert.deepEqual(del("flags.vtt-bridge.visibility", "tok1"), ["flags.vtt-bridge.visibility.-=tok1", null]);
});

test("v14 deletion uses foundry.data.operators.ForcedDeletion on the plain key", () => {
  const del = deletionOperator({ foundry: { data: { operators: { ForcedDeletion } } } });
  const [key, value] = del("flags.vtt-bridge.visibility", "tok1");
  assert.equal(key, "flags.vtt-bridge.visibility.tok1");
  assert.ok(value instanceof ForcedDeletion);
  assert.ok(deletesKey({ tok1: value }, "tok1"));
  assert.ok(deletesKey({ "-=tok1": null }, "tok1"));
  assert.ok(!deletesKey({ tok1: "approximate" }, "tok1"));
});

test("status effects: v13 array of {id}, v14 object keyed by id", () => {
  assert.deepEqual([...statusEffectIds([{ id: "blind" }, { id: "dead" }, {}])], ["blind", "dead"]);
  assert.deepEqual([...statusEffectIds({ blind: { id: "blind" }, dead: { name: "Dead" } })], ["blind", "dead"]);
  assert.equal(statusEffectIds(undefined).size, 0);
});

test("detection modes: v13 array, v14 object keyed by id", () => {
  assert.deepEqual(detectionModeIds([{ id: "basicSight" }, { id: "hearing" }]), ["basicSight", "hearing"]);
  assert.deepEqual(detectionModeIds({ basicSight: { enabled: true }, hearing: {} }), ["basicSight", "hearing"]);
});

test("namespaced classes fall back to the v12 global", () => {
  class Token {}
  assert.equal(namespacedClass({ foundry: { canvas: { placeables: { Token } } } }, "foundry.canvas.placeables.Token", "Token"), Token);
  assert.equal(namespacedClass({ Token }, "foundry.canvas.placeables.Token", "Token"), Token);
});
