/**
 * The GM's view of who locates whom in headless Chromium, with the real pixi.js (7.4.2) and the
 * module's real code, on the real sidecar's rulings (its World, seeded dice): the badges on the
 * tokens some observer does not pinpoint, one badge's words saying why (from the sidecar's explain
 * answers), and the panel of pairs, in English, German and Chinese. The PNGs go to docs/images/
 * only with VTT_BRIDGE_WRITE_SCREENSHOTS=1 (`npm run screenshots`).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { planPatch } from "../scripts/core/apply-patch.mjs";
import { MODULE_ID } from "../scripts/core/constants.mjs";
import { deletionOperator } from "../scripts/foundry/compat.mjs";
import { mergeUpdate } from "./helpers/fake-foundry.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";
const imageDir = writeDocs ? join(moduleRoot, "..", "docs", "images") : mkdtempSync(join(tmpdir(), "vtt-bridge-gm-locate-"));
const PIXI_PATH = join(moduleRoot, "node_modules", "pixi.js", "dist", "pixi.mjs");

const CLOAK = [{ name: "cloak", essence: "magical", rank: "C" }];
const TOKENS = [
  { id: "tA", name: "Ayla", actor: "Actor.ayla", x: 100, y: 500, squares: 1, color: 0x3f7fd0 },
  { id: "tB", name: "Bram", actor: "Actor.bram", x: 100, y: 200, squares: 1, color: 0x8a5fd0 },
  { id: "tT", name: "Thief", actor: "Actor.thief", x: 600, y: 200, squares: 1, color: 0xd08a3f },
  { id: "tO", name: "Ogre", actor: "Actor.ogre", x: 500, y: 500, squares: 2, color: 0xb04a3a },
];
const STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, detection: [{ name: "ears", sense: "hearing", essence: "natural", rank: "B" }] },
    "Actor.bram": { name: "Bram", health: { max: 7 } },
    "Actor.thief": { name: "Thief", health: { max: 7 }, antiDetection: CLOAK },
    "Actor.ogre": { name: "Ogre", health: { max: 9 } },
  },
  tokens: Object.fromEntries(TOKENS.map((t) => [t.id, { actor: t.actor, x: t.x, y: t.y }])),
};

/** @type {Awaited<ReturnType<typeof serveModuleFiles>>|null} */
let http = null;
/** @type {import("puppeteer-core").Browser|null} */
let browser = null;
let profile = "";

before(async () => {
  http = await serveModuleFiles(moduleRoot, { extra: [PIXI_PATH] });
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath}`);
  profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  browser = await puppeteer.launch({ executablePath, headless: true, userDataDir: profile, args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-first-run", "--disable-sync"] });
});

after(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await http?.close();
  if (!writeDocs) rmSync(imageDir, { recursive: true, force: true });
});

/** The sidecar's document after Bram's lost search and the GM's pin, and its explain answers about the Thief. */
async function ruled() {
  const out = await sidecarRulings(STATE, [
    { kind: "contest", observer: "tB", target: "tT" },
    { kind: "pinLocate", observer: "tB", target: "tT", state: "approximate", until: "scene", by: "Kim" },
    { query: { kind: "state" } },
    { query: { kind: "explain", observer: "tA", target: "tT" } },
    { query: { kind: "explain", observer: "tB", target: "tT" } },
    { query: { kind: "pins" } },
    { query: { kind: "explain", observer: "tO", target: "tT" } },
  ]);
  const doc = out[2].state;
  // the tokens' flags as the module's own planner writes them from a sync of that document
  const flags = Object.fromEntries(TOKENS.map((t) => [t.id, { flags: { [MODULE_ID]: { visibility: {}, areas: {} } } }]));
  const plan = planPatch(null, ["visibility", "areas"].map((part) => ({ op: "replace", path: `/${part}`, value: doc[part] })), {
    mode: "sync",
    statusIds: new Set(),
    deletion: deletionOperator({}),
  });
  assert.equal(plan.resync, false, plan.reason);
  for (const [id, update] of plan.tokenUpdates) mergeUpdate(flags[id], update);
  const tokens = TOKENS.map((t) => ({ ...t, ...flags[t.id].flags[MODULE_ID] }));
  return { tokens, answers: { tA: out[3], tB: out[4], tO: out[6] }, pins: out[5].data.pins };
}

test("DET-4 the GM's view in Chromium: badges, a badge's words from explain, the panel; English, German, Chinese", async () => {
  assert.ok(browser && http);
  const view = await ruled();
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  await page.setViewport({ width: 1660, height: 780 });
  await page.goto(`${http.origin}/tests/browser/gm-locate.html`);
  await page.waitForFunction(() => /** @type {any} */ (window).vttReady === true, { timeout: 60_000 });
  const expected = {
    en: { why: /ears counts as Rank A against magical anti-detection Rank C: roughly/, pin: /pinned by Kim to roughly until the end of the scene/, panel: /Who locates whom[\s\S]*Pin the ticked pairs/ },
    de: { why: /ears zählt als Rang A gegen Antiortung \(magisch\) Rang C: ungefähr/, pin: /von Kim auf ungefähr festgelegt/, panel: /Wer ortet wen[\s\S]*Angekreuzte Paare festlegen/ },
    "zh-CN": { why: /ears视为等级A，对抗.*反侦测等级C：模糊定位/, pin: /Kim固定为模糊定位/, panel: /谁定位谁[\s\S]*固定勾选的配对/ },
  };
  for (const [lang, words] of Object.entries(expected)) {
    const shown = await page.evaluate((spec) => /** @type {any} */ (window).vtt.renderGmView(spec), { lang, tokens: view.tokens, answers: view.answers, hovered: "tT", pins: view.pins });
    assert.deepEqual(errors, []);
    const hidden = view.tokens.filter((t) => Object.keys(t.visibility).length).map((t) => t.id);
    assert.ok(hidden.includes("tT"));
    assert.deepEqual([...shown.badges].sort(), hidden.sort(), "a badge on each token some observer does not pinpoint, none elsewhere");
    assert.match(shown.words, words.why, `${lang}: ${shown.words}`);
    assert.match(shown.words, words.pin, `${lang}: ${shown.words}`);
    assert.match(shown.panelText, words.panel, `${lang}: ${shown.panelText}`);
    assert.ok(shown.rows >= 3, `the panel's pairs (${shown.rows})`);
    if (lang !== "en") assert.doesNotMatch(`${shown.words}\n${shown.panelText}`, /\b(roughly|counts|against|pinned|Observer|Target|pairs?|until|sight|hearing)\b/, `${lang}: English left`);
    await page.screenshot({ path: join(imageDir, `gm-locate-${lang}.png`) });
  }
  await page.close();
});
