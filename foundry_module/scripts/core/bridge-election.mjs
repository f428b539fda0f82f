/**
 * Which browser runs the bridge: exactly one among the GM browsers that may (their own client
 * setting "this browser runs the bridge" and a token), computed alike by every browser from Foundry's
 * synced User data, so it needs no messages of its own.
 *
 * A browser that may run the bridge says so in its own User's flag `flags.vtt-bridge.bridge`
 * (`BridgeClaim`): only that user or a Game Master can write it, so a player cannot claim it. The
 * elected one is the claim of an active Game Master with the earliest `since` (ties by user id): a
 * browser that joins later does not take the bridge from a running one; when the elected user's
 * browser closes (Foundry marks the user inactive, `userConnected`), the next claim is elected at
 * once on every browser.
 * @module bridge-election
 */

import { isPlainObject } from "./json-patch.mjs";

/** The User flag key of a claim. */
export const BRIDGE_FLAG = "bridge";

/**
 * @typedef {object} BridgeClaim a GM browser that may run the bridge
 * @property {number} since when it claimed (ordering only: the earliest claim runs it)
 * @property {boolean} up its link to the sidecar is connected
 * @property {JsonWebKey|null} key its public key (v12: requests are sealed to it)
 */

/**
 * @typedef {object} ElectionUser what the election reads of a User
 * @property {string} id
 * @property {string} [name]
 * @property {boolean} [isGM]
 * @property {boolean} [active]
 * @property {unknown} claim its `flags.vtt-bridge.bridge`
 */

/**
 * A claim as stored, or null when it is none.
 * @param {unknown} value
 * @returns {BridgeClaim|null}
 */
export function readClaim(value) {
  if (!isPlainObject(value) || typeof value.since !== "number" || !Number.isFinite(value.since)) return null;
  return { since: value.since, up: value.up === true, key: isPlainObject(value.key) ? /** @type {JsonWebKey} */ (value.key) : null };
}

/**
 * The elected bridge: the active Game Master's claim with the earliest `since` (then the lowest id).
 * @param {Iterable<ElectionUser>} users
 * @returns {{id: string, name: string, claim: BridgeClaim}|null}
 */
export function electBridge(users) {
  /** @type {{id: string, name: string, claim: BridgeClaim}|null} */
  let best = null;
  for (const user of users) {
    if (!user.isGM || !user.active) continue;
    const claim = readClaim(user.claim);
    if (!claim) continue;
    if (!best || claim.since < best.claim.since || (claim.since === best.claim.since && user.id < best.id)) {
      best = { id: user.id, name: String(user.name ?? user.id), claim };
    }
  }
  return best;
}

/**
 * The `since` of a new claim: now, but after the running bridge's own, so a browser that joins
 * later never takes over from it (clocks of two machines may differ).
 * @param {Iterable<ElectionUser>} users
 * @param {number} now
 */
export function claimSince(users, now) {
  const running = electBridge(users);
  return running ? Math.max(now, running.claim.since + 1) : now;
}

/**
 * What the indicator shows every user: `up` (a bridge runs and is connected), `down` (elected but
 * not connected to the sidecar), `none` (no GM browser runs it); the bridge user's name; how many of
 * this browser's requests wait.
 * @param {{id: string, name: string, claim: BridgeClaim}|null} elected
 * @param {number} waiting
 * @returns {{state: "up"|"down"|"none", name: string, waiting: number}}
 */
export function bridgeIndicator(elected, waiting) {
  if (!elected) return { state: "none", name: "", waiting };
  return { state: elected.claim.up ? "up" : "down", name: elected.name, waiting };
}
