/**
 * PURE: the GM's card of a `batch` ruling (damage to several targets): one section per target, in
 * the batch's order, each saying what each damage instance came to ("12 fire → 7") and listing the
 * steps that changed it (a resistance, a weakness, DET-10's halving), then a missed attack. The
 * sidecar's log gives each item its part after a `BATCH.item` step (docs/protocol.md `batch`).
 * @module batch-card
 */

import { escapeHtml, renderStep } from "./chat-cards.mjs";
import { MISS_KEYS, attackMissed, iwrChanges } from "./attack.mjs";

/**
 * @typedef {import("./chat-cards.mjs").Step} Step
 * @typedef {import("./chat-cards.mjs").I18n} I18n
 */

/**
 * A batch ruling's log split per item: its kind ("damage", or a pin's "pinLocate" /
 * "releaseLocate"), the target (a damage's actor uuid, or null for a square that hit nobody; a pin's
 * token id) and the item's own steps. A log with no `BATCH.item` step gives no items.
 * @param {Step[]} log
 * @returns {{kind: string, target: string|null, steps: Step[]}[]}
 */
export function batchItems(log) {
  /** @type {{kind: string, target: string|null, steps: Step[]}[]} */
  const items = [];
  for (const step of log) {
    if (step.key === "BATCH.item") {
      const target = step.data?.target;
      const kind = typeof step.data?.kind === "string" ? step.data.kind : "damage";
      items.push({ kind, target: typeof target === "string" && target ? target : null, steps: [] });
    } else if (items.length) {
      /** @type {{steps: Step[]}} */ (items.at(-1)).steps.push(step);
    }
  }
  return items;
}

/**
 * What each damage instance of one item came to: its amount and type as sent (the first `IWR-8`
 * step of the instance, with a `grade`) and as dealt (its last `IWR-8` step, `deals`).
 * @param {Step[]} steps
 * @returns {{index: number, type: string, from: number, to: number}[]}
 */
export function instanceTotals(steps) {
  /** @type {Map<number, {index: number, type: string, from: number, to: number}>} */
  const byIndex = new Map();
  for (const step of steps) {
    const data = step.data ?? {};
    if (step.rule !== "IWR-8" || typeof data.index !== "number" || typeof data.amount !== "number") continue;
    const known = byIndex.get(data.index);
    if (!known) byIndex.set(data.index, { index: data.index, type: String(data.type ?? "untyped"), from: data.amount, to: data.amount });
    else if (!("grade" in data)) known.to = data.amount;
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/**
 * A damage type in the reader's language (`VTTBRIDGE.Rules.Card.DamageType.<type>`), as the IWR
 * steps word it; a type the language lacks as the sidecar wrote it.
 * @param {string} type @param {I18n} i18n
 */
function damageTypeWord(type, i18n) {
  const key = `VTTBRIDGE.Rules.Card.DamageType.${type}`;
  return i18n.has(key) ? i18n.localize(key) : type;
}

/**
 * The card's HTML: a section per target, its name (`names`), "12 fire → 7" per instance, and the
 * steps that changed an amount, each rendered as the ruling card renders steps (localized).
 * @param {Step[]} log
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} names
 * @returns {string} "" when the log is no batch or a batch without damage (the GM's pins: its steps say it)
 */
export function renderBatchSummary(log, i18n, names) {
  const items = batchItems(log).filter((item) => item.kind === "damage");
  if (!items.length) return "";
  const sections = items.map(({ target, steps }) => {
    const who = target ? (names(target) ?? target) : i18n.localize("VTTBRIDGE.Batch.Nobody");
    const lines = attackMissed(steps) || !target
      ? [`<li class="vtt-bridge-batch-missed">${escapeHtml(i18n.localize("VTTBRIDGE.Batch.Missed"))}</li>`]
      : instanceTotals(steps).map(
          ({ type, from, to }) =>
            `<li class="vtt-bridge-batch-total">${escapeHtml(i18n.format("VTTBRIDGE.Batch.Total", { from: String(from), to: String(to), type: damageTypeWord(type, i18n) }))}</li>`,
        );
    const changes = iwrChanges(steps).filter((s) => !(typeof s.key === "string" && MISS_KEYS.includes(s.key)));
    const why = changes.length ? `<ol class="vtt-bridge-steps">${changes.map((s) => renderStep(s, i18n, names)).join("")}</ol>` : "";
    return `<section class="vtt-bridge-batch-target"><h4>${escapeHtml(who)}</h4><ul>${lines.join("")}</ul>${why}</section>`;
  });
  return `<div class="vtt-bridge-batch"><header>${escapeHtml(i18n.format("VTTBRIDGE.Batch.Title", { count: String(items.length) }))}</header>${sections.join("")}</div>`;
}

/**
 * The card kind of a batch ruling: "damage" when an item deals damage, else "ruling" (the GM's pins).
 * @param {Step[]} log
 */
export function batchKind(log) {
  return batchItems(log).some((item) => item.kind === "damage") ? "damage" : "ruling";
}
