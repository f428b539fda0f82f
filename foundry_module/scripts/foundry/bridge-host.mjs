/**
 * One browser's part in the bridge election (core/bridge-election.mjs): publish this browser's claim
 * in its own User flag when it may run the bridge (a GM with the client setting and a token), start
 * the bridge when it is elected, stop it when another is, and tell the indicator and the relay queue
 * whenever the elected bridge changes or comes up.
 *
 * Foundry API used (public pages): `User#setFlag` / `unsetFlag` and `getFlag` —
 * https://foundryvtt.com/api/classes/foundry.abstract.Document.html (a user may update its own User
 * document; a player cannot write a GM's flag); `game.users`, each User's `isGM`, `active` —
 * https://foundryvtt.com/api/classes/foundry.documents.User.html; the hooks `updateUser` (every
 * client, after the update) and `userConnected(user, connected)` —
 * https://foundryvtt.com/api/functions/hookEvents.userConnected.html. Everything is passed in, so
 * each simulated browser of the tests runs its own host.
 * @module bridge-host
 */

import { MODULE_ID } from "../core/constants.mjs";
import { BRIDGE_FLAG, bridgeIndicator, claimSince, electBridge, readClaim } from "../core/bridge-election.mjs";
import { bridgeKeys } from "./player-requests.mjs";

/**
 * @typedef {object} HostParts
 * @property {{on: (name: string, fn: (...args: any[]) => unknown) => unknown}} hooks this browser's Hooks
 * @property {() => {id: string, isGM?: boolean}} self `game.user`
 * @property {() => Iterable<any>} users `game.users` (read fresh each time)
 * @property {(claim: import("../core/bridge-election.mjs").BridgeClaim|null) => Promise<unknown>} writeClaim
 *   sets (or, with null, unsets) this user's `flags.vtt-bridge.bridge`
 * @property {() => boolean} eligible this browser may run the bridge (GM, setting, token)
 * @property {() => void} start open the link to the sidecar
 * @property {() => void} stop close it
 * @property {SubtleCrypto|undefined} [subtle] WebCrypto (absent on a plain-http page)
 * @property {() => number} [now]
 * @property {(indicator: ReturnType<typeof bridgeIndicator>) => void} [onIndicator]
 * @property {() => void} [onBridgeChange] the elected bridge changed or came up (the queue retries)
 * @property {(name: string) => void} [onStandby] this browser may run the bridge, but another (named) runs it
 * @property {() => number} [waiting] requests of this browser waiting for a bridge
 * @property {number} [settleMs] how long an elected browser waits before it starts (two claims made
 *   at the same moment both reach every browser within it; the later one then stands down)
 * @property {{setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (handle: any) => void}} [clock]
 */

/** How long a newly elected browser waits, re-checking, before it opens the link. */
export const SETTLE_MS = 1000;

/** @param {any} user */
function claimOf(user) {
  const value = typeof user?.getFlag === "function" ? user.getFlag(MODULE_ID, BRIDGE_FLAG) : user?.flags?.[MODULE_ID]?.[BRIDGE_FLAG];
  return value;
}

