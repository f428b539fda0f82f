/**
 * PURE: what a Foundry hook means for the sidecar. Each function takes the hook's arguments (plus
 * the mirror of the state document) and returns the action or upserts to send, or nothing.
 * Writes the module made itself (tagged in their update options) are never forwarded, and neither
 * is a value the mirror already holds (so a status effect the module toggled is not echoed either).
 * @module forward
 */

import { conditionForStatus, isOwnWrite } from "./apply-patch.mjs";
import { ACTOR_FIELDS, DERIVED_CONDITIONS, MODULE_ID } from "./constants.mjs";
import { deepEqual, isPlainObject, pointer } from "./json-patch.mjs";
import { actorState, isUpdateKey, moveAction, roundAction } from "./messages.mjs";

/** @typedef {import("./_types.mjs").ActorLike} ActorLike */
/** @typedef {import("./_types.mjs").Upsert} Upsert */

/**
 * `updateToken(token, changes, options)` → a `move` action when x, y or elevation changed.
 * @param {{id: string|null, x: number, y: number, elevation?: number, parent?: {id: string|null}|null}} token
 *   the token after the update
 * @param {Record<string, unknown>} changes
 * @param {unknown} options
 * @param {any} mirror
 * @returns {Record<string, unknown>|null}
 */
export function moveFromTokenUpdate(token, changes, options, mirror) {
  if (isOwnWrite(options) || !token.id) return null;
  if (!("x" in changes) && !("y" in changes) && !("elevation" in changes)) return null;
  // a duplicated scene keeps its token ids: the scene decides, not the id alone
  if (!mirror?.scene || token.parent?.id !== mirror.scene.id) return null;
  const known = mirror.tokens?.[token.id];
  if (!known) return null;
  const x = typeof changes.x === "number" ? changes.x : token.x;
  const y = typeof changes.y === "number" ? changes.y : token.y;
  const elevation = typeof changes.elevation === "number" ? changes.elevation : (token.elevation ?? 0);
  if (known.x === x && known.y === y && (known.elevation ?? 0) === elevation) return null;
  return moveAction(token.id, x, y, elevation);
}

/**
 * `updateCombat(combat, changes, options)` → a `round` action when the round of a combat on the
 * synced scene changed. A combat linked to another scene never counts; an unlinked combat (no
 * scene) counts only while it is the active one.
 * @param {{scene?: {id: string|null}|null, active?: boolean}} combat
 * @param {Record<string, unknown>} changes
 * @param {unknown} options
 * @param {any} mirror
 * @returns {Record<string, unknown>|null}
 */
export function roundFromCombatUpdate(combat, changes, options, mirror) {
  if (isOwnWrite(options) || !mirror?.scene) return null;
  if (combat?.scene ? combat.scene.id !== mirror.scene.id : !combat?.active) return null;
  const round = changes.round;
  if (typeof round !== "number" || !Number.isSafeInteger(round) || round < 0) return null;
  if (mirror.scene.round === round) return null;
  return roundAction(round);
}

/**
 * `updateActor(actor, changes, options)` → one upsert per rules field of `flags.vtt-bridge` that
 * now differs from the mirror (conditions one key at a time, derived ones never).
 * @param {ActorLike} actor the actor after the update
 * @param {Record<string, any>} changes
 * @param {unknown} options
 * @param {any} mirror
 * @returns {Upsert[]}
 */
export function upsertsFromActorUpdate(actor, changes, options, mirror) {
  if (isOwnWrite(options)) return [];
  const known = mirror?.actors?.[actor.uuid];
  if (!known) return [];
  const changedFlags = changes?.flags?.[MODULE_ID];
  const renamed = typeof changes?.name === "string" && changes.name !== known.name;
  if (!isPlainObject(changedFlags) && !renamed) return [];
  const now = actorState(actor);
  /** @type {Upsert[]} */
  const upserts = [];
  if (renamed) upserts.push({ path: pointer("actors", actor.uuid, "name"), value: now.name });
  if (!isPlainObject(changedFlags)) return upserts;
  const touched = new Set(Object.keys(changedFlags).map((key) => key.replace(/^-=/, "")));
  for (const field of ACTOR_FIELDS) {
    if (!touched.has(field) || now[field] === undefined) continue;
    if (field === "conditions") {
      for (const [condition, value] of Object.entries(now.conditions ?? {})) {
        if (DERIVED_CONDITIONS.includes(condition)) continue;
        if ((known.conditions?.[condition] ?? false) === value) continue;
        upserts.push({ path: pointer("actors", actor.uuid, "conditions", condition), value });
      }
    } else if (!deepEqual(known[field], now[field])) {
      upserts.push({ path: pointer("actors", actor.uuid, field), value: now[field] });
    }
  }
  return upserts;
}

