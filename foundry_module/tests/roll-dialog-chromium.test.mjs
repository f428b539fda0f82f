/**
 * Issue 35 in headless Chromium: the roll dialog of a Chronicles of Darkness character as the real
 * wiring builds it (roll-dialog.mjs `openRollDialog`, the mta adapter reading the actor as
 * main.mjs does, the real language files and the module's stylesheet), in a Foundry-sized dialog,
 * after the user built a pool in the real DOM (Strength + Brawl, one die more, Willpower) and chose
 * an opponent (its Dexterity + Athletics): the total follows, every word localized, nothing wider
 * than the dialog. English, German and Chinese. With VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes
 * docs/images/roll-dialog-{en,de,zh-CN}.png.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { foundryWindow, moduleBrowser, modulePage, moduleRoot } from "./helpers/module-page.mjs";
import { mtaCharacter } from "./helpers/mta-actors.mjs";

const images = join(moduleRoot, "..", "docs", "images");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";

/** A CofD character's data as the mta system publishes it, with one more Skill dot set. @param {any} o @param {[string, string, number][]} skills */
function character(o, skills) {
  const data = /** @type {any} */ (mtaCharacter("0.16", o));
  for (const [group, key, value] of skills) data.system[group][key] = { value, final: value, specialties: [], isRote: false };
  return data;
}
const AYLA = character({ str: 3, wits: 3 }, [["skills_physical", "brawl", 2]]);
const GOBLIN = character({ dex: 3 }, [["skills_physical", "athletics", 2]]);

