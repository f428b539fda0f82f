/**
 * Foundry wiring of the area markers (DET-4 on the map; thin: the decisions are `core/areas.mjs`'s
 * and `core/visibility.mjs` `presentationFor`'s). For every token this client draws by an area
 * (approximate, with the sidecar's area: `Presentation.area`), one neutral marker over that area
 * instead of the token: the same for every creature, standing still while the creature moves inside
 * it (it is drawn from the area, never from the token's position). A left click on a marker targets
 * (or untargets) the token it stands for, as the T key does on a token: an attack on it is an attack
 * at an approximately located target (DET-10, the sidecar halves it) and names no square. A user's
 * own target shows on the marker only (the token's core target arrows are not drawn).
 *
 * Foundry API used (public pages): `canvas.controls` (the ControlsLayer, drawn above the tokens) —
 * https://foundryvtt.com/api/v13/classes/foundry.canvas.layers.ControlsLayer.html; `canvas.tokens.placeables`,
 * `canvas.grid.size` — https://foundryvtt.com/api/v13/classes/foundry.canvas.Canvas.html;
 * `Token#setTarget(targeted, {releaseOthers})` and `Token#targeted` (a Set of Users) —
 * https://foundryvtt.com/api/v13/classes/foundry.canvas.placeables.Token.html; the PixiJS pointer events
 * (`eventMode`, `pointerdown`, `shiftKey`) — https://pixijs.download/release/docs/events.FederatedPointerEvent.html.
 * Everything is read from the `env` passed in (usually `globalThis`), so tests drive it on the
 * strict stand-in.
 * @module area-markers
 */

import { markerCircle } from "../core/areas.mjs";
import { createAreaMarker, setLabel } from "../core/drawing.mjs";
import { VISIBILITY_HOOK } from "./visibility-canvas.mjs";

/** The container's label on `canvas.controls`. */
export const MARKERS_LABEL = "vtt-bridge-area-markers";

export class AreaMarkers {
  /**
   * @param {any} env usually `globalThis`
   * @param {{presentationOf: (token: any) => import("../core/visibility.mjs").Presentation}} runtime
   */
  constructor(env, runtime) {
    this.env = env;
    this.runtime = runtime;
    /** @type {any} the container on `canvas.controls` */
    this.layer = null;
    /** @type {Map<string, any>} token id → its marker */
    this.markers = new Map();
  }

  install() {
    const { Hooks } = this.env;
    Hooks.on(VISIBILITY_HOOK, () => this.redraw());
    Hooks.on("canvasReady", () => {
      this.layer = null;
      this.redraw();
    });
    Hooks.on("canvasTearDown", () => {
      this.layer = null;
      this.markers.clear();
    });
  }

  /** @returns {any} the markers' container, made (and added to `canvas.controls`) when missing */
  container() {
    const canvas = this.env.canvas;
    if (!canvas?.controls) return null;
    if (!this.layer || this.layer.destroyed || this.layer.parent !== canvas.controls) {
      this.layer = new this.env.PIXI.Container();
      setLabel(this.layer, MARKERS_LABEL);
      this.layer.eventMode = "passive";
      canvas.controls.addChild(this.layer);
    }
    return this.layer;
  }

  /** Draw a marker for every token this client draws by an area, and no other. */
  redraw() {
    const canvas = this.env.canvas;
    const layer = this.container();
    if (!layer) return;
    for (const marker of layer.removeChildren()) marker.destroy?.();
    this.markers.clear();
    const grid = canvas.grid?.size ?? canvas.dimensions?.size ?? 100;
    const user = this.env.game.user;
    for (const token of canvas.tokens?.placeables ?? []) {
      const area = this.runtime.presentationOf(token).area;
      if (!area) continue;
      const circle = markerCircle(area, grid);
      const marker = createAreaMarker(this.env.PIXI, { radius: circle.r, targeted: !!token.targeted?.has?.(user) });
      marker.position.set(circle.x, circle.y);
      marker.eventMode = "static";
      marker.cursor = "pointer";
      marker.on("pointerdown", (/** @type {any} */ event) => this.click(token, event));
      layer.addChild(marker);
      this.markers.set(token.document?.id, marker);
    }
  }

  /**
   * A left click on a marker: target the token it stands for, or untarget it (shift keeps the
   * user's other targets, as Foundry's T key does).
   * @param {any} token
   * @param {any} event
   */
  click(token, event) {
    if (event?.button !== undefined && event.button !== 0) return;
    event?.stopPropagation?.();
    const targeted = !!token.targeted?.has?.(this.env.game.user);
    token.setTarget(!targeted, { releaseOthers: !event?.shiftKey });
  }
}

/**
 * Install the area markers. Call once, in the `init` hook, after `installVisibility`.
 * @param {{env?: any, runtime: {presentationOf: (token: any) => import("../core/visibility.mjs").Presentation}}} options
 * @returns {AreaMarkers}
 */
export function installAreaMarkers({ env = globalThis, runtime }) {
  const markers = new AreaMarkers(env, runtime);
  markers.install();
  return markers;
}
