/**
 * PIXI drawing of the Health track, the condition counters and the anonymous silhouette. Every
 * function takes the `PIXI` namespace as its first argument (Foundry's global `PIXI`, PixiJS v7 in
 * Foundry 12/13; tests pass the real pixi.js), so this file reads no global. Positions come from the
 * pure layout in `health-track.mjs`.
 * @module drawing
 */

import { boxLook, PALETTES } from "./palette.mjs";

/** @typedef {typeof import("pixi.js")} Pixi */
/** @typedef {import("./palette.mjs").Palette} Palette */
/** @typedef {import("./health-track.mjs").TrackLayout} TrackLayout */
/** @typedef {import("./health-track.mjs").Counter} Counter */

/**
 * Colours (0xRRGGBB) of the track and the counters in the standard palette (`palette.mjs`; the
 * colour-blind one is a setting), and those no palette changes: texts, the silhouette.
 */
export const COLORS = Object.freeze({
  frame: PALETTES.standard.track.frame,
  empty: PALETTES.standard.track.empty,
  aggravated: PALETTES.standard.track.aggravated,
  mark: PALETTES.standard.track.mark,
  markOnRed: PALETTES.standard.track.markOnAggravated,
  text: 0xffffff,
  textStroke: 0x000000,
  badgeRing: 0xffffff,
  badge: PALETTES.standard.badge,
  silhouette: 0x8a8a8a,
  silhouetteTarget: 0xff9829,
  areaFill: 0x8a8a8a,
  areaEdge: 0x5c5c5c,
});

/**
 * @typedef {object} TrackStyle
 * @property {string|null} [status] the status text, already localized (drawn only with `text`)
 * @property {string|null} [penalty] the wound penalty text, e.g. "−2" (drawn only with `text`)
 * @property {boolean} [text] draw the texts (needs a font; off in pixel tests)
 * @property {string} [fontFamily]
 * @property {number} [fontSize]
 * @property {number} [minFontSize] the status text is never shrunk below this size (it may then be wider than the token)
 * @property {Readonly<Palette>} [palette] the colours (default the standard palette)
 */

/*
 * PixiJS 7 / 8 portability, by feature detection on the objects (never on version strings).
 * Foundry 12/13 ship PixiJS 7.4 (`beginFill`/`drawRect`/`lineStyle`/`endFill`, `new Text(text, style)`,
 * `new BlurFilter(strength, quality)`, `name`); PixiJS 8 draws shape-then-style (`rect().fill()`,
 * `moveTo().lineTo().stroke()`), takes options objects, calls the name `label`, and warns on the v7
 * forms it still accepts. Both are tested with the pixel tests (tests/pixi.test.mjs).
 */

/**
 * The PixiJS 8 Graphics methods used here (absent from PixiJS 7's Graphics).
 * @typedef {object} ShapeThenStyle
 * @property {(x: number, y: number, w: number, h: number) => ShapeThenStyle} rect
 * @property {(x: number, y: number, r: number) => ShapeThenStyle} circle
 * @property {(points: number[]) => ShapeThenStyle} poly
 * @property {(x: number, y: number, w: number, h: number, r: number) => ShapeThenStyle} roundRect
 * @property {(x: number, y: number) => ShapeThenStyle} moveTo
 * @property {(x: number, y: number) => ShapeThenStyle} lineTo
 * @property {(style: {color: number, alpha: number}) => ShapeThenStyle} fill
 * @property {(style: LineStyle) => ShapeThenStyle} stroke
 */

/**
 * @typedef {object} LineStyle
 * @property {number} width
 * @property {number} color
 * @property {number} [alpha]
 * @property {number} [alignment] 0.5 centred on the path (both APIs); other values are not portable
 * @property {"butt"|"round"|"square"} [cap]
 */

/**
 * The shape-then-style API (PixiJS 8) when `g` has it, else null (PixiJS 7: `beginFill` & co).
 * @param {import("pixi.js").Graphics} g
 * @returns {ShapeThenStyle|null}
 */
