/**
 * Foundry wiring of the Health track (thin): one PIXI container per token holding the track (below
 * the token) and the counters (above it), drawn from the actor's `flags.vtt-bridge` with the pure
 * `health-track.mjs` and the PIXI code of `drawing.mjs`. Hidden when the world setting "who sees
 * Health boxes" says so for this user, and when the token shows as a silhouette or not at all
 * (`isIdentityHidden`, from the visibility layer).
 * @module health-canvas
 */

import { MODULE_ID, SETTING_CHANGED_HOOK } from "../core/constants.mjs";
import { drawConditionCounters, drawHealthTrack, setLabel } from "../core/drawing.mjs";
import { counterLabelKey, healthDetail, healthTrackView, MIN_SCREEN_BOX, MIN_SCREEN_FONT, TRACK_PLACEMENT_SETTING, trackPlacement, trackScale } from "../core/health-track.mjs";
import { PALETTE_SETTING, paletteOf } from "../core/palette.mjs";

/** The setting key of "who sees Health boxes". */
export const HEALTH_VISIBILITY_SETTING = "healthVisibility";

/** The name of the container this module adds to each token. */
export const HEALTH_CONTAINER_NAME = `${MODULE_ID}-health`;

/** Actor flags whose change redraws the track. */
const WATCHED_FLAGS = ["health", "status", "woundPenalty", "conditionPoints", "emotionPoints"];

/**
 * @typedef {object} HealthTrackOptions
 * @property {{on: (hook: string, fn: (...args: any[]) => unknown) => unknown}} hooks usually `Hooks`
 * @property {(key: string) => unknown} getSetting reads `game.settings.get(MODULE_ID, key)`
 * @property {typeof import("pixi.js")} PIXI the global `PIXI`
 * @property {(token: any) => boolean} [isIdentityHidden] true while the token shows as a silhouette or not at all
 * @property {() => boolean} [isGM] default `game.user.isGM`
 * @property {(key: string) => string} [localize] default `game.i18n.localize`
 * @property {() => Iterable<any>} [tokens] the token placeables of the canvas (redrawn when the setting changes)
 * @property {() => number} [zoom] the canvas zoom (default `canvas.stage.scale.x`)
 * @property {() => any} [overlay] the container a hovered token's track is lifted into, above every
 *   token's track and nameplate (default the token layer, `canvas.tokens`)
 */

/**
 * Whether a change object touches one of the watched flags (in any of the shapes a hook receives:
 * nested, dot paths, deletion keys).
 * @param {unknown} changes
 */
export function touchesHealthFlags(changes) {
  if (!changes || typeof changes !== "object") return false;
  const record = /** @type {Record<string, any>} */ (changes);
  /** @param {string} path the part after `flags.vtt-bridge.` */
  const watched = (path) => WATCHED_FLAGS.includes(path.replace(/^-=/, "").split(".")[0]);
  for (const [key, value] of Object.entries(record)) {
    const prefix = `flags.${MODULE_ID}.`;
    if (key.startsWith(prefix) && watched(key.slice(prefix.length))) return true;
    if (key === `flags.${MODULE_ID}` || key === `flags.-=${MODULE_ID}`) return true;
    if (key === "flags" && value && typeof value === "object") {
      if (`-=${MODULE_ID}` in value) return true;
      const scope = value[MODULE_ID];
      if (scope && typeof scope === "object" && Object.keys(scope).some(watched)) return true;
    }
    // an unlinked token's own actor changes arrive in updateToken (v11+ `delta`, older `actorData`)
    if ((key === "delta" || key === "actorData") && touchesHealthFlags(value)) return true;
  }
  return false;
}

/**
 * Install the hooks. Returns `{refresh(token), refreshAll()}` for callers that know of a change the
 * hooks do not see (e.g. the visibility layer after a new ruling).
 * @param {HealthTrackOptions} options
 */
