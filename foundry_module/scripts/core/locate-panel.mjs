/**
 * PURE: the GM's panel of observers against targets (DET-4): every ordered pair of the scene's
 * tokens with how the observer locates the target (the target's visibility flag: absent is
 * pinpointed), the pair's area when approximate (the target's areas flag), and the GM's pin on it
 * (the sidecar's `pins` query); the `batch` that pins or releases the ticked pairs at once (one
 * ruling, one card, one undo per `BATCH_LIMIT` pairs); the panel's HTML. No Foundry globals.
 * @module locate-panel
 */

import { escapeHtml } from "./chat-cards.mjs";
import { LOCATE_STATES } from "./constants.mjs";
import { parseArea } from "./areas.mjs";
import { PIN_ENDS } from "./pins.mjs";
import { parseLocateState } from "./visibility.mjs";

/** Items in one `batch` at most (the sidecar's `BATCH_LIMIT`). */
export const PANEL_BATCH_LIMIT = 64;

/** Rows the panel lists at most (a 30-token scene has 870 pairs; the filter narrows it). */
export const PANEL_ROW_CAP = 400;

/** The filters: every pair, or only those the observer does not pinpoint. */
export const PANEL_FILTERS = Object.freeze(["hidden", "all"]);

/**
 * @typedef {object} PanelToken
 * @property {string} id
 * @property {string} name
 * @property {unknown} visibility its `flags.vtt-bridge.visibility`
 * @property {unknown} areas its `flags.vtt-bridge.areas`
 */

/**
 * @typedef {object} PanelPin
 * @property {string} state
 * @property {unknown} until
 * @property {string} by
 * @property {boolean} every the target's pin for every observer (no pin of the observer's own)
 */

/**
 * @typedef {object} PanelRow
 * @property {string} observer
 * @property {string} target
 * @property {"pinpointed"|"approximate"|"unlocated"} state
 * @property {import("./areas.mjs").Area|null} area when approximate and readable
 * @property {PanelPin|null} pin
 */

/**
 * The pin on a pair in the `pins` answer (`/pins`: target → `{every?, observers}`): the observer's
 * own, else the target's pin for every observer.
 * @param {unknown} pins
 * @param {string} observer
 * @param {string} target
 * @returns {PanelPin|null}
 */
export function pinOf(pins, observer, target) {
  const on = /** @type {any} */ (pins)?.[target];
  if (!on || typeof on !== "object") return null;
  const own = on.observers?.[observer];
  if (own && typeof own === "object") return { state: String(own.state), until: own.until, by: String(own.by ?? ""), every: false };
  const every = on.every;
  if (every && typeof every === "object") return { state: String(every.state), until: every.until, by: String(every.by ?? ""), every: true };
  return null;
}

/**
 * The panel's rows: every ordered pair of `tokens` (observer ≠ target), or only pairs with a
 * `focus` token on either side when some are given; `filter` "hidden" keeps the pairs not
 * pinpointed and the pinned ones. Sorted by observer name, then target name; at most `cap`.
 * @param {{tokens: PanelToken[], focus?: string[], filter?: string, pins?: unknown, cap?: number}} input
 * @returns {{rows: PanelRow[], total: number}}
 */
export function panelRows({ tokens, focus = [], filter = "hidden", pins = null, cap = PANEL_ROW_CAP }) {
  const focused = new Set(focus);
  const sorted = [...tokens].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  /** @type {PanelRow[]} */
  const rows = [];
  let total = 0;
  for (const observer of sorted) {
    for (const target of sorted) {
      if (observer.id === target.id) continue;
      if (focused.size && !focused.has(observer.id) && !focused.has(target.id)) continue;
      const flag = /** @type {any} */ (target.visibility);
      const raw = flag && typeof flag === "object" ? flag[observer.id] : undefined;
      const state = raw === undefined ? "pinpointed" : /** @type {PanelRow["state"]} */ (parseLocateState(raw).state);
      const pin = pinOf(pins, observer.id, target.id);
      if (filter === "hidden" && state === "pinpointed" && !pin) continue;
      total += 1;
      if (rows.length >= cap) continue;
      const areas = /** @type {any} */ (target.areas);
      const area = state === "approximate" && areas && typeof areas === "object" ? parseArea(areas[observer.id]) : null;
      rows.push({ observer: observer.id, target: target.id, state, area, pin });
    }
  }
  return { rows, total };
}

