/**
 * PURE: the GM's pins (`pinLocate`, `releaseLocate`) from the pin dialog's fields, and the pins a
 * document holds. The sidecar lays a pin over the rules' state until its end (docs/protocol.md).
 * @module pins
 */

import { LOCATE_STATES } from "./constants.mjs";
import { overlayArrow } from "./visibility.mjs";

/** How long a pin holds, as the dialog offers it (`round`: through the scene's current round). */
export const PIN_ENDS = Object.freeze(["scene", "round", "move"]);

/**
 * The `pinLocate` action of the dialog's fields.
 * @param {string} target the target token id
 * @param {Record<string, unknown>} form `{observer: "" (every observer) | token id, state, until: "scene"|"round"|"move"}`
 * @param {{round: number, by: string}} context the scene's round now, and who pins (the GM's name)
 * @returns {Record<string, unknown>}
 * @throws {TypeError} an unknown state or end
 */
export function pinAction(target, form, { round, by }) {
  const state = form.state;
  if (typeof state !== "string" || !LOCATE_STATES.includes(/** @type {any} */ (state))) throw new TypeError(`unknown locate state ${String(state)}`);
  const end = form.until;
  if (typeof end !== "string" || !PIN_ENDS.includes(end)) throw new TypeError(`unknown end ${String(end)}`);
  /** @type {Record<string, unknown>} */
  const action = { kind: "pinLocate", target, state, until: end === "round" ? { round: Math.max(0, Math.trunc(round)) } : end, by };
  if (typeof form.observer === "string" && form.observer) action.observer = form.observer;
  return action;
}

/**
 * The `releaseLocate` action of a pin (no observer: the pin for every observer).
 * @param {string} target
 * @param {string|null} [observer]
 * @returns {Record<string, unknown>}
 */
export function releaseAction(target, observer = null) {
  return observer ? { kind: "releaseLocate", observer, target } : { kind: "releaseLocate", target };
}

/**
 * The pins on a target in a mirrored document (`/pins/<target>`), one line each: `observer` null
 * for the pin on every observer.
 * @param {any} state the mirrored document
 * @param {string} target
 * @returns {{observer: string|null, state: string, until: unknown, by: string}[]}
 */
export function pinsOn(state, target) {
  const pins = state?.pins?.[target];
  if (!pins || typeof pins !== "object") return [];
  /** @type {{observer: string|null, state: string, until: unknown, by: string}[]} */
  const out = [];
  if (pins.every) out.push({ observer: null, state: pins.every.state, until: pins.every.until, by: pins.every.by ?? "" });
  for (const [observer, pin] of Object.entries(pins.observers ?? {})) {
    out.push({ observer, state: /** @type {any} */ (pin).state, until: /** @type {any} */ (pin).until, by: /** @type {any} */ (pin).by ?? "" });
  }
  return out;
}

/**
 * The reveals a ruling's log holds for the GM (`settings.approveReveals`): its `DET-8` steps
 * `{held: true, observer, target}`.
 * @param {{rule: string, data?: Record<string, any>}[]} log
 * @returns {{observer: string, target: string}[]}
 */
export function heldReveals(log) {
  return log
    .filter((s) => s.rule === "DET-8" && s.data?.held === true && typeof s.data.observer === "string" && typeof s.data.target === "string")
    .map((s) => ({ observer: /** @type {any} */ (s.data).observer, target: /** @type {any} */ (s.data).target }));
}

/**
 * @param {string} text
 * @returns {string}
 */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The whispered card that asks the GM to accept or refuse a held reveal: one line, two buttons each
 * carrying its `approveReveal` action (the chat button wiring sends it).
 * @param {{observer: string, target: string}} reveal
 * @param {{line: string, accept: string, refuse: string}} words localized
 * @param {string} moduleId
 * @returns {string}
 */
export function revealCardHtml(reveal, words, moduleId) {
  const button = (/** @type {boolean} */ accept, /** @type {string} */ label) => {
    const action = { kind: "approveReveal", observer: reveal.observer, target: reveal.target, accept };
    return `<button type="button" data-${moduleId}-action="${escapeHtml(JSON.stringify(action))}">${escapeHtml(label)}</button>`;
  };
  return `<div class="${moduleId}-card ${moduleId}-reveal"><p>${escapeHtml(words.line)}</p>${button(true, words.accept)}${button(false, words.refuse)}</div>`;
}

/** How far (canvas pixels) from a drawn line a right click still picks it. */
export const LINE_PICK_TOLERANCE = 12;

/**
 * @param {{x: number, y: number}} p @param {number[]} a [x1, y1, x2, y2]
 * @returns {number}
 */
function distanceToSegment(p, [x1, y1, x2, y2]) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - x1) * dx + (p.y - y1) * dy) / length2));
  return Math.hypot(p.x - (x1 + t * dx), p.y - (y1 + t * dy));
}

/**
 * The who-locates-whom line of the GM overlay a click at canvas `point` falls on: the nearest drawn
 * line (as `overlayArrow` draws it, from observer to target, head included) within `tolerance`
 * pixels, or null. The GM's right click on it offers the pair's pins (`pinAction`, `releaseAction`).
 * @param {{x: number, y: number}} point
 * @param {import("./visibility.mjs").Relation[]} relations the overlay's lines (`overlayRelations`)
 * @param {number} grid the grid size the overlay draws at
 * @param {number} [tolerance]
 * @returns {{observer: string, target: string, state: string}|null}
 */
export function lineAt(point, relations, grid, tolerance = LINE_PICK_TOLERANCE) {
  if (!Number.isFinite(point?.x) || !Number.isFinite(point?.y)) return null;
  let best = null;
  let bestDistance = tolerance;
  for (const relation of relations) {
    const arrow = overlayArrow(relation, grid);
    if (!arrow || !arrow.pieces.length) continue;
    const first = arrow.pieces[0];
    const last = /** @type {readonly number[]} */ (arrow.pieces.at(-1));
    const distance = distanceToSegment(point, [first[0], first[1], last[2], last[3]]);
    if (distance <= bestDistance) {
      bestDistance = distance;
      best = { observer: relation.observerId, target: relation.targetId, state: relation.state };
    }
  }
  return best;
}