function shapeThenStyle(g) {
  const any = /** @type {any} */ (g);
  return typeof any.rect === "function" && typeof any.stroke === "function" && typeof any.poly === "function" ? any : null;
}

/**
 * Fill a shape on `g` in `color`: `shape` draws it with the PixiJS 8 method, `legacy` with PixiJS 7's.
 * @param {import("pixi.js").Graphics} g
 * @param {number} color @param {number} alpha
 * @param {(m: ShapeThenStyle) => ShapeThenStyle} shape
 * @param {(g: import("pixi.js").Graphics) => unknown} legacy
 */
function fillShape(g, color, alpha, shape, legacy) {
  const modern = shapeThenStyle(g);
  if (modern) {
    shape(modern).fill({ color, alpha });
    return;
  }
  g.lineStyle(0);
  g.beginFill(color, alpha);
  legacy(g);
  g.endFill();
}

/** @param {import("pixi.js").Graphics} g @param {number} x @param {number} y @param {number} w @param {number} h @param {number} color @param {number} [alpha] */
export function fillRect(g, x, y, w, h, color, alpha = 1) {
  fillShape(g, color, alpha, (m) => m.rect(x, y, w, h), (l) => l.drawRect(x, y, w, h));
}

/** @param {import("pixi.js").Graphics} g @param {number} x @param {number} y @param {number} w @param {number} h @param {number} r @param {number} color @param {number} [alpha] */
export function fillRoundedRect(g, x, y, w, h, r, color, alpha = 1) {
  fillShape(g, color, alpha, (m) => m.roundRect(x, y, w, h, r), (l) => l.drawRoundedRect(x, y, w, h, r));
}

/** @param {import("pixi.js").Graphics} g @param {number} x @param {number} y @param {number} r @param {number} color @param {number} [alpha] */
export function fillCircle(g, x, y, r, color, alpha = 1) {
  fillShape(g, color, alpha, (m) => m.circle(x, y, r), (l) => l.drawCircle(x, y, r));
}

/** @param {import("pixi.js").Graphics} g @param {number[]} points x0, y0, x1, y1, ... @param {number} color @param {number} [alpha] */
export function fillPolygon(g, points, color, alpha = 1) {
  fillShape(g, color, alpha, (m) => m.poly(points), (l) => l.drawPolygon(points));
}

/**
 * Stroke straight segments `[x0, y0, x1, y1]` with one line style.
 * @param {import("pixi.js").Graphics} g
 * @param {ReadonlyArray<readonly [number, number, number, number]>} segments
 * @param {LineStyle} style
 */
export function strokeSegments(g, segments, style) {
  if (!segments.length) return;
  const full = { alpha: 1, alignment: 0.5, ...style };
  const modern = shapeThenStyle(g);
  if (modern) {
    for (const [x0, y0, x1, y1] of segments) modern.moveTo(x0, y0).lineTo(x1, y1);
    modern.stroke(full);
    return;
  }
  g.lineStyle(/** @type {any} */ (full));
  for (const [x0, y0, x1, y1] of segments) g.moveTo(x0, y0).lineTo(x1, y1);
  g.lineStyle(0);
}

/**
 * Stroke the outline of a rectangle, the line centred on its edges.
 * @param {import("pixi.js").Graphics} g
 * @param {number} x @param {number} y @param {number} w @param {number} h
 * @param {LineStyle} style
 */
export function strokeRect(g, x, y, w, h, style) {
  const full = { alpha: 1, ...style, alignment: 0.5 };
  const modern = shapeThenStyle(g);
  if (modern) {
    modern.rect(x, y, w, h).stroke(full);
    return;
  }
  g.lineStyle(/** @type {any} */ (full));
  g.drawRect(x, y, w, h);
  g.lineStyle(0);
}

