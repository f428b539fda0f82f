/**
 * PURE: the GM's badge on a token some observer does not pinpoint (DET-4): how many observers
 * locate it approximately and how many cannot find it, and the words its hover shows (each such
 * observer by name and state). Read from the token's visibility flag, as every client has it.
 * No Foundry globals: everything is passed in.
 * @module gm-badges
 */

import { parseLocateState } from "./visibility.mjs";

/**
 * @typedef {object} BadgeCounts
 * @property {number} approximate observers that locate the token approximately
 * @property {number} unlocated observers that cannot find it (an unreadable entry counts here)
 * @property {Array<{observer: string, state: "approximate"|"unlocated"}>} pairs each, in observer id order
 */

/**
 * The badge of one token: null when every observer pinpoints it (no entry, or no flag).
 * @param {unknown} visibilityFlag the token's `flags.vtt-bridge.visibility`
 * @returns {BadgeCounts|null}
 */
export function badgeCounts(visibilityFlag) {
  if (!visibilityFlag || typeof visibilityFlag !== "object" || Array.isArray(visibilityFlag)) return null;
  /** @type {BadgeCounts["pairs"]} */
  const pairs = [];
  for (const observer of Object.keys(visibilityFlag).sort()) {
    const { state } = parseLocateState(/** @type {Record<string, unknown>} */ (visibilityFlag)[observer]);
    if (state === "approximate" || state === "unlocated") pairs.push({ observer, state });
  }
  if (!pairs.length) return null;
  const approximate = pairs.filter((p) => p.state === "approximate").length;
  return { approximate, unlocated: pairs.length - approximate, pairs };
}

/**
 * The badge's short text: "≈2 ✕1" (approximate, unlocated; a zero left out).
 * @param {BadgeCounts} counts
 * @returns {string}
 */
export function badgeLabel(counts) {
  return [counts.approximate ? `≈${counts.approximate}` : "", counts.unlocated ? `✕${counts.unlocated}` : ""].filter(Boolean).join(" ");
}

/**
 * The badge's hover words: a line per observer that does not pinpoint the token, by name.
 * @param {BadgeCounts} counts
 * @param {(id: string) => string} nameOf an observer token's name
 * @param {(key: string, data?: Record<string, string>) => string} localize
 * @returns {string[]}
 */
export function badgeLines(counts, nameOf, localize) {
  return [
    localize("VTTBRIDGE.Badge.Summary", { approximate: String(counts.approximate), unlocated: String(counts.unlocated) }),
    ...counts.pairs.map((p) => localize(`VTTBRIDGE.Badge.${p.state}`, { observer: nameOf(p.observer) })),
  ];
}
