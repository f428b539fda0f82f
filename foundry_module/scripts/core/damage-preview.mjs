/**
 * PURE: damage seen before it lands. A roll card's "Apply as damage" buttons (its successes, one
 * button per grade), the damage dialog's damage types (the sidecar's known types plus "other"), and
 * the dialog's per-target preview read from the sidecar's `preview` answer (docs/protocol.md): each
 * target's Health after the damage (its last `HEALTH-2` step), the IWR steps that changed the
 * amount, and its status and conditions (`HEALTH-6`), or "missed" (DET-10).
 * @module damage-preview
 */

import { MODULE_ID } from "./constants.mjs";
import { escapeHtml, renderStep } from "./chat-cards.mjs";
import { batchItems, instanceTotals } from "./batch-card.mjs";
import { attackMissed, iwrChanges, MISS_KEYS } from "./attack.mjs";
import { GRADES } from "./messages.mjs";

/**
 * @typedef {import("./chat-cards.mjs").Step} Step
 * @typedef {import("./chat-cards.mjs").I18n} I18n
 */

/** The damage types the sidecar knows (its `DamageType`, `vtt-bridge schema`), `untyped` first. */
export const DAMAGE_TYPES = Object.freeze([
  "untyped", "bludgeoning", "piercing", "slashing", "bleed", "acid", "cold", "electricity", "fire", "sonic",
  "force", "vitality", "void", "spirit", "mental", "poison", "ballistic", "pure-energy", "lightning", "radiant",
]);

/** The dialog's last choice: a type the sidecar does not know, ruled as `untyped` (no IWR names it). */
export const OTHER_TYPE = "other";

/** The key of a damage type's word (the ruling cards' own). */
export const damageTypeKey = (/** @type {string} */ type) => `VTTBRIDGE.Rules.Card.DamageType.${type}`;

/**
 * The damage type the dialog's choice sends: a known type as it is, "other" (or nothing) untyped.
 * @param {unknown} choice
 * @returns {string}
 * @throws {TypeError} for a choice the list does not offer
 */
export function damageTypeOf(choice) {
  if (choice === undefined || choice === null || choice === "" || choice === OTHER_TYPE) return "untyped";
  if (typeof choice === "string" && DAMAGE_TYPES.includes(choice)) return choice;
  throw new TypeError(`unknown damage type ${JSON.stringify(choice)}`);
}

/**
 * The `<option>`s of the damage type list: each known type by its localized word, then "other".
 * @param {I18n} i18n
 * @param {string} [selected]
 * @returns {string}
 */
export function damageTypeOptions(i18n, selected = "untyped") {
  const option = (/** @type {string} */ value, /** @type {string} */ label) =>
    `<option value="${value}"${value === selected ? " selected" : ""}>${escapeHtml(label)}</option>`;
  return [...DAMAGE_TYPES.map((type) => option(type, i18n.localize(damageTypeKey(type)))), option(OTHER_TYPE, i18n.localize("VTTBRIDGE.Dialog.OtherType"))].join("");
}

/**
 * The successes a roll ruling came to: its last `DICE-1.result` or `DICE-5.opposed` step's
 * (null: the log is no roll).
 * @param {Step[]} log
 * @returns {number|null}
 */
export function rollSuccesses(log) {
  for (const step of [...(log ?? [])].reverse()) {
    if (step.key === "DICE-1.result" || step.key === "DICE-5.opposed") {
      const successes = step.data?.successes;
      return typeof successes === "number" && Number.isInteger(successes) && successes >= 0 ? successes : null;
    }
  }
  return null;
}

/**
 * A roll card's "Apply as damage" row: the successes as the amount, one button per grade, each
 * carrying a `damage` with no target (the dialog names the targets) and the roller (`source`: the
 * actor whose token the damage's attack comes from by default, DET-10). "" for no successes.
 * @param {number|null} successes
 * @param {I18n} i18n
 * @param {string|null} [source] the rolling actor's uuid
 * @returns {string}
 */
export function applyAsDamageHtml(successes, i18n, source = null) {
  if (typeof successes !== "number" || successes < 1) return "";
  const from = typeof source === "string" && source ? ` data-${MODULE_ID}-source="${escapeHtml(source)}"` : "";
  const buttons = GRADES.map((grade) => {
    const action = escapeHtml(JSON.stringify({ kind: "damage", instances: [{ amount: successes, grade }] }));
    return `<button type="button" data-${MODULE_ID}-action="${action}"${from}>${escapeHtml(i18n.localize(`VTTBRIDGE.Grade.${grade}`))}</button>`;
  });
  const label = i18n.format("VTTBRIDGE.Preview.ApplyAsDamage", { amount: String(successes) });
  return `<div class="${MODULE_ID}-apply-damage"><span class="${MODULE_ID}-apply-label">${escapeHtml(label)}</span>${buttons.join("")}</div>`;
}

