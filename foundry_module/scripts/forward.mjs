/**
 * PURE: what a Foundry hook means for the sidecar. Each function takes the hook's arguments (plus
 * the mirror of the state document) and returns the action or upserts to send, or nothing.
 * Writes the module made itself (tagged in their update options) are never forwarded, and neither
 * is a value the mirror already holds (so a status effect the module toggled is not echoed either).
 * @module forward
 */

import { conditionForStatus, isOwnWrite } from "./apply-patch.mjs";
import { ACTOR_FIELDS, DERIVED_CONDITIONS, MODULE_ID, SOCKET_CHANNEL } from "./constants.mjs";
import { deepEqual, isPlainObject, pointer } from "./json-patch.mjs";
import { actorState, moveAction, PLAYER_ACTION_KINDS, roundAction } from "./messages.mjs";

/** @typedef {import("./messages.mjs").ActorLike} ActorLike */
/** @typedef {{path: string, value: unknown}} Upsert */

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
  const known = mirror?.tokens?.[token.id];
  if (!known) return null; // not on the synced scene
  const x = typeof changes.x === "number" ? changes.x : token.x;
  const y = typeof changes.y === "number" ? changes.y : token.y;
  const elevation = typeof changes.elevation === "number" ? changes.elevation : (token.elevation ?? 0);
  if (known.x === x && known.y === y && (known.elevation ?? 0) === elevation) return null;
  return moveAction(token.id, x, y, elevation);
}

/**
 * `updateCombat(combat, changes, options)` → a `round` action when the round changed.
 * @param {Record<string, unknown>} changes
 * @param {unknown} options
 * @param {any} mirror
 * @returns {Record<string, unknown>|null}
 */
export function roundFromCombatUpdate(changes, options, mirror) {
  if (isOwnWrite(options) || !mirror?.scene) return null;
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
 * @typedef {object} RelayMessage what a player's browser emits on the module socket
 * @property {"vtt-bridge.action"} type
 * @property {string} from user id
 * @property {Record<string, any>} action
 */

/**
 * The socket message a player's browser emits so the bridge browser sends the action.
 * @param {string} userId
 * @param {Record<string, any>} action
 * @returns {RelayMessage}
 */
export function relayMessage(userId, action) {
  return { type: "vtt-bridge.action", from: userId, action };
}

/**
 * On the bridge browser: the action carried by a socket message, or null when it is not one a
 * player may relay (unknown type, unknown kind, malformed).
 * @param {unknown} message
 * @returns {Record<string, any>|null}
 */
export function acceptRelay(message) {
  if (!isPlainObject(message) || message.type !== "vtt-bridge.action" || typeof message.from !== "string") return null;
  const action = message.action;
  if (!isPlainObject(action) || typeof action.kind !== "string" || !PLAYER_ACTION_KINDS.includes(action.kind)) return null;
  return action;
}

export { SOCKET_CHANNEL };
