/**
 * PURE: what every game-system adapter shares: the shape of the actor data it reads, reading a
 * value at a dot path, and checking a number read from a system before the sidecar sees it.
 * A value that cannot be used is reported as a `SystemProblem` (the field and why) and left out.
 * @module systems/data
 */

/** @typedef {import("./_types.mjs").ActorData} ActorData */
/** @typedef {import("./_types.mjs").SystemProblem} SystemProblem */
/** @typedef {import("./_types.mjs").SidecarFields} SidecarFields */
/** @typedef {import("./_types.mjs").Adapter} Adapter */

/**
 * The value at a dot path ("system.health.max") of `root`, or undefined. A system's data may be a
 * data model instance whose values are getters, so a key is looked up with `in`, not as an own
 * property; a path through anything that is not an object (a number, a function) is undefined.
 * @param {unknown} root
 * @param {string} path
 * @returns {unknown}
 */
export function getPath(root, path) {
  /** @type {any} */
  let node = root;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Ratings the sidecar accepts for Attributes and Skills (models.py: 0..100). */
export const MAX_RATING = 100;
/** Health boxes and Willpower points the sidecar accepts (health.py `Boxes`). */
export const MAX_BOXES = 1000;

/**
 * A whole number read from a system: numbers and numeric strings as the system's sheets store them
 * ("3" from a text input), nothing else.
 * @param {unknown} raw
 * @returns {number|undefined}
 */
export function wholeNumber(raw) {
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Read a whole number at `path` of `actorData` (the first of `paths` that holds a value): the
 * number, or undefined with a problem pushed (missing, not a whole number, out of `min..max`).
 * @param {ActorData} actorData
 * @param {string|string[]} paths dot paths from the actor data ("system.health.max"), in order
 * @param {{field: string, min?: number, max?: number, optional?: boolean}} check `optional`: a
 *   missing value is no problem (a generic system holds what its GM defined)
 * @param {SystemProblem[]|undefined} problems
 * @returns {number|undefined}
 */
export function readNumber(actorData, paths, { field, min = 0, max = MAX_BOXES, optional = false }, problems) {
  const list = Array.isArray(paths) ? paths : [paths];
  const path = list.find((p) => getPath(actorData, p) !== undefined && getPath(actorData, p) !== null);
  if (path === undefined) {
    if (!optional) problems?.push({ field, path: list[0], problem: "missing" });
    return undefined;
  }
  const n = wholeNumber(getPath(actorData, path));
  if (n === undefined) {
    problems?.push({ field, path, problem: "number" });
    return undefined;
  }
  if (n < min || n > max) {
    problems?.push({ field, path, problem: "range" });
    return undefined;
  }
  return n;
}

/**
 * The prepared value of a trait `{value, final}`: `final` (the system's total with its modifiers)
 * when it is a number, else `value`.
 * @param {string} base dot path of the trait ("system.attributes_physical.stamina")
 * @returns {string[]} the paths to try, in order
 */
export function traitPaths(base) {
  return [`${base}.final`, `${base}.value`];
}
