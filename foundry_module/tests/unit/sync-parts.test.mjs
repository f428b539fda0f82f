import assert from "node:assert/strict";
import { test } from "node:test";

import { envelope } from "../../scripts/core/messages.mjs";
import { ENVELOPE_BYTES, SYNC_PART_BYTES, partBudget, syncParts } from "../../scripts/core/sync-parts.mjs";
import { bigScene } from "../helpers/big-scene.mjs";

/** An id as long as the protocol allows: the envelope at its largest. */
const LONGEST_ID = "x".repeat(200);

/**
 * The frames the parts travel in, as the connection sends them (`more: true` on all but the last).
 * @param {Record<string, any>[]} parts
 */
function frames(parts) {
  return parts.map((state, i) =>
    JSON.stringify(envelope("sync", i < parts.length - 1 ? { state, more: true } : { state }, LONGEST_ID)),
  );
}

/** @param {string} text UTF-8 bytes */
const bytes = (text) => Buffer.byteLength(text, "utf8");

/**
 * The parts merged as the sidecar documents it (PROTOCOL.md "Sending a large sync in parts"):
 * `actors` and `tokens` entry by entry, every other key replaced by the later part that has it.
 * @param {Record<string, any>[]} parts
 */
function mergeAsSidecar(parts) {
  if (parts.length === 1) return parts[0];
  /** @type {Record<string, any>} */
  const merged = { actors: {}, tokens: {} };
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      const isMap = (/** @type {unknown} */ v) => typeof v === "object" && v !== null && !Array.isArray(v);
      if ((key === "actors" || key === "tokens") && isMap(value) && isMap(merged[key])) Object.assign(merged[key], value);
      else merged[key] = value;
    }
  }
  return merged;
}

/**
 * The merge gives back the state: equal, and `actors` and `tokens` in the same order.
 * @param {Record<string, any>[]} parts @param {Record<string, any>} state
 */
function assertMergesBack(parts, state) {
  const merged = mergeAsSidecar(parts);
  assert.deepEqual(merged, state);
  assert.equal(JSON.stringify(merged.actors), JSON.stringify(state.actors));
  assert.equal(JSON.stringify(merged.tokens), JSON.stringify(state.tokens));
}

test("a state that fits one frame is one part: the state itself", () => {
  const state = bigScene(20);
  const parts = syncParts(state);
  assert.equal(parts.length, 1);
  assert.equal(parts[0], state);
});

test("1,000 tokens with their actors: several parts, each frame under 512 KiB, scene and settings in the first, merged back to the state", () => {
  const state = bigScene(1000);
  const whole = bytes(JSON.stringify(envelope("sync", { state }, LONGEST_ID)));
  assert.ok(whole > 1 << 20, `the whole sync (${whole} bytes) is over the sidecar's default 1 MiB frame`);
  const before = JSON.stringify(state);
  const parts = syncParts(state);
  assert.equal(JSON.stringify(state), before, "the state is not changed");
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  for (const [i, frame] of frames(parts).entries()) {
    assert.ok(bytes(frame) <= SYNC_PART_BYTES, `part ${i}: ${bytes(frame)} bytes`);
  }
  // the parts are filled: no more parts than the bytes need, with one part's slack
  assert.ok(parts.length <= Math.ceil(whole / (SYNC_PART_BYTES - ENVELOPE_BYTES)) + 1, `${parts.length} parts for ${whole} bytes`);
  assert.deepEqual(parts[0].scene, state.scene);
  assert.deepEqual(parts[0].settings, state.settings);
  assert.ok(parts.slice(1).every((part) => !("scene" in part) && !("settings" in part)), "scene and settings only in the first");
  assertMergesBack(parts, state);
});

test("the budget of a part is the sidecar's maxFrame when that is smaller than 512 KiB, else 512 KiB; an older sidecar's welcome (no maxFrame) gets 512 KiB", () => {
  assert.equal(partBudget(128 << 10), 128 << 10);
  assert.equal(partBudget(1 << 20), SYNC_PART_BYTES);
  assert.equal(partBudget(SYNC_PART_BYTES), SYNC_PART_BYTES);
  for (const odd of [undefined, null, "4096", 0, -5, 1.5, Number.NaN]) assert.equal(partBudget(odd), SYNC_PART_BYTES, String(odd));
  const state = bigScene(300);
  const small = 64 << 10;
  const parts = syncParts(state, partBudget(small));
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  for (const [i, frame] of frames(parts).entries()) assert.ok(bytes(frame) <= small, `part ${i}: ${bytes(frame)} bytes`);
  assertMergesBack(parts, state);
});

test("a frame's size is counted in UTF-8 bytes, not characters", () => {
  // three bytes a character: counted as characters, the parts would be three times too large
  const state = bigScene(60, { name: (i) => "幽霊の名前".repeat(20) + i });
  const budget = 16 * 1024;
  const parts = syncParts(state, budget);
  assert.ok(parts.length > 3, `${parts.length} parts`);
  for (const [i, frame] of frames(parts).entries()) {
    assert.ok(bytes(frame) <= budget, `part ${i}: ${bytes(frame)} bytes`);
    assert.ok(bytes(frame) > budget / 2 || i === parts.length - 1, `part ${i} is filled: ${bytes(frame)} bytes`);
  }
  assertMergesBack(parts, state);
});

test("a single entry larger than the budget travels in a part of its own; the others stay under it", () => {
  const state = bigScene(40);
  const huge = "Actor.a000000000000017";
  state.actors[huge].name = "z".repeat(20_000);
  const budget = 8 * 1024;
  const parts = syncParts(state, budget);
  const alone = parts.findIndex((part) => part.actors && huge in part.actors);
  assert.deepEqual(Object.keys(parts[alone]), ["actors"]);
  assert.deepEqual(Object.keys(parts[alone].actors), [huge], "nothing else shares its part");
  for (const [i, frame] of frames(parts).entries()) {
    if (i !== alone) assert.ok(bytes(frame) <= budget, `part ${i}: ${bytes(frame)} bytes`);
  }
  assert.ok(bytes(frames(parts)[alone]) > budget, "that part is over the budget: the sidecar answers too_large");
  assertMergesBack(parts, state);

  // first of all: it does not leave an empty part before it
  const first = { tokens: { big: { actor: "z".repeat(20_000) }, small: { actor: "a" } } };
  assert.deepEqual(syncParts(first, budget), [{ tokens: { big: first.tokens.big } }, { tokens: { small: first.tokens.small } }]);
});

test("a large scene or settings go alone in the first part; a state without actors or tokens splits what it has", () => {
  const state = bigScene(30);
  state.scene.note = "n".repeat(3000);
  const parts = syncParts(state, 4096);
  assert.deepEqual(Object.keys(parts[0]).sort(), ["scene", "settings"]);
  assertMergesBack(parts, state);

  const tokensOnly = { tokens: bigScene(200).tokens };
  const tokenParts = syncParts(tokensOnly, 4096);
  assert.ok(tokenParts.length > 1);
  assert.ok(tokenParts.every((part) => Object.keys(part).join() === "tokens"));
  assert.deepEqual(mergeAsSidecar(tokenParts), { actors: {}, ...tokensOnly });
});
