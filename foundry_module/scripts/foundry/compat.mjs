/**
 * The Foundry version differences the module meets, each behind one helper (v12/v13/v14).
 * Every helper takes the globals it reads as an argument, so Node tests drive each branch.
 * @module compat
 */

/** @typedef {import("./_types.mjs").FoundryEnv} FoundryEnv */

/**
 * The one deletion helper: returns `(parentDotPath, key) => [updateKey, updateValue]`.
 * v14+ (`foundry.data.operators.ForcedDeletion` exists): `{"a.b.key": _del}` (the global shared
 * instance, else `new ForcedDeletion()`: the v14 pages document the class, not a `create()`);
 * v12/v13: `{"a.b.-=key": null}` (v13 requires the value `null`).
 * @param {FoundryEnv|Record<string, any>} env usually `globalThis`
 * @returns {(parent: string, key: string) => [string, unknown]}
 */
export function deletionOperator(env) {
  const Forced = /** @type {FoundryEnv} */ (env)?.foundry?.data?.operators?.ForcedDeletion;
  if (Forced) {
    const shared = /** @type {FoundryEnv} */ (env)._del;
    const operator = shared instanceof Forced ? shared : new Forced();
    return (parent, key) => [`${parent}.${key}`, operator];
  }
  return (parent, key) => [`${parent}.-=${key}`, null];
}

/**
 * The hook that renders a chat message's HTML for the module's buttons: `renderChatMessageHTML`
 * (an HTMLElement) from v13, where any `renderChatMessage` listener logs a deprecation warning;
 * `renderChatMessage` (jQuery) on v12, which has no HTML hook.
 * @param {number|undefined} generation `game.release.generation`
 * @returns {"renderChatMessageHTML"|"renderChatMessage"}
 */
export function chatRenderHook(generation) {
  return typeof generation === "number" && generation < 13 ? "renderChatMessage" : "renderChatMessageHTML";
}

/**
 * The ids of the configured status effects: `CONFIG.statusEffects` is an array of `{id}` in
 * v12/v13 and an object keyed by id in v14.
 * @param {unknown} statusEffects
 * @returns {Set<string>}
 */
export function statusEffectIds(statusEffects) {
  const ids = new Set();
  if (Array.isArray(statusEffects)) {
    for (const effect of statusEffects) {
      if (effect && typeof effect.id === "string") ids.add(effect.id);
    }
  } else if (statusEffects && typeof statusEffects === "object") {
    for (const [key, effect] of Object.entries(statusEffects)) {
      ids.add(effect && typeof effect.id === "string" ? effect.id : key);
    }
  }
  return ids;
}

/**
 * A class by its v13+ namespaced path, else its v12 global name (`foundry.canvas.placeables.Token`
 * vs `Token`).
 * @param {Record<string, any>} env usually `globalThis`
 * @param {string} namespaced dot path from `env`, e.g. "foundry.applications.api.ApplicationV2"
 * @param {string} [legacy] the v12 global
 * @returns {any}
 */
export function namespacedClass(env, namespaced, legacy) {
  /** @type {any} */
  let node = env;
  for (const part of namespaced.split(".")) {
    node = node?.[part];
    if (node === undefined) break;
  }
  return node ?? (legacy ? env[legacy] : undefined);
}
