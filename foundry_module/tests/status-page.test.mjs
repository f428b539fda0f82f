/**
 * The sidecar's status page after a short scene (a sync, a round of contests, two hits), in headless
 * Chromium (`$CHROMIUM_PATH`, driven by puppeteer-core): the real sidecar, a real websocket client,
 * the page as a browser shows it. With VTT_BRIDGE_WRITE_SCREENSHOTS=1 it writes
 * docs/images/status-page.png.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";
import { WebSocket } from "ws";

import { freePort, sidecarCommand } from "./helpers/sidecar.mjs";

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

test("the status page after a short scene: subjects by name, the actors' table, who locates whom, never the token", async () => {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  const { cmd, args } = sidecarCommand();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "vtt-bridge-status-"));
  const sidecar = spawn(cmd, [...args, "--port", String(port), "--data-dir", dataDir, "--token", TOKEN, "--seed", "5"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  /** @type {import("puppeteer-core").Browser|null} */
  let browser = null;
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the sidecar did not start:\n${output}`)), 20_000);
      /** @param {Buffer} chunk */
      const onData = (chunk) => {
        output += chunk.toString();
        if (output.includes("listening on")) {
          clearTimeout(timer);
          resolve(undefined);
        }
      };
      sidecar.stdout.on("data", onData);
      sidecar.stderr.on("data", onData);
    });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    await request(ws, "hello", { token: TOKEN, world: "friday-night", client: { name: "GM" } });
    await request(ws, "sync", { state: SCENE });
    await request(ws, "action", { kind: "round", round: 1 });
    await request(ws, "action", { kind: "damage", target: "Actor.bran00000000001", instances: [{ amount: 3, grade: "L" }, { amount: 2, grade: "B" }] });
    await request(ws, "action", { kind: "damage", target: "Actor.cora00000000001", instances: [{ amount: 8, grade: "A" }] });

    browser = await puppeteer.launch({ executablePath, headless: true, userDataDir: profile, args: ["--no-sandbox", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 1400 });
    await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: "load" });
    const text = await page.evaluate(() => document.body.innerText);
    const headings = await page.$$eval(".ruling h3", (hs) => hs.map((h) => h.textContent ?? ""));
    assert.ok(headings.some((h) => h.startsWith("damage → Bran")), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("damage → Cora")), headings.join("\n"));
    assert.ok(headings.some((h) => h.startsWith("round") && h.includes("Bran") && h.includes("Assassin")), headings.join("\n"));
    assert.ok(!text.includes("tokBran00000000001"), "the token ids are shown by name");
    assert.ok(!text.includes(TOKEN), "the page never shows the token");
    const rows = await page.$$eval("table tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    assert.ok(rows.some((r) => r.startsWith("Bran") && r.includes("-1")), rows.join("\n"));
    assert.ok(await page.$$eval(".box.aggravated", (b) => b.length) >= 7);
    assert.match(text, /Who locates whom: \d+ unlocated, \d+ approximate, \d+ pinpointed\./);
    assert.match(text, new RegExp(`http://127\\.0\\.0\\.1:${port}/module\\.zip`));
    if (process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1") {
      await page.screenshot({ path: join(repoRoot, "docs", "images", "status-page.png"), fullPage: true });
    }
    ws.close();
  } finally {
    await browser?.close();
    if (sidecar.exitCode === null) {
      const exited = new Promise((resolve) => sidecar.once("exit", resolve));
      sidecar.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
});
