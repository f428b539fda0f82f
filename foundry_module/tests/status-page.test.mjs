/**
 * The sidecar's status page after a short scene (a sync, a round of contests, two hits), in headless
 * Chromium (`$CHROMIUM_PATH`, driven by puppeteer-core): the real sidecar, a real websocket client,
 * the page as a browser shows it. Then across a restart (kill -9, the same SQLite file): the rulings
 * read back, the page's Undo and Redo (the token asked for once, never in the page), and a hostile
 * page of another origin refused. With VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes
 * docs/images/status-page.png. One Chromium for the file (a page per test, closed after it); the
 * first two tests read one sidecar's scene, played once before them (neither changes it).
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";
import { WebSocket } from "ws";

import { freePort, spawnSidecar, startSidecar } from "./helpers/sidecar.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = join(moduleRoot, "..");
const TOKEN = "status-page-token-" + Math.random().toString(36).slice(2);

/** One request, its reply. @param {WebSocket} ws @param {string} type @param {object} payload */
function request(ws, type, payload) {
  const id = "c" + Math.random().toString(36).slice(2);
  return new Promise((resolve, reject) => {
    /** @param {import("ws").RawData} raw */
    const onMessage = (raw) => {
      const message = JSON.parse(String(raw));
      if (message.re !== id) return;
      ws.off("message", onMessage);
      if (message.type === "error") reject(new Error(JSON.stringify(message.payload)));
      else resolve(message);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ v: 1, id, type, payload }));
  });
}

const guard = { health: { max: 7 }, attributes: { PER: 3 }, skills: { investigation: 2 } };
const SCENE = {
  scene: { id: "keep", round: 0, gridDistance: 1.5, gridSize: 100 },
  settings: { woundPenalty: true },
  actors: {
    "Actor.assassin0000001": { name: "Assassin", health: { max: 6 }, attributes: { DEX: 3 }, skills: { stealth: 3 }, antiDetection: [{ name: "invisibility", essence: "magical", rank: "C" }] },
    "Actor.bran00000000001": { ...guard, name: "Bran" },
    "Actor.cora00000000001": { ...guard, name: "Cora", secondHealth: { max: 3 } },
  },
  tokens: {
    tokAssassin0000001: { actor: "Actor.assassin0000001", x: 200, y: 0 },
    tokBran00000000001: { actor: "Actor.bran00000000001", x: 0, y: 0 },
    tokCora00000000001: { actor: "Actor.cora00000000001", x: 400, y: 0 },
  },
};

/** @type {import("puppeteer-core").Browser} the file's one Chromium */
let browser;
/** @type {string} its profile folder */
let profile;
/** @type {Awaited<ReturnType<typeof startSidecar>>} the sidecar of the short scene the first two tests read */
let scene;

before(async () => {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: ["--no-sandbox", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP evil.example 127.0.0.1"],
  });
  scene = await startSidecar({ token: TOKEN, seed: 5 });
  const ws = await gmSocket(scene.port, "friday-night");
  await request(ws, "sync", { state: SCENE });
  await request(ws, "action", { kind: "round", round: 1 });
  await request(ws, "action", { kind: "damage", target: "Actor.bran00000000001", instances: [{ amount: 3, grade: "L" }, { amount: 2, grade: "B" }] });
  await request(ws, "action", { kind: "damage", target: "Actor.cora00000000001", instances: [{ amount: 8, grade: "A" }] });
  ws.close();
});

after(async () => {
  await browser?.close();
  await scene?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("the status page after a short scene: subjects by name, the actors' table, who locates whom, never the token", async () => {
  const port = scene.port;
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1000, height: 1400 });
    await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: "load" });
    await page.waitForSelector("main[data-worded]");
    const text = await page.evaluate(() => document.body.innerText);
    // the sidecar's own version heads the page (and the README's picture of it)
    const { version } = JSON.parse(readFileSync(join(repoRoot, "foundry_module", "module.json"), "utf8"));
    assert.equal(await page.$eval("h1", (h) => h.textContent), `vtt-bridge ${version}`);
    const headings = await page.$$eval(".ruling h3", (hs) => hs.map((h) => h.textContent ?? ""));
    assert.ok(headings.some((h) => h.startsWith("Damage → Bran")), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("Damage → Cora")), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("New round") && h.includes("Bran") && h.includes("Assassin")), headings.join("\n"));
    assert.ok(!text.includes("tokBran00000000001"), "the token ids are shown by name");
    assert.ok(!text.includes(TOKEN), "the page never shows the token");
    const rows = await page.$$eval("table tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    assert.ok(rows.some((r) => r.startsWith("Bran") && r.includes("-1")), rows.join("\n"));
    assert.ok(await page.$$eval(".box.aggravated", (b) => b.length) >= 7);
    assert.match(text, /Who locates whom: \d+ not at all, \d+ roughly, \d+ exactly\./);
    assert.match(text, new RegExp(`http://127\\.0\\.0\\.1:${port}/module\\.zip`));
  } finally {
    await page.close();
  }
});

