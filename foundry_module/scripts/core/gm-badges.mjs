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

/** A Rank's number as the rulebook writes it (RANK-1: unranked, D, C, B, A, S, S+1). */
const RANK_WORDS = Object.freeze(["unranked", "D", "C", "B", "A", "S", "S+1"]);

/**
 * @typedef {{key: string, data: Record<string, unknown>}} Reason one reason of a pair's state: a
 *   `VTTBRIDGE.Badge.Why.<key>` sentence and its fields
 */

/**
 * Why an observer locates a target as it does, from the sidecar's `explain` log (DET-4..8, PIN):
 * for each means of detection the step that decided it (out of range, unusable, or its Rank against
 * the anti-detection worst for it, with that anti-detection's Essence), the target's lack of
 * anti-detection, the pair's standing contest (DET-8) and the GM's pin. Unknown steps are skipped;
 * a log without `DET-4.locate` gives no reasons.
 * @param {unknown} log the explain answer's `log`
 * @returns {Reason[]}
 */
export function pairReasons(log) {
  if (!Array.isArray(log)) return [];
  /** @type {any[]} */
  const steps = log.filter((s) => s && typeof s === "object" && typeof s.key === "string");
  const locate = steps.find((s) => s.key === "DET-4.locate");
  if (!locate) return [];
  /** @type {Reason[]} */
  const out = [];
  const chosen = typeof locate.data?.means === "string" ? locate.data.means : null;
  if (steps.some((s) => s.key === "DET-6.exposed")) out.push({ key: "exposed", data: {} });
  const anti = /** @type {any[]} */ (steps.find((s) => s.key === "DET-1.anti")?.data?.antiDetection ?? []);
  /** @type {Map<string, Reason>} means → the step that decided it */
  const decided = new Map();
  for (const s of steps) {
    const means = s.data?.means;
    if (typeof means !== "string" || decided.has(means)) continue;
    if (s.key === "DET-5.outOfRange") decided.set(means, { key: "outOfRange", data: { means } });
    else if (s.key === "DET-5.unusable") decided.set(means, { key: "unusable", data: { means, unusable: s.data.unusable } });
  }
  for (const worst of steps.filter((s) => s.key === "DET-7.worst")) {
    const means = worst.data?.means;
    if (typeof means !== "string" || decided.has(means)) continue;
    const versus = steps.find((s) => (s.key === "DET-2.versus" || s.key === "DET-7.versus") && s.data?.means === means && s.data?.result === worst.data.result);
    if (!versus) {
      decided.set(means, { key: "capability", data: { means, result: worst.data.result } });
      continue;
    }
    const rank = RANK_WORDS[versus.data.antiRank];
    const essences = [...new Set(anti.filter((a) => a?.rank === rank).map((a) => String(a.essence)))];
    decided.set(means, {
      key: "versus",
      data: { means, effectiveRank: versus.data.effectiveRank, antiRank: versus.data.antiRank, essence: essences.join("/"), result: versus.data.result, differ: versus.key === "DET-2.versus" },
    });
  }
  for (const s of steps.filter((x) => x.key === "DET-6.means")) {
    const means = s.data?.means;
    if (typeof means === "string" && !decided.has(means)) decided.set(means, { key: "capability", data: { means, result: s.data.result } });
  }
  // the means that decided first, then the others
  const order = [...decided.keys()].sort((a, b) => Number(b === chosen) - Number(a === chosen));
  out.push(...order.map((m) => /** @type {Reason} */ (decided.get(m))));
  if (!chosen) out.unshift({ key: "noMeans", data: {} });
  for (const s of steps) {
    if (s.key === "DET-8.won") out.push({ key: "won", data: { round: s.data.round, result: s.data.result } });
    else if (s.key === "DET-8.lost" || s.key === "DET-8.lostThisRound") out.push({ key: "lost", data: { round: s.data.lostIn, result: s.data.result } });
  }
  const pin = steps.find((s) => s.key === "PIN.explain");
  if (pin) out.push({ key: "pin", data: { by: pin.data.by, until: pin.data.until, result: pin.data.result, rules: pin.data.rules } });
  return out;
}

/**
 * A pair's reasons in words, one sentence joined by "; " (the reader's language).
 * @param {Reason[]} reasons
 * @param {(key: string, data?: Record<string, string>) => string} localize
 * @returns {string}
 */
export function reasonWords(reasons, localize) {
  const state = (/** @type {unknown} */ s) => localize(`VTTBRIDGE.Badge.State.${String(s)}`);
  const rank = (/** @type {unknown} */ n) => {
    const word = RANK_WORDS[Number(n)] ?? String(n);
    return word === "unranked" ? localize("VTTBRIDGE.Rules.Card.Rank.unranked") : word;
  };
  const until = (/** @type {unknown} */ u) =>
    typeof u === "string" ? localize(`VTTBRIDGE.Step.Until.${u}`) : localize("VTTBRIDGE.Step.Until.round", { round: String(/** @type {any} */ (u)?.round ?? "?") });
  const essence = (/** @type {unknown} */ e) =>
    String(e || "")
      .split("/")
      .filter(Boolean)
      .map((x) => localize(`VTTBRIDGE.Rules.Card.Essence.${x}`))
      .join("/");
  return reasons
    .map(({ key, data }) => {
      /** @type {Record<string, string>} */
      const words = {};
      for (const [field, value] of Object.entries(data)) words[field] = String(value ?? "");
      if ("result" in data) words.result = state(data.result);
      if ("rules" in data) words.rules = state(data.rules);
      if ("effectiveRank" in data) words.effectiveRank = rank(data.effectiveRank);
      if ("antiRank" in data) words.antiRank = rank(data.antiRank);
      if ("essence" in data) words.essence = essence(data.essence);
      if ("until" in data) words.until = until(data.until);
      if ("by" in data) words.by = typeof data.by === "string" && data.by ? data.by : localize("VTTBRIDGE.Step.TheGM");
      if ("unusable" in data) words.unusable = localize(`VTTBRIDGE.Badge.Unusable.${String(data.unusable)}`);
      if (typeof data.means === "string") {
        // the sidecar's default senses have words; a table's own means keep the table's name
        const sense = `VTTBRIDGE.Badge.Sense.${data.means}`;
        const word = localize(sense);
        if (word !== sense) words.means = word;
      }
      return localize(`VTTBRIDGE.Badge.Why.${key}`, words);
    })
    .join(localize("VTTBRIDGE.Badge.Why.Separator"));
}
