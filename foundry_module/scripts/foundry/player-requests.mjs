/**
 * A player's (or a co-GM's) Damage / Heal / Apply / contest / reveal / undo click, carried to the one
 * browser that runs the bridge (bridge-election.mjs) and answered, so it can never vanish silently.
 *
 * - Who asks comes from Foundry, never from the message: v13+ the query handler's caller (its
 *   options' `user`), v12 the module socket listener's sender id. A request carries no sender of
 *   its own; every ownership check runs against that user, GM-only kinds need that user's `isGM`.
 * - v13+: the bridge registers `CONFIG.queries["vtt-bridge.action"]`; the asker queries the elected
 *   bridge user (`User#query`), a request answered only by that browser.
 * - v12 (no queries): the socket reaches every browser, so the request and its answer are sealed
 *   (ECDH P-256 + AES-GCM, WebCrypto) to the bridge's public key, which the bridge browser publishes
 *   in its own User flag (only that user or a GM can write it); other browsers read ciphertext.
 * - While no bridge is up the request waits in the asker's queue (`RelayQueue`) with its id and goes
 *   out when one is up; a retry carries the same id, which the bridge sends to the sidecar as the
 *   action id (`relayActionId`), so the sidecar rules it once and replays it after.
 * Everything but the transport glue in `listenAsBridge` / `RelayQueue` is pure.
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

/** What only a Game Master may relay (a co-GM without the bridge): a held reveal's answer, undo/redo. */
export const GM_RELAY_KINDS = Object.freeze(["approveReveal", "undo", "redo"]);

/** The v13+ query name (`CONFIG.queries`), namespaced by the module id. */
export const QUERY_NAME = `${MODULE_ID}.action`;

/** How long one attempt waits for the bridge's answer before it is tried again (same id). */
export const RELAY_TIMEOUT_MS = 5000;

/** How long a request that found no bridge waits before it looks again (besides election changes). */
export const RETRY_MS = 3000;

/** A request id: what a relayed action's sidecar id is made of. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @typedef {object} RelayRequest what an asker sends (query data, or the opened socket message)
 * @property {"vtt-bridge.action"} type
 * @property {string} id unique per request; the same on every retry
 * @property {Record<string, any>} action
 */

/**
 * @typedef {object} RelayAnswer the bridge's answer
 * @property {boolean} ok the action was accepted and sent to the sidecar
 * @property {"sent"|"noBridge"|"notOwner"|"mustAttack"|"invalid"|"failed"} code
 * @property {string} [message] a sidecar error's message, when `failed`
 * @property {Record<string, unknown>|null} [data] a relayed query's answer (`attackerAnswer`)
 */

/**
 * @param {Record<string, any>} action
 * @param {string} id
 * @returns {RelayRequest}
 */
export function relayRequest(action, id) {
  return { type: "vtt-bridge.action", id, action };
}

/**
 * The sidecar action id of a relayed request: the asker's user id (from Foundry) and the request's
 * id, so two users cannot collide and a retry through another bridge is the same ruling.
 * @param {string} senderId @param {string} requestId
 */
export function relayActionId(senderId, requestId) {
  return `relay-${senderId}-${requestId}`;
}

/**
 * A request as the bridge receives it, or null when it is not one this sender may relay (unknown
 * type, a kind the sender may not send, malformed). A `from` in the message is ignored.
 * @param {unknown} message
 * @param {{isGM?: boolean}|null|undefined} sender the asking user, from Foundry
 * @returns {RelayRequest|null}
 */
