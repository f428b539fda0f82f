/**
 * PURE: status effects for the conditions the sidecar writes that core Foundry lacks. The patch
 * applier toggles a condition's status effect when one with that id (or its alias in
 * CONDITION_STATUS_ALIASES) is configured; this module adds the missing ones to
 * `CONFIG.statusEffects` at `init` (an array of `{id, name, img}` in v12/v13, an object keyed by id
 * in v14), with core icons and localized names (`name` is a localization key, as in core).
 * @module status-effects
 */

import { statusEffectIds } from "./compat.mjs";
import { CONDITION_STATUS_ALIASES } from "../core/constants.mjs";

/** Every condition id the sidecar writes (vtt_bridge/rules/conditions.py `Condition`). */
export const SIDECAR_CONDITIONS = Object.freeze([
  "frozen",
  "nauseated",
  "petrified",
  "infatuated",
  "exhausted",
  "blinded",
  "deafened",
  "asleep",
  "flat-footed",
  "grappled",
  "prone",
  "charmed",
  "controlled",
  "intimidated",
  "possessed",
  "transformed",
  "silenced",
  "sealed",
  "imprisoned",
  "banished",
  "cursed",
  "poisoned",
  "diseased",
  "suffocating",
  "hallucinating",
  "unconscious",
  "worsening",
  "dying",
  "dead",
  "annihilated",
]);

/** Icons from Foundry's core set (`icons/svg/`, present in v13) for conditions core lacks. */
export const CONDITION_ICONS = Object.freeze({
  worsening: "icons/svg/degen.svg",
  dying: "icons/svg/blood.svg",
  annihilated: "icons/svg/skull.svg",
  nauseated: "icons/svg/poison.svg",
  petrified: "icons/svg/paralysis.svg",
  infatuated: "icons/svg/angel.svg",
  exhausted: "icons/svg/downgrade.svg",
  "flat-footed": "icons/svg/falling.svg",
  grappled: "icons/svg/net.svg",
  charmed: "icons/svg/angel.svg",
  controlled: "icons/svg/daze.svg",
  intimidated: "icons/svg/terror.svg",
  possessed: "icons/svg/daze.svg",
  transformed: "icons/svg/upgrade.svg",
  sealed: "icons/svg/mage-shield.svg",
  imprisoned: "icons/svg/net.svg",
  banished: "icons/svg/invisible.svg",
  suffocating: "icons/svg/degen.svg",
  hallucinating: "icons/svg/eye.svg",
});

/** Icon of a condition not listed above. */
export const DEFAULT_CONDITION_ICON = "icons/svg/hazard.svg";

/** The localization key of a condition's name (shared with the chat cards). */
export const conditionNameKey = (/** @type {string} */ condition) => `VTTBRIDGE.Rules.Card.Condition.${condition}`;

/**
 * The status effects to add: one per sidecar condition with no configured status effect of its
 * id or of its alias.
 * @param {unknown} statusEffects `CONFIG.statusEffects`
 * @param {readonly string[]} [conditions]
 * @returns {Array<{id: string, name: string, img: string}>}
 */
export function missingStatusEffects(statusEffects, conditions = SIDECAR_CONDITIONS) {
  const ids = statusEffectIds(statusEffects);
  const aliases = /** @type {Record<string, string>} */ (CONDITION_STATUS_ALIASES);
  return conditions
    .filter((condition) => !ids.has(condition) && !(aliases[condition] && ids.has(aliases[condition])))
    .map((condition) => ({
      id: condition,
      name: conditionNameKey(condition),
      img: /** @type {Record<string, string>} */ (CONDITION_ICONS)[condition] ?? DEFAULT_CONDITION_ICON,
    }));
}

/**
 * Add status effects in place to `CONFIG.statusEffects` in its version's shape; returns the ids added.
 * @param {any} statusEffects the array (v12/v13) or object keyed by id (v14)
 * @param {Array<{id: string, name: string, img: string}>} additions
 * @returns {string[]}
 */
export function addStatusEffects(statusEffects, additions) {
  const added = [];
  for (const effect of additions) {
    if (Array.isArray(statusEffects)) statusEffects.push({ ...effect });
    else if (statusEffects && typeof statusEffects === "object") statusEffects[effect.id] = { ...effect };
    else continue;
    added.push(effect.id);
  }
  return added;
}
