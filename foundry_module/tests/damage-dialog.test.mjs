/**
 * Issue 35 in headless Chromium: the damage dialog opened from a roll card's "Apply as damage", as
 * the real wiring builds it (damage-tools.mjs `damageDialog`, the real language files and the
 * module's stylesheet), its preview from the real sidecar's `preview` of the batch it would send
 * (three targets attacked from Ayla's token: the Ogre resists fire 5, the Thief takes it all, the
 * Ghost, which Ayla locates only approximately, takes half: DET-10). English, German and
 * Chinese, in a dialog of Foundry's usual width: no field or preview wider than the dialog, the
 * Health numbers right-aligned in their columns, every word localized. With
 * VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes docs/images/damage-dialog-{en,de,zh-CN}.png.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { foundryWindow, moduleBrowser, modulePage, moduleRoot } from "./helpers/module-page.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const images = join(moduleRoot, "..", "docs", "images");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";

const STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, detection: [{ name: "sight", sense: "sight", essence: "magical", rank: "D" }] },
    "Actor.thief": { name: "Thief", health: { max: 7 } },
    "Actor.ogre": { name: "Ogre", health: { max: 9 }, iwr: { resistances: [{ type: "fire", value: 5 }] } },
    "Actor.ghost": { name: "Ghost", health: { max: 5 }, antiDetection: [{ name: "veil", essence: "magical", rank: "D" }] },
  },
  tokens: {
    tA: { actor: "Actor.ayla", x: 400, y: 400 },
    tT: { actor: "Actor.thief", x: 800, y: 400 },
    tO: { actor: "Actor.ogre", x: 400, y: 800 },
    tG: { actor: "Actor.ghost", x: 1200, y: 400 },
  },
};
const TARGETS = [
  { actor: "Actor.thief", token: "tT", name: "Thief" },
  { actor: "Actor.ogre", token: "tO", name: "Ogre" },
  { actor: "Actor.ghost", token: "tG", name: "Ghost" },
];
const FORM = { amount: "6", grade: "L", type: "fire" };

test("headless Chromium: the damage dialog's preview of three targets fits a Foundry dialog, numbers aligned, in English, German and Chinese", async (t) => {
  // the batch the dialog sends for these values, and the real sidecar's preview of it
  const batch = {
    kind: "batch",
    actions: TARGETS.map(({ actor, token }) => ({ kind: "damage", target: actor, instances: [{ amount: 6, grade: "L", type: "fire" }], attack: { attacker: "tA", token, successes: 6 } })),
  };
  const [answer] = await sidecarRulings(STATE, [{ query: { kind: "preview", action: batch } }]);
  assert.ok(answer.data?.log?.length, JSON.stringify(answer));
  assert.ok(answer.data.log.some((/** @type {any} */ s) => s.key === "DET-10.damageHalved" && s.data.target === "tG"), "the ghost (approximate to Ayla) takes half");
  const { browser, origin } = await moduleBrowser(t);

  for (const lang of ["en", "de", "zh-CN"]) {
    // Foundry's dialog: a window of 600 px (the dialog's `position.width`), its header, content and button
    const { page, errors } = await modulePage(browser, origin, { lang, width: 640, height: 560, body: foundryWindow({ id: "dialog", width: 600, form: 'id="content"', button: "ok" }) });
    const report = await page.evaluate(
      async (origin, lang, targets, form, preview) => {
        const strings = await (await fetch(`${origin}/lang/${lang}.json`)).json();
        const find = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], strings);
        /** @type {string[]} */
        const missing = [];
        /** @param {string} key @param {Record<string, string>} [data] */
        const localize = (key, data = {}) => {
          const text = find(key);
          if (typeof text !== "string") missing.push(key);
          return String(text ?? key).replace(/\{(\w+)\}/g, (_, k) => data[k] ?? `{${k}}`);
        };
        const { damageDialog } = await import(`${origin}/scripts/foundry/damage-tools.mjs`);
        const names = Object.fromEntries([...targets.map((/** @type {any} */ t) => [t.token, t.name]), ["tA", "Ayla"]]);
        const placeables = Object.entries(names).map(([id, name]) => ({ id, document: { id, name }, actor: { uuid: `Actor.${name.toLowerCase()}`, isOwner: true } }));
        const env = {
          game: { i18n: { lang, has: (/** @type {string} */ key) => typeof find(key) === "string" }, user: { isGM: true } },
          canvas: { tokens: { get: (/** @type {string} */ id) => (names[id] ? { document: { name: names[id] } } : undefined), placeables, controlled: [] } },
          ui: { notifications: { error: (/** @type {string} */ m) => missing.push(`error: ${m}`), warn: (/** @type {string} */ m) => missing.push(`warn: ${m}`) } },
          FormData,
          foundry: {
            applications: {
              api: {
                DialogV2: {
                  // shows the dialog as Foundry lays it out, then is closed (nothing is applied)
                  async prompt(/** @type {any} */ options) {
                    /** @type {HTMLElement} */ (document.getElementById("title")).textContent = options.window.title;
                    /** @type {HTMLElement} */ (document.getElementById("content")).innerHTML = options.content;
                    /** @type {HTMLElement} */ (document.getElementById("ok")).textContent = options.ok.label;
                    return null;
                  },
                },
              },
            },
          },
        };
        await damageDialog(
          { targets: targets.map((/** @type {any} */ t) => ({ actor: t.actor, token: t.token })), values: form, fallback: "", source: "Actor.ayla" },
          { env, localize, sendAction: () => undefined, preview: async () => preview },
        );
        const dialog = /** @type {HTMLElement} */ (document.getElementById("dialog"));
        const table = /** @type {HTMLElement} */ (dialog.querySelector(".vtt-bridge-preview"));
        const overflowing = [...dialog.querySelectorAll("*")].filter((el) => el.getBoundingClientRect().right > dialog.getBoundingClientRect().right + 0.5).map((el) => el.outerHTML.slice(0, 80));
        // each number column: its cells share one right edge (right-aligned)
        const columns = [...table.querySelectorAll("tbody tr")].map((row) => [...row.querySelectorAll("td.num")].map((td) => {
          const range = document.createRange();
          range.selectNodeContents(td);
          return Math.round(range.getBoundingClientRect().right);
        }));
        // a target's name is never broken inside a word (a short name: one line)
        const brokenNames = [...table.querySelectorAll("tbody th")].filter((th) => {
          const range = document.createRange();
          range.selectNodeContents(th);
          return range.getClientRects().length > 1;
        }).map((th) => th.textContent);
        const rows = [...table.querySelectorAll("tbody tr")].map((row) => /** @type {HTMLElement} */ (row).innerText.replace(/\s+/g, " ").trim());
        return { missing, overflowing, brokenNames, columns, rows, title: document.getElementById("title")?.textContent, height: dialog.getBoundingClientRect().height, text: dialog.innerText };
      },
      origin,
      lang,
      TARGETS,
      FORM,
      answer.data,
    );
    assert.deepEqual(errors, [], lang);
    assert.deepEqual(report.missing, [], `${lang}: every word is in the language file`);
    assert.deepEqual(report.overflowing, [], `${lang}: nothing is wider than the dialog`);
    assert.equal(report.rows.length, 3, `${lang}: a row per target`);
    assert.deepEqual(report.brokenNames, [], `${lang}: each name on one line`);
    assert.equal(report.columns.length, 3);
    for (let column = 0; column < 4; column++) {
      const edges = new Set(report.columns.map((row) => row[column]));
      assert.equal(edges.size, 1, `${lang}: column ${column}'s numbers share a right edge: ${JSON.stringify(report.columns)}`);
    }
    // the Ogre's row: 6 fire resisted to 1, 1 lethal of 9; the Ghost's 6 of 5: its status says so
    assert.match(report.rows[1], /6 .+ → 1/, `${lang}: ${report.rows[1]}`);
    assert.match(report.rows[1], /8\/9/, `${lang}: ${report.rows[1]}`);
    assert.match(String(report.title), /Thief.*Ogre.*Ghost/);
    // the Ghost's row: 6 fire halved to 3 (DET-10), named by its token's name, not its id
    assert.match(report.rows[2], /Ayla.*Ghost.*6 → 3/, `${lang}: ${report.rows[2]}`);
    assert.doesNotMatch(report.rows[2], /\btA\b|\btG\b/, `${lang}: tokens by name`);
    if (lang !== "en") assert.doesNotMatch(report.text, /\b(Target|Deals|Healthy|Status|lethal|fire|badly injured|Unconscious)\b/, `${lang}: no English left`);
    assert.ok(report.height < 520, `${lang}: the dialog is ${report.height} px tall`);
    if (writeDocs) await (await page.$("#dialog"))?.screenshot({ path: join(images, `damage-dialog-${lang}.png`) });
    await page.close();
  }
});