/**
 * The `batch` actions that pin the pairs to `state` until `until` (`round`: through the scene's
 * round now), `PANEL_BATCH_LIMIT` pairs each.
 * @param {{observer: string, target: string}[]} pairs
 * @param {{state: unknown, until: unknown, round: number, by: string}} how
 * @returns {Record<string, unknown>[]}
 * @throws {TypeError} no pair, an unknown state or end, or a pair of one token
 */
export function pinBatches(pairs, { state, until, round, by }) {
  if (typeof state !== "string" || !LOCATE_STATES.includes(/** @type {any} */ (state))) throw new TypeError(`unknown locate state ${String(state)}`);
  if (typeof until !== "string" || !PIN_ENDS.includes(until)) throw new TypeError(`unknown end ${String(until)}`);
  const end = until === "round" ? { round: Math.max(0, Math.trunc(round)) } : until;
  return chunks(pairs.map((p) => ({ kind: "pinLocate", observer: p.observer, target: p.target, state, until: end, by })));
}

/**
 * The `batch` actions that release the pins on the pairs: a pair's own pin, else (once per target)
 * the target's pin for every observer, which frees it for every observer at once. Pairs without a
 * pin are left out (a release of no pin is refused, and would refuse its whole batch).
 * @param {{observer: string, target: string}[]} pairs
 * @param {unknown} pins the `pins` answer
 * @returns {Record<string, unknown>[]}
 */
export function releaseBatches(pairs, pins) {
  /** @type {Record<string, unknown>[]} */
  const items = [];
  const everyDone = new Set();
  for (const { observer, target } of pairs) {
    const pin = pinOf(pins, observer, target);
    if (!pin) continue;
    if (!pin.every) items.push({ kind: "releaseLocate", observer, target });
    else if (!everyDone.has(target)) {
      everyDone.add(target);
      items.push({ kind: "releaseLocate", target });
    }
  }
  return chunks(items);
}

/** @param {Record<string, unknown>[]} items */
function chunks(items) {
  /** @type {Record<string, unknown>[]} */
  const out = [];
  for (let i = 0; i < items.length; i += PANEL_BATCH_LIMIT) out.push({ kind: "batch", actions: items.slice(i, i + PANEL_BATCH_LIMIT) });
  return out;
}

/** The ticked pairs of the panel's form data (`pair` values "observer:target"). @param {unknown[]} values */
export function tickedPairs(values) {
  /** @type {{observer: string, target: string}[]} */
  const out = [];
  for (const value of values) {
    if (typeof value !== "string") continue;
    const [observer, target, ...rest] = value.split(":");
    if (observer && target && !rest.length) out.push({ observer, target });
  }
  return out;
}

/** Each state's glyph, as the badges and the overlay write them. */
const GLYPHS = Object.freeze({ pinpointed: "◉", approximate: "≈", unlocated: "✕" });

/**
 * @typedef {object} PanelView
 * @property {PanelRow[]} rows
 * @property {number} total
 * @property {string} filter
 * @property {string[]} focus the focused tokens' names ("" when none)
 * @property {number} gridSize
 * @property {(id: string) => string} nameOf
 * @property {boolean} canSend whether this browser can send (runs the bridge or relays)
 * @property {boolean} pinsKnown whether the pins were read (else releasing is off)
 */

/**
 * The panel's inner HTML: the filter, the table (a tick per pair, observer, target, state with its
 * area, pin), and the pin / release controls. Every word from the language files, every name escaped.
 * @param {PanelView} view
 * @param {(key: string, data?: Record<string, string>) => string} localize
 * @returns {string}
 */
