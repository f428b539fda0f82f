/**
 * A player's Damage / Heal / Apply / contest click, carried to the browser that runs the bridge and
 * answered, so it can never vanish silently.
 *
 * - v13+: the bridge registers `CONFIG.queries["vtt-bridge.action"]`; a player asks the active
 *   Game Masters one by one with `User#query(name, data, {timeout})` until one answers that it runs
 *   the bridge.
 * - v12 (no queries): the player emits the request on the module socket with an id; the bridge
 *   emits an acknowledgement with that id back (`to` the sender); other clients stay silent.
 * Either way the player gets an answer (sent, refused, or a localized notice that no bridge answered
 * within `RELAY_TIMEOUT_MS`).
 *
 * The bridge refuses an action on an actor the sending user does not own (see `ownedSubject`).
 * Everything here but `askBridge` / `listenAsBridge` is pure; those two take Foundry's parts as
 * arguments, so tests run them on the stand-in.
 * @module player-requests
 */

import { MODULE_ID, SOCKET_CHANNEL } from "../core/constants.mjs";
import { isPlainObject } from "../core/json-patch.mjs";
import { PLAYER_ACTION_KINDS } from "../core/messages.mjs";
import { attackerAnswer } from "../core/attack-card.mjs";

/**
 * The queries a player may relay: `attackCheck` only, always asked as the attacker's view (the
 * sidecar answers the verdict and the counts, never whether a square is right or who is there) and
 * cut to those fields again here (`attackerAnswer`) before it goes back.
 */
export const PLAYER_QUERY_KINDS = Object.freeze(["attackCheck"]);

/** The v13+ query name (`CONFIG.queries`), namespaced by the module id. */
export const QUERY_NAME = `${MODULE_ID}.action`;

/** How long a player waits for the bridge before being told nobody answered. */
export const RELAY_TIMEOUT_MS = 5000;

/**
 * @typedef {object} RelayRequest what a player sends (query data, or the socket message on v12)
 * @property {"vtt-bridge.action"} type
 * @property {string} id unique per request (the v12 acknowledgement names it)
 * @property {string} from the sending user's id
 * @property {Record<string, any>} action
 */

/**
 * @typedef {object} RelayAnswer the bridge's answer
 * @property {boolean} ok the action was accepted and sent to the sidecar
 * @property {"sent"|"noBridge"|"notOwner"|"invalid"|"failed"} code
 * @property {string} [message] a sidecar error's message, when `failed`
 * @property {Record<string, unknown>|null} [data] a relayed query's answer (`attackerAnswer`)
 */

/**
 * @param {string} from user id
 * @param {Record<string, any>} action
 * @param {string} id
 * @returns {RelayRequest}
 */
export function relayRequest(from, action, id) {
  return { type: "vtt-bridge.action", id, from, action };
}

/**
 * The v12 socket acknowledgement of a request.
 * @param {RelayRequest} request
 * @param {RelayAnswer} answer
 * @returns {{type: "vtt-bridge.ack", id: string, to: string} & RelayAnswer}
 */
export function ackMessage(request, answer) {
  return { type: "vtt-bridge.ack", id: request.id, to: request.from, ...answer };
}

/**
 * A request as the bridge receives it, or null when it is not one a player may relay (unknown
 * type, unknown kind, malformed).
 * @param {unknown} message
 * @returns {RelayRequest|null}
 */
export function parseRequest(message) {
  if (!isPlainObject(message) || message.type !== "vtt-bridge.action") return null;
  if (typeof message.from !== "string" || typeof message.id !== "string" || !message.id) return null;
  const action = message.action;
  if (!isPlainObject(action) || typeof action.kind !== "string" || !PLAYER_ACTION_KINDS.includes(action.kind) && !PLAYER_QUERY_KINDS.includes(action.kind)) return null;
  return /** @type {RelayRequest} */ (message);
}

