/**
 * The websocket link to the sidecar: `hello` with the token, `welcome`, request/reply correlation by
 * id, reconnect with jittered exponential backoff (capped at 30 s) and one notice per outage, and
 * keeping the world in step: `sync` on connect, on scene change, on a rev gap and when a patch does
 * not fit (a failed `test` op); a state larger than a frame is sent in parts (`syncParts`).
 *
 * Everything outside is injected (the WebSocket constructor, the clock, the random source, how the
 * state is read and how a patch is applied), so Node and Chromium tests drive the real class.
 * @module connection
 */

import { MODULE_VERSION } from "./constants.mjs";
import { envelope, helloPayload } from "./messages.mjs";
import { partBudget, syncParts } from "./sync-parts.mjs";

/**
 * @typedef {object} WebSocketLike
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {any} onopen set to `(event) => void`
 * @property {any} onmessage set to `(event: {data}) => void`
 * @property {any} onclose set to `(event: {code, reason}) => void`
 * @property {any} onerror set to `(event) => void`
 */
/** @typedef {new (url: string) => WebSocketLike} WebSocketCtor */
/**
 * @typedef {object} Clock
 * @property {() => number} now
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 */
/**
 * What the connection hands to the applier: a full sync result or one change.
 * @typedef {object} Incoming
 * @property {"sync"|"patch"} mode
 * @property {number} rev
 * @property {import("./_types.mjs").PatchOp[]} patch
 * @property {Array<{rule: string, text: string, data?: unknown}>} log
 * @property {unknown[]} [rolls]
 * @property {"result"|"patch"} source a reply to us or a change another client caused
 */
/** @typedef {import("./_types.mjs").Status} Status */
/**
 * @typedef {object} ConnectionOptions
 * @property {string} url e.g. ws://127.0.0.1:30500/ws
 * @property {string} token the shared secret; sent in `hello` only
 * @property {string} world the Foundry world id
 * @property {WebSocketCtor} WebSocket
 * @property {() => (Record<string, any>|null|Promise<Record<string, any>|null>)} getState the state
 *   document to `sync` (null: nothing to sync yet, e.g. no scene)
 * @property {(incoming: Incoming) => (boolean|Promise<boolean>)} apply applies a result/patch;
 *   false when it did not fit (then the connection resyncs)
 * @property {Clock} [clock]
 * @property {() => number} [random] uniform in [0, 1), for the backoff jitter
 * @property {() => string} [newId] message ids (unique per world: the sidecar dedupes action ids)
 * @property {number} [requestTimeout] ms
 * @property {number} [backoffBase] ms
 * @property {number} [backoffCap] ms
 * @property {string} [version] client version sent in `hello`
 */

/** An `error` reply, or a request that could not be answered. */
export class BridgeError extends Error {
  /**
   * @param {string} code PROTOCOL.md error code, or "offline" / "disconnected" / "timeout"
   * @param {string} [message]
   * @param {unknown} [details]
   */
  constructor(code, message, details) {
    super(message ?? code);
    this.name = "BridgeError";
    this.code = code;
    this.details = details;
  }
}

/** Close code the sidecar uses after `unauthorized`. */
export const CLOSE_UNAUTHORIZED = 4401;

/**
 * Jittered exponential backoff: the ceiling doubles from `base` per attempt up to `cap`; the delay
 * is uniform in [ceiling/2, ceiling] ("equal jitter"), so it never exceeds `cap`.
 * @param {number} attempt 0 for the first retry
 * @param {() => number} random uniform in [0, 1)
 * @param {{base?: number, cap?: number}} [limits]
 * @returns {number} ms
 */
export function backoffDelay(attempt, random, { base = 500, cap = 30_000 } = {}) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * A random id from `crypto.getRandomValues` (works on plain-http pages too, where
 * `crypto.randomUUID` does not exist).
 * @returns {string}
 */
export function randomId() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @type {Clock} */
const realClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
};

/**
 * What made a ruling: its action id (the id an undo names) and kind. A result answers this client's
 * request (its message id is the action id); a pushed patch names them itself (`action`, `kind`;
 * an earlier sidecar sent neither). No action id for a sync or upsert.
 * @param {Record<string, any>} payload a `result` or `patch` payload
 * @param {{type: string, payload: Record<string, any>, id?: string}} [request]
 * @returns {{action?: string, kind?: string}}
 */