/**
 * A status effect appeared or went (create/deleteActiveEffect, toggled in the token HUD) → the
 * matching condition upsert, unless the mirror already says so or the sidecar derives it.
 * @param {ActorLike} actor
 * @param {Iterable<string>} statuses the effect's status ids
 * @param {(status: string) => boolean} activeNow whether the actor has the status now
 * @param {any} mirror
 * @returns {Upsert[]}
 */
export function upsertsFromStatusChange(actor, statuses, activeNow, mirror) {
  const known = mirror?.actors?.[actor.uuid];
  if (!known) return [];
  /** @type {Upsert[]} */
  const upserts = [];
  for (const status of statuses) {
    const condition = conditionForStatus(status);
    if (DERIVED_CONDITIONS.includes(condition)) continue;
    const active = activeNow(status);
    if ((known.conditions?.[condition] ?? false) === active) continue;
    upserts.push({ path: pointer("actors", actor.uuid, "conditions", condition), value: active });
  }
  return upserts;
}

/**
 * `createActiveEffect(effect)` / `deleteActiveEffect(effect)` → the condition upserts of the
 * effect's statuses, read from the event's effect (Actor#statuses is derived data that Foundry
 * recomputes on its own schedule, so inside the hook it may still be the old set): a created
 * effect makes its statuses active; a deleted one makes them inactive unless another enabled effect
 * of the actor still grants them. Status ids that cannot be a condition key (a '.', a leading '-='
 * or '==') are left alone.
 * An effect embedded in an Item applies to that Item's actor (unless it does not transfer) —
 * https://foundryvtt.com/api/classes/foundry.documents.ActiveEffect.html (`transfer`),
 * https://foundryvtt.com/api/classes/foundry.documents.Actor.html (`allApplicableEffects`).
 * @param {{id?: string|null, parent?: any, statuses?: Iterable<string>|null, transfer?: boolean}} effect
 * @param {boolean} created
 * @param {any} mirror
 * @returns {Upsert[]}
 */
export function upsertsFromEffectEvent(effect, created, mirror) {
  // F18: an effect embedded in an Item (v11+ transfer) applies to the Item's actor
  const parent = effect.parent;
  const actor = parent?.documentName === "Item" ? (effect.transfer === false ? null : parent.parent) : parent;
  if (!actor?.uuid || !effect.statuses) return [];
  const statuses = [...effect.statuses].filter((s) => isUpdateKey(conditionForStatus(s)));
  // the actor's own effects and those its Items transfer (Actor#allApplicableEffects, v11+)
  const applicable = typeof actor.allApplicableEffects === "function" ? [...actor.allApplicableEffects()] : [...(actor.effects ?? [])];
  const others = applicable.filter((e) => e !== effect && e.id !== effect.id && !e.disabled);
  const activeNow = (/** @type {string} */ status) => created || others.some((e) => e.statuses?.has?.(status));
  return upsertsFromStatusChange(actor, statuses, activeNow, mirror);
}

/**
 * A token placed on the synced scene → upserts of its actor (when new) and of the token; a token
 * removed → an upsert of `null` (the sidecar removes it).
 * @param {{id: string|null, x: number, y: number, elevation?: number, actor?: ActorLike|null, parent?: {id: string|null}|null}} token
 * @param {boolean} created
 * @param {any} mirror
 * @param {(actor: ActorLike) => Record<string, any>} [stateOf] a new actor's state (default `actorState`)
 * @returns {Upsert[]}
 */
export function upsertsFromTokenLifecycle(token, created, mirror, stateOf = actorState) {
  if (!token.id || !mirror?.scene || token.parent?.id !== mirror.scene.id) return [];
  if (!created) return mirror.tokens?.[token.id] ? [{ path: pointer("tokens", token.id), value: null }] : [];
  const actor = token.actor;
  if (!actor) return [];
  /** @type {Upsert[]} */
  const upserts = [];
  if (!mirror.actors?.[actor.uuid]) upserts.push({ path: pointer("actors", actor.uuid), value: stateOf(actor) });
  upserts.push({
    path: pointer("tokens", token.id),
    value: { actor: actor.uuid, x: token.x, y: token.y, elevation: token.elevation ?? 0 },
  });
  return upserts;
}

/**
 * One call per key per tick: `fn(value)` runs once, on the next microtask, with the value of the
 * last call for that key. An unlinked token's system edit reaches the module twice, as updateActor of
 * its synthetic actor (v11+: foundryvtt/foundryvtt#9131) and as updateToken's `delta` (F22); both
 * name the same actor, so it is forwarded once, read after both.
 * @template T
 * @param {(value: T) => void} fn
 * @param {(job: () => void) => void} [schedule] `queueMicrotask`
 * @returns {(key: string, value: T) => void}
 */
export function oncePerTick(fn, schedule = (job) => queueMicrotask(job)) {
  /** @type {Map<string, T>} */
  const waiting = new Map();
  return (key, value) => {
    const first = !waiting.has(key);
    waiting.set(key, value);
    if (!first) return;
    schedule(() => {
      const last = /** @type {T} */ (waiting.get(key));
      waiting.delete(key);
      fn(last);
    });
  };
}