/**
 * What the sender must own for the bridge to send an action, or null when nothing:
 * - `batch`: what each of its `damage` items needs; items that attack must share one attacker (a
 *   player's one attack on several targets), else nothing is owned enough (refused).
 * - `damage`: nothing, but with an `attack` (DET-10) the attacker's token: a player's attack lands
 *   on a target the player does not own (an enemy), but only a token they play may make it (it is
 *   the attacker's locating, and guess, that the sidecar rules on). Without an attack who dealt it is
 *   the table's business, and the GM sees every ruling in the chat log.
 * - `heal {target}`: the target actor. Healing changes an actor's Health track as surely as a
 *   sheet edit would, which Foundry allows only owners.
 * - `spendWillpower {actor}`: that actor (only its owner decides what it spends).
 * - `contest {observer}`: the observer token's actor: the search is the searcher's action, and a
 *   player must not start one for a token they do not play.
 * - `roll {actor}`: the rolling actor (the roll may spend its Willpower, WP-2); the opponent need
 *   not be owned.
 * @param {Record<string, any>} action
 * @returns {{actor: string}|{token: string}|null}
 */
export function ownedSubject(action) {
  switch (action.kind) {
    case "heal":
      return typeof action.target === "string" ? { actor: action.target } : { actor: "" };
    case "spendWillpower":
      return typeof action.actor === "string" ? { actor: action.actor } : { actor: "" };
    case "roll":
      return typeof action.actor === "string" ? { actor: action.actor } : { actor: "" };
    case "contest":
      return typeof action.observer === "string" ? { token: action.observer } : { token: "" };
    case "attackCheck":
      return typeof action.attacker === "string" ? { token: action.attacker } : { token: "" };
    case "damage":
      if (action.attack === undefined) return null;
      return typeof action.attack?.attacker === "string" ? { token: action.attack.attacker } : { token: "" };
    case "batch": {
      // each item as a damage: one attacker for every item that attacks (one player's one attack)
      if (!Array.isArray(action.actions)) return { token: "" };
      const subjects = action.actions.map((item) => (isPlainObject(item) && item.kind === "damage" ? ownedSubject(item) : { token: "" }));
      const needed = subjects.filter((s) => s !== null);
      if (!needed.length) return null;
      const tokens = new Set(needed.map((s) => ("token" in s ? s.token : "")));
      return tokens.size === 1 ? /** @type {{token: string}} */ (needed[0]) : { token: "" };
    }
    default:
      return null;
  }
}

/**
 * @typedef {object} BridgeSide what the bridge browser needs to answer
 * @property {() => boolean} runsBridge whether this browser is connected to the sidecar
 * @property {(id: string) => ({isGM?: boolean}|null|undefined)} user `game.users.get`
 * @property {(subject: {actor: string}|{token: string}, user: any) => (boolean|Promise<boolean>)} owns
 *   whether that user owns the actor (by uuid) or the token's actor (by token id, on the synced scene)
 * @property {(action: Record<string, any>) => Promise<unknown>} send sends the action to the sidecar
 * @property {(query: Record<string, any>) => Promise<any>} [query] sends a query, resolves its `result` payload
 */

/**
 * The bridge's answer to one request (the handler behind the query and the v12 socket).
 * @param {unknown} message
 * @param {BridgeSide} side
 * @returns {Promise<RelayAnswer>}
 */
export async function answerRequest(message, side) {
  if (!side.runsBridge()) return { ok: false, code: "noBridge" };
  const request = parseRequest(message);
  if (!request) return { ok: false, code: "invalid" };
  const user = side.user(request.from);
  if (!user) return { ok: false, code: "notOwner" };
  const subject = ownedSubject(request.action);
  if (subject && !user.isGM && !(await side.owns(subject, user))) return { ok: false, code: "notOwner" };
  if (PLAYER_QUERY_KINDS.includes(request.action.kind)) {
    if (!side.query) return { ok: false, code: "invalid" };
    try {
      const answer = await side.query({ ...request.action, view: "attacker" });
      return { ok: true, code: "sent", data: attackerAnswer(answer?.data) };
    } catch (error) {
      return { ok: false, code: "failed", message: /** @type {Error} */ (error)?.message ?? String(error) };
    }
  }
  try {
    await side.send(request.action);
  } catch (error) {
    return { ok: false, code: "failed", message: /** @type {Error} */ (error)?.message ?? String(error) };
  }
  return { ok: true, code: "sent" };
}

