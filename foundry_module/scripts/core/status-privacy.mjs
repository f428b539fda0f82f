/**
 * PURE: the derived Health status icons (HEALTH-6: unconscious, worsening, dying) a viewer does not
 * see on a token (F13): under "Who sees Health boxes", a user with less than "boxes" of a token's
 * Health (`health-track.mjs` `healthDetail`) sees no icon of those statuses; "dead" stays public.
 * The token draws each effect's icon by its image, so the decision is by image: an image only
 * private effects use is left out; an image a shown effect uses too stays (it would be drawn anyway).
 * @module status-privacy
 */

import { PRIVATE_HEALTH_STATUSES } from "./health-track.mjs";

/**
 * The effect images not to draw for this viewer.
 * @param {Iterable<{img?: unknown, statuses?: Iterable<string>}>} effects the actor's temporary effects
 * @param {"boxes"|"words"|"none"} detail how much of the token's Health the viewer reads
 * @returns {Set<string>}
 */
export function hiddenEffectImages(effects, detail) {
  /** @type {Set<string>} */
  const hidden = new Set();
  if (detail === "boxes") return hidden;
  /** @type {Set<string>} */
  const shown = new Set();
  for (const effect of effects) {
    if (typeof effect?.img !== "string") continue;
    const statuses = [...(effect.statuses ?? [])];
    const isPrivate = statuses.some((id) => PRIVATE_HEALTH_STATUSES.includes(id)) && !statuses.includes("dead");
    (isPrivate ? hidden : shown).add(effect.img);
  }
  for (const img of shown) hidden.delete(img);
  return hidden;
}
