/**
 * PURE: what the players may read of an attack (DET-10), and the attack dialog's DET-10 lines.
 *
 * - `attackOutcomes`: per target of a `damage` (or a `batch` of them) that carries an `attack`,
 *   whether it hit, and the successes as sent and as counted (halved against an approximate target
 *   or at a right square). Only what the attacker knows: they attacked, and whether it hit.
 * - `renderPublicAttackCard`: the players' card: the attacker, each target's name or "Someone" (a
 *   target the players cannot pinpoint, and whoever stood at a guessed square), hit or missed, the
 *   successes. No damage dealt, no IWR, no Health: those stay in the GM's whispered card.
 * - `checkLine`: the attack dialog's line for one target or a square, from `attackCheck`'s
 *   attacker view (`view: "attacker"`).
 * @module attack-card
 */

import { escapeHtml } from "./chat-cards.mjs";
import { attackMissed } from "./attack.mjs";
import { batchItems } from "./batch-card.mjs";

/**
 * @typedef {import("./chat-cards.mjs").Step} Step
 * @typedef {import("./chat-cards.mjs").I18n} I18n
 * @typedef {object} AttackOutcome
 * @property {string|null} target the damaged actor's uuid (null: nobody at the square)
 * @property {boolean} square the attack went at a guessed square (the attacker named nobody)
 * @property {boolean} missed
 * @property {boolean} halved
 * @property {number} from the attack's successes as sent
 * @property {number} to as DET-10 counts them
 */

/** @param {unknown} value @returns {value is Record<string, any>} */
const isObject = (value) => !!value && typeof value === "object" && !Array.isArray(value);

/**
 * The attack of each `damage` an action holds, in order (a `batch`: its items; a `damage`: itself),
 * or [] when none carries an `attack`.
 * @param {Record<string, any>|undefined} action
 * @returns {Record<string, any>[]}
 */
export function attackItems(action) {
  if (!isObject(action)) return [];
  const items = action.kind === "batch" && Array.isArray(action.actions) ? action.actions : [action];
  const damage = items.filter((item) => isObject(item) && item.kind === "damage");
  return damage.length === items.length && damage.some((item) => isObject(item.attack)) ? damage : [];
}

/**
 * Each target's outcome of an attack ruling: the log's `BATCH.item` parts (a batch) or the log
 * whole (one damage), matched with the action's items in order. [] when the action is no attack.
 * @param {Step[]} log
 * @param {Record<string, any>|undefined} action the action the ruling answers
 * @returns {AttackOutcome[]}
 */
export function attackOutcomes(log, action) {
  const items = attackItems(action);
  if (!items.length) return [];
  const parts = action?.kind === "batch" ? batchItems(log) : [{ target: typeof action?.target === "string" ? action.target : null, steps: log }];
  return parts.map(({ target, steps }, i) => {
    const attack = isObject(items[i]?.attack) ? items[i].attack : {};
    const square = !attack.token && isObject(attack.guess);
    const from = Number.isSafeInteger(attack.successes) ? attack.successes : 0;
    const verdict = [...steps].reverse().find((s) => s.rule === "DET-10" && isObject(s.data) && "halved" in s.data);
    const missed = attackMissed(steps) || !verdict;
    const halved = !missed && !!verdict?.data?.halved;
    const to = !missed && typeof verdict?.data?.successes === "number" ? verdict.data.successes : 0;
    return { target: square ? null : target, square, missed, halved, from, to };
  });
}

/**
 * The players' card of an attack: a line per target. `label(id)` names a target or the attacker
 * as the players may know it ("Someone" for what they cannot pinpoint); a square's target is never
 * named.
 * @param {{attacker: string, outcomes: AttackOutcome[]}} attack `attacker`: the name to show
 * @param {I18n} i18n
 * @param {(id: string) => string} label
 * @returns {string} "" when there is no outcome
 */