/**
 * @typedef {object} TextLook
 * @property {string} [fontFamily]
 * @property {number} [fontSize]
 * @property {"normal"|"bold"} [fontWeight]
 * @property {number} fill
 * @property {number} [stroke] outline colour
 * @property {number} [strokeWidth] outline width, pixels (0/absent: no outline)
 * @property {boolean} [wordWrap] wrap the words at `wordWrapWidth` (PixiJS 7 and 8 alike)
 * @property {number} [wordWrapWidth] pixels
 * @property {boolean} [breakWords] wrap inside a word too (text without spaces, e.g. Chinese)
 */

/**
 * A Text in both APIs: created empty (both accept no arguments), then given its words and style.
 * The outline is `stroke` + `strokeThickness` where the style knows `strokeThickness` (PixiJS 7),
 * else `stroke: {color, width}` (PixiJS 8).
 * @param {Pixi} PIXI
 * @param {string} words
 * @param {TextLook} look
 * @returns {import("pixi.js").Text}
 */
export function createText(PIXI, words, { stroke, strokeWidth, ...rest }) {
  const text = new PIXI.Text();
  /** @type {Record<string, unknown>} */
  const style = { ...rest };
  if (strokeWidth && stroke !== undefined) {
    const current = /** @type {object|null|undefined} */ (text.style);
    const outlineObject = typeof current === "object" && current !== null && !("strokeThickness" in current);
    if (!outlineObject) Object.assign(style, { stroke, strokeThickness: strokeWidth });
    else style.stroke = { color: stroke, width: strokeWidth };
  }
  text.style = /** @type {any} */ (style);
  text.text = words;
  return text;
}

/**
 * A Gaussian blur of `strength` pixels: PixiJS 8's `strength`, else PixiJS 7's `blur`.
 * @param {Pixi} PIXI
 * @param {number} strength
 * @param {number} quality passes
 * @returns {import("pixi.js").BlurFilter}
 */
export function createBlur(PIXI, strength, quality) {
  const blur = /** @type {any} */ (new PIXI.BlurFilter());
  if ("strength" in blur) blur.strength = strength;
  else blur.blur = strength;
  blur.quality = quality;
  return blur;
}

/**
 * Name a display object: `label` where it has one (PixiJS 8; `name` warns there), else `name`.
 * @param {import("pixi.js").DisplayObject} object @param {string} name
 */
export function setLabel(object, name) {
  if ("label" in object) /** @type {any} */ (object).label = name;
  else object.name = name;
}

/** The name `setLabel` gave. @param {import("pixi.js").DisplayObject} object @returns {string|null} */
export function labelOf(object) {
  return "label" in object ? /** @type {any} */ (object).label : object.name;
}

/**
 * Where to draw the track: into `target` itself when it is a Graphics (after `clear()`; its old
 * children, the texts, destroyed), else into a new Graphics replacing every child of `target`.
 * Texts go into the returned `parent`: PixiJS 8's Graphics holds no children, so pass a Container.
 * @param {Pixi} PIXI
 * @param {import("pixi.js").Container} target
 * @returns {{g: import("pixi.js").Graphics, parent: import("pixi.js").Container}}
 */
function trackGraphicsOf(PIXI, target) {
  for (const child of target.removeChildren()) child.destroy({ children: true });
  if (target instanceof PIXI.Graphics) {
    target.clear();
    return { g: target, parent: target };
  }
  const g = new PIXI.Graphics();
  target.addChild(g);
  return { g, parent: target };
}

/**
 * One box as `boxLook` decides: a dark frame, a light (healthy, bashing, lethal) or coloured
 * (aggravated) inside, and its marks: bashing "/", lethal "X", aggravated "X" with a vertical bar
 * (an asterisk, light on the colour). The marks tell the kinds apart in any palette.
 * @param {import("pixi.js").Graphics} g
 * @param {import("./health-track.mjs").Box} box
 * @param {Readonly<Palette>} palette
 */
