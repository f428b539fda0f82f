/**
 * The palettes and the looks that never rely on colour alone (`scripts/core/palette.mjs`): each Health
 * box kind and each locate state differs from every other by shape or pattern, in every palette;
 * the colour-blind palette is Okabe & Ito's; the setting names both, in en, de and zh-CN.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { LOCATE_STATES } from "../../scripts/core/constants.mjs";
import { BOX_KINDS } from "../../scripts/core/health-track.mjs";
import { boxLook, cssLineStyle, END_GLYPHS, locateLook, PALETTE_NAMES, PALETTE_SETTING, PALETTES, paletteOf } from "../../scripts/core/palette.mjs";
import { SETTINGS, settingLabels } from "../../scripts/foundry/settings.mjs";

/** @typedef {import("../../scripts/core/_types.mjs").LocateState} LocateState */
const STATES = /** @type {Array<LocateState|"malformed">} */ ([...LOCATE_STATES, "malformed"]);

/** @param {readonly T[]} items @returns {Array<[T, T]>} @template T */
const pairs = (items) => items.flatMap((a, i) => items.slice(i + 1).map((b) => /** @type {[T, T]} */ ([a, b])));

test("every Health box kind differs from every other by its marks, in every palette", () => {
  for (const name of PALETTE_NAMES) {
    const palette = PALETTES[name];
    for (const [a, b] of pairs(BOX_KINDS)) {
      assert.notDeepEqual(boxLook(a, palette).strokes, boxLook(b, palette).strokes, `${name}: ${a} and ${b} differ by shape`);
    }
    // the marks grow with the grade: / ⊂ X ⊂ ✱
    assert.deepEqual(BOX_KINDS.map((k) => boxLook(k, palette).strokes.length), [3, 2, 1, 0]);
    // the marks stand out from the fill they are drawn on
    for (const kind of BOX_KINDS) assert.notEqual(boxLook(kind, palette).mark, boxLook(kind, palette).fill);
  }
});

test("every locate state differs from every other by its line pattern and its end marker, in every palette", () => {
  for (const name of PALETTE_NAMES) {
    const palette = PALETTES[name];
    for (const [a, b] of pairs(STATES)) {
      const [la, lb] = [locateLook(a, palette), locateLook(b, palette)];
      assert.notDeepEqual(la.dash, lb.dash, `${name}: ${a} and ${b} differ by pattern`);
      assert.notEqual(la.end, lb.end, `${name}: ${a} and ${b} differ by end marker`);
      assert.notEqual(la.color, lb.color, `${name}: and by colour`);
    }
  }
  // the legend's samples: three different CSS line styles for the three states, four glyphs
  assert.deepEqual(LOCATE_STATES.map((s) => cssLineStyle(locateLook(/** @type {LocateState} */ (s)).dash)), ["solid", "dashed", "dotted"]);
  assert.equal(new Set(STATES.map((s) => END_GLYPHS[locateLook(s).end])).size, 4);
});

test("the colour-blind palette is Okabe & Ito's; an unknown setting value is the standard palette", () => {
  const okabeIto = new Set([0x000000, 0xe69f00, 0x56b4e9, 0x009e73, 0xf0e442, 0x0072b2, 0xd55e00, 0xcc79a7]);
  const { locate, badge, track } = PALETTES.okabeIto;
  for (const color of [...Object.values(locate), ...Object.values(badge), track.aggravated]) assert.ok(okabeIto.has(color), color.toString(16));
  assert.equal(paletteOf("okabeIto"), PALETTES.okabeIto);
  for (const value of [undefined, null, "", "toString", "__proto__", 3]) assert.equal(paletteOf(value), PALETTES.standard);
  assert.deepEqual(PALETTE_NAMES, ["standard", "okabeIto"]);
});

test("the palette is a client setting (this browser only) with a name, a hint and each choice in en, de and zh-CN", () => {
  const def = SETTINGS.find((s) => s.key === PALETTE_SETTING);
  assert.ok(def);
  assert.equal(def.scope, "client");
  assert.equal(def.default, "standard");
  assert.deepEqual(Object.keys(def.choices ?? {}), PALETTE_NAMES);
  for (const lang of ["en", "de", "zh-CN"]) {
    const words = JSON.parse(readFileSync(new URL(`../../lang/${lang}.json`, import.meta.url), "utf8"));
    /** @param {string} key */
    const at = (key) => key.split(".").reduce((node, part) => node?.[part], words);
    const { name, hint } = settingLabels(def.key, def.i18n);
    for (const key of [name, hint, ...Object.values(def.choices ?? {})]) assert.equal(typeof at(key), "string", `${lang}: ${key}`);
  }
});