test("headless Chromium: the roll dialog of a CofD character, opposed, its total as built, in English, German and Chinese", async (t) => {
  const { browser, origin } = await moduleBrowser(t);
  const expected = {
    en: { total: "Pool: 5 + 1 + 3 Willpower = 9 dice", words: ["Wits (3)", "Brawl (2)", "Opposed roll", "Goblin", "Dexterity", "Athletics"] },
    de: { total: "Pool: 5 + 1 + 3 Willenskraft = 9 Würfel", words: ["Geistesschärfe (3)", "Handgemenge (2)", "Vergleichender Wurf", "Geschick"] },
    "zh-CN": { total: "骰池：5 + 1 + 3 意志力 = 9骰", words: ["机智 (3)", "格斗 (2)", "对抗检定", "敏捷"] },
  };

  for (const lang of /** @type {const} */ (["en", "de", "zh-CN"])) {
    // Foundry's dialog: a window of 460 px (the dialog's `position.width`), header, form, button
    const { page, errors } = await modulePage(browser, origin, { lang, width: 520, height: 560, body: foundryWindow({ id: "dialog", width: 460, form: 'id="content"', button: "ok" }) });
    const report = await page.evaluate(
      async (origin, lang, ayla, goblin) => {
        const strings = await (await fetch(`${origin}/lang/${lang}.json`)).json();
        const find = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], strings);
        /** @type {string[]} */
        const missing = [];
        /** @param {string} key @param {Record<string, string>} [data] */
        const t = (key, data = {}) => {
          const text = find(key);
          // a trait's name is looked up under several keys (roll-dialog.mjs traitLabel): a miss there is by design
          if (typeof text !== "string" && !/^VTTBRIDGE\.(Roll\.Cofd|Attribute|Skill)\./.test(key)) missing.push(key);
          return String(text ?? key).replace(/\{(\w+)\}/g, (_, k) => data[k] ?? `{${k}}`);
        };
        const { openRollDialog } = await import(`${origin}/scripts/foundry/roll-dialog.mjs`);
        const { actorDataOf, actorStateWithSystem, adapterSelection } = await import(`${origin}/scripts/systems/index.mjs`);
        const pick = adapterSelection({ choice: "auto", mapping: "" }).pick;
        const actor = (/** @type {string} */ id, /** @type {string} */ name, /** @type {any} */ data) => ({ uuid: `Actor.${id}`, name, isOwner: id === "ayla", flags: {}, ...data });
        const aylaActor = actor("ayla", "Ayla", ayla);
        const goblinActor = actor("goblin", "Goblin", goblin);
        const placeables = [
          { id: "tA", document: { id: "tA", name: "Ayla" }, actor: aylaActor, visible: true },
          { id: "tG", document: { id: "tG", name: "Goblin" }, actor: goblinActor, visible: true },
        ];
        /** @type {HTMLElement} */
        const dialog = /** @type {any} */ (document.getElementById("dialog"));
        const form = /** @type {HTMLFormElement} */ (document.getElementById("content"));
        /** @param {string} name @param {string|boolean} value a user's change: the value, then `change` */
        const change = (name, value) => {
          const field = /** @type {any} */ (form.elements.namedItem(name));
          if (typeof value === "boolean") field.checked = value;
          else field.value = value;
          field.dispatchEvent(new Event("change", { bubbles: true }));
        };
        const env = {
          game: { user: { isGM: false, targets: new Set() } },
          canvas: { tokens: { placeables, controlled: [] } },
          FormData,
          foundry: {
            applications: {
              api: {
                DialogV2: {
                  async prompt(/** @type {any} */ options) {
                    /** @type {HTMLElement} */ (document.getElementById("title")).textContent = options.window.title;
                    form.innerHTML = options.content;
                    /** @type {HTMLElement} */ (document.getElementById("ok")).textContent = options.ok.label;
                    options.render(new Event("render"), { element: dialog });
                    for (const [name, value] of /** @type {[string, string|boolean][]} */ ([["attribute", "STR"], ["skill", "brawl"], ["modifier", "1"], ["willpower", true], ["again", "9"], ["opponent", "Actor.goblin"]])) change(name, value);
                    change("opposedAttribute", "DEX");
                    change("opposedSkill", "athletics");
                    return null; // shown, then closed: nothing is rolled
                  },
                },
              },
            },
          },
        };
        await openRollDialog(aylaActor, {
          env,
          t,
          sendAction: () => undefined,
          notifyError: (/** @type {string} */ m) => missing.push(`error: ${m}`),
          stateOf: (/** @type {any} */ a) => actorStateWithSystem(a, pick).state,
          systemOf: (/** @type {any} */ a) => pick(actorDataOf(a))?.id ?? null,
        });
        const overflowing = [...dialog.querySelectorAll("*")].filter((el) => el.getBoundingClientRect().right > dialog.getBoundingClientRect().right + 0.5).map((el) => el.outerHTML.slice(0, 80));
        const selected = [...form.querySelectorAll("select")].map((s) => s.selectedOptions[0]?.textContent ?? "");
        return { missing, overflowing, text: dialog.innerText, selected, total: form.querySelector(".vtt-bridge-roll-total")?.textContent, height: dialog.getBoundingClientRect().height };
      },
      origin,
      lang,
      AYLA,
      GOBLIN,
    );
    assert.deepEqual(errors, [], lang);
    assert.deepEqual(report.missing, [], `${lang}: every word is in the language file`);
    assert.deepEqual(report.overflowing, [], `${lang}: nothing is wider than the dialog`);
    assert.equal(report.total, expected[lang].total, lang);
    for (const word of expected[lang].words) assert.ok(report.text.includes(word) || report.selected.some((s) => s.includes(word)), `${lang}: ${word} in ${report.text} / ${report.selected}`);
    assert.ok(!report.selected.some((s) => /\(\d+\)/.test(s) && /Goblin|Dexterity|Geschick|敏捷/.test(s) && s.includes("Dex")), `${lang}: no dots of the Goblin's sheet (not Ann's): ${report.selected}`);
    if (lang !== "en") assert.doesNotMatch(report.text, /\b(Attribute|Skill|Modifiers|Opposed|Against|Willpower|dice)\b/, `${lang}: no English left`);
    assert.ok(report.height < 540, `${lang}: the dialog is ${report.height} px tall`);
    if (writeDocs) await (await page.$("#dialog"))?.screenshot({ path: join(images, `roll-dialog-${lang}.png`) });
    await page.close();
  }
});