test("the page words every step with the module's own card code, in the reader's language (en, de, zh-CN), subjects by name", async () => {
  const sidecar = scene;
  {
    /** @type {Record<string, {accept: string, contest: RegExp, penalty: RegExp, dying: string}>} */
    const readers = {
      en: { accept: "en-GB,en;q=0.9", contest: /^(Bran|Cora) spots with \d+ dice?: .*; Assassin hides with /, penalty: /^Bran's wound penalty: 0 → -\d$/, dying: "Cora: dying" },
      de: { accept: "de-DE,de;q=0.9,en;q=0.5", contest: /^(Bran|Cora) sucht mit \d+ Würfeln?: .*; Assassin versteckt sich mit /, penalty: /^Wundmalus von Bran: 0 → -\d$/, dying: "Cora: " },
      "zh-CN": { accept: "zh-CN,zh;q=0.9", contest: /^(Bran|Cora) 以 .* 搜寻：/, penalty: /^Bran 的伤势减值：0 → -\d$/, dying: "Cora：" },
    };
    for (const [lang, reader] of Object.entries(readers)) {
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ "Accept-Language": reader.accept });
      await page.setViewport({ width: 1000, height: 1400 });
      await page.goto(`http://127.0.0.1:${sidecar.port}/`, { waitUntil: "load" });
      await page.waitForSelector(`main[data-worded="${lang}"]`);
      const items = await page.$$eval("li[data-step] .say", (says) => says.map((s) => ({ lang: s.getAttribute("lang"), text: s.textContent ?? "" })));
      const said = items.map((i) => i.text);
      assert.ok(items.length > 10, `${lang}: ${said.join("\n")}`);
      assert.deepEqual([...new Set(items.map((i) => i.lang))], [lang], `${lang}: every step worded from its key`);
      assert.ok(said.some((s) => reader.contest.test(s)), `${lang}: ${said.join("\n")}`);
      assert.ok(said.some((s) => reader.penalty.test(s)), `${lang}: the penalty as the table shows it: ${said.join("\n")}`);
      assert.ok(said.some((s) => s.startsWith(reader.dying)), `${lang}: ${said.join("\n")}`);
      assert.ok(!said.some((s) => /\btok[A-Z]|Actor\.|\{\w+\}|undefined/.test(s)), `${lang}: ids or placeholders: ${said.join("\n")}`);
      if (lang === "en") assert.ok(said.includes("Cora: dying"), "dying once, not 'dying; Dying'");
      // the page's own words too: every marked word worded, none left in English in de / zh-CN
      const page2 = await page.evaluate(() => ({
        unworded: [...document.querySelectorAll("[data-say]")].filter((el) => el.getAttribute("lang") !== document.documentElement.lang).map((el) => el.getAttribute("data-say")),
        lang: document.documentElement.lang,
        text: /** @type {HTMLElement} */ (document.querySelector("main")).innerText.replace(/^.*\n.*Rules sidecar.*$/m, ""),
        pairs: [...document.querySelectorAll("li:has(> .locate)")].map((li) => /** @type {HTMLElement} */ (li).innerText.replace(/\s+/g, " ").trim()),
      }));
      assert.equal(page2.lang, lang);
      assert.deepEqual(page2.unworded, [], `${lang}: every word of the page in the reader's language`);
      const pairWords = { en: /locates Assassin roughly|does not locate Assassin at all/, de: /ortet Assassin (ungefähr|gar nicht)/, "zh-CN": /(大致定位了|完全无法定位) Assassin/ };
      assert.ok(page2.pairs.length > 0 && page2.pairs.every((p) => pairWords[/** @type {"en"|"de"|"zh-CN"} */ (lang)].test(p)), `${lang}: ${page2.pairs.join(" | ")}`);
      if (lang !== "en") assert.doesNotMatch(page2.text, /\b(Worlds|Latest rulings|Who locates whom|Connected clients|Wound penalty|unharmed|moderately|read back from|Install the Foundry module)\b/, `${lang}: no English left`);
      if (process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1") {
        await page.screenshot({ path: join(repoRoot, "docs", "images", `status-page-${lang}.png`), fullPage: false });
      }
      await page.close();
    }
  }
});

