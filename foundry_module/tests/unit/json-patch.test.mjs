import assert from "node:assert/strict";
import { test } from "node:test";

import { applyJsonPatch, deepEqual, getAt, parsePointer, PatchError, pointer } from "../../scripts/core/json-patch.mjs";

test("pointers escape ~ and / (RFC 6901) and round-trip", () => {
  assert.equal(pointer("actors", "a/b", "c~d"), "/actors/a~1b/c~0d");
  assert.deepEqual(parsePointer("/actors/a~1b/c~0d"), ["actors", "a/b", "c~d"]);
  assert.deepEqual(parsePointer(""), []);
  assert.throws(() => parsePointer("actors"), SyntaxError);
});

test("add, replace, remove, move, copy on objects and arrays, input untouched", () => {
  const doc = { a: { b: 1 }, list: [1, 2] };
  const out = applyJsonPatch(doc, [
    { op: "add", path: "/a/c", value: 2 },
    { op: "replace", path: "/a/b", value: 5 },
    { op: "add", path: "/list/1", value: 9 },
    { op: "add", path: "/list/-", value: 3 },
    { op: "remove", path: "/list/0" },
    { op: "copy", from: "/a", path: "/copied" },
    { op: "move", from: "/a/c", path: "/moved" },
  ]);
  assert.deepEqual(out, { a: { b: 5 }, list: [9, 2, 3], copied: { b: 5, c: 2 }, moved: 2 });
  assert.deepEqual(doc, { a: { b: 1 }, list: [1, 2] });
});

test("a failing test op raises a PatchError marked failedTest", () => {
  assert.throws(
    () => applyJsonPatch({ rev: 3 }, [{ op: "test", path: "/rev", value: 2 }]),
    (error) => error instanceof PatchError && error.failedTest && error.index === 0,
  );
  assert.deepEqual(applyJsonPatch({ rev: 3 }, [{ op: "test", path: "/rev", value: 3 }]), { rev: 3 });
});

test("replace or remove of a missing member fails (not failedTest)", () => {
  for (const op of /** @type {const} */ (["replace", "remove"])) {
    assert.throws(
      () => applyJsonPatch({}, [{ op, path: "/nope", value: 1 }]),
      (error) => error instanceof PatchError && !error.failedTest,
    );
  }
  assert.throws(() => applyJsonPatch({}, [{ op: "add", path: "/a/b", value: 1 }]), PatchError);
});

test("deepEqual ignores key order; getAt reads arrays by index only", () => {
  assert.ok(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!deepEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!deepEqual([1], { 0: 1 }));
  assert.equal(getAt({ l: [5, 6] }, "/l/1"), 6);
  assert.equal(getAt({ l: [5, 6] }, "/l/01"), undefined);
});

/**
 * Freeze a value and everything in it: a patch that changed any part of it throws (ES modules are
 * strict code).
 * @param {any} value
 * @returns {any}
 */
function deepFreeze(value) {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

test("a patch copies only the containers on its ops' paths: the rest is shared, the input never changed", () => {
  const doc = deepFreeze({
    rev: 3,
    actors: { a: { health: { max: 7, marks: ["B"] } }, b: { name: "B" } },
    visibility: { o1: { t1: "a", t2: "u" }, o2: { t1: "u" } },
    contests: { o1: { t1: { round: 1 } } },
  });
  const after = /** @type {any} */ (
    applyJsonPatch(doc, [
      { op: "test", path: "/rev", value: 3 },
      { op: "replace", path: "/actors/a/health/max", value: 9 },
      { op: "add", path: "/actors/a/health/marks/-", value: "L" },
      { op: "remove", path: "/visibility/o1/t2" },
      { op: "add", path: "/visibility/o1/t3", value: "a" },
      { op: "replace", path: "/rev", value: 4 },
    ])
  );
  assert.deepEqual(after, {
    rev: 4,
    actors: { a: { health: { max: 9, marks: ["B", "L"] } }, b: { name: "B" } },
    visibility: { o1: { t1: "a", t3: "a" }, o2: { t1: "u" } },
    contests: { o1: { t1: { round: 1 } } },
  });
  assert.equal(doc.actors.a.health.max, 7, "the input is as it was");
  assert.deepEqual(doc.visibility.o1, { t1: "a", t2: "u" });
  assert.notEqual(after, doc);
  assert.notEqual(after.actors.a.health, doc.actors.a.health, "a changed object is a copy");
  assert.equal(after.actors.b, doc.actors.b, "an untouched member is the very same object");
  assert.equal(after.visibility.o2, doc.visibility.o2);
  assert.equal(after.contests, doc.contests, "an untouched part is shared whole");
});

test("a patch that fails part-way leaves its input as it was", () => {
  const doc = deepFreeze({ visibility: { o1: { t1: "a" } }, rev: 1 });
  assert.throws(
    () =>
      applyJsonPatch(doc, [
        { op: "remove", path: "/visibility/o1/t1" },
        { op: "replace", path: "/visibility/o9/t1", value: "u" },
      ]),
    PatchError,
  );
  assert.deepEqual(doc, { visibility: { o1: { t1: "a" } }, rev: 1 });
});

test("two ops on one container in a patch copy it once and see each other's changes", () => {
  const doc = deepFreeze({ row: { a: 1 } });
  const after = /** @type {any} */ (
    applyJsonPatch(doc, [
      { op: "add", path: "/row/b", value: 2 },
      { op: "copy", from: "/row/b", path: "/row/c" },
      { op: "move", from: "/row/a", path: "/row/d" },
    ])
  );
  assert.deepEqual(after, { row: { b: 2, c: 2, d: 1 } });
  assert.deepEqual(doc, { row: { a: 1 } });
});

test("an op's value is put in as it is and never changed by a later op of the patch", () => {
  const value = deepFreeze({ t1: "a" });
  const ops = deepFreeze([
    { op: "add", path: "/visibility/o1", value },
    { op: "add", path: "/visibility/o1/t2", value: "u" },
    { op: "copy", from: "/visibility/o1", path: "/visibility/o2" },
    { op: "remove", path: "/visibility/o1/t1" },
  ]);
  const after = /** @type {any} */ (applyJsonPatch({ visibility: {} }, ops));
  assert.deepEqual(after.visibility, { o1: { t2: "u" }, o2: { t1: "a", t2: "u" } });
  assert.deepEqual(value, { t1: "a" }, "the op's value is as it came");
});