export function installHealthTrack({
  hooks,
  getSetting,
  PIXI,
  isIdentityHidden = () => false,
  isGM = () => !!game.user?.isGM,
  localize = (key) => game.i18n.localize(key),
  tokens = () => /** @type {any} */ (globalThis).canvas?.tokens?.placeables ?? [],
  zoom = () => Number(/** @type {any} */ (globalThis).canvas?.stage?.scale?.x ?? 1),
  overlay = () => /** @type {any} */ (globalThis).canvas?.tokens ?? null,
}) {
  /** @type {WeakMap<object, {container: any, track: any, counters: any, signature: string, trackHeight?: number, countersHeight?: number, nameplateBase?: number, nameplateSet?: number}>} */
  const drawn = new WeakMap();

  // "who sees Health boxes", read once and again only when the setting changes: `refreshToken`
  // runs for every token on every refresh (each frame of a move), and a world setting read looks
  // the setting up among all of the world's settings (its default and choices: settings.mjs;
  // `canSeeHealth` reads a missing value as that default, "owner")
  /** @type {{value: unknown}|null} */
  let visibilitySetting = null;
  const healthVisibility = () => (visibilitySetting ??= { value: getSetting(HEALTH_VISIBILITY_SETTING) }).value;
  // this browser's palette (a client setting, `palette.mjs`), read likewise
  /** @type {{name: unknown}|null} */
  let paletteSetting = null;
  const paletteName = () => (paletteSetting ??= { name: getSetting(PALETTE_SETTING) }).name;
  // this browser's "where the Health track sits" (below, inside, on hover), read likewise
  /** @type {{value: unknown}|null} */
  let placementSetting = null;
  const placementName = () => (placementSetting ??= { value: getSetting(TRACK_PLACEMENT_SETTING) }).value;
  /** the tokens the pointer is over (`hoverToken`): their tracks show under "hover" and are lifted above their neighbours' */
  const hovered = new WeakSet();
  /** the zoom the tracks were last drawn for (a pan that does not change the scale redraws nothing) */
  let drawnScale = trackScale(zoom());

  /** @param {any} token */
  function entryOf(token) {
    let entry = drawn.get(token);
    if (!entry || entry.container.destroyed) {
      const container = new PIXI.Container();
      setLabel(container, HEALTH_CONTAINER_NAME);
      container.eventMode = "none";
      // a Container, not a Graphics: the texts sit beside the boxes (PixiJS 8's Graphics has no children)
      const track = new PIXI.Container();
      const counters = new PIXI.Container();
      container.addChild(track, counters);
      token.addChild(container);
      entry = { container, track, counters, signature: "" };
      drawn.set(token, entry);
    }
    return entry;
  }

  /**
   * Move Foundry's nameplate below the track (and back), without fighting Foundry's own positioning:
   * a y value we did not set is Foundry's new base.
   * @param {any} token @param {NonNullable<ReturnType<typeof drawn.get>>} entry @param {number} offset
   */
  function placeNameplate(token, entry, offset) {
    const plate = token.nameplate;
    if (!plate || typeof plate.y !== "number") return;
    if (entry.nameplateSet === undefined || plate.y !== entry.nameplateSet) entry.nameplateBase = plate.y;
    const base = /** @type {number} */ (entry.nameplateBase);
    plate.y = base + offset;
    entry.nameplateSet = plate.y;
  }

  /**
   * Lift a hovered token's track into the overlay (drawn after every token, so above its
   * neighbours' tracks and nameplates), at the same place on the canvas; put it back after.
   * @param {any} token @param {{container: any, track: any}} entry @param {boolean} raise @param {number} y
   */
  function lift(token, entry, raise, y) {
    const top = raise ? overlay() : null;
    const parent = top && typeof top.addChild === "function" ? top : token;
    if (entry.container.parent !== parent) parent.addChild(entry.container);
    else if (parent !== token) parent.addChild(entry.container); // again the last child: on top
    if (parent === token) entry.container.position.set(0, 0);
    else {
      const at = parent.toLocal(new PIXI.Point(0, 0), token);
      entry.container.position.set(at.x, at.y);
    }
    entry.track.y = y;
  }

  /** @param {any} token */
  function refresh(token) {
    if (!token || token.destroyed) return;
    const flags = token.actor?.flags?.[MODULE_ID];
    const setting = healthVisibility();
    const isOwner = !!(token.isOwner ?? token.document?.isOwner ?? token.actor?.isOwner);
    const isHovered = hovered.has(token) || !!token.controlled;
    const placement = placementName();
    // HEALTH-6: "boxes" the track; "words" (a user the setting lets read only that much) the status word alone
    const detail = healthDetail({ setting, isGM: isGM(), isOwner });
    const allowed = !!flags?.health && detail !== "none" && !isIdentityHidden(token);
    const visible = allowed && trackPlacement({ placement, hovered: isHovered, tokenHeight: 0, trackHeight: 0 }).shown;
    const existing = drawn.get(token);
    if (!visible) {
      if (existing) {
        existing.container.visible = false;
        lift(token, existing, false, existing.track.y);
        placeNameplate(token, existing, 0);
      }
      return;
    }
    const width = Number(token.w ?? token.width ?? 0);
    const height = Number(token.h ?? token.height ?? 0);
    const entry = entryOf(token);
    entry.container.visible = true;
    const palette = paletteName();
    const scale = trackScale(zoom());
    const signature = JSON.stringify([width, height, palette, scale, detail, WATCHED_FLAGS.map((k) => flags[k])]);
    if (signature !== entry.signature) {
      entry.signature = signature;
      // zoomed out: boxes, text and badges drawn `scale` times larger, so they keep a readable size on
      // screen; the boxes wrap onto more rows rather than grow wider than the token
      const full = healthTrackView(flags, { width, minBox: Math.ceil(MIN_SCREEN_BOX * scale), maxBox: Math.ceil(16 * scale) });
      if (!full) return;
      const view = detail === "boxes" ? full : { ...full, layout: { ...full.layout, boxes: [], height: 0 }, penalty: null, counters: [] };
      const colours = paletteOf(palette);
      const trackHeight = drawHealthTrack(PIXI, entry.track, view.layout, {
        status: view.statusKey ? localize(view.statusKey) : null,
        penalty: view.penalty,
        text: true,
        fontSize: Math.round(Math.max(10 * scale, Math.min(16 * scale, view.layout.boxSize || 12))),
        minFontSize: MIN_SCREEN_FONT * scale,
        palette: colours,
      });
      const countersHeight = drawConditionCounters(PIXI, entry.counters, view.counters, {
        maxWidth: width,
        diameter: Math.round(14 * scale),
        text: true,
        palette: colours,
        label: (counter) => {
          const key = counterLabelKey(counter);
          const words = localize(key);
          return words && words !== key ? words : counter.id;
        },
      });
      entry.countersHeight = countersHeight;
      entry.trackHeight = trackHeight;
    }
    const where = trackPlacement({ placement, hovered: isHovered, tokenHeight: height, trackHeight: entry.trackHeight ?? 0 });
    // the counters above the token, or inside along its top edge when the track is inside
    entry.counters.position.set(0, where.inside ? 2 : -(entry.countersHeight ?? 0) - 2);
    lift(token, entry, hovered.has(token), where.y);
    placeNameplate(token, entry, where.inside ? 0 : (entry.trackHeight ?? 0) + 2);
  }

  function refreshAll() {
    for (const token of tokens()) refresh(token);
  }

  hooks.on("drawToken", (/** @type {any} */ token) => refresh(token));
  hooks.on("refreshToken", (/** @type {any} */ token) => refresh(token));
  // the pointer over a token: its track shows ("hover") and rises above its neighbours'
  hooks.on("hoverToken", (/** @type {any} */ token, /** @type {boolean} */ isHovered) => {
    if (!token || typeof token !== "object") return;
    if (isHovered) hovered.add(token);
    else hovered.delete(token);
    refresh(token);
  });
  hooks.on("controlToken", (/** @type {any} */ token) => refresh(token));
  // the canvas zoomed: tracks keep their screen size (redrawn only when the scale step changes)
  hooks.on("canvasPan", () => {
    const scale = trackScale(zoom());
    if (scale === drawnScale) return;
    drawnScale = scale;
    refreshAll();
  });
  hooks.on("destroyToken", (/** @type {any} */ token) => {
    const entry = drawn.get(token);
    drawn.delete(token);
    if (entry && !entry.container.destroyed) entry.container.destroy({ children: true });
  });
  hooks.on("updateActor", (/** @type {any} */ actor, /** @type {unknown} */ changes) => {
    if (!touchesHealthFlags(changes)) return;
    const active = typeof actor?.getActiveTokens === "function" ? actor.getActiveTokens() : [];
    for (const token of active) refresh(token);
  });
  hooks.on("updateToken", (/** @type {any} */ tokenDocument, /** @type {unknown} */ changes) => {
    if (touchesHealthFlags(changes) || (changes && typeof changes === "object" && ("width" in changes || "height" in changes))) {
      refresh(tokenDocument?.object);
    }
  });
  // SETTING_CHANGED_HOOK: the registration's onChange (a client setting, the palette, has no Setting document: L1)
  for (const hook of ["updateSetting", "createSetting", SETTING_CHANGED_HOOK]) {
    hooks.on(hook, (/** @type {any} */ setting) => {
      if (setting?.key === `${MODULE_ID}.${HEALTH_VISIBILITY_SETTING}`) visibilitySetting = null;
      else if (setting?.key === `${MODULE_ID}.${PALETTE_SETTING}`) paletteSetting = null;
      else if (setting?.key === `${MODULE_ID}.${TRACK_PLACEMENT_SETTING}`) placementSetting = null;
      else return;
      refreshAll();
    });
  }
  return { refresh, refreshAll };
}
