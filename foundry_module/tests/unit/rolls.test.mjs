import assert from "node:assert/strict";
import { test } from "node:test";

import { againFromModifiers, againModifier, checkEngineRoll, engineRollFromFoundryData, rollFormula, rollToFoundryData } from "../../scripts/core/rolls.mjs";

/**
 * The sidecar's roll_pool (DICE-1/2) over a fixed face stream, to build engine-shaped rolls.
 * @param {number} pool @param {number} again @param {number[]} stream
 * @returns {import("../../scripts/core/rolls.mjs").EngineRoll}
 */
function enginePool(pool, again, stream) {
  const dice = [];
  let toRoll = pool;
  let i = 0;
  while (toRoll > 0) {
    const face = stream[i++];
    dice.push(face);
    toRoll -= 1;
    if (face >= again) toRoll += 1;
  }
  return { pool, again, dice, successes: dice.filter((f) => f >= 8).length };
}

/** @type {Array<[string, import("../../scripts/core/rolls.mjs").EngineRoll, string]>} */
const CASES = [
  ["10-again", enginePool(4, 10, [10, 10, 3, 8, 9, 1]), "4d10xcs>=8"],
  ["9-again", enginePool(3, 9, [9, 2, 10, 8, 4, 9, 1]), "3d10x>=9cs>=8"],
  ["8-again", enginePool(2, 8, [8, 9, 8, 3, 7, 2]), "2d10x>=8cs>=8"],
  ["no rerolls", enginePool(3, 11, [10, 10, 5]), "3d10cs>=8"],
  ["empty pool", enginePool(0, 10, []), "0d10xcs>=8"],
];

for (const [name, roll, formula] of CASES) {
  test(`${name}: formula, faces, exploded marks and successes round-trip`, () => {
    const data = rollToFoundryData(roll);
    assert.equal(data.formula, formula);
    assert.equal(rollFormula(roll), formula);
    assert.equal(data.class, "Roll");
    assert.equal(data.evaluated, true);
    assert.equal(data.total, roll.successes);
    const [term] = data.terms;
    assert.equal(term.class, "Die");
    assert.equal(term.faces, 10);
    assert.equal(term.number, roll.pool);
    assert.equal(term.evaluated, true);
    assert.deepEqual(term.results.map((/** @type {any} */ r) => r.result), roll.dice, "faces in rolling order");
    assert.deepEqual(term.results.map((/** @type {any} */ r) => !!r.exploded), roll.dice.map((f) => f >= roll.again), "one reroll per exploded die");
    assert.ok(term.results.every((/** @type {any} */ r) => r.active === true));
    assert.deepEqual(term.results.map((/** @type {any} */ r) => r.success), roll.dice.map((f) => f >= 8));
    assert.equal(term.results.reduce((/** @type {number} */ n, /** @type {any} */ r) => n + r.count, 0), roll.successes, "the Die total is the successes");
    // the explosions add exactly the dice past the pool
    assert.equal(term.results.filter((/** @type {any} */ r) => r.exploded).length, roll.dice.length - roll.pool);
    assert.deepEqual(engineRollFromFoundryData(JSON.parse(JSON.stringify(data))), roll);
  });
}

test("explode modifiers: x (10), x>=9, x>=8, none; and back", () => {
  assert.deepEqual([10, 9, 8, 11].map(againModifier), ["x", "x>=9", "x>=8", ""]);
  assert.throws(() => againModifier(7), RangeError);
  assert.equal(againFromModifiers(["x", "cs>=8"]), 10);
  assert.equal(againFromModifiers(["x10"]), 10);
  assert.equal(againFromModifiers(["x>8"]), 9);
  assert.equal(againFromModifiers(["x>=8"]), 8);
  assert.equal(againFromModifiers(["cs>=8"]), 11);
});

test("a roll whose dice do not fit its pool or successes is refused", () => {
  assert.throws(() => checkEngineRoll({ pool: 2, again: 10, dice: [10, 3], successes: 1 }), /rolls 3 dice/);
  assert.throws(() => checkEngineRoll({ pool: 1, again: 10, dice: [8], successes: 0 }), /1 successes/);
  assert.throws(() => checkEngineRoll({ pool: 1, again: 10, dice: [11], successes: 1 }), /1\.\.10/);
});
