/**
 * Issue 35 in headless Chromium: the module's cards and rules sheet in Foundry's light and dark
 * themes. Foundry 13+ lets each user pick a light or dark interface; the module's stylesheet takes
 * its greys from the text colour (`currentColor`), so the same CSS serves both. Real sidecar
 * rulings (a fire damage meeting a weakness, a roll with successes and a 10-again), rendered by the
 * real card code in a chat column of each theme (Foundry's own CSS is not available: the column's
 * background and text colour stand in for it). Measured, not eyeballed: the rule badges' and steps'
 * borders and the success mark of a die keep a contrast with the background (WCAG 2 relative
 * luminance) in both themes. With VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes
 * docs/images/dark-theme-{en,de,zh-CN}.png.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { FOUNDRY_BODY, moduleBrowser, modulePage, moduleRoot } from "./helpers/module-page.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const images = join(moduleRoot, "..", "docs", "images");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";

const STATE = {
  scene: { id: "s", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, attributes: { DEX: 3 }, skills: { stealth: 2 } },
    "Actor.ogre": { name: "Ogre", health: { max: 9 }, iwr: { weaknesses: [{ type: "fire", value: 2 }] } },
  },
  tokens: { ta: { actor: "Actor.ayla", x: 0, y: 0 }, to: { actor: "Actor.ogre", x: 100, y: 0 } },
};
/** The two themes' chat column: background and text (stand-ins for Foundry's light and dark chat). */
const THEMES = { light: { background: "#e9e4d4", color: "#191813" }, dark: { background: "#1d1e23", color: "#e4e4e0" } };

