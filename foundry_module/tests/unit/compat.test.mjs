import assert from "node:assert/strict";
import { test } from "node:test";

import { chatRenderHook, deletionOperator, namespacedClass, statusEffectIds } from "../../scripts/foundry/compat.mjs";
import { ENV, ForcedDeletion } from "../helpers/fake-foundry.mjs";

test("v12/v13 deletion is the -=key syntax with the value null", () => {
  const del = deletionOperator({});
  assert.deepEqual(del("flags.vtt-bridge.visibility", "tok1"), ["flags.vtt-bridge.visibility.-=tok1", null]);
});

test("v14 deletion uses foundry.data.operators.ForcedDeletion on the plain key", () => {
  const del = deletionOperator({ foundry: { data: { operators: { ForcedDeletion } } } });
  const [key, value] = del("flags.vtt-bridge.visibility", "tok1");
  assert.equal(key, "flags.vtt-bridge.visibility.tok1");
  assert.ok(value instanceof ForcedDeletion);
  assert.equal(deletionOperator(ENV[14])("a", "b")[1], ENV[14]._del, "the shared _del instance when there is one");
});

test("the chat render hook: renderChatMessage on v12 only, renderChatMessageHTML from v13", () => {
  assert.equal(chatRenderHook(12), "renderChatMessage");
  assert.equal(chatRenderHook(13), "renderChatMessageHTML");
  assert.equal(chatRenderHook(14), "renderChatMessageHTML");
});

test("status effects: v13 array of {id}, v14 object keyed by id", () => {
  assert.deepEqual([...statusEffectIds([{ id: "blind" }, { id: "dead" }, {}])], ["blind", "dead"]);
  assert.deepEqual([...statusEffectIds({ blind: { id: "blind" }, dead: { name: "Dead" } })], ["blind", "dead"]);
  assert.equal(statusEffectIds(undefined).size, 0);
});

test("namespaced classes fall back to the v12 global", () => {
  class Token {}
  assert.equal(namespacedClass({ foundry: { canvas: { placeables: { Token } } } }, "foundry.canvas.placeables.Token", "Token"), Token);
  assert.equal(namespacedClass({ Token }, "foundry.canvas.placeables.Token", "Token"), Token);
});
