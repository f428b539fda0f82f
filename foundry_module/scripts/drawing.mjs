/**
 * PIXI drawing of the Health track, the condition counters and the anonymous silhouette. Every
 * function takes the `PIXI` namespace as its first argument (Foundry's global `PIXI`, PixiJS v7 in
 * Foundry 12/13; tests pass the real pixi.js), so this file reads no global. Positions come from the
 * pure layout in `health-track.mjs`.
 * @module drawing
 */

/** @typedef {typeof import("pixi.js")} Pixi */
/** @typedef {import("./health-track.mjs").TrackLayout} TrackLayout */
/** @typedef {import("./health-track.mjs").Counter} Counter */

/** Colours (0xRRGGBB) of the track and the counters. */
export const COLORS = Object.freeze({
  frame: 0x151515,
  empty: 0xf2eee3,
  aggravated: 0xc4161c,
  mark: 0x151515,
  markOnRed: 0xfff4e0,
  text: 0xffffff,
  textStroke: 0x000000,
  badgeRing: 0xffffff,
  badge: Object.freeze({ tempHp: 0x1f5fbf, condition: 0x6b2fa0, emotion: 0x0f7f6f }),
  silhouette: 0x8a8a8a,
});

/**
 * @typedef {object} TrackStyle
 * @property {string|null} [status] the status text, already localized (drawn only with `text`)
 * @property {string|null} [penalty] the wound penalty text, e.g. "−2" (drawn only with `text`)
 * @property {boolean} [text] draw the texts (needs a font; off in pixel tests)
 * @property {string} [fontFamily]
 * @property {number} [fontSize]
 */

/**
 * The Graphics to draw into: `target` itself when it is a Graphics, else a new Graphics added to it.
 * @param {Pixi} PIXI
 * @param {import("pixi.js").Container} target
 * @returns {import("pixi.js").Graphics}
 */
function graphicsOf(PIXI, target) {
  if (target instanceof PIXI.Graphics) return target;
  const g = new PIXI.Graphics();
  target.addChild(g);
  return g;
}

/**
 * One box: a dark frame, a light (healthy, bashing, lethal) or red (aggravated) inside, and its mark:
 * bashing "/", lethal "X" (dark), aggravated "X" with a vertical bar (an asterisk, light on red).
 * @param {import("pixi.js").Graphics} g
 * @param {import("./health-track.mjs").Box} box
 */
function drawBox(g, { kind, x, y, size }) {
  const frame = Math.max(1, Math.round(size / 10));
  g.lineStyle(0);
  g.beginFill(COLORS.frame, 1);
  g.drawRect(x, y, size, size);
  g.endFill();
  const inner = size - 2 * frame;
  if (inner <= 0) return;
  g.beginFill(kind === "aggravated" ? COLORS.aggravated : COLORS.empty, 1);
  g.drawRect(x + frame, y + frame, inner, inner);
  g.endFill();
  if (kind === "healthy" || inner < 3) return;
  const stroke = Math.max(1, Math.round(size / 9));
  const pad = frame + Math.max(1, Math.round(size / 8));
  const x0 = x + pad;
  const y0 = y + pad;
  const x1 = x + size - pad;
  const y1 = y + size - pad;
  const color = kind === "aggravated" ? COLORS.markOnRed : COLORS.mark;
  g.lineStyle({ width: stroke, color, alpha: 1, alignment: 0.5, cap: /** @type {any} */ ("butt") });
  g.moveTo(x0, y1);
  g.lineTo(x1, y0);
  if (kind !== "bashing") {
    g.moveTo(x0, y0);
    g.lineTo(x1, y1);
  }
  if (kind === "aggravated") {
    g.moveTo((x0 + x1) / 2, y0);
    g.lineTo((x0 + x1) / 2, y1);
  }
  g.lineStyle(0);
}

/**
 * Draw the Health track of `layout` into `target` (a Graphics is drawn into after `clear()`; another
 * container gets a new Graphics child), with the status and penalty texts under the boxes when
 * `style.text` is on. Returns the height used in pixels (boxes plus text).
 * @param {Pixi} PIXI
 * @param {import("pixi.js").Container} target
 * @param {TrackLayout} layout
 * @param {TrackStyle} [style]
 * @returns {number}
 */
export function drawHealthTrack(PIXI, target, layout, style = {}) {
  const g = graphicsOf(PIXI, target);
  g.clear();
  for (const child of g.removeChildren()) child.destroy();
  for (const box of layout.boxes) drawBox(g, box);
  let height = layout.height;
  const words = [style.status, style.penalty].filter((s) => typeof s === "string" && s !== "").join(" ");
  if (style.text && words) {
    const text = new PIXI.Text(words, {
      fontFamily: style.fontFamily ?? "Signika, sans-serif",
      fontSize: style.fontSize ?? Math.max(10, Math.min(16, layout.boxSize || 12)),
      fill: COLORS.text,
      stroke: COLORS.textStroke,
      strokeThickness: 3,
    });
    text.anchor.set(0.5, 0);
    const available = layout.tokenWidth;
    if (available > 0 && text.width > available) text.scale.set(available / text.width);
    text.position.set(Math.floor(available / 2), height + (height ? 2 : 0));
    g.addChild(text);
    height = text.y + text.height;
  }
  return height;
}