export class BridgeHost {
  /** @param {HostParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** @type {CryptoKey|null} v12: opens requests sealed to this bridge */
    this.privateKey = null;
    /** this browser's link to the sidecar is open */
    this.running = false;
    /** @type {import("../core/bridge-election.mjs").BridgeClaim|null} what this browser published */
    this.claim = null;
    /** @type {string} the last elected bridge and its state, to tell changes */
    this.lastSeen = "";
    /** @type {string|null} the bridge this browser last said it stands by for */
    this.standingBy = null;
    /** @type {any} a start waiting for the election to settle */
    this.starting = null;
    this.clock = parts.clock ?? { setTimeout: globalThis.setTimeout.bind(globalThis), clearTimeout: globalThis.clearTimeout.bind(globalThis) };
    parts.hooks.on("updateUser", () => this.evaluate());
    parts.hooks.on("userConnected", () => this.evaluate());
  }

  /** The users as the election reads them. */
  #electionUsers() {
    return [...this.parts.users()].map((u) => ({ id: u.id, name: u.name, isGM: !!u.isGM, active: !!u.active, claim: claimOf(u) }));
  }

  /** The elected bridge now. */
  elected() {
    return electBridge(this.#electionUsers());
  }

  /**
   * Publish (or withdraw) this browser's claim, as its settings say now; then act on the election.
   * A new claim gets a fresh key pair.
   */
  async publish() {
    const self = this.parts.self();
    if (!this.parts.eligible()) {
      this.claim = null;
      this.privateKey = null;
      if (readClaim(claimOf([...this.parts.users()].find((u) => u.id === self.id)))) await this.parts.writeClaim(null);
      this.evaluate();
      return;
    }
    /** @type {JsonWebKey|null} */
    let key = null;
    if (this.parts.subtle) {
      const keys = await bridgeKeys(this.parts.subtle);
      this.privateKey = keys.privateKey;
      key = keys.publicJwk;
    }
    const others = this.#electionUsers().filter((u) => u.id !== self.id);
    this.claim = { since: claimSince(others, (this.parts.now ?? Date.now)()), up: false, key };
    await this.parts.writeClaim(this.claim);
    this.evaluate();
  }

  /**
   * This browser's link came up or went down: the claim says so (every user's indicator reads it).
   * @param {boolean} up
   */
  async setUp(up) {
    if (!this.claim || this.claim.up === up) return;
    this.claim = { ...this.claim, up };
    await this.parts.writeClaim(this.claim);
  }

  /** Start or stop this browser's bridge as the election says; tell the indicator and the queue. */
  evaluate() {
    const elected = this.elected();
    const self = this.parts.self();
    const mine = !!elected && elected.id === self.id && !!this.claim;
    if (mine && !this.running && !this.starting) {
      // start once the election has settled: a claim made at the same moment elsewhere arrives first
      this.starting = this.clock.setTimeout(() => {
        this.starting = null;
        const now = this.elected();
        if (!this.running && now?.id === this.parts.self().id && this.claim) {
          this.running = true;
          this.parts.start();
        }
      }, this.parts.settleMs ?? SETTLE_MS);
    } else if (!mine) {
      if (this.starting) this.clock.clearTimeout(this.starting);
      this.starting = null;
      if (this.running) {
        this.running = false;
        this.parts.stop();
      }
    }
    const seen = JSON.stringify([elected?.id ?? null, elected?.claim.up ?? false]);
    if (seen !== this.lastSeen) {
      this.lastSeen = seen;
      this.parts.onBridgeChange?.();
    }
    // a browser that may run the bridge says once whose browser runs it instead
    const standingBy = this.claim && elected && elected.id !== self.id ? elected.id : null;
    if (standingBy && standingBy !== this.standingBy) this.parts.onStandby?.(/** @type {any} */ (elected).name);
    this.standingBy = standingBy;
    this.refreshIndicator();
  }

  /** Redraw the indicator (also when the number of waiting requests changed). */
  refreshIndicator() {
    this.parts.onIndicator?.(bridgeIndicator(this.elected(), this.parts.waiting?.() ?? 0));
  }

  /**
   * The elected bridge as an asker needs it (player-requests.mjs `BridgeTarget`).
   * @param {(id: string) => any} userById `game.users.get` (its `query`, v13+)
   * @returns {import("./player-requests.mjs").BridgeTarget|null}
   */
  target(userById) {
    const elected = this.elected();
    if (!elected) return null;
    const user = userById(elected.id);
    return {
      id: elected.id,
      up: elected.claim.up,
      key: elected.claim.key,
      query: typeof user?.query === "function" ? (name, data, options) => user.query(name, data, options) : undefined,
    };
  }
}

/**
 * Every user's indicator (a small fixed element, `#vtt-bridge-indicator`, styled by the module's
 * stylesheet): whether a bridge is up and in whose browser, and how many of this browser's requests
 * wait for it; made on first use, updated after.
 * @param {Document} doc
 * @param {ReturnType<typeof bridgeIndicator>} shown
 * @param {(key: string, data?: Record<string, string>) => string} t localize / format
 * @returns {HTMLElement}
 */
export function renderIndicator(doc, shown, t) {
  const id = `${MODULE_ID}-indicator`;
  let element = doc.getElementById(id);
  if (!element) {
    element = doc.createElement("div");
    element.id = id;
    element.setAttribute("role", "status");
    doc.body.append(element);
  }
  element.dataset.status = shown.state;
  const waiting = shown.waiting ? ` · ${t("VTTBRIDGE.Bridge.Waiting", { count: String(shown.waiting) })}` : "";
  element.textContent = `⬤ ${t(`VTTBRIDGE.Bridge.${shown.state}`, { name: shown.name })}${waiting}`;
  element.title = t("VTTBRIDGE.Bridge.Title");
  return element;
}
