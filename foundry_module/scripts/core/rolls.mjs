/**
 * PURE: the sidecar's dice as Foundry roll data. The sidecar reports each roll as
 * `{pool, again, dice: [faces in rolling order, rerolls included], successes}` (DICE-1/2); this module
 * turns it into the JSON `Roll.fromData` accepts: one `Die` term of d10s with the n-again explode
 * modifier and success counting on 8+, already evaluated, whose results are exactly the engine's
 * faces. A ChatMessage carrying that Roll shows the engine's dice, and Dice So Nice animates them
 * (it animates the rolls of a created ChatMessage).
 *
 * Order: Foundry's explode modifier scans results in order and appends one die per exploding result
 * at the end; the sidecar rolls a queue the same way (the pool first, then one die per die that
 * showed `again` or more), so the faces keep their order and each face that meets `again` is the
 * one marked `exploded`.
 * @module rolls
 */

/** DICE-1: a die showing 8 or more is a success. */
export const SUCCESS_THRESHOLD = 8;

/** `again` of a roll without rerolls (the sidecar's 11). */
export const NO_AGAIN = 11;

/**
 * @typedef {object} EngineRoll the sidecar's roll
 * @property {number} pool
 * @property {number} again 8, 9, 10, or 11 (no rerolls)
 * @property {number[]} dice faces in rolling order, rerolls included
 * @property {number} successes
 */

/**
 * @typedef {object} DieResult Foundry's DiceTermResult
 * @property {number} result
 * @property {boolean} active
 * @property {boolean} success
 * @property {number} count
 * @property {boolean} [exploded]
 */

/**
 * The explode modifier of an n-again: "x" (on the max face, 10), "x>=9", "x>=8", or "" (no rerolls).
 * @param {number} again
 * @returns {string}
 */
export function againModifier(again) {
  if (again === 10) return "x";
  if (again === 9 || again === 8) return `x>=${again}`;
  if (again === NO_AGAIN) return "";
  throw new RangeError(`again must be 8, 9, 10 or 11, not ${again}`);
}

/**
 * The n-again an explode modifier stands for (the inverse of `againModifier`).
 * @param {string[]} modifiers
 * @returns {number}
 */
export function againFromModifiers(modifiers) {
  for (const modifier of modifiers) {
    if (modifier === "x" || modifier === "x10" || modifier === "x=10" || modifier === "x>=10") return 10;
    const match = /^x>=?([89])$/.exec(modifier);
    if (match) return modifier.includes("=") ? Number(match[1]) : Number(match[1]) + 1;
  }
  return NO_AGAIN;
}

/**
 * The Foundry formula of a roll: `<pool>d10<explode>cs>=8`.
 * @param {{pool: number, again: number}} roll
 * @returns {string}
 */
export function rollFormula({ pool, again }) {
  return `${Math.max(0, pool)}d10${againModifier(again)}cs>=${SUCCESS_THRESHOLD}`;
}

/**
 * Check a roll from the sidecar: faces 1..10, as many as the pool plus one per reroll, and the
 * successes they give.
 * @param {EngineRoll} roll
 */
export function checkEngineRoll(roll) {
  const { pool, again, dice, successes } = roll;
  againModifier(again);
  if (!Array.isArray(dice) || dice.some((face) => !Number.isInteger(face) || face < 1 || face > 10)) {
    throw new RangeError("a d10 shows 1..10");
  }
  const rerolls = dice.filter((face) => face >= again).length;
  if (dice.length !== Math.max(0, pool) + rerolls) {
    throw new RangeError(`a pool of ${pool} with ${again}-again rolls ${Math.max(0, pool) + rerolls} dice, not ${dice.length}`);
  }
  const counted = dice.filter((face) => face >= SUCCESS_THRESHOLD).length;
  if (counted !== successes) throw new RangeError(`the dice give ${counted} successes, not ${successes}`);
}

/**
 * The data `Roll.fromData` accepts for one engine roll: an evaluated Roll of one Die term.
 * @param {EngineRoll} roll
 * @returns {Record<string, any>}
 */
export function rollToFoundryData(roll) {
  checkEngineRoll(roll);
  const again = roll.again;
  const modifiers = [againModifier(again), `cs>=${SUCCESS_THRESHOLD}`].filter(Boolean);
  /** @type {DieResult[]} */
  const results = roll.dice.map((face) => {
    const success = face >= SUCCESS_THRESHOLD;
    /** @type {DieResult} */
    const result = { result: face, active: true, success, count: success ? 1 : 0 };
    if (face >= again) result.exploded = true;
    return result;
  });
  const term = {
    class: "Die",
    options: {},
    evaluated: true,
    number: Math.max(0, roll.pool),
    faces: 10,
    modifiers,
    results,
  };
  return {
    class: "Roll",
    options: {},
    dice: [],
    formula: rollFormula(roll),
    terms: [term],
    total: roll.successes,
    evaluated: true,
  };
}

/**
 * Read an engine roll back from Roll data (`roll.toJSON()` or `rollToFoundryData`).
 * @param {Record<string, any>} data
 * @returns {EngineRoll}
 */
export function engineRollFromFoundryData(data) {
  const term = (data.terms ?? []).find((/** @type {any} */ t) => t?.class === "Die" && t.faces === 10);
  if (!term) throw new TypeError("no d10 term in the roll");
  const dice = (term.results ?? []).filter((/** @type {any} */ r) => r.active !== false).map((/** @type {any} */ r) => r.result);
  return {
    pool: term.number,
    again: againFromModifiers(term.modifiers ?? []),
    dice,
    successes: (term.results ?? []).filter((/** @type {any} */ r) => r.active !== false && r.success).length,
  };
}