export function rulingOrigin(payload, request) {
  /** @type {{action?: string, kind?: string}} */
  const origin = {};
  if (request) {
    const isAction = request.type === "action";
    if (isAction && typeof request.id === "string") origin.action = request.id;
    const kind = isAction ? request.payload?.kind : request.type;
    if (typeof kind === "string") origin.kind = kind;
    return origin;
  }
  if (typeof payload.action === "string" && payload.action) origin.action = payload.action;
  if (typeof payload.kind === "string" && payload.kind) origin.kind = payload.kind;
  return origin;
}

/**
 * @typedef {object} Pending
 * @property {string} type
 * @property {Record<string, any>} payload
 * @property {(payload: any) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {any} timer
 * @property {boolean} retry resend with the same id after a reconnect
 * @property {boolean} sent
 */

export class BridgeConnection {
  /** @type {Map<string, Set<(arg: any) => void>>} */
  #listeners = new Map();
  /** @type {Map<string, Pending>} */
  #pending = new Map();
  /** @type {WebSocketLike|null} */
  #ws = null;
  #welcomed = false;
  #stopped = true;
  #unauthorized = false;
  #outage = false;
  #attempt = 0;
  /** @type {any} */
  #timer = null;
  /** @type {string|null} */
  #helloId = null;
  /** @type {Promise<void>} */
  #chain = Promise.resolve();
  #syncQueued = false;
  #versionNoticed = false;

