/**
 * A test page in headless Chromium (Debian's /usr/bin/chromium, or `$CHROMIUM_PATH`): open it, wait
 * for the result it leaves in `window.__result` (`{ok, report}` or `{ok: false, error}`), and hand
 * what the browser's websockets receive to `onFrame`, read through the DevTools protocol
 * (`Network.webSocketFrameReceived`, with its socket's `requestId`: Chromium reports a fragmented
 * message once, whole, with the opcode of its first frame; tests/fragments-e2e.test.mjs shows it).
 * A missing browser fails the test with a clear message; nothing is skipped.
 */

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import puppeteer from "puppeteer-core";

/** @typedef {{requestId: string, opcode: number, payloadData: string}} Frame */

/**
 * Headless Chromium in a profile folder of its own, as every browser test starts it; `close` ends
 * the browser and removes the folder. A missing browser fails the test with a clear message.
 * @returns {Promise<{browser: import("puppeteer-core").Browser, close: () => Promise<void>}>}
 */
export async function launchChromium() {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  const profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
  const close = async () => {
    try {
      await browser.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  };
  return { browser, close };
}

/**
 * @param {string} url the page, with its query
 * @param {{onFrame?: (frame: Frame) => void, timeout?: number, browser?: import("puppeteer-core").Browser}} [options]
 *   `browser`: a Chromium the caller started (`launchChromium`) and keeps open (a page of its own is
 *   opened and closed here); without it one is started for this page and ended after it
 * @returns {Promise<any>} the page's report
 */
export async function pageReport(url, { onFrame = () => {}, timeout = 60_000, browser = undefined } = {}) {
  const own = browser ? null : await launchChromium();
  try {
    const page = await (browser ?? /** @type {NonNullable<typeof own>} */ (own).browser).newPage();
    try {
      /** @type {string[]} */
      const consoleErrors = [];
      page.on("console", (msg) => {
        if (msg.type() === "error") consoleErrors.push(msg.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(String(error)));
      const devtools = await page.createCDPSession();
      await devtools.send("Network.enable");
      devtools.on("Network.webSocketFrameReceived", (event) => onFrame({ requestId: event.requestId, ...event.response }));
      await page.goto(url);
      await page.waitForFunction(() => /** @type {any} */ (window).__result !== undefined, { timeout });
      const result = await page.evaluate(() => /** @type {any} */ (window).__result);
      assert.ok(result.ok, `the page failed: ${result.error}\n${consoleErrors.join("\n")}`);
      return result.report;
    } finally {
      await page.close();
    }
  } finally {
    await own?.close();
  }
}
