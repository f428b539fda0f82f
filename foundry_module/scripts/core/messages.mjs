/**
 * PURE: builders for every message the module sends (PROTOCOL.md "Client → server"), and the state
 * document built from Foundry-shaped documents for `sync`.
 * @module messages
 */

import {
  ACTOR_FIELDS,
  DERIVED_CONDITIONS,
  MODULE_ID,
  MODULE_VERSION,
  NOISY_FLAG,
  PROTOCOL_VERSION,
  VISIBILITY_FLAG,
  AREAS_FLAG,
} from "./constants.mjs";
import { isPlainObject, pointer } from "./json-patch.mjs";

/**
 * @typedef {object} Envelope
 * @property {number} v
 * @property {string} id
 * @property {string} type
 * @property {Record<string, any>} payload
 * @property {string} [re]
 */

/** @typedef {import("./_types.mjs").ActorLike} ActorLike */
/** @typedef {import("./_types.mjs").TokenLike} TokenLike */
/** @typedef {import("./_types.mjs").SceneLike} SceneLike */
/** @typedef {import("./_types.mjs").RuleSettings} RuleSettings */

/**
 * @param {string} type
 * @param {Record<string, any>} payload
 * @param {string} id
 * @param {string} [re]
 * @returns {Envelope}
 */
export function envelope(type, payload, id, re) {
  return re === undefined ? { v: PROTOCOL_VERSION, id, type, payload } : { v: PROTOCOL_VERSION, id, type, payload, re };
}

/**
 * `hello`: the token travels here and nowhere else.
 * @param {{token: string, world: string, version?: string}} args
 * @returns {Record<string, any>}
 */
export function helloPayload({ token, world, version = MODULE_VERSION }) {
  return { token, world, client: { name: `foundry-${MODULE_ID}`, version } };
}

/**
 * Whether a map key can be one segment of a Foundry update path: Foundry expands every '.' into
 * nesting and reads a leading '-=' or '==' as an operator (the sidecar refuses such keys too).
 * @param {string} key
 * @returns {boolean}
 */
export function isUpdateKey(key) {
  return key !== "" && !key.includes(".") && !key.startsWith("-=") && !key.startsWith("==");
}

/**
 * An id made from a name, for keys the GM names in words ("Potion 1.5" → "potion-1-5").
 * @param {string} name
 * @returns {string}
 */
export function slugify(name) {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
}

/**
 * A JSON copy (Foundry documents and flags may hold class instances).
 * @param {unknown} value
 * @returns {any}
 */