export function parseRequest(message, sender) {
  if (!isPlainObject(message) || message.type !== "vtt-bridge.action") return null;
  if (typeof message.id !== "string" || !REQUEST_ID.test(message.id)) return null;
  const action = message.action;
  if (!isPlainObject(action) || typeof action.kind !== "string") return null;
  const kind = action.kind;
  const allowed = PLAYER_ACTION_KINDS.includes(kind) || PLAYER_QUERY_KINDS.includes(kind) || (!!sender?.isGM && GM_RELAY_KINDS.includes(kind));
  if (!allowed) return null;
  return { type: "vtt-bridge.action", id: message.id, action };
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
 * The actors a relayed action damages without an attack: a `damage` without `attack`, or such items
 * of a `batch`. DET-10 halves an attack on a target its attacker does not pinpoint; a plain damage is
 * not halved, so a player may send one only at a target their own tokens pinpoint (`locates`), or
 * the bridge refuses it (`mustAttack`): otherwise "Attack from: nobody" would strike a silhouette or
 * an unseen creature in full.
 * @param {Record<string, any>} action
 * @returns {string[]} actor ids (duplicates kept out)
 */
export function plainDamageTargets(action) {
  const items = action.kind === "batch" && Array.isArray(action.actions) ? action.actions : [action];
  /** @type {Set<string>} */
  const targets = new Set();
  for (const item of items) {
    if (isPlainObject(item) && item.kind === "damage" && item.attack === undefined && typeof item.target === "string") targets.add(item.target);
  }
  return [...targets];
}

/**
 * @typedef {object} BridgeSide what the bridge browser needs to answer
 * @property {() => boolean} runsBridge whether this browser is connected to the sidecar
 * @property {(id: string) => ({id?: string, isGM?: boolean}|null|undefined)} user `game.users.get`
 * @property {(subject: {actor: string}|{token: string}, user: any) => (boolean|Promise<boolean>)} owns
 *   whether that user owns the actor (by uuid) or the token's actor (by token id, on the synced scene)
 * @property {(actor: string, user: any) => (boolean|Promise<boolean>)} locates whether that user's
 *   tokens pinpoint the actor's token on the synced scene (or the user owns the actor, or it has no
 *   token there to locate): a plain damage from a player needs it (`plainDamageTargets`)
 * @property {(action: Record<string, any>, options?: {id?: string}) => Promise<unknown>} send sends the action to the sidecar (with that action id)
 * @property {(query: Record<string, any>) => Promise<any>} [query] sends a query, resolves its `result` payload
 * @property {string} [selfId] this browser's user id (v12: the requests addressed to it)
 * @property {() => (CryptoKey|null)} [privateKey] v12: the key that opens sealed requests
 * @property {SubtleCrypto} [subtle]
 */

/**
 * The bridge's answer to one request from `senderId` (the handler behind the query and the v12
 * socket). Ownership and GM-only kinds are judged on Foundry's user `senderId`, never on the message.
 * @param {unknown} message
 * @param {BridgeSide} side
 * @param {string|null|undefined} senderId the asking user's id, from Foundry
 * @returns {Promise<RelayAnswer>}
 */
export async function answerRequest(message, side, senderId) {
  if (!side.runsBridge()) return { ok: false, code: "noBridge" };
  const user = typeof senderId === "string" && senderId ? side.user(senderId) : null;
  if (!user) return { ok: false, code: "notOwner" };
  const request = parseRequest(message, user);
  if (!request) return { ok: false, code: "invalid" };
  const subject = ownedSubject(request.action);
  if (subject && !user.isGM && !(await side.owns(subject, user))) return { ok: false, code: "notOwner" };
  if (!user.isGM) {
    for (const target of plainDamageTargets(request.action)) {
      if (!(await side.locates(target, user))) return { ok: false, code: "mustAttack" };
    }
  }
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
    await side.send(request.action, { id: relayActionId(/** @type {string} */ (senderId), request.id) });
  } catch (error) {
    return { ok: false, code: "failed", message: /** @type {Error} */ (error)?.message ?? String(error) };
  }
  return { ok: true, code: "sent" };
}

// ---- v12 sealing (WebCrypto) ----------------------------------------------------------------

const ECDH = { name: "ECDH", namedCurve: "P-256" };

/** @param {ArrayBuffer|Uint8Array} bytes */
const toBase64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
/** @param {string} text */
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * The bridge's key pair (made once per bridge start): the public half as a JWK to publish.
 * @param {SubtleCrypto} subtle
 * @returns {Promise<{privateKey: CryptoKey, publicJwk: JsonWebKey}>}
 */
