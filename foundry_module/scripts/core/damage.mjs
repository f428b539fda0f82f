/**
 * PURE: the damage / healing dialog's data and the chat button that applies a ruling.
 * A chat card carries the action as data attributes; clicking its button sends the action
 * (from a player's browser through the module socket).
 * @module damage
 */

import { MODULE_ID } from "./constants.mjs";
import { damageAction, GRADES, HEAL_SOURCES, healAction } from "./messages.mjs";
import { damageTypeOf } from "./damage-preview.mjs";

/**
 * The dialog's submitted fields → a damage or heal action.
 * @param {string} target actor uuid
 * @param {Record<string, unknown>} form `{mode: "damage"|"heal", amount, grade, type?, source?}`
 *   (`type`: one of the known damage types or "other", `damageTypeOf`; untyped is left out)
 * @returns {Record<string, unknown>}
 * @throws {TypeError} when a field is wrong
 */
export function actionFromDialog(target, form) {
  const amount = typeof form.amount === "string" ? Number(form.amount) : form.amount;
  if (form.mode === "heal") {
    const source = typeof form.source === "string" ? form.source : "magic";
    const grade = form.grade === undefined || form.grade === "" ? undefined : form.grade;
    return healAction(target, /** @type {number} */ (amount), source, /** @type {any} */ (grade));
  }
  /** @type {import("./messages.mjs").DamageInstance} */
  const instance = { amount: /** @type {number} */ (amount), grade: /** @type {any} */ (form.grade) };
  const type = damageTypeOf(typeof form.type === "string" ? form.type.trim().toLowerCase() : form.type);
  if (type !== "untyped") instance.type = type;
  return damageAction(target, [instance]);
}

/** The choices the dialog offers. */
export const DIALOG_CHOICES = Object.freeze({ grades: GRADES, healSources: HEAL_SOURCES });

/**
 * @param {string} text
 * @returns {string}
 */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A chat card's HTML with one button that applies `action` (stored as JSON in a data attribute).
 * @param {Record<string, unknown>} action
 * @param {string} label the button's (localized) text
 * @param {string} summary one line saying what the action does
 * @returns {string}
 */
export function actionCardHtml(action, label, summary) {
  const json = escapeHtml(JSON.stringify(action));
  return (
    `<div class="${MODULE_ID}-card"><p>${escapeHtml(summary)}</p>` +
    `<button type="button" data-${MODULE_ID}-action="${json}">${escapeHtml(label)}</button></div>`
  );
}

/**
 * The action a clicked chat button carries, or null.
 * @param {{getAttribute: (name: string) => string|null}} button
 * @returns {Record<string, unknown>|null}
 */
export function actionFromButton(button) {
  const raw = button.getAttribute(`data-${MODULE_ID}-action`);
  if (!raw) return null;
  try {
    const action = JSON.parse(raw);
    return action && typeof action === "object" && typeof action.kind === "string" ? action : null;
  } catch {
    return null;
  }
}

/** The message flag (`flags.vtt-bridge.card`) that names a card with action buttons, set by the bridge or a GM. */
export const CARD_FLAG = "card";

/**
 * The action kinds each card type's buttons may send: an Apply card (`postActionCard`) a damage or
 * a heal; a roll card its "Apply as damage" (a damage of its successes, through the damage dialog);
 * a held reveal's card (DET-8) its Accept / Refuse.
 */
export const CARD_ACTION_KINDS = Object.freeze({
  apply: Object.freeze(["damage", "heal"]),
  roll: Object.freeze(["damage"]),
  reveal: Object.freeze(["approveReveal"]),
});

/**
 * Whether a chat button may act: the message was created by a Game Master (Foundry's author, never
 * the content) and carries the module's card flag, and the button's kind is one that card type
 * carries. Returns null when it may, else why not (`foreign`: not the bridge's card; `kind`: a kind
 * this card does not carry).
 * @param {{authorIsGM: boolean, cardType: unknown, kind: unknown}} button
 * @returns {null|"foreign"|"kind"}
 */
export function buttonRefusal({ authorIsGM, cardType, kind }) {
  if (!authorIsGM || typeof cardType !== "string" || !Object.hasOwn(CARD_ACTION_KINDS, cardType)) return "foreign";
  const kinds = /** @type {readonly string[]} */ (CARD_ACTION_KINDS[/** @type {keyof typeof CARD_ACTION_KINDS} */ (cardType)]);
  return typeof kind === "string" && kinds.includes(kind) ? null : "kind";
}