function drawBox(g, { kind, x, y, size }, palette) {
  const look = boxLook(kind, palette);
  const frame = Math.max(1, Math.round(size / 10));
  fillRect(g, x, y, size, size, look.frame);
  const inner = size - 2 * frame;
  if (inner <= 0) return;
  fillRect(g, x + frame, y + frame, inner, inner, look.fill);
  if (!look.strokes.length || inner < 3) return;
  const stroke = Math.max(1, Math.round(size / 9));
  const pad = frame + Math.max(1, Math.round(size / 8));
  const x0 = x + pad;
  const y0 = y + pad;
  const x1 = x + size - pad;
  const y1 = y + size - pad;
  const lines = { rise: [x0, y1, x1, y0], fall: [x0, y0, x1, y1], bar: [(x0 + x1) / 2, y0, (x0 + x1) / 2, y1] };
  const segments = look.strokes.map((s) => /** @type {[number, number, number, number]} */ (lines[s]));
  strokeSegments(g, segments, { width: stroke, color: look.mark, alpha: 1, alignment: 0.5, cap: "butt" });
}

/**
 * Draw the Health track of `layout` into `target` (a Graphics is drawn into after `clear()`; another
 * container, the portable choice, gets a new Graphics child for the boxes beside the texts), with the status and penalty texts under the boxes when
 * `style.text` is on. Returns the height used in pixels (boxes plus text).
 * @param {Pixi} PIXI
 * @param {import("pixi.js").Container} target
 * @param {TrackLayout} layout
 * @param {TrackStyle} [style]
 * @returns {number}
 */