/** A welcomed websocket client of `world`. @param {number} port @param {string} world */
async function gmSocket(port, world) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  await request(ws, "hello", { token: TOKEN, world, client: { name: "GM" } });
  return ws;
}

/** Bran's Health track as the sidecar holds it. @param {number} port */
async function bransHealth(port) {
  const ws = await gmSocket(port, "friday-night");
  const reply = /** @type {any} */ (await request(ws, "query", { kind: "state" }));
  ws.close();
  const { bashing, lethal, aggravated } = reply.payload.state.actors["Actor.bran00000000001"].health;
  return { bashing, lethal, aggravated };
}

/** The hostile page: from another origin it tries the sidecar's socket, reads its page, frames it. */
const HOSTILE = (/** @type {number} */ port) => `<!doctype html><meta charset="utf-8"><title>hostile</title>
<iframe id="framed" src="http://127.0.0.1:${port}/"></iframe>
<script>
  window.results = {};
  const ws = new WebSocket("ws://127.0.0.1:${port}/ws");
  ws.onopen = () => { window.results.ws = "open"; ws.send(JSON.stringify({ v: 1, id: "h", type: "hello", payload: { token: "guess", world: "friday-night", client: { name: "evil" } } })); };
  ws.onerror = () => { window.results.ws = "refused"; };
  fetch("http://127.0.0.1:${port}/", { mode: "cors" }).then((r) => r.text()).then(() => { window.results.read = "read"; }, () => { window.results.read = "blocked"; });
</script>`;

