/**
 * Issue 30 in headless Chromium: a player's bridge indicator (bridge-host.mjs `renderIndicator`, the
 * module's stylesheet, the real language files) and a request waiting for the bridge: the real
 * election (`BridgeHost`) and queue (`RelayQueue`) of a player's browser while no GM browser runs the
 * bridge, then when one comes up. English, German and Chinese. With VTT_BRIDGE_WRITE_SCREENSHOTS=1
 * it writes docs/images/bridge-indicator-{waiting,player,player-de,player-zh-CN}.png.
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

test("headless Chromium: a player's indicator says whether the bridge is up and in whose browser (en, de, zh-CN); a request made while none is up is shown waiting, then sent once one is", async (t) => {
  const http = await serveModuleFiles(moduleRoot);
  const { browser, close } = await launchChromium();
  t.after(async () => {
    await close();
    await http.close();
  });
  const css = readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8");

  /** @param {string} lang @param {"wait"|"up"} scene */
  async function run(lang, scene) {
    const page = await browser.newPage();
    await page.setViewport({ width: 640, height: 200 });
    /** @type {string[]} */
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${http.origin}/module.json`);
    // a dark table (Foundry's canvas behind the indicator), Foundry's notification list
    await page.setContent(`<!doctype html><html lang="${lang}"><body style="margin:0;height:200px;background:#2b2b30;font-family:sans-serif"><ol id="notifications" style="list-style:none;margin:8px;padding:0"></ol></body></html>`);
    await page.addStyleTag({ content: css });
    const report = await page.evaluate(
      async (origin, lang, scene) => {
        const strings = await (await fetch(`${origin}/lang/${lang}.json`)).json();
        /** @param {string} key @param {Record<string, string>} [data] */
        const t = (key, data = {}) => {
          const text = key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], strings) ?? key;
          return String(text).replace(/\{(\w+)\}/g, (_, k) => data[k] ?? `{${k}}`);
        };
        const { BridgeHost, renderIndicator } = await import(`${origin}/scripts/foundry/bridge-host.mjs`);
        const { RelayQueue } = await import(`${origin}/scripts/foundry/player-requests.mjs`);
        const { makeSendAction } = await import(`${origin}/scripts/foundry/send-action.mjs`);
        // the world as Pia's browser sees it: Gwen (a GM) is connected, her browser claims nothing yet
        /** @type {any} */
        const gwen = { id: "gwen", name: "Gwen", isGM: true, active: true, flags: {} };
        const users = [gwen, { id: "pia", name: "Pia", isGM: false, active: true, flags: {} }];
        /** @type {Record<string, Function[]>} */
        const hooks = {};
        /** @type {any[]} */
        const asked = [];
        /** @type {any} */
        let host = null;
        const queue = new RelayQueue({
          generation: 13,
          userId: "pia",
          bridge: () => host.target((/** @type {string} */ id) => users.find((u) => u.id === id)),
          socket: { emit() {}, on() {} },
          newId: () => "w1",
          retry: 60_000,
          onWaiting: () => host.refreshIndicator(),
        });
        host = new BridgeHost({
          hooks: { on: (/** @type {string} */ name, /** @type {Function} */ fn) => (hooks[name] = [...(hooks[name] ?? []), fn]) },
          self: () => users[1],
          users: () => users,
          writeClaim: async () => {},
          eligible: () => false,
          start: () => {},
          stop: () => {},
          onIndicator: (/** @type {any} */ shown) => renderIndicator(document, shown, t),
          onBridgeChange: () => queue.wake(),
          waiting: () => queue.waiting,
        });
        host.evaluate();
        const notes = /** @type {HTMLElement} */ (document.getElementById("notifications"));
        const notify = (/** @type {string} */ level) => (/** @type {string} */ message) => {
          const li = document.createElement("li");
          li.textContent = message;
          li.style.cssText = `color:#eee;background:${level === "info" ? "#2d4a6b" : "#6b4a2d"};padding:6px 10px;margin-bottom:4px;border-radius:4px;font-size:13px`;
          notes.append(li);
        };
        const env = { game: { user: users[1], users, release: { generation: 13 }, socket: {} }, ui: { notifications: { info: notify("info"), warn: notify("warn"), error: notify("error") } } };
        const sendAction = makeSendAction({ env, connection: () => null, localize: t, relay: () => queue });
        // Pia applies 2 lethal to the ogre while no GM browser runs the bridge
        const done = sendAction({ kind: "damage", target: "Actor.ogre", instances: [{ amount: 2, grade: "L" }] });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const indicator = /** @type {HTMLElement} */ (document.getElementById("vtt-bridge-indicator"));
        const waiting = { text: indicator.textContent, status: indicator.dataset.status, color: getComputedStyle(indicator).color, notes: [...notes.children].map((n) => n.textContent), asked: asked.length };
        if (scene === "wait") return { waiting };
        // Gwen's browser claims the bridge and comes up: the waiting request goes out, once
        gwen.query = async (/** @type {string} */ name, /** @type {any} */ data) => {
          asked.push({ name, data });
          return { ok: true, code: "sent" };
        };
        gwen.flags = { "vtt-bridge": { bridge: { since: 1, up: true, key: null } } };
        for (const fn of hooks.updateUser ?? []) fn(gwen, {}, {}, "gwen");
        await done;
        notes.replaceChildren();
        const box = indicator.getBoundingClientRect();
        return {
          waiting,
          up: { text: indicator.textContent, status: indicator.dataset.status, color: getComputedStyle(indicator).color, asked: asked.map((a) => a.data.id), inView: box.bottom <= innerHeight && box.top >= 0, title: indicator.title },
        };
      },
      http.origin,
      lang,
      scene,
    );
    assert.deepEqual(errors, []);
    return { page, report };
  }

  const en = JSON.parse(readFileSync(join(moduleRoot, "lang", "en.json"), "utf8")).VTTBRIDGE;
  // the waiting request: shown as waiting, not refused after a timeout
  {
    const { page, report } = await run("en", "wait");
    assert.equal(report.waiting.status, "none");
    assert.equal(report.waiting.text, `⬤ ${en.Bridge.none} · ${en.Bridge.Waiting.replace("{count}", "1")}`);
    assert.equal(report.waiting.color, "rgb(255, 102, 102)");
    assert.deepEqual(report.waiting.notes, [en.Notice.Waiting]);
    if (writeDocs) await page.screenshot({ path: join(images, "bridge-indicator-waiting.png") });
    await page.close();
  }
  const expected = { en: "⬤ bridge up (Gwen)", de: "⬤ Brücke aktiv (Gwen)", "zh-CN": "⬤ 桥接已运行（Gwen）" };
  for (const [lang, text] of Object.entries(expected)) {
    const { page, report } = await run(lang, "up");
    const up = /** @type {any} */ (report.up);
    assert.equal(up.status, "up");
    assert.equal(up.text, text, lang);
    assert.equal(up.color, "rgb(102, 204, 102)");
    assert.deepEqual(up.asked, ["w1"], "the waiting request went out once, with its id");
    assert.ok(up.inView);
    // the Chinese picture needs a CJK font (fonts-noto-cjk) where it is redrawn; the DOM text is checked anyway
    if (writeDocs) await page.screenshot({ path: join(images, `bridge-indicator-player${lang === "en" ? "" : `-${lang}`}.png`) });
    await page.close();
  }
});
