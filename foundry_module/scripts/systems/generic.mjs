/**
 * PURE: any other game system, driven by a mapping from our fields to data paths (a world setting),
 * with a preset for Simple Worldbuilding. A mapping is a JSON object such as
 * `{"attributes.DEX": "system.attributes.dex.value", "health.max": "system.health.max"}`.
 *
 * Mappable fields: `attributes.<STR..COM>`, `skills.<investigation|stealth>`, `speed`,
 * `health.max`, `health.bashing`, `health.lethal`, `health.aggravated` (counts of boxes),
 * `health.healthy` (a value that shows the undamaged boxes, as a hit-point bar does: written, never
 * read, since it cannot say which grade a lost box had), `willpower.max`, `willpower.current`.
 * Health counts and the current Willpower are read (and Health written) only with their max
 * mapped (so what is sent always fits: B + L + A ≤ max, current ≤ max).
 * A mapped path the actor does not hold is left out quietly (a generic system holds what its GM
 * defined); a value there that is not a usable number is a problem.
 * @module systems/generic
 */

import { ATTRIBUTES, RULE_SKILLS } from "../core/constants.mjs";
import { getPath, MAX_BOXES, MAX_RATING, readNumber, wholeNumber } from "./data.mjs";

/** @typedef {import("./_types.mjs").ActorData} ActorData */
/** @typedef {import("./_types.mjs").SystemProblem} SystemProblem */
/** @typedef {import("./_types.mjs").Adapter} Adapter */
/** @typedef {Readonly<Record<string, string>>} Mapping our field → dot path from the actor data */

/** Every field a mapping may name. */
export const MAPPABLE_FIELDS = Object.freeze([
  ...ATTRIBUTES.map((a) => `attributes.${a}`),
  ...RULE_SKILLS.map((s) => `skills.${s}`),
  "speed",
  "health.max",
  "health.bashing",
  "health.lethal",
  "health.aggravated",
  "health.healthy",
  "willpower.max",
  "willpower.current",
]);

/**
 * Simple Worldbuilding (`worldbuilding`): `system.health` and `system.power` are `{value, min, max}`
 * bars; Attributes are the GM's own keys under `system.attributes` (here the lower-case names).
 * Health is a hit-point bar there: its `value` shows the undamaged boxes, the grades stay ours.
 */
export const SIMPLE_WORLDBUILDING = Object.freeze({
  ...Object.fromEntries(ATTRIBUTES.map((a) => [`attributes.${a}`, `system.attributes.${a.toLowerCase()}.value`])),
  ...Object.fromEntries(RULE_SKILLS.map((s) => [`skills.${s}`, `system.attributes.${s}.value`])),
  speed: "system.attributes.speed.value",
  "health.max": "system.health.max",
  "health.healthy": "system.health.value",
  "willpower.max": "system.power.max",
  "willpower.current": "system.power.value",
});

/**
 * Parse the mapping setting: `{ok: true, mapping}` or `{ok: false, error}` (not JSON, not an
 * object, a field we do not know, a path that is not a string of `system.` or `flags.`).
 * An empty setting is the empty mapping.
 * @param {unknown} text
 * @returns {{ok: true, mapping: Mapping} | {ok: false, error: string}}
 */