/**
 * @typedef {object} PreviewRow what a damage would leave one target with
 * @property {string|null} target the damaged actor (null: an attack at a square that hit nobody)
 * @property {boolean} missed DET-10: the attack missed (nothing dealt)
 * @property {{max: number, healthy: number, bashing: number, lethal: number, aggravated: number}|null} health after the damage (null: none dealt)
 * @property {string|null} status `HEALTH-6` status (unharmed, lightly, ...)
 * @property {string[]} conditions set by the damage's status (unconscious, dying, ...)
 * @property {{type: string, from: number, to: number}[]} totals each instance as sent and as dealt
 * @property {Step[]} changes the steps that changed an amount (IWR, DET-10 halving)
 */

/**
 * The preview's rows, one per damaged target, in the action's order (a `batch` is split at its
 * `BATCH.item` steps; a single `damage` is one row, its target `single`).
 * @param {Step[]} log the `preview` answer's `data.log`
 * @param {string|null} [single] the target of a single damage
 * @returns {PreviewRow[]}
 */
export function previewRows(log, single = null) {
  const items = batchItems(log);
  const parts = items.length ? items : [{ target: single, steps: log ?? [] }];
  return parts.map(({ target, steps }) => {
    const damage = steps.filter((s) => s.key === "HEALTH-2.damage").at(-1)?.data ?? null;
    const status = steps.filter((s) => s.key === "HEALTH-6.status").at(-1)?.data ?? null;
    const num = (/** @type {unknown} */ v) => (typeof v === "number" ? v : 0);
    return {
      target,
      missed: !target || attackMissed(steps),
      health: damage ? { max: num(damage.max), healthy: num(damage.healthy), bashing: num(damage.bashing), lethal: num(damage.lethal), aggravated: num(damage.aggravated) } : null,
      status: typeof status?.status === "string" ? status.status : null,
      conditions: Array.isArray(status?.conditions) ? status.conditions.filter((/** @type {unknown} */ c) => typeof c === "string") : [],
      totals: instanceTotals(steps).map(({ type, from, to }) => ({ type, from, to })),
      changes: iwrChanges(steps).filter((s) => !(typeof s.key === "string" && MISS_KEYS.includes(s.key))),
    };
  });
}

/**
 * The dialog's preview table: a row per target with its name, what each instance deals (the IWR
 * steps that changed it under it), its Health after (healthy, B, L, A of its maximum, numbers in
 * their own right-aligned cells) and its status. Every word localized; names escaped.
 * @param {PreviewRow[]} rows
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} names
 * @returns {string}
 */
export function renderPreview(rows, i18n, names) {
  const t = (/** @type {string} */ key) => i18n.localize(key);
  const cardWord = (/** @type {string} */ group, /** @type {string} */ value) => {
    const key = `VTTBRIDGE.Rules.Card.${group}.${value}`;
    return i18n.has(key) ? i18n.localize(key) : value;
  };
  const head =
    `<thead><tr><th>${escapeHtml(t("VTTBRIDGE.Preview.Target"))}</th><th>${escapeHtml(t("VTTBRIDGE.Preview.Deals"))}</th>` +
    `<th class="num">${escapeHtml(t("VTTBRIDGE.Preview.Healthy"))}</th>${["B", "L", "A"].map((g) => `<th class="num" title="${escapeHtml(t(`VTTBRIDGE.Grade.${g}`))}">${escapeHtml(t(`VTTBRIDGE.Preview.${g}`))}</th>`).join("")}` +
    `<th>${escapeHtml(t("VTTBRIDGE.Preview.Status"))}</th></tr></thead>`;
  const body = rows.map((row) => {
    const who = row.target ? (names(row.target) ?? row.target) : t("VTTBRIDGE.Batch.Nobody");
    const deals = row.missed
      ? escapeHtml(t("VTTBRIDGE.Batch.Missed"))
      : row.totals
          .map(({ type, from, to }) => escapeHtml(i18n.format("VTTBRIDGE.Preview.Dealt", { from: String(from), to: String(to), type: cardWord("DamageType", type) })))
          .join("<br>");
    const why = row.changes.length ? `<ol class="${MODULE_ID}-steps">${row.changes.map((s) => renderStep(s, i18n, names)).join("")}</ol>` : "";
    const h = row.health;
    const cells = h
      ? [`${h.healthy}/${h.max}`, h.bashing, h.lethal, h.aggravated].map((n) => `<td class="num">${escapeHtml(String(n))}</td>`).join("")
      : `<td class="num">—</td><td class="num">—</td><td class="num">—</td><td class="num">—</td>`;
    const status = [row.status ? cardWord("Status", row.status) : "", ...row.conditions.map((c) => cardWord("Condition", c))].filter(Boolean).join(", ");
    return `<tr><th scope="row">${escapeHtml(who)}</th><td>${deals}${why}</td>${cells}<td>${escapeHtml(status)}</td></tr>`;
  });
  return `<table class="${MODULE_ID}-preview">${head}<tbody>${body.join("")}</tbody></table>`;
}
