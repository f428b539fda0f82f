/**
 * A cut ruling's card in headless Chromium's own DOM, with the module's stylesheet and language files
 * (en, de, zh-CN): the card lists the first 60 steps and counts the rest; the GM's "Show steps"
 * reads them page by page through the read function it is given (the connection's `query`, here a
 * stand-in answering as the sidecar's `ruling` query does, from a ruling of 200 hiders) and lists
 * every one, in order. It writes ruling-card-more-<lang>.png (the card's end, the button) and
 * ruling-card-steps-<lang>.png (the list) to the temp folder, or with VTT_BRIDGE_WRITE_SCREENSHOTS=1 to docs/images/.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { langs, LANGS } from "./helpers/i18n.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

test("headless Chromium: a cut round's card counts the steps it leaves out and lists every one when the GM asks", async (t) => {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  // the whole ruling, as the real sidecar makes it: a guard among 200 hiders, a combat round
  const hiders = Array.from({ length: 200 }, (_, i) => `h${i}`);
  const hider = { name: "Hider", attributes: { DEX: 2 }, skills: { stealth: 1 }, antiDetection: [{ name: "invisibility", essence: "magical", rank: "C" }] };
  const state = {
    scene: { id: "s", round: 1 },
    actors: { guard: { name: "Guard", attributes: { PER: 3 }, skills: { investigation: 2 } }, ...Object.fromEntries(hiders.map((h) => [h, { ...hider, name: h }])) },
    tokens: { guard: { actor: "guard", x: 0 }, ...Object.fromEntries(hiders.map((h, i) => [h, { actor: h, x: 100 + 10 * i }])) },
  };
  const [round] = await sidecarRulings(state, [{ kind: "round", round: 2 }]);
  const whole = { log: round.log, rolls: round.rolls };
  assert.ok(whole.log.length > 60 && whole.rolls.length > 10, "a ruling longer than a card");
  const http = await serveModuleFiles(moduleRoot);
  const profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  const browser = await puppeteer.launch({ executablePath, headless: true, userDataDir: profile, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  t.after(async () => {
    await browser.close();
    await http.close();
    rmSync(profile, { recursive: true, force: true });
  });
  for (const lang of LANGS) {
    const page = await browser.newPage();
    await page.setViewport({ width: 420, height: 900 });
    /** @type {string[]} */
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${http.origin}/module.json`);
    await page.setContent('<!doctype html><html><body style="background:#e8e4dc;font:13px sans-serif;width:380px"><ol id="chat"></ol></body></html>');
    await page.addStyleTag({ content: readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8") });
    const seen = await page.evaluate(
      async (origin, tree, lang, whole) => {
        const w = /** @type {any} */ (window);
        const lookup = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ node, part) => node?.[part], tree);
        const text = (/** @type {string} */ key) => (typeof lookup(key) === "string" ? lookup(key) : undefined);
        w.game = {
          user: { isGM: true },
          i18n: {
            lang,
            has: (/** @type {string} */ key) => text(key) !== undefined,
            localize: (/** @type {string} */ key) => text(key) ?? key,
            format: (/** @type {string} */ key, /** @type {Record<string, string>} */ data = {}) => (text(key) ?? key).replace(/{([^}]+)}/g, (/** @type {string} */ m, /** @type {string} */ k) => (k in data ? data[k] : m)),
          },
        };
        w.ui = { notifications: { error: (/** @type {string} */ m) => { throw new Error(m); } } };
        const { renderCard, MAX_CARD_STEPS, MAX_CARD_ROLLS } = await import(`${origin}/scripts/core/chat-cards.mjs`);
        const { decorateRulingCard } = await import(`${origin}/scripts/foundry/ruling-messages.mjs`);
        /** @type {Record<string, number>} */
        const keys = {};
        for (const step of whole.log) keys[step.key] = (keys[step.key] ?? 0) + 1;
        const summary = { steps: whole.log.length, rolls: whole.rolls.length, keys };
        const root = document.createElement("li");
        root.innerHTML = renderCard({ log: whole.log.slice(0, MAX_CARD_STEPS), rolls: whole.rolls.slice(0, MAX_CARD_ROLLS), kind: "round", summary }, w.game.i18n);
        /** @type {any} */ (document.getElementById("chat")).append(root);
        /** @type {any[]} */
        const queries = [];
        const read = async (/** @type {any} */ query) => {
          queries.push(query);
          return { log: whole.log.slice(query.offset, query.offset + query.limit), rolls: whole.rolls.slice(query.offset, query.offset + query.limit) };
        };
        const flag = { id: "round-2", rev: 2, kind: "round", undone: false, steps: summary.steps, rolls: summary.rolls };
        decorateRulingCard({ getFlag: () => flag, author: { isGM: true } }, root, () => {}, read);
        const button = /** @type {HTMLButtonElement} */ (root.querySelector(".vtt-bridge-read-steps"));
        button.scrollIntoView({ block: "end" });
        w.clickAndList = async () => {
          button.click();
          for (let i = 0; i < 100 && root.querySelector(".vtt-bridge-read-steps"); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
          const listed = [...root.querySelectorAll(".vtt-bridge-all-steps .vtt-bridge-step")].map((li) => li.getAttribute("data-key"));
          root.querySelector(".vtt-bridge-all-steps")?.scrollIntoView(); // the list's first lines in view
          return { queries, listed, buttonLeft: !!root.querySelector(".vtt-bridge-read-steps") };
        };
        return { label: button?.textContent ?? null, more: [...root.querySelectorAll(".vtt-bridge-more")].map((li) => li.textContent) };
      },
      http.origin,
      langs[lang],
      lang,
      whole,
    );
    assert.ok(seen.label && !seen.label.includes("VTTBRIDGE"), `${lang}: the button is worded: ${seen.label}`);
    assert.equal(seen.more.length, 2, `${lang}: the left-out steps and rolls are counted`);
    const folder = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1" ? join(moduleRoot, "..", "docs", "images") : tmpdir();
    writeFileSync(join(folder, `ruling-card-more-${lang}.png`), /** @type {Buffer} */ (await page.screenshot()));
    const listed = await page.evaluate(() => /** @type {any} */ (window).clickAndList());
    assert.deepEqual(errors, [], lang);
    assert.deepEqual(listed.queries, [{ kind: "ruling", action: "round-2", offset: 0, limit: 500 }]);
    assert.deepEqual(listed.listed, whole.log.map((/** @type {any} */ s) => s.key), `${lang}: every step, in order`);
    assert.equal(listed.buttonLeft, false);
    writeFileSync(join(folder, `ruling-card-steps-${lang}.png`), /** @type {Buffer} */ (await page.screenshot()));
    await page.close();
  }
});
