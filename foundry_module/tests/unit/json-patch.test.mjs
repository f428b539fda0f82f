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