function plain(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Actor fields where `null` means something ("none"), so it is sent. */
const NULLABLE_FIELDS = new Set(["approximateRange", "sensoryRange", "secondHealth"]);

/**
 * One actor of the state document from a Foundry actor: its name plus every rules field kept in
 * `flags.vtt-bridge`, less what only the sidecar writes (`status`, derived conditions).
 * @param {ActorLike} actor
 * @returns {Record<string, any>}
 */
export function actorState(actor) {
  const flags = actor.flags?.[MODULE_ID] ?? {};
  /** @type {Record<string, any>} */
  const state = { name: actor.name ?? "" };
  for (const field of ACTOR_FIELDS) {
    const value = flags[field];
    if (value === undefined || (value === null && !NULLABLE_FIELDS.has(field))) continue;
    state[field] = plain(value);
  }
  if (isPlainObject(state.conditions)) {
    for (const derived of DERIVED_CONDITIONS) delete state.conditions[derived];
  }
  return state;
}

/**
 * The state document (less derived fields) for `sync`: the scene, its tokens keyed by token id,
 * their actors keyed by actor uuid (an unlinked token's synthetic actor has its own uuid).
 * @param {{scene: SceneLike, round?: number, settings: RuleSettings, stateOf?: (actor: ActorLike) => Record<string, any>}} args
 *   `stateOf`: one actor's state (default `actorState`; the module lays the game system's fields over it)
 * @returns {Record<string, any>}
 */
export function buildState({ scene, round = 0, settings, stateOf = actorState }) {
  /** @type {Record<string, any>} */
  const actors = {};
  /** @type {Record<string, any>} */
  const tokens = {};
  for (const token of scene.tokens) {
    const actor = token.actor;
    if (!actor || !token.id) continue;
    actors[actor.uuid] ??= stateOf(actor);
    tokens[token.id] = { actor: actor.uuid, x: token.x, y: token.y, elevation: token.elevation ?? 0 };
  }
  /** @type {Record<string, any>} */
  const sceneState = { id: scene.id, round, noisy: scene.flags?.[MODULE_ID]?.[NOISY_FLAG] === true };
  if (typeof scene.grid?.size === "number") sceneState.gridSize = scene.grid.size;
  if (typeof scene.grid?.distance === "number") sceneState.gridDistance = scene.grid.distance;
  if (typeof scene.grid?.units === "string" && scene.grid.units) sceneState.gridUnits = scene.grid.units;
  // the canvas the scene occupies, padding included (Scene#dimensions, in the pixels tokens stand
  // at): the sidecar refuses a guessed square off it (DET-10); the module refuses one off the scene
  // rectangle itself before sending
  for (const side of /** @type {const} */ (["width", "height"])) {
    const value = scene.dimensions?.[side];
    if (typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 1e9) sceneState[side] = value;
  }
  return {
    scene: sceneState,
    settings: {
      woundPenalty: settings.woundPenalty,
      unconsciousAtZeroWillpower: settings.unconsciousAtZeroWillpower,
      ...(settings.approveReveals ? { approveReveals: true } : {}),
      ...(typeof settings.approximateSquares === "number" ? { approximateSquares: settings.approximateSquares } : {}),
    },
    actors,
    tokens,
  };
}

/**
 * The visibility flags the scene's tokens hold now: target token id → observer token id → state.
 * @param {SceneLike} scene
 * @returns {Record<string, Record<string, string>>}
 */
export function tokenVisibilityFlags(scene) {
  /** @type {Record<string, Record<string, string>>} */
  const out = {};
  for (const token of scene.tokens) {
    const flag = token.flags?.[MODULE_ID]?.[VISIBILITY_FLAG];
    if (token.id && isPlainObject(flag)) out[token.id] = /** @type {Record<string, string>} */ (plain(flag));
  }
  return out;
}

/**
 * The areas flags the scene's tokens hold now: target token id → observer token id → area.
 * @param {SceneLike} scene
 * @returns {Record<string, Record<string, unknown>>}
 */
export function tokenAreaFlags(scene) {
  /** @type {Record<string, Record<string, unknown>>} */
  const out = {};
  for (const token of scene.tokens) {
    const flag = token.flags?.[MODULE_ID]?.[AREAS_FLAG];
    if (token.id && isPlainObject(flag)) out[token.id] = /** @type {Record<string, unknown>} */ (plain(flag));
  }
  return out;
}

/**
 * The rules flags the scene's actors hold now: actor uuid → a JSON copy of `flags.vtt-bridge`.
 * @param {SceneLike} scene
 * @returns {Record<string, Record<string, unknown>>}
 */
export function actorFlags(scene) {
  /** @type {Record<string, Record<string, unknown>>} */
  const out = {};
  for (const token of scene.tokens) {
    const actor = token.actor;
    if (actor?.uuid && !(actor.uuid in out)) out[actor.uuid] = plain(actor.flags?.[MODULE_ID] ?? {});
  }
  return out;
}

/** @param {Record<string, any>} state @returns {Record<string, any>} */
export function syncPayload(state) {
  return { state };
}

/**
 * `upsert`: the GM changed something in Foundry.
 * @param {string|Array<string|number>} path a JSON Pointer or its segments
 * @param {unknown} value
 * @returns {{path: string, value: unknown}}
 */
export function upsertPayload(path, value) {
  return { path: typeof path === "string" ? path : pointer(...path), value: plain(value) };
}

/**
 * @param {unknown} n
 * @param {string} what
 * @param {{min?: number}} [limits]
 */
function requireInt(n, what, { min = 0 } = {}) {
  if (!Number.isSafeInteger(n) || /** @type {number} */ (n) < min) {
    throw new TypeError(`${what} must be an integer ≥ ${min}, got ${JSON.stringify(n)}`);
  }
}

/** @param {unknown} s @param {string} what */
function requireId(s, what) {
  if (typeof s !== "string" || s === "") throw new TypeError(`${what} must be a non-empty id`);
}

/** @param {unknown} n @param {string} what */
function requireNumber(n, what) {
  if (typeof n !== "number" || !Number.isFinite(n)) throw new TypeError(`${what} must be a finite number`);
}

export const GRADES = Object.freeze(["B", "L", "A"]);
export const HEAL_SOURCES = Object.freeze([
  "fastHealing",
  "regeneration",
  "firstAid",
  "magic",
  "overseer",
  "shortRest",
  "longRest",
]);

/**
 * @typedef {object} DamageInstance
 * @property {number} amount
 * @property {"B"|"L"|"A"} grade
 * @property {string} [type]
 * @property {string} [rank]
 * @property {string[]} [traits]
 * @property {string[]} [materials]
 * @property {boolean} [critical]
 * @property {boolean} [unavoidable]
 */

/**
 * `damage` {target, instances}.
 * @param {string} target actor uuid
 * @param {DamageInstance[]} instances
 */
export function damageAction(target, instances) {
  requireId(target, "target");
  if (!Array.isArray(instances) || instances.length === 0) throw new TypeError("instances must be a non-empty list");
  for (const [i, inst] of instances.entries()) {
    requireInt(inst.amount, `instances[${i}].amount`);
    if (!GRADES.includes(inst.grade)) throw new TypeError(`instances[${i}].grade must be one of ${GRADES.join(", ")}`);
  }
  return { kind: "damage", target, instances: instances.map((inst) => plain(inst)) };
}

/**
 * `heal` {target, amount, grade?, source}.
 * @param {string} target actor uuid
 * @param {number} amount
 * @param {string} source one of HEAL_SOURCES
 * @param {"B"|"L"|"A"|"any"} [grade]
 */
export function healAction(target, amount, source, grade) {
  requireId(target, "target");
  requireInt(amount, "amount");
  if (!HEAL_SOURCES.includes(source)) throw new TypeError(`source must be one of ${HEAL_SOURCES.join(", ")}`);
  if (grade !== undefined && grade !== "any" && !GRADES.includes(grade)) throw new TypeError("grade must be B, L, A or any");
  return grade === undefined ? { kind: "heal", target, amount, source } : { kind: "heal", target, amount, source, grade };
}

/**
 * `move` {token, x, y, elevation?}.
 * @param {string} token token id
 * @param {number} x
 * @param {number} y
 * @param {number} [elevation]
 */
export function moveAction(token, x, y, elevation) {
  requireId(token, "token");
  requireNumber(x, "x");
  requireNumber(y, "y");
  if (elevation === undefined) return { kind: "move", token, x, y };
  requireNumber(elevation, "elevation");
  return { kind: "move", token, x, y, elevation };
}

/** `round` {round}. @param {number} round */
export function roundAction(round) {
  requireInt(round, "round");
  return { kind: "round", round };
}

/**
 * `contest` {observer, target, dice?}.
 * @param {string} observer token id
 * @param {string} target token id
 * @param {{observer: number[], target: number[]}} [dice] VTT-rolled d10s
 */
export function contestAction(observer, target, dice) {
  requireId(observer, "observer");
  requireId(target, "target");
  if (dice === undefined) return { kind: "contest", observer, target };
  for (const side of /** @type {const} */ (["observer", "target"])) {
    for (const d of dice[side]) {
      if (!Number.isInteger(d) || d < 1 || d > 10) throw new TypeError(`dice.${side} must hold d10 results 1..10`);
    }
  }
  return { kind: "contest", observer, target, dice: plain(dice) };
}

/**
 * `spendWillpower` {actor, use}.
 * @param {string} actor actor uuid
 * @param {string} use
 */
export function spendWillpowerAction(actor, use) {
  requireId(actor, "actor");
  if (typeof use !== "string" || !use) throw new TypeError("use must be a non-empty string");
  return { kind: "spendWillpower", actor, use };
}

/** Action kinds a player may relay to the bridge through the module socket. */
export const PLAYER_ACTION_KINDS = Object.freeze(["damage", "batch", "heal", "contest", "spendWillpower", "roll"]);
