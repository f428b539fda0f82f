/**
 * Issue 35 in headless Chromium: the rules sheet as a form of lists (rules-sheet.mjs
 * `rulesSheetHtml`, the real language files and stylesheet, in a window of the sheet's width). A GM
 * gives the Assassin "invisibility, magical, C-Rank" by clicking Add and choosing from selects;
 * what the form submits (read as FormDataExtended reads it) becomes exactly that one write; a wrong
 * range is refused with a sentence naming the list, row and field, and nothing is written. English,
 * German and Chinese; no cell wider than its window, no word left in English. With
 * VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes docs/images/rules-sheet-{en,de,zh-CN}.png.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { launchChromium } from "./helpers/chromium.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const images = join(moduleRoot, "..", "docs", "images");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";

/** The Assassin before the GM edits: a sense beyond the two defaults, IWR, a pool and a Gauge. */
const FLAGS = {
  health: { max: 8 },
  detection: [
    { name: "sight", sense: "sight", capability: "pinpoint" },
    { name: "hearing", sense: "hearing", capability: "approximate" },
    { name: "tremorsense", sense: "touch", essence: "natural", rank: "D", capability: "approximate", range: 30 },
  ],
  immunities: [{ kind: "poison", rank: "C" }, { kind: "condition", subject: "blinded" }],
  iwr: { immunities: [{ type: "bleed" }], weaknesses: [{ type: "silver", value: 3 }], resistances: [{ type: "fire", value: 5, exceptions: ["magical"] }] },
  energyPools: { ki: { name: "Ki", category: "special", keyAttributes: ["RES", "COM"], max: 4, current: 3, sources: ["training"] } },
  gauges: { rage: { name: "Rage", max: null, current: 2, source: "berserker" } },
};