export function panelHtml(view, localize) {
  const t = (/** @type {string} */ key, /** @type {Record<string, string>} */ data = {}) => escapeHtml(localize(`VTTBRIDGE.Panel.${key}`, data));
  const until = (/** @type {unknown} */ u) =>
    typeof u === "string" ? localize(`VTTBRIDGE.Step.Until.${u}`) : localize("VTTBRIDGE.Step.Until.round", { round: String(/** @type {any} */ (u)?.round ?? "?") });
  const stateWord = (/** @type {string} */ s) => localize(`VTTBRIDGE.Badge.State.${s}`);
  const filters = PANEL_FILTERS.map(
    (f) => `<button type="button" data-action="filter" data-filter="${f}" class="${f === view.filter ? "active" : ""}" aria-pressed="${f === view.filter}">${t(`Filter.${f}`)}</button>`,
  ).join("");
  const focus = view.focus.length ? t("Focus", { names: view.focus.join(", ") }) : t("NoFocus");
  const rows = view.rows
    .map((row) => {
      const area = row.area ? ` <span class="area">${t("Area", { squares: String(Math.round((row.area.r / (view.gridSize || 100)) * 10) / 10) })}</span>` : "";
      const pin = row.pin
        ? escapeHtml(
            localize(row.pin.every ? "VTTBRIDGE.Panel.PinEvery" : "VTTBRIDGE.Panel.Pin", {
              state: stateWord(row.pin.state),
              until: until(row.pin.until),
              by: row.pin.by || localize("VTTBRIDGE.Step.TheGM"),
            }),
          )
        : "";
      return (
        `<tr class="state-${row.state}">` +
        `<td><input type="checkbox" class="vtt-bridge-pair" name="pair" value="${escapeHtml(`${row.observer}:${row.target}`)}"></td>` +
        `<td>${escapeHtml(view.nameOf(row.observer))}</td><td>${escapeHtml(view.nameOf(row.target))}</td>` +
        `<td class="state"><span class="glyph">${GLYPHS[row.state]}</span> ${escapeHtml(stateWord(row.state))}${area}</td>` +
        `<td class="pin">${pin}</td></tr>`
      );
    })
    .join("");
  const shown = view.total > view.rows.length ? `<p class="hint">${t("Shown", { shown: String(view.rows.length), total: String(view.total) })}</p>` : "";
  const empty = view.rows.length ? "" : `<p class="hint">${t("Empty")}</p>`;
  const states = LOCATE_STATES.map((s) => `<option value="${s}"${s === "approximate" ? " selected" : ""}>${escapeHtml(stateWord(s))}</option>`).join("");
  const ends = PIN_ENDS.map((e) => `<option value="${e}">${escapeHtml(localize(`VTTBRIDGE.Pin.Until.${e}`))}</option>`).join("");
  const disabled = view.canSend ? "" : " disabled";
  return (
    `<div class="vtt-bridge-locate-panel">` +
    `<div class="filters">${filters}<span class="focus">${focus}</span></div>` +
    `<table><thead><tr><th><input type="checkbox" data-action="tickAll" aria-label="${t("TickAll")}"></th><th>${t("Observer")}</th><th>${t("Target")}</th><th>${t("State")}</th><th>${t("PinColumn")}</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>${shown}${empty}` +
    `<div class="controls"><label>${t("PinTo")} <select name="state" data-field="state">${states}</select></label> <label>${t("Until")} <select name="until" data-field="until">${ends}</select></label>` +
    `<button type="button" data-action="pin"${disabled}>${t("PinTicked")}</button>` +
    `<button type="button" data-action="release"${view.canSend && view.pinsKnown ? "" : " disabled"}>${t("ReleaseTicked")}</button></div>` +
    (view.canSend ? "" : `<p class="hint">${t("NoBridge")}</p>`) +
    `</div>`
  );
}
