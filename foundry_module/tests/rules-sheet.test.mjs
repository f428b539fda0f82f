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
import { join } from "node:path";
import { test } from "node:test";

import { foundryWindow, moduleBrowser, modulePage, moduleRoot } from "./helpers/module-page.mjs";

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
  const { browser, origin } = await moduleBrowser(t);

  for (const lang of ["en", "de", "zh-CN"]) {
    // the sheet's window: 640 px (its `position.width`), a header, the form and its Save button
    const { page, errors } = await modulePage(browser, origin, { lang, width: 700, height: 1200, body: foundryWindow({ id: "window", width: 640, form: 'id="sheet" class="vtt-bridge rules-sheet" novalidate', button: "save" }) });
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
      origin,
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