test("headless Chromium: the rules sheet's lists: Add, choose, save one write; a wrong field refused with a sentence; en, de, zh-CN", async (t) => {
  const http = await serveModuleFiles(moduleRoot);
  const { browser, close } = await launchChromium();
  t.after(async () => {
    await close();
    await http.close();
  });
  const css = readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8");

  for (const lang of ["en", "de", "zh-CN"]) {
    const page = await browser.newPage();
    await page.setViewport({ width: 700, height: 1200 });
    /** @type {string[]} */
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${http.origin}/module.json`);
    // the sheet's window: 640 px (its `position.width`), a header, the form and its Save button
    await page.setContent(
      `<!doctype html><html lang="${lang}"><body style="margin:0;background:#3a3a40;font-family:'Signika','Noto Sans','Noto Sans CJK SC',sans-serif;font-size:14px">` +
        `<section id="window" style="box-sizing:border-box;width:640px;margin:12px 20px;background:#f0eee6;color:#191813;border-radius:6px;box-shadow:0 0 12px #000">` +
        `<header id="title" style="padding:6px 10px;background:#23221d;color:#f0f0e0;border-radius:6px 6px 0 0"></header>` +
        `<form id="sheet" class="vtt-bridge rules-sheet" style="padding:8px 10px" novalidate></form>` +
        `<footer style="padding:0 10px 10px"><button id="save" type="button" style="width:100%;line-height:28px"></button></footer></section></body></html>`,
    );
    await page.addStyleTag({ content: css });
    await page.evaluate(
      async (origin, flags) => {
        const strings = await (await fetch(`${origin}/lang/${document.documentElement.lang}.json`)).json();
        const find = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], strings);
        /** @type {string[]} */
        const missing = [];
        const localize = (/** @type {string} */ key) => {
          const text = find(key);
          if (typeof text !== "string") missing.push(key);
          return String(text ?? key);
        };
        const i18n = { localize, format: (/** @type {string} */ key, /** @type {Record<string, string>} */ data) => localize(key).replace(/\{(\w+)\}/g, (m, k) => data[k] ?? m) };
        const sheet = await import(`${origin}/scripts/foundry/rules-sheet.mjs`);
        /** @type {HTMLElement} */ (document.getElementById("title")).textContent = `${localize("VTTBRIDGE.Sheet.Title")}: Assassin`;
        /** @type {HTMLElement} */ (document.getElementById("save")).textContent = localize("VTTBRIDGE.Sheet.Save");
        const form = /** @type {HTMLFormElement} */ (document.getElementById("sheet"));
        form.innerHTML = sheet.rulesSheetHtml(flags, { fields: [], name: "" }, i18n);
        // ApplicationV2's `actions`: a click on [data-action] calls the sheet's handler
        form.addEventListener("click", (event) => {
          const target = /** @type {HTMLElement|null} */ (/** @type {HTMLElement} */ (event.target).closest("[data-action]"));
          if (!target) return;
          if (target.dataset.action === "addRow") sheet.addListRow(/** @type {Element} */ (target.closest("section[data-list]")));
          if (target.dataset.action === "removeRow") sheet.removeListRow(target);
        });
        // FormDataExtended: named, enabled fields; checkboxes as booleans, data-dtype Number as numbers
        const submitted = () => {
          /** @type {Record<string, unknown>} */
          const out = {};
          for (const el of /** @type {any[]} */ ([...form.elements])) {
            if (!el.name || el.disabled || el.closest("template")) continue;
            out[el.name] = el.type === "checkbox" ? el.checked : el.dataset.dtype === "Number" ? (el.value === "" ? null : Number(el.value)) : el.value;
          }
          return out;
        };
        /** @type {any} */ (window).sheetTest = {
          missing,
          save: () => {
            const result = sheet.parseSheetForm(submitted(), flags, { rendered: flags });
            sheet.showSheetErrors(form, result.errors, i18n);
            return result;
          },
        };
      },
      http.origin,
      FLAGS,
    );
    // the GM's clicks: Add under anti-detection, a name, two selects
    await page.click(".list-antiDetection button.add");
    await page.type(".list-antiDetection li.row:last-child .cell-name input", "invisibility");
    await page.select(".list-antiDetection li.row:last-child .cell-essence select", "magical");
    await page.select(".list-antiDetection li.row:last-child .cell-rank select", "C");
    const saved = await page.evaluate(() => /** @type {any} */ (window).sheetTest.save());
    assert.deepEqual(saved.errors, [], lang);
    assert.deepEqual(saved.update, { "flags.vtt-bridge.antiDetection": [{ name: "invisibility", essence: "magical", rank: "C" }] }, `${lang}: only the new means is written`);
    const layout = await page.evaluate(() => {
      const frame = /** @type {HTMLElement} */ (document.getElementById("window")).getBoundingClientRect();
      const overflowing = [...document.querySelectorAll("#sheet *")]
        .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > frame.right - 10 + 0.5)
        .map((el) => el.outerHTML.slice(0, 100));
      const text = /** @type {HTMLElement} */ (document.getElementById("window")).innerText;
      const selects = [...document.querySelectorAll("#sheet select")].map((s) => /** @type {HTMLSelectElement} */ (s).selectedOptions[0]?.textContent ?? "").join(" | ");
      return { overflowing, height: frame.height, text: `${text}\n${selects}`, textareas: document.querySelectorAll("#sheet textarea").length, missing: /** @type {any} */ (window).sheetTest.missing };
    });
    assert.deepEqual(errors, [], lang);
    assert.deepEqual(layout.missing, [], `${lang}: every word is in the language file`);
    assert.deepEqual(layout.overflowing, [], `${lang}: no field wider than the window`);
    assert.equal(layout.textareas, 0, "no raw JSON");
    if (lang !== "en") assert.doesNotMatch(layout.text, /\b(Senses|Rank|Add|Remove|hearing|sight|natural|magical|unranked|exactly|roughly|Resistances|Weaknesses|special)\b/, `${lang}: no English left`);
    if (writeDocs) await (await page.$("#window"))?.screenshot({ path: join(images, `rules-sheet-${lang}.png`) });

    // a weakness to a substance the list does not hold: "other…" shows a field beside the choice
    await page.select(".list-iwrWeaknesses li.row .cell-type select", "__other");
    assert.equal(await page.$eval(".list-iwrWeaknesses li.row .cell-type .other", (el) => getComputedStyle(el).display), "block", `${lang}: the field for another type shows`);
    await page.type(".list-iwrWeaknesses li.row .cell-type .other", "cold-iron");
    const other = await page.evaluate(() => /** @type {any} */ (window).sheetTest.save());
    assert.deepEqual(other.update["flags.vtt-bridge.iwr.weaknesses"], [{ type: "cold-iron", value: 3 }], lang);
    assert.equal(await page.$eval(".list-iwrResistances li.row .cell-type .other", (el) => getComputedStyle(el).display), "none", "hidden while a known type is chosen");

    // a negative range and an empty name: refused, each named in a sentence, nothing written
    await page.evaluate(() => {
      const range = /** @type {HTMLInputElement} */ (document.querySelector(".list-detection li.row:last-child .cell-range input"));
      range.value = "-3";
      /** @type {HTMLInputElement} */ (document.querySelector(".list-gauges li.row .cell-name input")).value = "";
    });
    const refused = await page.evaluate(() => /** @type {any} */ (window).sheetTest.save());
    assert.deepEqual(refused.update, {}, `${lang}: nothing is written`);
    assert.deepEqual(refused.errors.map((/** @type {any} */ e) => e.field), ["list.detection.2.range", "list.gauges.0.name"]);
    const shown = await page.evaluate(() => ({
      text: /** @type {HTMLElement} */ (document.querySelector("#sheet .errors")).innerText,
      marked: [...document.querySelectorAll("#sheet [aria-invalid=true]")].map((el) => el.getAttribute("name")),
    }));
    assert.deepEqual(shown.marked, ["list.detection.2.range", "list.gauges.0.name"]);
    const words = { en: /Senses, row 3, Range/, de: /Sinne, Zeile 3, Reichweite/, "zh-CN": /感官，第 3 行，范围/ };
    assert.match(shown.text, words[/** @type {"en"|"de"|"zh-CN"} */ (lang)], shown.text);
    if (writeDocs && lang === "en") await (await page.$("#window"))?.screenshot({ path: join(images, "rules-sheet-refused-en.png") });
    await page.close();
  }
});