export function renderPublicAttackCard({ attacker, outcomes }, i18n, label) {
  if (!outcomes.length) return "";
  const key = "VTTBRIDGE.Attack.Card";
  const lines = outcomes.map((o) => {
    const counts = { from: String(o.from), to: String(o.to) };
    if (o.square) return i18n.format(o.missed ? `${key}.SquareMissed` : `${key}.SquareHit`, counts);
    const target = o.target ? label(o.target) : i18n.localize("VTTBRIDGE.Visibility.Speaker.Someone");
    const which = o.missed ? "Missed" : o.halved ? "Halved" : "Full";
    return i18n.format(`${key}.${which}`, { target, ...counts });
  });
  const items = lines.map((line) => `<li>${escapeHtml(line)}</li>`).join("");
  return `<div class="vtt-bridge-ruling vtt-bridge-attack-public"><header>${escapeHtml(i18n.format(`${key}.Title`, { attacker }))}</header><ul>${items}</ul></div>`;
}

/** The verdicts of `attackCheck`'s attacker view. */
export const CHECK_VERDICTS = Object.freeze(["full", "halved", "guessed", "notPossible", "halfChance"]);

/**
 * The attack dialog's DET-10 line for one target (its name as the player may know it) or a square
 * (`target` null), from `attackCheck`'s attacker view; an answer without a known verdict (the
 * sidecar did not answer) says DET-10 is ruled when the attack is sent.
 * @param {string|null} target
 * @param {unknown} answer
 * @param {I18n} i18n
 * @returns {string}
 */
export function checkLine(target, answer, i18n) {
  const verdict = isObject(answer) && CHECK_VERDICTS.includes(answer.verdict) ? String(answer.verdict) : null;
  const successes = isObject(answer) && Number.isSafeInteger(answer.successes) ? String(answer.successes) : "?";
  const name = target ?? i18n.localize("VTTBRIDGE.Visibility.Speaker.Someone");
  const key = verdict ? (target === null ? "guessed" : verdict) : "Unknown";
  return i18n.format(`VTTBRIDGE.Attack.Check.${key}`, { target: name, successes });
}

/**
 * What a player's browser may hand on of an `attackCheck` answer (the bridge's relay keeps only
 * these fields, whatever the sidecar sent): the verdict and the counts.
 * @param {unknown} data
 * @returns {Record<string, unknown>|null}
 */
export function attackerAnswer(data) {
  if (!isObject(data) || !CHECK_VERDICTS.includes(data.verdict)) return null;
  /** @type {Record<string, unknown>} */
  const out = { verdict: data.verdict };
  for (const field of ["successes", "extraSuccesses", "effectPoints", "halved", "spellChance"]) if (field in data) out[field] = data[field];
  return out;
}

/**
 * What the players may read of a `roll` against an opponent: the roller's own rolls (`by` the
 * rolling actor), its successes and whether it won (DICE-5); never the opponent's pool or dice.
 * Null when the action is no roll against an opponent.
 * @param {Step[]} log
 * @param {{by?: string, successes?: number}[]} rolls the ruling's engine rolls
 * @param {Record<string, any>|undefined} action
 * @returns {{actor: string, opponent: string, successes: number, wins: boolean|null, rolls: any[]}|null}
 */
export function publicRoll(log, rolls, action) {
  if (!isObject(action) || action.kind !== "roll" || typeof action.actor !== "string" || typeof action.opponent !== "string") return null;
  const own = (Array.isArray(rolls) ? rolls : []).filter((r) => isObject(r) && r.by === action.actor);
  const opposed = log.find((s) => s.rule === "DICE-5" && isObject(s.data) && typeof s.data.wins === "boolean");
  const successes = own.reduce((sum, r) => sum + (Number.isSafeInteger(r.successes) ? Number(r.successes) : 0), 0);
  return { actor: action.actor, opponent: action.opponent, successes, wins: opposed ? !!opposed.data?.wins : null, rolls: own };
}

/**
 * The players' card of a roll against an opponent: the roller and the opponent as the players may
 * name them ("Someone"), the successes, won or failed.
 * @param {{actor: string, target: string, successes: number, wins: boolean|null}} roll names as shown
 * @param {I18n} i18n
 * @returns {string}
 */
export function renderPublicRollCard({ actor, target, successes, wins }, i18n) {
  const which = wins === null ? "Roll" : wins ? "RollWon" : "RollLost";
  const line = i18n.format(`VTTBRIDGE.Attack.Card.${which}`, { actor, target, successes: String(successes) });
  return `<div class="vtt-bridge-ruling vtt-bridge-roll-public"><header>${escapeHtml(line)}</header></div>`;
}