test("headless Chromium: cards read in Foundry's light and dark themes (borders, badges, success dice keep their contrast); en, de, zh-CN", async (t) => {
  const rulings = await sidecarRulings(STATE, [
    { kind: "damage", target: "Actor.ogre", instances: [{ amount: 3, grade: "L", type: "fire" }] },
    { kind: "roll", actor: "Actor.ayla", pool: 8, dice: [10, 8, 3, 6, 9, 1, 2, 7, 4] },
  ]);
  for (const r of rulings) assert.ok(!r.error, JSON.stringify(r));
  const { browser, origin } = await moduleBrowser(t);
  for (const lang of ["en", "de", "zh-CN"]) {
    const column = (/** @type {"light"|"dark"} */ theme) =>
      `<section class="theme-${theme}" style="box-sizing:border-box;width:300px;padding:6px;background:${THEMES[theme].background};color:${THEMES[theme].color}"><div class="card"></div><div class="card"></div></section>`;
    const { page, errors } = await modulePage(browser, origin, {
      lang,
      width: 680,
      height: 600,
      bodyStyle: FOUNDRY_BODY.replace("background:#3a3a40", "background:#111"),
      body: `<div id="shot" style="display:flex;gap:12px;padding:12px;align-items:flex-start;width:max-content">${column("light")}${column("dark")}</div>`,
    });
    const report = await page.evaluate(
      async (origin, lang, rulings) => {
        const strings = await (await fetch(`${origin}/lang/${lang}.json`)).json();
        const find = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], strings);
        const i18n = {
          lang,
          has: (/** @type {string} */ key) => typeof find(key) === "string",
          localize: (/** @type {string} */ key) => find(key) ?? key,
          format: (/** @type {string} */ key, /** @type {Record<string, string>} */ data = {}) => String(find(key) ?? key).replace(/\{(\w+)\}/g, (m, k) => (k in data ? data[k] : m)),
        };
        // the cards as a client renders them from their data (headline first, the steps under an open "Why")
        const { cardData, renderCardData } = await import(`${origin}/scripts/core/headline.mjs`);
        const names = (/** @type {string} */ id) => ({ "Actor.ayla": "Ayla", "Actor.ogre": "Ogre" })[id] ?? id;
        const ids = ["Actor.ayla", "Actor.ogre"];
        const card = (/** @type {Record<string, any>} */ data, /** @type {string} */ kind) =>
          `<div class="vtt-bridge-ruling" data-kind="${kind}">${renderCardData(cardData({ ...data, kind, names, ids }), i18n)}</div>`;
        const cards = [
          card({ log: rulings[0].log, subject: "Ogre", by: "Ayla" }, "damage"),
          card({ log: rulings[1].log, rolls: rulings[1].rolls ?? [], subject: "Ayla", by: "Ayla" }, "roll"),
        ];
        for (const section of document.querySelectorAll("section")) section.querySelectorAll(".card").forEach((el, i) => (el.innerHTML = cards[i]));
        for (const why of document.querySelectorAll("details")) why.setAttribute("open", "");
        // WCAG 2 relative luminance and contrast, of a computed colour blended over the column
        /** @param {string} text @returns {[number, number, number, number]} */
        const parse = (text) => {
          const srgb = /color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)/.exec(text);
          if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, srgb[4] === undefined ? 1 : Number(srgb[4])];
          const rgb = /rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+))?\)/.exec(text);
          if (!rgb) throw new Error(`colour ${text}`);
          return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), rgb[4] === undefined ? 1 : Number(rgb[4])];
        };
        /** @param {number[]} c */
        const luminance = (c) => {
          const [r, g, b] = c.slice(0, 3).map((v) => {
            const s = v / 255;
            return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        /** @param {string} fg @param {string} bg */
        const contrast = (fg, bg) => {
          const [f, b] = [parse(fg), parse(bg)];
          const mixed = f.slice(0, 3).map((v, i) => v * f[3] + b[i] * (1 - f[3]));
          const [l1, l2] = [luminance(mixed), luminance(b)].sort((x, y) => y - x);
          return Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100;
        };
        /** @type {Record<string, Record<string, number>>} */
        const out = {};
        for (const theme of ["light", "dark"]) {
          const section = /** @type {HTMLElement} */ (document.querySelector(`section.theme-${theme}`));
          const bg = getComputedStyle(section).backgroundColor;
          const step = /** @type {HTMLElement} */ (section.querySelector(".vtt-bridge-step"));
          const badge = /** @type {HTMLElement} */ (section.querySelector(".vtt-bridge-rule"));
          const success = /** @type {HTMLElement|null} */ (section.querySelector(".vtt-bridge-die.success"));
          const shadow = success ? getComputedStyle(success).boxShadow : "";
          const bar = /(rgba?\([^)]*\)|color\([^)]*\))/.exec(shadow)?.[1] ?? "rgba(0, 0, 0, 0)";
          out[theme] = {
            text: contrast(getComputedStyle(section).color, bg),
            stepBorder: contrast(getComputedStyle(step).borderLeftColor, bg),
            badgeBorder: contrast(getComputedStyle(badge).borderTopColor, bg),
            successMark: success ? contrast(bar, bg) : 0,
            successText: success ? contrast(getComputedStyle(success).color, getComputedStyle(success).backgroundColor === "rgba(0, 0, 0, 0)" ? bg : bg) : 0,
          };
        }
        return out;
      },
      origin,
      lang,
      rulings,
    );
    assert.deepEqual(errors, [], lang);
    for (const theme of /** @type {const} */ (["light", "dark"])) {
      const m = report[theme];
      assert.ok(m.text >= 7, `${lang} ${theme}: text ${m.text}`);
      assert.ok(m.stepBorder >= 2.5, `${lang} ${theme}: a step's border ${m.stepBorder}:1`);
      assert.ok(m.badgeBorder >= 1.8, `${lang} ${theme}: a rule badge's border ${m.badgeBorder}:1`);
      assert.ok(m.successMark >= 3, `${lang} ${theme}: a success die's mark ${m.successMark}:1 (WCAG 1.4.11: 3:1)`);
    }
    if (writeDocs) await (await page.$("#shot"))?.screenshot({ path: join(images, `dark-theme-${lang}.png`) });
    await page.close();
  }
});