export async function bridgeKeys(subtle) {
  const pair = /** @type {CryptoKeyPair} */ (await subtle.generateKey(ECDH, true, ["deriveKey"]));
  return { privateKey: pair.privateKey, publicJwk: await subtle.exportKey("jwk", pair.publicKey) };
}

/**
 * @param {SubtleCrypto} subtle @param {CryptoKey} privateKey @param {JsonWebKey} publicJwk
 * @returns {Promise<CryptoKey>}
 */
async function sharedKey(subtle, privateKey, publicJwk) {
  const publicKey = await subtle.importKey("jwk", publicJwk, ECDH, false, []);
  return subtle.deriveKey({ name: "ECDH", public: publicKey }, privateKey, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/**
 * @param {SubtleCrypto} subtle @param {CryptoKey} key @param {unknown} payload
 * @returns {Promise<{iv: string, data: string}>}
 */
async function encrypt(subtle, key, payload) {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const data = await subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(payload)));
  return { iv: toBase64(iv), data: toBase64(data) };
}

/**
 * @param {SubtleCrypto} subtle @param {CryptoKey} key @param {{iv: unknown, data: unknown}} sealed
 * @returns {Promise<unknown>} null when it does not open
 */
async function decrypt(subtle, key, sealed) {
  try {
    const plain = await subtle.decrypt({ name: "AES-GCM", iv: fromBase64(String(sealed.iv)) }, key, fromBase64(String(sealed.data)));
    return JSON.parse(new TextDecoder().decode(plain));
  } catch {
    return null;
  }
}

/**
 * On every GM's browser: answer requests, through `CONFIG.queries` (v13+: the handler is told the
 * asking user) and the module socket (v12: the listener is told the sender's id; only requests
 * addressed to this browser's user, sealed to its key, are opened). A browser that does not run the
 * bridge answers a query with `noBridge` and stays silent on the socket. One request id is answered
 * once at a time (a retry while the first attempt runs waits for it).
 * @param {{generation: number, queries?: Record<string, unknown>, socket: {emit: (channel: string, data: unknown) => void, on: (channel: string, fn: (data: unknown, senderId?: string) => void) => void}}} foundry
 * @param {BridgeSide} side
 */
export function listenAsBridge(foundry, side) {
  /** @type {Map<string, Promise<RelayAnswer>>} */
  const running = new Map();
  /** @param {unknown} request @param {string|undefined} senderId */
  const answerOnce = (request, senderId) => {
    const key = `${senderId}:${isPlainObject(request) ? String(request.id) : ""}`;
    const known = running.get(key);
    if (known) return known;
    const answer = answerRequest(request, side, senderId).finally(() => running.delete(key));
    running.set(key, answer);
    return answer;
  };
  if (foundry.generation >= 13 && foundry.queries) {
    foundry.queries[QUERY_NAME] = (/** @type {unknown} */ data, /** @type {{user?: {id?: string}}|undefined} */ options) => answerOnce(data, options?.user?.id);
    return;
  }
  foundry.socket.on(SOCKET_CHANNEL, async (data, senderId) => {
    if (!isPlainObject(data) || data.to !== side.selfId || !side.runsBridge()) return;
    if (typeof senderId !== "string" || typeof data.id !== "string") return;
    if (data.type === "vtt-bridge.sealed") {
      const privateKey = side.privateKey?.();
      if (!privateKey || !side.subtle || !isPlainObject(data.epk)) return;
      let key;
      try {
        key = await sharedKey(side.subtle, privateKey, /** @type {JsonWebKey} */ (data.epk));
      } catch {
        return;
      }
      const request = await decrypt(side.subtle, key, /** @type {{iv: unknown, data: unknown}} */ (data));
      if (!isPlainObject(request) || request.id !== data.id) return;
      const answer = await answerOnce(request, senderId);
      foundry.socket.emit(SOCKET_CHANNEL, { type: "vtt-bridge.sealedAnswer", id: data.id, to: senderId, ...(await encrypt(side.subtle, key, answer)) });
      return;
    }
    if (data.type !== "vtt-bridge.action") return;
    // unsealed (the bridge has no WebCrypto): the answer says no more than sent / refused
    const { ok, code } = await answerOnce(data, senderId);
    foundry.socket.emit(SOCKET_CHANNEL, { type: "vtt-bridge.ack", id: data.id, to: senderId, ok, code });
  });
}

