/**
 * The ruling cards as a table reads them, in headless Chromium with the module's stylesheet and
 * language files, in a 300 px chat column: real sidecar rulings (its World, seeded dice) made into
 * cards by the module's own code (`cardData`, `cardDataHtml`), in en, de and zh-CN. A damage card
 * for three targets fits in 400 px; a round that changed nothing is one line; the undo card names
 * the ruling by its headline; a refused undo lists the later rulings and offers "undo them all".
 * Writes cards-<lang>.png to the temp folder, or with VTT_BRIDGE_WRITE_SCREENSHOTS=1 to docs/images/.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { langs, LANGS } from "./helpers/i18n.mjs";
import { moduleBrowser, modulePage, moduleRoot } from "./helpers/module-page.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";


/** The most a damage card for three targets may take in a 300 px column (issue 35). */
const THREE_TARGETS_PX = 400;

const goblin = (/** @type {string} */ name, /** @type {Record<string, any>} */ iwr = {}) => ({ name, health: { max: 7 }, attributes: { PER: 2 }, skills: { investigation: 1 }, iwr });
const STATE = {
  scene: { id: "s", round: 0, gridDistance: 1.5, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 8 }, attributes: { PER: 3 }, skills: { investigation: 2 } },
    "Actor.g1": goblin("Goblin 1"),
    "Actor.g2": goblin("Goblin 2", { weaknesses: [{ type: "fire", value: 2 }] }),
    "Actor.g3": goblin("Goblin 3", { resistances: [{ type: "fire", value: 3 }] }),
    "Actor.thief": { name: "Thief", attributes: { DEX: 3 }, skills: { stealth: 3 }, antiDetection: [{ name: "shadows", essence: "natural", rank: "unranked" }] },
  },
  tokens: {
    tokAyla: { actor: "Actor.ayla", x: 0, y: 0 },
    tokG1: { actor: "Actor.g1", x: 200, y: 0 },
    tokG2: { actor: "Actor.g2", x: 300, y: 0 },
    tokG3: { actor: "Actor.g3", x: 400, y: 0 },
    tokThief: { actor: "Actor.thief", x: 300, y: 200 },
  },
};
const NAMES = { "Actor.ayla": "Ayla", "Actor.g1": "Goblin 1", "Actor.g2": "Goblin 2", "Actor.g3": "Goblin 3", tokAyla: "Ayla", tokG1: "Goblin 1", tokG2: "Goblin 2", tokG3: "Goblin 3", "Actor.thief": "Thief", tokThief: "Thief" };
const fire = (/** @type {string} */ target, /** @type {number} */ amount) => ({ kind: "damage", target, instances: [{ amount, grade: "L", type: "fire" }] });

