/**
 * Foundry wiring of the Health setting for status icons (F13; the decision is
 * `core/status-privacy.mjs`'s): the module's Token class leaves out, on this client, the icon of a
 * derived Health status (unconscious, worsening, dying) of a token this user may not read the
 * Health of; the GM and the owners see every icon (an owner even under "GM only": the setting
 * governs tokens a user does not own), "dead" stays public. Changing "Who sees Health
 * boxes" redraws every token's effects.
 *
 * Foundry API used (public pages): the protected `Token#_drawEffect(src, tint)` ("Draw a status
 * effect icon", a Promise of the sprite or undefined), called for each temporary effect of the
 * token's actor when the token draws its effects, and the public `Token#drawEffects()` —
 * https://foundryvtt.com/api/classes/foundry.canvas.placeables.Token.html,
 * https://foundryvtt.com/api/v14/classes/foundry.canvas.placeables.Token.html,
 * https://foundryvtt.com/api/v12/classes/client.Token.html; `Actor#temporaryEffects`, an
 * ActiveEffect's `img` and `statuses` — https://foundryvtt.com/api/classes/foundry.documents.Actor.html.
 * A subclass override of a documented protected method, as the module's other Token methods are
 * (`visibility-canvas.mjs`); not verified against a running Foundry.
 * @module status-privacy
 */

import { MODULE_ID, SETTING_CHANGED_HOOK } from "../core/constants.mjs";
import { healthDetail } from "../core/health-track.mjs";
import { hiddenEffectImages } from "../core/status-privacy.mjs";
import { HEALTH_VISIBILITY_SETTING } from "./health-canvas.mjs";

/**
 * The Token mixin: `_drawEffect` leaves out what this viewer may not see.
 * @template {new (...args: any[]) => any} T
 * @param {T} Base
 * @param {(token: any) => Set<string>} hiddenFor the images not drawn on this token for this viewer
 * @returns {T}
 */
export function statusPrivacyMixin(Base, hiddenFor) {
  return class extends Base {
    /** @param {string} src @param {unknown} tint */
    async _drawEffect(src, tint) {
      if (hiddenFor(this).has(src)) return undefined;
      return super._drawEffect(src, tint);
    }
  };
}

/**
 * The images this client does not draw on `token`, from the world setting and the viewer.
 * @param {any} env usually `globalThis`
 * @returns {(token: any) => Set<string>}
 */
export function hiddenForViewer(env) {
  return (token) => {
    const { game } = env;
    let setting;
    try {
      setting = game?.settings?.get?.(MODULE_ID, HEALTH_VISIBILITY_SETTING);
    } catch {
      setting = undefined;
    }
    const isOwner = !!(token?.document?.isOwner ?? token?.actor?.isOwner);
    // an owner sees its own token's statuses whatever the setting (it governs tokens one does not own)
    if (isOwner) return new Set();
    const detail = healthDetail({ setting, isGM: !!game?.user?.isGM, isOwner });
    return hiddenEffectImages(token?.actor?.temporaryEffects ?? [], detail);
  };
}

/**
 * Redraw every token's effects when "Who sees Health boxes" changes. Call once, in `init`.
 * @param {any} env
 */
export function installStatusPrivacy(env = globalThis) {
  for (const hook of ["updateSetting", "createSetting", SETTING_CHANGED_HOOK]) {
    env.Hooks.on(hook, (/** @type {any} */ setting) => {
      if (setting?.key !== `${MODULE_ID}.${HEALTH_VISIBILITY_SETTING}`) return;
      for (const token of env.canvas?.tokens?.placeables ?? []) void token.drawEffects?.();
    });
  }
}