// ---- the asker's queue ----------------------------------------------------------------------

/**
 * @typedef {object} BridgeTarget the elected bridge as the asker sees it
 * @property {string} id its user id
 * @property {boolean} up connected to the sidecar
 * @property {JsonWebKey|null} key v12: its published public key
 * @property {((name: string, data: Record<string, unknown>, options?: {timeout?: number}) => Promise<unknown>)|undefined} [query] v13+: `User#query`
 */

/**
 * @typedef {object} AskerSide
 * @property {number} generation `game.release.generation`
 * @property {string} userId this browser's user
 * @property {() => (BridgeTarget|null)} bridge the elected bridge, or null when no browser runs it
 * @property {{emit: (channel: string, data: unknown) => void, on: (channel: string, fn: (data: unknown, senderId?: string) => void) => void, off?: (channel: string, fn: (data: unknown) => void) => void}} socket
 * @property {() => string} newId
 * @property {SubtleCrypto|undefined} [subtle] v12 sealing; without it a request goes unsealed
 * @property {{setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (handle: any) => void}} [clock]
 * @property {number} [timeout] ms one attempt waits
 * @property {number} [retry] ms between attempts while no bridge answers
 * @property {(waiting: number) => void} [onWaiting] the number of requests waiting for a bridge changed
 */

/**
 * @typedef {object} Pending
 * @property {string} id
 * @property {Record<string, any>} action
 * @property {(answer: RelayAnswer) => void} resolve
 * @property {boolean} busy an attempt is under way
 * @property {boolean} waiting no bridge took it yet (shown as waiting)
 * @property {any} timer the next attempt's
 */

/**
 * The asker's side: every request waits here until the elected bridge answers it; an action is tried
 * again (same id) whenever the bridge changes or comes up, and every `retry` ms, never dropped;
 * a query (`attackCheck`, the attack dialog waits on it) is asked once and answered `noBridge`
 * when no bridge is up.
 */
export class RelayQueue {
  /** @param {AskerSide} side */
  constructor(side) {
    this.side = side;
    this.clock = side.clock ?? { setTimeout: globalThis.setTimeout.bind(globalThis), clearTimeout: globalThis.clearTimeout.bind(globalThis) };
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    /** @type {number} */
    this.lastWaiting = 0;
  }

  /** Requests not answered yet that found no bridge (what the indicator shows). */
  get waiting() {
    return [...this.pending.values()].filter((p) => p.waiting).length;
  }