test("headless Chromium: cards lead with their headline in a 300 px column in en, de and zh-CN; three targets within 400 px, a quiet round on one line", async (t) => {
  // a0 the batch, a1 a later hit on Goblin 2, a2 its undo, a3 a round where the goblins spot the thief
  const [batch, later, undo, round] = await sidecarRulings(STATE, [
    { kind: "batch", actions: [fire("Actor.g1", 4), fire("Actor.g2", 4), fire("Actor.g3", 4)] },
    fire("Actor.g2", 1),
    { kind: "undo", action: "a1" },
    { kind: "round", round: 1 },
  ]);
  // a round where no one hides: nothing changed
  const { "Actor.thief": _thief, ...seen } = STATE.actors;
  const { tokThief: _token, ...tokens } = STATE.tokens;
  const [quiet] = await sidecarRulings({ ...STATE, actors: seen, tokens }, [{ kind: "round", round: 1 }]);
  assert.ok(round.log.some((/** @type {any} */ s) => s.key === "DET-8.round" && s.data.changed > 0), "the round changed a pair");
  for (const r of [batch, later, round, quiet, undo]) assert.ok(Array.isArray(r.log), JSON.stringify(r).slice(0, 300));
  const { browser, origin } = await moduleBrowser(t);
  const folder = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1" ? join(moduleRoot, "..", "docs", "images") : tmpdir();
  /** @type {Record<string, Record<string, number>>} */
  const heights = {};
  for (const lang of LANGS) {
    // a chat column as Foundry's sidebar gives it: 300 px wide, parchment, each message a padded box
    const { page, errors } = await modulePage(browser, origin, {
      width: 320,
      height: 1400,
      bodyStyle: "margin:0;background:#d9d4c5;font:13px 'Signika', sans-serif;",
      body: '<ol id="chat" style="width:300px;margin:0;padding:0 0 0 10px;list-style:none;box-sizing:border-box"></ol>',
    });
    await page.addStyleTag({ content: ".chat-message{margin:6px 0;padding:6px;background:#f1ede3;border:1px solid #b5ac98;border-radius:4px}.message-sender{font-weight:bold;font-size:12px;color:#4b4a44;margin-bottom:3px}button{font:inherit}" });
    heights[lang] = await page.evaluate(
      async (origin, tree, lang, rulings, names) => {
        const w = /** @type {any} */ (window);
        const lookup = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ node, part) => node?.[part], tree);
        const text = (/** @type {string} */ key) => (typeof lookup(key) === "string" ? lookup(key) : undefined);
        const i18n = {
          lang,
          has: (/** @type {string} */ key) => text(key) !== undefined,
          localize: (/** @type {string} */ key) => text(key) ?? key,
          format: (/** @type {string} */ key, /** @type {Record<string, string>} */ data = {}) => (text(key) ?? key).replace(/{([^}]+)}/g, (/** @type {string} */ m, /** @type {string} */ k) => (k in data ? data[k] : m)),
        };
        w.game = { user: { isGM: true, name: "Mara" }, i18n };
        const { cardData, headlineSource, laterRulings, undoAllActions } = await import(`${origin}/scripts/core/headline.mjs`);
        const { cardDataHtml } = await import(`${origin}/scripts/foundry/ruling-messages.mjs`);
        const { namedIds } = await import(`${origin}/scripts/core/chat-cards.mjs`);
        const nameOf = (/** @type {string} */ id) => /** @type {Record<string, string>} */ (names)[id];
        const data = (/** @type {any} */ r, /** @type {string} */ kind, /** @type {string|null} */ by) =>
          cardData({ log: r.log, rolls: r.rolls ?? [], kind, by, names: nameOf, ids: namedIds(r.log), summary: null });
        const batchCard = data(rulings.batch, "batch", "Ayla");
        const laterCard = data(rulings.later, "damage", "Ayla");
        const undoCard = { ...data(rulings.undo, "undo", "Mara"), undo: { mode: "undo", undid: laterCard.source, kind: "damage", rev: 2 } };
        // the refused undo of the batch: the sidecar's conflict names the later hit (its details' `rulings`)
        const later = laterRulings([{ path: ["actors", "Actor.g2", "health", "lethal"], message: "changed later", rulings: [{ kind: "damage", action: "a1", rev: 2 }] }]);
        const refusalCard = {
          ...data({ log: [] }, "undo", "Mara"),
          refusal: { refused: batchCard.source, kind: "batch", rev: 1, later: later.map((/** @type {any} */ r) => ({ kind: r.kind, rev: r.rev, source: laterCard.source })), actions: undoAllActions(later, "a0") },
        };
        void headlineSource;
        const cards = {
          batch: [batchCard, "Ayla"],
          round: [data(rulings.round, "round", null), "vtt-bridge"],
          quiet: [data(rulings.quiet, "round", null), "vtt-bridge"],
          undo: [undoCard, "Mara"],
          refusal: [refusalCard, "Mara"],
          // the batch again with its "Why" opened: the rule steps are all still there
          batchOpen: [batchCard, "Ayla"],
        };
        const chat = /** @type {HTMLElement} */ (document.getElementById("chat"));
        /** @type {Record<string, number>} */
        const out = {};
        for (const [name, [card, speaker]] of Object.entries(cards)) {
          const li = document.createElement("li");
          li.className = "chat-message";
          li.dataset.card = name;
          li.innerHTML = `<header class="message-sender">${speaker}</header>` + cardDataHtml(card, i18n, true);
          chat.append(li);
          if (name === "batchOpen") li.querySelector("details")?.setAttribute("open", "");
          out[name] = li.querySelector(".vtt-bridge-ruling")?.getBoundingClientRect().height ?? -1;
          out[`${name}Line`] = parseFloat(getComputedStyle(/** @type {Element} */ (li.querySelector(".vtt-bridge-ruling"))).lineHeight);
        }
        return out;
      },
      origin,
      langs[lang],
      lang,
      { batch, later, round, quiet, undo },
      NAMES,
    );
    assert.deepEqual(errors, [], lang);
    const shot = /** @type {Buffer} */ (await page.screenshot({ clip: { x: 0, y: 0, width: 310, height: Math.ceil(await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById("chat")).getBoundingClientRect().bottom + 6)) } }));
    writeFileSync(join(folder, `ruling-cards-${lang}.png`), shot);
    const h = heights[lang];
    assert.ok(h.batch > 0 && h.batch <= THREE_TARGETS_PX, `${lang}: a damage card for three targets is ${h.batch} px tall`);
    assert.ok(h.quiet > 0 && h.quiet < 2 * h.quietLine, `${lang}: a quiet round takes ${h.quiet} px, more than one line of ${h.quietLine} px`);
    await page.close();
  }
  if (process.env.VTT_BRIDGE_CARD_HEIGHTS) console.log(JSON.stringify(heights));
});