test("after a restart the page reads the rulings back; its Undo asks for the token once and sends undo over the socket, Redo after; a hostile page is refused", async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "vtt-bridge-status-"));
  const hostile = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(HOSTILE(port));
  });
  await new Promise((resolve) => hostile.listen(0, "127.0.0.1", () => resolve(undefined)));
  const hostilePort = /** @type {import("node:net").AddressInfo} */ (hostile.address()).port;
  /** @type {Awaited<ReturnType<typeof spawnSidecar>>|null} */
  let sidecar = null;
  /** @type {import("puppeteer-core").Page[]} */
  const pages = [];
  try {
    sidecar = await spawnSidecar({ token: TOKEN, seed: 5, port, dataDir });
    const ws = await gmSocket(port, "friday-night");
    await request(ws, "sync", { state: SCENE });
    await request(ws, "action", { kind: "round", round: 1 });
    const hit = { kind: "damage", target: "Actor.bran00000000001", instances: [{ amount: 3, grade: "L" }, { amount: 2, grade: "B" }] };
    await new Promise((resolve, reject) => {
      ws.on("message", (raw) => {
        const message = JSON.parse(String(raw));
        if (message.re === "hit-bran") (message.type === "result" ? resolve : reject)(message);
      });
      ws.send(JSON.stringify({ v: 1, id: "hit-bran", type: "action", payload: hit }));
    });
    await request(ws, "action", { kind: "damage", target: "Actor.cora00000000001", instances: [{ amount: 8, grade: "A" }] });
    ws.close();
    // kill -9: the rulings are in the SQLite file (its WAL), nowhere else
    await sidecar.stop("SIGKILL");
    sidecar = await spawnSidecar({ token: TOKEN, seed: 5, port, dataDir });
    assert.deepEqual(await bransHealth(port), { bashing: 2, lethal: 3, aggravated: 0 });

    const page = await browser.newPage();
    pages.push(page);
    /** @type {string[]} */
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(msg.text());
    });
    await page.setViewport({ width: 1000, height: 1400 });
    await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: "load" });
    await page.waitForSelector("main[data-worded]");
    const headings = await page.$$eval(".ruling h3", (hs) => hs.map((h) => h.textContent ?? ""));
    const bran = headings.find((h) => h.startsWith("Damage → Bran"));
    assert.ok(bran?.includes("read back from the store"), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("Damage → Cora") && h.includes("read back from the store")), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("New round") && h.includes("Bran") && h.includes("Assassin")), headings.join("\n"));
    // the steps in the browser's language (en), worded from their key: each contest names both tokens
    const said = await page.$$eval(".ruling li .say", (items) => items.map((i) => i.textContent ?? ""));
    assert.ok(said.some((s) => /^(Bran|Cora) spots with \d+ dice?: .*; Assassin hides with /.test(s)), said.join("\n"));
    assert.ok(!said.some((s) => /\bthe observer wins\b|\btok[A-Z]/.test(s)), said.join("\n"));
    const undoBran = 'button[data-mode="undo"][data-action="hit-bran"]';
    assert.equal(await page.$eval(undoBran, (b) => /** @type {HTMLButtonElement} */ (b).hidden), false, "the script shows the buttons");

    // Undo: the token is asked for in a password field, once
    await page.click(undoBran);
    await page.waitForSelector("#token-dialog[open]");
    assert.equal(await page.$eval("#token-dialog input", (i) => /** @type {HTMLInputElement} */ (i).type), "password");
    await page.type("#token-dialog input", TOKEN);
    await page.click('#token-dialog button[type="submit"]');
    await page.waitForFunction(() => [...document.querySelectorAll(".ruling.undone h3")].some((h) => /^damage → Bran/i.test(h.textContent ?? "")), { timeout: 20_000 });
    assert.deepEqual(await bransHealth(port), { bashing: 0, lethal: 0, aggravated: 0 }, "the undo restored Bran's track");
    const undone = await page.$eval(".ruling.undone", (r) => ({ text: r.textContent ?? "", decoration: getComputedStyle(/** @type {Element} */ (r.querySelector("h3 .what"))).textDecorationLine }));
    assert.match(undone.text, /undone/);
    assert.equal(undone.decoration, "line-through");
    assert.ok(await page.$('.ruling.undone button[data-mode="redo"][data-action="hit-bran"]'), "Redo on the undone ruling");
    assert.ok((await page.$$eval(".ruling h3", (hs) => hs.map((h) => h.textContent ?? ""))).some((h) => /^undo → Bran/i.test(h)), "the undo is a ruling of its own (worded once the script ran)");
    // the token is in this tab's sessionStorage, never in the page
    assert.equal(await page.evaluate(() => sessionStorage.getItem("vtt-bridge.token")), TOKEN);
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    assert.ok(!html.includes(TOKEN), "the page never holds the token");
    assert.equal(await page.$eval("#token-dialog input", (i) => /** @type {HTMLInputElement} */ (i).value), "");
    if (process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1") {
      await page.screenshot({ path: join(repoRoot, "docs", "images", "status-page.png"), fullPage: true });
    }

    // Redo: no second question
    await page.click('button[data-mode="redo"][data-action="hit-bran"]');
    await page.waitForFunction(() => !document.querySelector(".ruling.undone"), { timeout: 20_000 });
    assert.equal(await page.$("#token-dialog[open]"), null, "the token is not asked for again");
    assert.deepEqual(await bransHealth(port), { bashing: 2, lethal: 3, aggravated: 0 });

    // a wrong token is refused and forgotten
    await page.evaluate(() => sessionStorage.setItem("vtt-bridge.token", "not-the-token-at-all"));
    await page.click(undoBran);
    await page.waitForFunction(() => /refused \(unauthorized\)/.test(document.getElementById("undo-status")?.textContent ?? ""), { timeout: 20_000 });
    assert.equal(await page.evaluate(() => sessionStorage.getItem("vtt-bridge.token")), null);
    assert.deepEqual(await bransHealth(port), { bashing: 2, lethal: 3, aggravated: 0 });
    assert.deepEqual(problems.filter((p) => !/401|403|WebSocket/.test(p)), []);

    // a hostile page (another origin) cannot open the socket, read the page, or frame it
    const evil = await browser.newPage();
    pages.push(evil);
    await evil.goto(`http://evil.example:${hostilePort}/`, { waitUntil: "load" });
    await evil.waitForFunction(() => /** @type {any} */ (window).results.ws && /** @type {any} */ (window).results.read, { timeout: 20_000 });
    assert.deepEqual(await evil.evaluate(() => /** @type {any} */ (window).results), { ws: "refused", read: "blocked" });
    assert.match(sidecar.output(), new RegExp(`refused a browser page from origin http://evil\\.example:${hostilePort}`));
    const framed = evil.frames().find((f) => f !== evil.mainFrame());
    assert.ok(framed);
    assert.ok(!(await framed.content().catch(() => "")).includes("vtt-bridge"), "the status page is not shown in a frame");
    // DNS rebinding: the hostile name pointed at the sidecar is refused by the Host check
    const rebound = await evil.goto(`http://evil.example:${port}/`);
    assert.equal(rebound?.status(), 403);
  } finally {
    for (const page of pages) await page.close();
    if (sidecar) await sidecar.stop();
    hostile.closeAllConnections(); // the file's Chromium lives on, and with it its kept-alive connections
    await new Promise((resolve) => hostile.close(() => resolve(undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