  #report() {
    const waiting = this.waiting;
    if (waiting !== this.lastWaiting) {
      this.lastWaiting = waiting;
      this.side.onWaiting?.(waiting);
    }
  }

  /**
   * Send `action` through the bridge; resolves with its answer once a bridge answered (an action
   * waits as long as it takes; a query answers `noBridge` when none is up).
   * @param {Record<string, any>} action
   * @returns {Promise<RelayAnswer>}
   */
  submit(action) {
    const id = this.side.newId();
    if (PLAYER_QUERY_KINDS.includes(action.kind)) return this.#askOnce(relayRequest(action, id));
    return new Promise((resolve) => {
      /** @type {Pending} */
      const pending = { id, action, resolve, busy: false, waiting: false, timer: null };
      this.pending.set(id, pending);
      void this.#attempt(pending);
    });
  }

  /** The bridge changed or came up: try every waiting request now. */
  wake() {
    for (const pending of this.pending.values()) void this.#attempt(pending);
  }

  /** @param {Pending} pending */
  async #attempt(pending) {
    if (pending.busy || !this.pending.has(pending.id)) return;
    this.clock.clearTimeout(pending.timer);
    pending.timer = null;
    const bridge = this.side.bridge();
    /** @type {RelayAnswer|null} */
    let answer = null;
    if (bridge?.up) {
      pending.busy = true;
      try {
        answer = await this.#send(bridge, relayRequest(pending.action, pending.id));
      } finally {
        pending.busy = false;
      }
    }
    if (answer && answer.code !== "noBridge") {
      this.pending.delete(pending.id);
      this.#report();
      pending.resolve(answer);
      return;
    }
    pending.waiting = true;
    this.#report();
    pending.timer = this.clock.setTimeout(() => void this.#attempt(pending), this.side.retry ?? RETRY_MS);
  }

  /** @param {RelayRequest} request @returns {Promise<RelayAnswer>} */
  async #askOnce(request) {
    const bridge = this.side.bridge();
    if (!bridge?.up) return { ok: false, code: "noBridge" };
    return (await this.#send(bridge, request)) ?? { ok: false, code: "noBridge" };
  }

  /**
   * One attempt: the answer, or null when none came (not connected, timed out).
   * @param {BridgeTarget} bridge @param {RelayRequest} request
   * @returns {Promise<RelayAnswer|null>}
   */
  async #send(bridge, request) {
    const timeout = this.side.timeout ?? RELAY_TIMEOUT_MS;
    if (this.side.generation >= 13) {
      if (typeof bridge.query !== "function") return null;
      try {
        const answer = /** @type {RelayAnswer|null} */ (await bridge.query(QUERY_NAME, { ...request }, { timeout }));
        return isPlainObject(answer) && typeof answer.code === "string" ? readAnswer(answer) : null;
      } catch {
        return null; // not connected, no handler there, or no answer in time
      }
    }
    return this.#overSocket(bridge, request, timeout);
  }

  /**
   * v12: sealed to the bridge's key when both sides have WebCrypto, else plain.
   * @param {BridgeTarget} bridge @param {RelayRequest} request @param {number} timeout
   * @returns {Promise<RelayAnswer|null>}
   */
  async #overSocket(bridge, request, timeout) {
    const { socket, subtle } = this.side;
    /** @type {CryptoKey|null} */
    let key = null;
    /** @type {Record<string, unknown>} */
    let message = { ...request, to: bridge.id };
    if (bridge.key && subtle) {
      const mine = /** @type {CryptoKeyPair} */ (await subtle.generateKey(ECDH, true, ["deriveKey"]));
      key = await sharedKey(subtle, mine.privateKey, bridge.key);
      message = { type: "vtt-bridge.sealed", id: request.id, to: bridge.id, epk: await subtle.exportKey("jwk", mine.publicKey), ...(await encrypt(subtle, key, request)) };
    }
    const sealedWith = key;
    return new Promise((resolve) => {
      /** @param {unknown} data @param {string} [senderId] */
      const listener = async (data, senderId) => {
        if (!isPlainObject(data) || data.id !== request.id || data.to !== this.side.userId || senderId !== bridge.id) return;
        if (sealedWith && data.type === "vtt-bridge.sealedAnswer" && subtle) {
          const answer = await decrypt(subtle, sealedWith, /** @type {{iv: unknown, data: unknown}} */ (data));
          if (isPlainObject(answer) && typeof answer.code === "string") finish(readAnswer(answer));
        } else if (!sealedWith && data.type === "vtt-bridge.ack") {
          finish(readAnswer(data));
        }
      };
      const timer = this.clock.setTimeout(() => finish(null), timeout);
      /** @param {RelayAnswer|null} answer */
      const finish = (answer) => {
        this.clock.clearTimeout(timer);
        socket.off?.(SOCKET_CHANNEL, listener);
        resolve(answer);
      };
      socket.on(SOCKET_CHANNEL, listener);
      socket.emit(SOCKET_CHANNEL, message);
    });
  }
}

/**
 * An answer as received: the known fields only, a query's data cut to the attacker's view.
 * @param {Record<string, any>} data
 * @returns {RelayAnswer}
 */
function readAnswer(data) {
  const code = /** @type {RelayAnswer["code"]} */ (typeof data.code === "string" ? data.code : "failed");
  return {
    ok: data.ok === true,
    code,
    ...(typeof data.message === "string" ? { message: data.message } : {}),
    ...(isPlainObject(data.data) ? { data: attackerAnswer(data.data) } : {}),
  };
}
