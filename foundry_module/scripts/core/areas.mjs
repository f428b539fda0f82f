/**
 * PURE: where this client draws an approximately located target (DET-4 on the map). The sidecar
 * rules an area for every approximate pair (`areas` in the state document); the module writes it on
 * the TARGET token as `flags.vtt-bridge.areas.<observer token id>` = `[x, y, r]`, in the tokens'
 * coordinates (a token's `x`/`y` is its top-left corner). A player sees the area, never the token's
 * square: one neutral marker over it, the same for every creature, that stays put while the creature
 * moves inside it.
 * No Foundry globals: everything is passed in.
 * @module areas
 */

import { parseLocateState } from "./visibility.mjs";

/** @typedef {{x: number, y: number, r: number}} Area */

/**
 * One flag value as an area: `[x, y, r]` of finite numbers with `r` > 0; anything else is null
 * (then the token is drawn as the anonymous silhouette, as before areas were ruled).
 * @param {unknown} value
 * @returns {Area|null}
 */
export function parseArea(value) {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [x, y, r] = value;
  if (![x, y, r].every((n) => typeof n === "number" && Number.isFinite(n)) || r <= 0) return null;
  return { x, y, r };
}

/**
 * The area this client draws an approximate target by: of the observers that locate it
 * approximately (an entry `a` in its visibility flag), the first in id order that has a readable
 * area; the same one every time, whatever order the observers come in. Null when none has one.
 * @param {unknown} areasFlag the target token's `flags.vtt-bridge.areas`
 * @param {unknown} visibilityFlag the target token's `flags.vtt-bridge.visibility`
 * @param {Iterable<string>} observerIds
 * @returns {Area|null}
 */
export function areaFor(areasFlag, visibilityFlag, observerIds) {
  if (!areasFlag || typeof areasFlag !== "object" || !visibilityFlag || typeof visibilityFlag !== "object") return null;
  const areas = /** @type {Record<string, unknown>} */ (areasFlag);
  const states = /** @type {Record<string, unknown>} */ (visibilityFlag);
  for (const id of [...observerIds].sort()) {
    if (!Object.hasOwn(states, id) || !Object.hasOwn(areas, id)) continue;
    const { state, malformed } = parseLocateState(states[id]);
    if (malformed || state !== "approximate") continue;
    const area = parseArea(areas[id]);
    if (area) return area;
  }
  return null;
}

/**
 * The marker's circle in canvas coordinates: the area shifted by half a grid square, so that it
 * holds the middle of the target's top-left square (a token's `x`/`y` is that square's corner).
 * @param {Area} area
 * @param {number} gridSize
 * @returns {Area}
 */
export function markerCircle(area, gridSize) {
  const half = (Number.isFinite(gridSize) && gridSize > 0 ? gridSize : 100) / 2;
  return { x: area.x + half, y: area.y + half, r: area.r };
}

/**
 * Whether a token update (an expanded diff) touches the areas flag, in any deletion syntax.
 * @param {Record<string, any>|null|undefined} changes
 * @param {string} moduleId
 * @param {string} flag
 * @returns {boolean}
 */
export function areasFlagChanged(changes, moduleId, flag) {
  if (!changes || typeof changes !== "object") return false;
  for (const key of Object.keys(changes)) if (key.startsWith(`flags.${moduleId}.${flag}`)) return true;
  const ours = changes.flags?.[moduleId];
  return !!ours && typeof ours === "object" && (Object.hasOwn(ours, flag) || Object.hasOwn(ours, `-=${flag}`));
}
