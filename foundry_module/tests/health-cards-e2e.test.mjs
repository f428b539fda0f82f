/**
 * HEALTH-6 and "who sees Health boxes" (issue 31, F14) in headless Chromium's own DOM: the real
 * sidecar rules fire damage on an Ogre with fire resistance; the module posts its card on the strict
 * Foundry stand-in under "Owners and GM"; a player who does not own the Ogre reads only the public
 * line (its name and Health status word, no boxes, IWR or dice), rendered with the module's
 * stylesheet and English words. Writes health-card-player-en.png to the temp folder, or with
 * VTT_BRIDGE_WRITE_SCREENSHOTS=1 to docs/images/.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { installChatCards } from "../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "./helpers/chat-globals.mjs";
import { FakeRoll, FakeWorld } from "./helpers/fake-foundry.mjs";
import { langs } from "./helpers/i18n.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const g = /** @type {any} */ (globalThis);
const STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  actors: { "Actor.ogre": { name: "Ogre", health: { max: 9 }, iwr: { resistances: [{ type: "fire", value: 2 }] } } },
  tokens: { tO: { actor: "Actor.ogre", x: 400, y: 400 } },
};
const ACTION = { kind: "damage", target: "Actor.ogre", instances: [{ amount: 8, grade: "L", type: "fire" }] };

test("headless Chromium: a player's view of a public damage card about an NPC they do not own ('Owners and GM')", async (t) => {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath}`);
  const [ruled] = await sidecarRulings(STATE, [ACTION]);
  const statusOp = (ruled.patch ?? []).find((/** @type {any} */ op) => String(op.path).endsWith("/status"));
  const world = new FakeWorld({ generation: 13 });
  world.addUser("ann", "Ann");
  world.addUser("bob", "Bob");
  const ogre = world.addActor("ogre", "Ogre", { status: statusOp?.value ?? null }, { default: 0, bob: 3 });
  world.addToken("tO", ogre, 400, 400);
  const en = /** @type {any} */ (langs.en);
  const text = (/** @type {string} */ key) => key.split(".").reduce((/** @type {any} */ node, part) => node?.[part], en);
  installChatGlobals(world, []);
  g.Roll = FakeRoll;
  g.game.i18n = {
    lang: "en",
    has: (/** @type {string} */ key) => typeof text(key) === "string",
    localize: (/** @type {string} */ key) => (typeof text(key) === "string" ? text(key) : key),
    format: (/** @type {string} */ key, /** @type {Record<string, string>} */ data = {}) => String(typeof text(key) === "string" ? text(key) : key).replace(/{([^}]+)}/g, (m, k) => (k in data ? data[k] : m)),
  };
  t.after(() => {
    clearChatGlobals();
    delete g.Roll;
  });
  /** @type {Record<string, unknown>} */
  const settings = { rulingCards: "public", healthVisibility: "owner" };
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => settings[key] });
  /** @type {Function[]} */
  const listeners = [];
  world.hooks.callAll("vtt-bridge.connection", { status: "open", on: (/** @type {string} */ n, /** @type {Function} */ fn) => n === "log" && listeners.push(fn), query: async () => ({}) });
  for (const fn of listeners) await fn({ rev: ruled.rev ?? 1, log: ruled.log, rolls: ruled.rolls ?? [], action: "d1", kind: "damage", request: { type: "action", id: "d1", payload: ACTION } });
  const seenBy = (/** @type {string} */ id) => world.visibleTo(/** @type {any} */ (world.users.get(id))).map((m) => String(m._source.content));
  const ann = seenBy("ann");
  assert.equal(ann.length, 1, "Ann reads one card");
  assert.ok(ruled.log.some((/** @type {any} */ s) => String(s.rule).startsWith("IWR")), "the ruling has an IWR step");
  assert.ok(!ann[0].includes("IWR") && !ann[0].includes("vtt-bridge-die") && !ann[0].includes("data-rule"), "no IWR, dice or steps for Ann");
  assert.ok(seenBy("bob").some((c) => c.includes("IWR")), "the owner reads the whole card");

  const profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  const browser = await puppeteer.launch({ executablePath, headless: true, userDataDir: profile, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  t.after(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 420, height: 200 });
  await page.setContent(`<!doctype html><html><body style="background:#e8e4dc;font:13px sans-serif;width:380px"><ol id="chat">${ann.map((c) => `<li class="chat-message">${c}</li>`).join("")}</ol></body></html>`);
  await page.addStyleTag({ content: readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8") });
  const shown = await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById("chat")).innerText);
  assert.match(shown, /Ogre: (Unharmed|Lightly injured|Moderately injured|Badly injured|Dying|Dead)/);
  assert.doesNotMatch(shown, /VTTBRIDGE|fire|IWR/i);
  const folder = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1" ? join(moduleRoot, "..", "docs", "images") : tmpdir();
  writeFileSync(join(folder, "health-card-player-en.png"), /** @type {Buffer} */ (await page.screenshot()));
});