/**
 * @typedef {object} PlayerSide what a player's browser needs to ask
 * @property {number} generation `game.release.generation`
 * @property {string} userId `game.user.id`
 * @property {() => Array<{id: string, active?: boolean, isGM?: boolean, query?: (name: string, data: Record<string, unknown>, options?: {timeout?: number}) => Promise<unknown>}>} gms
 *   the active Game Masters, `game.users.activeGM` first
 * @property {{emit: (channel: string, data: unknown) => void, on: (channel: string, fn: (data: unknown) => void) => void, off?: (channel: string, fn: (data: unknown) => void) => void}} socket
 * @property {() => string} newId
 * @property {{setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (handle: any) => void}} [clock]
 * @property {number} [timeout] ms
 */

/**
 * Ask the bridge to send a player's action; resolves with its answer, `{ok: false, code:
 * "noBridge"}` when nobody answered in time.
 * @param {Record<string, any>} action
 * @param {PlayerSide} side
 * @returns {Promise<RelayAnswer>}
 */
export async function askBridge(action, side) {
  const request = relayRequest(side.userId, action, side.newId());
  const timeout = side.timeout ?? RELAY_TIMEOUT_MS;
  if (side.generation >= 13) {
    for (const gm of side.gms()) {
      if (typeof gm.query !== "function") continue;
      let answer;
      try {
        answer = /** @type {RelayAnswer} */ (await gm.query(QUERY_NAME, { ...request }, { timeout }));
      } catch {
        continue; // no handler there (no module), not connected, or no answer in time
      }
      if (answer && answer.code !== "noBridge") return answer;
    }
    return { ok: false, code: "noBridge" };
  }
  const clock = side.clock ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  return new Promise((resolve) => {
    /** @param {unknown} data */
    const listener = (data) => {
      if (!isPlainObject(data) || data.type !== "vtt-bridge.ack" || data.id !== request.id || data.to !== side.userId) return;
      const code = /** @type {RelayAnswer["code"]} */ (typeof data.code === "string" ? data.code : "failed");
      finish({
        ok: data.ok === true,
        code,
        ...(typeof data.message === "string" ? { message: data.message } : {}),
        ...(isPlainObject(data.data) ? { data: attackerAnswer(data.data) } : {}),
      });
    };
    const timer = clock.setTimeout(() => finish({ ok: false, code: "noBridge" }), timeout);
    /** @param {RelayAnswer} answer */
    const finish = (answer) => {
      clock.clearTimeout(timer);
      side.socket.off?.(SOCKET_CHANNEL, listener);
      resolve(answer);
    };
    side.socket.on(SOCKET_CHANNEL, listener);
    side.socket.emit(SOCKET_CHANNEL, request);
  });
}

/**
 * On every GM's browser: answer requests, through `CONFIG.queries` (v13+) and the module socket
 * (v12). A browser that does not run the bridge answers a query with `noBridge` (so the player asks
 * the next GM) and stays silent on the socket (another browser may run it).
 * @param {{generation: number, queries?: Record<string, unknown>, socket: {emit: (channel: string, data: unknown) => void, on: (channel: string, fn: (data: unknown) => void) => void}}} foundry
 * @param {BridgeSide} side
 */
export function listenAsBridge(foundry, side) {
  if (foundry.generation >= 13 && foundry.queries) {
    foundry.queries[QUERY_NAME] = (/** @type {unknown} */ data) => answerRequest(data, side);
    return;
  }
  foundry.socket.on(SOCKET_CHANNEL, async (data) => {
    if (!side.runsBridge()) return;
    const request = parseRequest(data);
    if (!request) return;
    foundry.socket.emit(SOCKET_CHANNEL, ackMessage(request, await answerRequest(request, side)));
  });
}