/**
 * @typedef {object} CounterStyle
 * @property {number} [diameter] of a badge, pixels
 * @property {number} [gap] between badges, pixels
 * @property {number} [maxWidth] badges wrap onto the next row past this width (the token's width)
 * @property {boolean} [text] draw the numbers and labels (needs a font)
 * @property {(counter: Counter) => string} [label] the text after the number, e.g. the condition's name
 * @property {string} [fontFamily]
 */

/**
 * Draw the counters into `container` as small round badges (colour by kind: temporary Health,
 * condition, emotion) with the number inside and, with `text` and `label`, the label beside it,
 * left to right, wrapping at `maxWidth`. Previous children of `container` are destroyed. Returns the
 * height used in pixels.
 * @param {Pixi} PIXI
 * @param {import("pixi.js").Container} container
 * @param {readonly Counter[]} counters
 * @param {CounterStyle} [style]
 * @returns {number}
 */
export function drawConditionCounters(PIXI, container, counters, style = {}) {
  for (const child of container.removeChildren()) child.destroy({ children: true });
  const d = Math.max(6, Math.floor(style.diameter ?? 14));
  const gap = Math.max(0, Math.floor(style.gap ?? 2));
  const maxWidth = style.maxWidth && style.maxWidth > 0 ? style.maxWidth : Infinity;
  const font = style.fontFamily ?? "Signika, sans-serif";
  let x = 0;
  let y = 0;
  for (const counter of counters) {
    const badge = new PIXI.Container();
    const g = new PIXI.Graphics();
    g.lineStyle({ width: 1, color: COLORS.badgeRing, alpha: 1, alignment: 1 });
    g.beginFill(COLORS.badge[counter.kind] ?? COLORS.badge.condition, 1);
    g.drawCircle(d / 2, d / 2, d / 2 - 1);
    g.endFill();
    badge.addChild(g);
    let width = d;
    if (style.text) {
      const textStyle = { fontFamily: font, fontSize: Math.max(8, d - 4), fill: COLORS.text, fontWeight: /** @type {const} */ ("bold") };
      const number = new PIXI.Text(String(counter.value), textStyle);
      number.anchor.set(0.5, 0.5);
      number.position.set(d / 2, d / 2);
      if (number.width > d - 2) number.scale.set((d - 2) / number.width);
      badge.addChild(number);
      const words = style.label?.(counter);
      if (words) {
        const label = new PIXI.Text(words, { ...textStyle, fontWeight: "normal", stroke: COLORS.textStroke, strokeThickness: 2 });
        label.anchor.set(0, 0.5);
        label.position.set(d + 2, d / 2);
        badge.addChild(label);
        width = d + 2 + label.width;
      }
    }
    if (x > 0 && x + width > maxWidth) {
      x = 0;
      y += d + gap;
    }
    badge.position.set(x, y);
    container.addChild(badge);
    x += width + gap;
  }
  return counters.length ? y + d : 0;
}

/**
 * An ANONYMOUS blurred silhouette for a token only approximately located (DET-4): a generic head
 * and shoulders in a neutral grey, blurred, the same for every token of this size (no art, no name,
 * no disposition colour). Drawn inside `width` × `height` with room for the blur.
 * @param {Pixi} PIXI
 * @param {{width: number, height: number}} size
 * @returns {import("pixi.js").Container}
 */
export function createSilhouette(PIXI, { width, height }) {
  const w = Math.max(1, Number.isFinite(width) ? width : 1);
  const h = Math.max(1, Number.isFinite(height) ? height : 1);
  const container = new PIXI.Container();
  container.name = "vtt-bridge-silhouette";
  const g = new PIXI.Graphics();
  g.beginFill(COLORS.silhouette, 0.9);
  g.drawCircle(w / 2, h * 0.36, Math.min(w, h) * 0.17);
  // the shoulders: the upper half of an ellipse, cut flat at the bottom (a bust)
  /** @type {number[]} */
  const bust = [];
  for (let i = 0; i <= 32; i++) {
    const angle = Math.PI + (Math.PI * i) / 32;
    bust.push(w / 2 + Math.cos(angle) * w * 0.34, h * 0.86 + Math.sin(angle) * h * 0.26);
  }
  g.drawPolygon(bust);
  g.endFill();
  const blur = new PIXI.BlurFilter(Math.max(2, Math.round(Math.min(w, h) / 18)), 4);
  g.filters = [blur];
  container.addChild(g);
  return container;
}