export function drawHealthTrack(PIXI, target, layout, style = {}) {
  const { g, parent } = trackGraphicsOf(PIXI, target);
  const palette = style.palette ?? PALETTES.standard;
  for (const box of layout.boxes) drawBox(g, box, palette);
  let height = layout.height;
  const words = [style.status, style.penalty].filter((s) => typeof s === "string" && s !== "").join(" ");
  if (style.text && words) {
    const fontSize = style.fontSize ?? Math.max(10, Math.min(16, layout.boxSize || 12));
    const text = createText(PIXI, words, {
      fontFamily: style.fontFamily ?? "Signika, sans-serif",
      fontSize,
      fill: COLORS.text,
      stroke: COLORS.textStroke,
      strokeWidth: 3,
    });
    text.anchor.set(0.5, 0);
    const available = layout.tokenWidth;
    // shrunk to the token's width, but never below `minFontSize` (then wider than the token, centred)
    const floor = style.minFontSize && style.minFontSize > 0 ? style.minFontSize / fontSize : 0;
    if (available > 0 && text.width > available) text.scale.set(Math.min(1, Math.max(available / text.width, floor)));
    text.position.set(Math.floor(available / 2), height + (height ? 2 : 0));
    parent.addChild(text);
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
 * @property {Readonly<Palette>} [palette] the badges' colours (default the standard palette)
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
    // a white ring, then the badge's colour inside it
    fillCircle(g, d / 2, d / 2, d / 2, COLORS.badgeRing);
    const badges = (style.palette ?? PALETTES.standard).badge;
    fillCircle(g, d / 2, d / 2, d / 2 - 1, badges[counter.kind] ?? badges.condition);
    badge.addChild(g);
    let width = d;
    if (style.text) {
      const textStyle = { fontFamily: font, fontSize: Math.max(8, d - 4), fill: COLORS.text, fontWeight: /** @type {const} */ ("bold") };
      const number = createText(PIXI, String(counter.value), textStyle);
      number.anchor.set(0.5, 0.5);
      number.position.set(d / 2, d / 2);
      if (number.width > d - 2) number.scale.set((d - 2) / number.width);
      badge.addChild(number);
      const words = style.label?.(counter);
      if (words) {
        const label = createText(PIXI, words, { ...textStyle, fontWeight: "normal", stroke: COLORS.textStroke, strokeWidth: 2 });
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
  setLabel(container, "vtt-bridge-silhouette");
  const g = new PIXI.Graphics();
  fillCircle(g, w / 2, h * 0.36, Math.min(w, h) * 0.17, COLORS.silhouette, 0.9);
  // the shoulders: the upper half of an ellipse, cut flat at the bottom (a bust)
  /** @type {number[]} */
  const bust = [];
  for (let i = 0; i <= 32; i++) {
    const angle = Math.PI + (Math.PI * i) / 32;
    bust.push(w / 2 + Math.cos(angle) * w * 0.34, h * 0.86 + Math.sin(angle) * h * 0.26);
  }
  fillPolygon(g, bust, COLORS.silhouette, 0.9);
  const blur = createBlur(PIXI, Math.max(2, Math.round(Math.min(w, h) / 18)), 4);
  g.filters = [blur];
  container.addChild(g);
  return container;
}

/**
 * The target marker drawn on a silhouette a user targets (DET-10): four corner brackets in one
 * neutral colour, so it names nobody (no user colour, no disposition); labelled
 * "vtt-bridge-silhouette-target".
 * @param {any} PIXI
 * @param {{width: number, height: number}} size
 * @returns {any} a PIXI.Graphics
 */
export function createSilhouetteTarget(PIXI, { width, height }) {
  const w = Math.max(1, Number.isFinite(width) ? width : 1);
  const h = Math.max(1, Number.isFinite(height) ? height : 1);
  const g = new PIXI.Graphics();
  setLabel(g, "vtt-bridge-silhouette-target");
  const arm = Math.min(w, h) * 0.22;
  const inset = Math.min(w, h) * 0.06;
  const [l, t, r, b] = [inset, inset, w - inset, h - inset];
  /** @type {[number, number, number, number][]} */
  const segments = [
    [l, t, l + arm, t], [l, t, l, t + arm],
    [r, t, r - arm, t], [r, t, r, t + arm],
    [l, b, l + arm, b], [l, b, l, b - arm],
    [r, b, r - arm, b], [r, b, r, b - arm],
  ];
  strokeSegments(g, segments, { width: Math.max(2, Math.round(Math.min(w, h) / 25)), color: COLORS.silhouetteTarget });
  return g;
}

/**
 * Stroke the outline of a circle, the line centred on it.
 * @param {import("pixi.js").Graphics} g
 * @param {number} x @param {number} y @param {number} r
 * @param {LineStyle} style
 */
export function strokeCircle(g, x, y, r, style) {
  const full = { alpha: 1, alignment: 0.5, ...style };
  const modern = shapeThenStyle(g);
  if (modern) {
    modern.circle(x, y, r).stroke(full);
    return;
  }
  g.lineStyle(/** @type {any} */ (full));
  g.drawCircle(x, y, r);
  g.lineStyle(0);
}

/**
 * The neutral marker of an approximately located target (DET-4): its area, a translucent grey disc
 * of `radius` with a darker rim and a ring at its middle, centred on (0, 0). It is the same for every
 * creature (no art, name, size, facing or elevation); while this user targets it (DET-10) the rim and
 * the middle ring take the target colour. Labelled "vtt-bridge-area".
 * @param {any} PIXI
 * @param {{radius: number, targeted?: boolean}} options
 * @returns {any} a PIXI.Graphics
 */
export function createAreaMarker(PIXI, { radius, targeted = false }) {
  const r = Math.max(4, Number.isFinite(radius) ? radius : 4);
  const g = new PIXI.Graphics();
  setLabel(g, "vtt-bridge-area");
  fillCircle(g, 0, 0, r, COLORS.areaFill, 0.22);
  const edge = targeted ? COLORS.silhouetteTarget : COLORS.areaEdge;
  const width = Math.max(2, Math.round(r / 60));
  strokeCircle(g, 0, 0, r, { width: targeted ? width * 2 : width, color: edge, alpha: 0.9 });
  const middle = Math.max(6, Math.round(r / 12));
  strokeCircle(g, 0, 0, middle, { width: Math.max(2, Math.round(middle / 3)), color: edge, alpha: 0.9 });
  return g;
}