  /** @param {ConnectionOptions} options */
  constructor(options) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.newId = options.newId ?? randomId;
    /** @type {Status} */
    this.status = "idle";
    /** @type {number|null} the rev of the last result/patch applied */
    this.rev = null;
    /** @type {Record<string, any>|null} the `welcome` payload */
    this.welcome = null;
    /** counters, for the indicator and tests */
    this.stats = { syncs: 0, connects: 0, gaps: 0, misfits: 0 };
  }

  /**
   * Listen to "status" (Status), "notice" ({kind: "lost"|"restored"|"unauthorized"}, or
   * {kind: "version", module, sidecar} once when the sidecar's version is not this module's), "log"
   * (`{rev, log, rolls, source, request?, action?, kind?}`: a ruling's steps; `request` `{type,
   * payload, id}` is this client's request it answers, absent for a change pushed by another
   * client; `action` the ruling's action id (what an undo names) and `kind` what made it, for a
   * ruling of either: `rulingOrigin`), "error" (an Error nobody awaited).
   * @param {string} event
   * @param {(arg: any) => void} fn
   * @returns {() => void} unsubscribe
   */
  on(event, fn) {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** @param {string} event @param {any} arg */
  #emit(event, arg) {
    for (const fn of this.#listeners.get(event) ?? []) {
      try {
        fn(arg);
      } catch (error) {
        if (event !== "error") this.#emit("error", error);
      }
    }
  }

  /** @param {Status} status */
  #setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.#emit("status", status);
  }

  /** Whether `welcome` was received on the current socket. */
  get connected() {
    return this.#welcomed;
  }

  /** Open the link (and keep it open until `stop`). */
  start() {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unauthorized = false;
    this.#attempt = 0;
    this.#open();
  }

  /** Close the link for good and fail every request waiting for an answer. */
  stop() {
    this.#stopped = true;
    if (this.#timer !== null) this.clock.clearTimeout(this.#timer);
    this.#timer = null;
    const ws = this.#ws;
    this.#ws = null;
    this.#welcomed = false;
    this.#failPending(new BridgeError("disconnected", "the bridge was stopped"), true);
    if (ws) {
      ws.onclose = ws.onmessage = ws.onerror = ws.onopen = null;
      try {
        ws.close(1000, "stopped");
      } catch {
        // already closed
      }
    }
    this.#setStatus("stopped");
  }

  #open() {
    this.#setStatus(this.#outage ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new this.options.WebSocket(this.options.url);
    } catch (error) {
      this.#emit("error", error);
      this.#onClose(1006);
      return;
    }
    this.#ws = ws;
    ws.onopen = () => {
      const id = this.newId();
      this.#helloId = id;
      const hello = helloPayload({ token: this.options.token, world: this.options.world, version: this.options.version });
      ws.send(JSON.stringify(envelope("hello", hello, id)));
    };
    ws.onmessage = (/** @type {{data: unknown}} */ event) => {
      if (this.#ws === ws) this.#onMessage(event.data);
    };
    ws.onclose = (/** @type {{code: number}} */ event) => {
      if (this.#ws === ws) this.#onClose(event.code);
    };
    ws.onerror = () => {
      // a close event always follows
    };
  }

  /** @param {unknown} data */
  #onMessage(data) {
    let message;
    try {
      message = JSON.parse(typeof data === "string" ? data : String(data));
    } catch {
      this.#emit("error", new BridgeError("bad_request", "the sidecar sent a frame that is not JSON"));
      return;
    }
    if (!message || typeof message !== "object") return;
    const { type, payload = {}, re } = message;
    if (!this.#welcomed) {
      if (type === "welcome" && re === this.#helloId) this.#onWelcome(payload);
      else if (type === "error" && payload.code === "unauthorized") this.#unauthorized = true;
      return;
    }
    if (re !== undefined && this.#pending.has(re)) {
      const pending = /** @type {Pending} */ (this.#pending.get(re));
      this.#pending.delete(re);
      if (pending.timer !== null) this.clock.clearTimeout(pending.timer);
      if (type === "error") {
        pending.reject(new BridgeError(payload.code, payload.message, payload.details));
      } else {
        if (type === "result" && pending.type !== "sync" && Array.isArray(payload.patch)) {
          const request = { type: pending.type, payload: pending.payload, id: re };
          this.#enqueue(() => this.#applyChange(payload, "result", request));
        }
        pending.resolve(payload);
      }
      return;
    }
    if (type === "patch") this.#enqueue(() => this.#applyChange(payload, "patch"));
    else if (type === "error") this.#emit("error", new BridgeError(payload.code, payload.message, payload.details));
  }

  /** @param {Record<string, any>} payload */
  #onWelcome(payload) {
    this.#welcomed = true;
    this.welcome = payload;
    this.#attempt = 0;
    this.stats.connects += 1;
    this.#setStatus("connected");
    if (this.#outage) {
      this.#outage = false;
      this.#emit("notice", { kind: "restored" });
    }
    const sidecar = payload.server?.version;
    const module = this.options.version ?? MODULE_VERSION;
    if (!this.#versionNoticed && typeof sidecar === "string" && sidecar !== module) {
      this.#versionNoticed = true;
      this.#emit("notice", { kind: "version", module, sidecar });
    }
    this.resync("connect");
    this.#enqueue(async () => this.#resendRetries());
  }

  /** @param {number} code */
  #onClose(code) {
    this.#ws = null;
    const wasWelcomed = this.#welcomed;
    this.#welcomed = false;
    this.#failPending(new BridgeError("disconnected", "the link to the sidecar closed"), false);
    if (this.#stopped) return;
    if (code === CLOSE_UNAUTHORIZED || this.#unauthorized) {
      this.#stopped = true;
      this.#failPending(new BridgeError("unauthorized", "the sidecar refused the token"), true);
      this.#setStatus("unauthorized");
      this.#emit("notice", { kind: "unauthorized" });
      return;
    }
    if (!this.#outage) {
      this.#outage = true;
      this.#emit("notice", { kind: "lost", wasConnected: wasWelcomed });
    }
    this.#setStatus("reconnecting");
    const delay = backoffDelay(this.#attempt, this.random, {
      base: this.options.backoffBase,
      cap: this.options.backoffCap,
    });
    this.#attempt += 1;
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = null;
      if (!this.#stopped) this.#open();
    }, delay);
  }

  /**
   * @param {BridgeError} error
   * @param {boolean} all also the requests that would be resent after a reconnect
   */
  #failPending(error, all) {
    for (const [id, pending] of this.#pending) {
      if (pending.timer !== null) this.clock.clearTimeout(pending.timer);
      pending.timer = null;
      if (pending.retry && !all) {
        pending.sent = false;
        continue;
      }
      this.#pending.delete(id);
      pending.reject(error);
    }
  }

  #resendRetries() {
    for (const [id, pending] of this.#pending) {
      if (!pending.sent && this.#welcomed) this.#send(id, pending);
    }
  }

  /** @param {string} id @param {Pending} pending */
  #send(id, pending) {
    const ws = /** @type {WebSocketLike} */ (this.#ws);
    ws.send(JSON.stringify(envelope(pending.type, pending.payload, id)));
    pending.sent = true;
    const timeout = this.options.requestTimeout ?? 20_000;
    pending.timer = this.clock.setTimeout(() => {
      this.#pending.delete(id);
      pending.reject(new BridgeError("timeout", `no answer to ${pending.type} in ${timeout} ms`));
    }, timeout);
  }

  /**
   * Send a request and wait for its reply's payload (an `error` reply rejects with BridgeError).
   * @param {string} type
   * @param {Record<string, any>} payload
   * @param {{retry?: boolean, id?: string}} [options] retry: keep it through an outage and resend it with the same
   *   id once connected again (the sidecar answers a repeated action id with the same result); id:
   *   the message id to use (a relayed request's, the same on its every retry), else a fresh one
   * @returns {Promise<Record<string, any>>}
   */
  request(type, payload, { retry = false, id: given } = {}) {
    return new Promise((resolve, reject) => {
      if (!this.#welcomed && !(retry && !this.#stopped)) {
        reject(new BridgeError("offline", "not connected to the sidecar"));
        return;
      }
      if (given && this.#pending.has(given)) {
        // never the same ruling under a second id: the first request's answer settles it
        reject(new BridgeError("duplicate", `request ${given} is already under way`));
        return;
      }
      const id = given || this.newId();
      /** @type {Pending} */
      const pending = { type, payload, resolve, reject, timer: null, retry, sent: false };
      this.#pending.set(id, pending);
      if (this.#welcomed) this.#send(id, pending);
    });
  }

  /**
   * One ruling (`action`); kept and resent after an outage. Resolves with the `result` payload
   * once its patch is queued for applying.
   * @param {Record<string, any>} action `{kind, ...}`
   * @param {{id?: string}} [options] id: the action id (a relayed request's), else a fresh one
   */
  action(action, { id } = {}) {
    return this.request("action", action, { retry: true, ...(id ? { id } : {}) });
  }

  /**
   * The GM changed something in Foundry.
   * @param {string} path JSON Pointer
   * @param {unknown} value
   */
  upsert(path, value) {
    return this.request("upsert", { path, value }, { retry: true });
  }

  /** @param {Record<string, any>} query `{kind: "state"}` or `{kind: "explain", observer, target}` */
  query(query) {
    return this.request("query", query);
  }

  /**
   * Send `sync` (queued behind the changes being applied); several calls before it runs collapse
   * into one.
   * @param {string} [reason] "connect", "scene", "gap", "misfit", ...
   */
  resync(reason = "request") {
    if (this.#syncQueued) return this.#chain;
    this.#syncQueued = true;
    return this.#enqueue(async () => {
      this.#syncQueued = false;
      await this.#doSync(reason);
    });
  }

  /** @param {() => Promise<void>} job */
  #enqueue(job) {
    this.#chain = this.#chain.then(job).catch((error) => this.#emit("error", error));
    return this.#chain;
  }

  /** @param {string} reason */
  async #doSync(reason) {
    if (!this.#welcomed) return;
    const state = await this.options.getState();
    if (!state) return;
    this.stats.syncs += 1;
    // a state larger than a frame (the sidecar's `maxFrame`) goes in parts, one after another on this connection; every part
    // but the last is only buffered (`result {data: {buffered: true}}`), the last gets the ruling
    const parts = syncParts(state, partBudget(this.welcome?.maxFrame));
    /** @type {Record<string, any>} */
    let result = {};
    try {
      for (const [i, part] of parts.entries()) {
        result = await this.request("sync", i < parts.length - 1 ? { state: part, more: true } : { state: part });
      }
    } catch (error) {
      if (error instanceof BridgeError && (error.code === "disconnected" || error.code === "offline")) return;
      throw error;
    }
    this.rev = result.rev;
    const ok = await this.options.apply({
      mode: "sync",
      rev: result.rev,
      patch: result.patch ?? [],
      log: result.log ?? [],
      rolls: result.rolls,
      source: "result",
    });
    if (!ok) this.#emit("error", new BridgeError("internal", `the sync result (${reason}) could not be applied`));
  }

  /**
   * @param {Record<string, any>} payload a `result` or `patch` payload
   * @param {"result"|"patch"} source
   * @param {{type: string, payload: Record<string, any>, id?: string}} [request] for a result: what it answers (`id`: its message id, the ruling's action id)
   */
  async #applyChange(payload, source, request) {
    const rev = payload.rev;
    if (typeof rev !== "number" || this.rev === null || rev <= this.rev) return; // duplicate or pre-sync
    if (rev !== this.rev + 1) {
      this.stats.gaps += 1;
      await this.#doSync("gap");
      return;
    }
    const log = payload.log ?? [];
    const ok = await this.options.apply({ mode: "patch", rev, patch: payload.patch ?? [], log, rolls: payload.rolls, source });
    if (!ok) {
      this.stats.misfits += 1;
      await this.#doSync("misfit");
      return;
    }
    this.rev = rev;
    // `summary`: present when the sidecar cut the log or rolls (the rest is read with `query {kind: "ruling"}`)
    const summary = payload.summary;
    if (log.length) this.#emit("log", { rev, log, rolls: payload.rolls ?? [], source, request, summary, ...rulingOrigin(payload, request) });
  }

  /** Wait until every queued sync and patch has been applied (tests, shutdown). */
  idle() {
    return this.#chain;
  }
}