export function parseMapping(text) {
  if (text === undefined || text === null || (typeof text === "string" && text.trim() === "")) return { ok: true, mapping: {} };
  let value;
  try {
    value = typeof text === "string" ? JSON.parse(text) : text;
  } catch {
    return { ok: false, error: "json" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, error: "object" };
  /** @type {Record<string, string>} */
  const mapping = {};
  for (const [field, path] of Object.entries(value)) {
    if (!MAPPABLE_FIELDS.includes(field)) return { ok: false, error: `field:${field}` };
    if (typeof path !== "string" || !/^(system|flags)(\.[^.\s]+)+$/.test(path)) return { ok: false, error: `path:${field}` };
    mapping[field] = path;
  }
  return { ok: true, mapping: Object.freeze(mapping) };
}

/**
 * An adapter reading and writing the mapped paths.
 * @param {Mapping} mapping
 * @param {{id?: string, detect?: (actorData: ActorData) => boolean}} [options] `detect`: default
 *   "the actor holds at least one mapped path"
 * @returns {Adapter}
 */
export function createGenericAdapter(mapping, { id = "generic", detect } = {}) {
  const has = (/** @type {string} */ field) => typeof mapping[field] === "string";
  /** @param {ActorData} a @param {string} field @param {SystemProblem[]|undefined} problems @param {number} [max] */
  const num = (a, field, problems, max = MAX_BOXES) =>
    has(field) ? readNumber(a, mapping[field], { field, max, optional: true }, problems) : undefined;

  /** @param {ActorData} actorData @param {SystemProblem[]} [problems] */
  function readHealth(actorData, problems) {
    const max = num(actorData, "health.max", problems);
    if (max === undefined) return undefined;
    /** @type {Record<string, number>} */
    const track = { max };
    let total = 0;
    for (const grade of ["bashing", "lethal", "aggravated"]) {
      const n = num(actorData, `health.${grade}`, problems, max);
      if (n !== undefined) total += track[grade] = n;
    }
    if (total > max) {
      problems?.push({ field: "health", path: mapping["health.max"], problem: "range" });
      return undefined;
    }
    return track;
  }

  /**
   * Willpower needs its max mapped (the sidecar checks current ≤ max, and the flags' max may be
   * another); a current above the max is read as the max (WP-6).
   * @param {ActorData} actorData @param {SystemProblem[]} [problems]
   */
  function readWillpower(actorData, problems) {
    const max = num(actorData, "willpower.max", problems);
    if (max === undefined) return undefined;
    const current = num(actorData, "willpower.current", problems);
    return current === undefined ? { max } : { max, current: Math.min(current, max) };
  }

  /** The sidecar fields this mapping takes from the system. */
  const fields = Object.freeze(
    ["attributes", "skills", "speed", "health", "willpower"].filter((root) =>
      Object.keys(mapping).some((field) => (field === root || field.startsWith(`${root}.`)) && field !== "health.healthy"),
    ),
  );

  // the bar attribute: the mapped Health's object under `system.` ("system.health.max" → "health")
  const healthPath = mapping["health.max"] ?? mapping["health.healthy"];
  const healthBar = healthPath?.startsWith("system.") ? healthPath.slice(7).replace(/\.(max|value)$/, "") : null;

  return {
    id,
    fields,
    healthBar,
    detect: detect ?? ((actorData) => Object.values(mapping).some((path) => getPath(actorData, path) !== undefined)),
    read(actorData, problems) {
      /** @type {Record<string, any>} */
      const out = {};
      for (const group of /** @type {const} */ (["attributes", "skills"])) {
        /** @type {Record<string, number>} */
        const values = {};
        for (const field of MAPPABLE_FIELDS.filter((f) => f.startsWith(`${group}.`))) {
          const n = num(actorData, field, problems, MAX_RATING);
          if (n !== undefined) values[field.slice(group.length + 1)] = n;
        }
        if (Object.keys(values).length) out[group] = values;
      }
      const speed = num(actorData, "speed", problems, 1e6);
      if (speed !== undefined) out.speed = speed;
      const health = readHealth(actorData, problems);
      if (health) out.health = health;
      const willpower = readWillpower(actorData, problems);
      if (willpower) out.willpower = willpower;
      return out;
    },
    write(actorData, sidecarActor) {
      /** @type {Record<string, number>} */
      const update = {};
      /** @param {string} field @param {unknown} value */
      const put = (field, value) => {
        if (!has(field) || !Number.isSafeInteger(value)) return;
        const stored = getPath(actorData, mapping[field]);
        if (stored === undefined || wholeNumber(stored) === undefined) return; // refused on read: never overwritten
        if (wholeNumber(stored) !== value) update[mapping[field]] = /** @type {number} */ (value);
      };
      const track = sidecarActor?.health;
      const healthNow = readHealth(actorData);
      if (track && healthNow && healthNow.max === track.max) {
        for (const grade of ["bashing", "lethal", "aggravated"]) put(`health.${grade}`, track[grade] ?? 0);
        const healthy = (track.max ?? 0) - (track.bashing ?? 0) - (track.lethal ?? 0) - (track.aggravated ?? 0);
        put("health.healthy", Math.max(0, healthy));
      }
      const wp = sidecarActor?.willpower;
      if (wp && readWillpower(actorData)) put("willpower.current", wp.current);
      return update;
    },
  };
}

/** Simple Worldbuilding: picked when the actor has its two bars and its Attributes object. */
export const worldbuilding = createGenericAdapter(SIMPLE_WORLDBUILDING, {
  id: "worldbuilding",
  detect: (actorData) =>
    ["system.health", "system.power"].every((path) => {
      const bar = /** @type {any} */ (getPath(actorData, path));
      return bar !== null && typeof bar === "object" && "value" in bar && "max" in bar && !("lethal" in bar);
    }) && typeof getPath(actorData, "system.attributes") === "object",
});
