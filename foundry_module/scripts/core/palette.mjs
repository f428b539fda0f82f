/**
 * What the canvas draws with, decided apart from the drawing: the colours of two palettes (the
 * standard one, and Okabe & Ito's colour-blind-safe one, a client setting), and the looks that never
 * rely on colour alone: a Health box by its marks (□ healthy, / bashing, ✕ lethal, ✱ aggravated),
 * a locate state of the GM's overlay by its line pattern and the marker at its target end. PURE.
 * @module palette
 */

/** The client setting naming the palette. */
export const PALETTE_SETTING = "palette";

/** @typedef {"standard"|"okabeIto"} PaletteName */

/**
 * @typedef {object} Palette colours as 0xRRGGBB
 * @property {{frame: number, empty: number, aggravated: number, mark: number, markOnAggravated: number}} track
 * @property {{tempHp: number, condition: number, emotion: number}} badge the counters beside the track
 * @property {{pinpointed: number, approximate: number, unlocated: number, malformed: number}} locate the overlay's lines
 */

/** @type {Readonly<Record<PaletteName, Readonly<Palette>>>} */
export const PALETTES = Object.freeze({
  standard: Object.freeze({
    track: Object.freeze({ frame: 0x151515, empty: 0xf2eee3, aggravated: 0xc4161c, mark: 0x151515, markOnAggravated: 0xfff4e0 }),
    badge: Object.freeze({ tempHp: 0x1f5fbf, condition: 0x6b2fa0, emotion: 0x0f7f6f }),
    locate: Object.freeze({ pinpointed: 0x43a047, approximate: 0xffb300, unlocated: 0xe53935, malformed: 0xd500f9 }),
  }),
  // Okabe & Ito, "Color Universal Design" (2008): hues told apart with every common colour-vision
  // deficiency; blue against vermillion and yellow for the locate states, vermillion for aggravated
  okabeIto: Object.freeze({
    track: Object.freeze({ frame: 0x151515, empty: 0xf2eee3, aggravated: 0xd55e00, mark: 0x151515, markOnAggravated: 0xffffff }),
    badge: Object.freeze({ tempHp: 0x0072b2, condition: 0xcc79a7, emotion: 0x009e73 }),
    locate: Object.freeze({ pinpointed: 0x56b4e9, approximate: 0xf0e442, unlocated: 0xd55e00, malformed: 0xcc79a7 }),
  }),
});

/** The setting's values, the standard one first (its default). */
export const PALETTE_NAMES = Object.freeze(/** @type {PaletteName[]} */ (Object.keys(PALETTES)));

/**
 * The palette a setting value names; the standard one for anything else.
 * @param {unknown} name
 * @returns {Readonly<Palette>}
 */
export function paletteOf(name) {
  return typeof name === "string" && Object.hasOwn(PALETTES, name) ? PALETTES[/** @type {PaletteName} */ (name)] : PALETTES.standard;
}

/** @typedef {"rise"|"fall"|"bar"} BoxStroke "/", "\", and the vertical bar of the asterisk */

/**
 * The marks of each box kind (HEALTH-1/2, the way the rulebook writes a track): told apart by shape
 * whatever the colours.
 * @type {Readonly<Record<import("./health-track.mjs").BoxKind, readonly BoxStroke[]>>}
 */
export const BOX_STROKES = Object.freeze({
  healthy: Object.freeze([]),
  bashing: Object.freeze(/** @type {BoxStroke[]} */ (["rise"])),
  lethal: Object.freeze(/** @type {BoxStroke[]} */ (["rise", "fall"])),
  aggravated: Object.freeze(/** @type {BoxStroke[]} */ (["rise", "fall", "bar"])),
});

/**
 * How one box looks: its frame, its fill, the colour of its marks and which marks.
 * @param {import("./health-track.mjs").BoxKind} kind
 * @param {Readonly<Palette>} [palette]
 * @returns {{frame: number, fill: number, mark: number, strokes: readonly BoxStroke[]}}
 */
export function boxLook(kind, palette = PALETTES.standard) {
  const { track } = palette;
  const aggravated = kind === "aggravated";
  return {
    frame: track.frame,
    fill: aggravated ? track.aggravated : track.empty,
    mark: aggravated ? track.markOnAggravated : track.mark,
    strokes: BOX_STROKES[kind] ?? BOX_STROKES.healthy,
  };
}

/** @typedef {"arrow"|"ring"|"cross"|"bar"} LineEnd the marker at a line's target end */

/**
 * @typedef {object} LocateLook
 * @property {number} color
 * @property {readonly number[]|null} dash on, off, ... lengths in pixels, repeated; null: solid
 * @property {boolean} dashed
 * @property {LineEnd} end
 * @property {number} width
 */

/**
 * The overlay's line per locate state, apart from colour: pinpointed a solid line ending in a filled
 * arrowhead; approximate dashed, ending in a ring (it is somewhere about there); unlocated dotted,
 * ending in a cross (not found); an unreadable ruling dash-dotted and thicker, ending in a bar.
 * @type {Readonly<Record<import("./_types.mjs").LocateState|"malformed", Readonly<{dash: readonly number[]|null, end: LineEnd, width: number}>>>}
 */
export const LOCATE_LINES = Object.freeze({
  pinpointed: Object.freeze({ dash: null, end: /** @type {LineEnd} */ ("arrow"), width: 2 }),
  approximate: Object.freeze({ dash: Object.freeze([12, 8]), end: /** @type {LineEnd} */ ("ring"), width: 2 }),
  unlocated: Object.freeze({ dash: Object.freeze([3, 5]), end: /** @type {LineEnd} */ ("cross"), width: 2 }),
  malformed: Object.freeze({ dash: Object.freeze([12, 5, 3, 5]), end: /** @type {LineEnd} */ ("bar"), width: 3 }),
});

/**
 * The look of one locate state's line (or of an unreadable ruling's) in a palette.
 * @param {import("./_types.mjs").LocateState|"malformed"} state
 * @param {Readonly<Palette>} [palette]
 * @returns {Readonly<LocateLook>}
 */
export function locateLook(state, palette = PALETTES.standard) {
  const line = LOCATE_LINES[state] ?? LOCATE_LINES.malformed;
  const color = palette.locate[state] ?? palette.locate.malformed;
  return Object.freeze({ color, dash: line.dash, dashed: line.dash !== null, end: line.end, width: line.width });
}

/** The legend's sample of each line end (text beside its colour sample). */
export const END_GLYPHS = Object.freeze({ arrow: "➤", ring: "○", cross: "✕", bar: "⊣" });

/**
 * The CSS `border-top-style` nearest a dash pattern (the legend's sample): solid, dashed, dotted.
 * @param {readonly number[]|null} dash
 */
export function cssLineStyle(dash) {
  if (!dash) return "solid";
  return dash.length === 2 && dash[0] <= 4 ? "dotted" : "dashed";
}
