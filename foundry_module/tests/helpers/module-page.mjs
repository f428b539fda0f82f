/**
 * The page every screenshot test draws on: the module's files served over http (`serveModuleFiles`)
 * to a headless Chromium (`launchChromium`), a page on that origin (so `fetch` reads the module's
 * own language files), its body as the test gives it, the module's stylesheet added, and the page's
 * uncaught errors collected.
 */

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { launchChromium } from "./chromium.mjs";
import { serveModuleFiles } from "./module-server.mjs";

/** The module's folder (the one `module.json` is in). */
export const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The module's stylesheet, as Foundry loads it. */
const CSS = readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8");

/** Foundry's own look behind a window: dark canvas, Signika (Noto for the languages it lacks). */
export const FOUNDRY_BODY = "margin:0;background:#3a3a40;font-family:'Signika','Noto Sans','Noto Sans CJK SC',sans-serif;font-size:14px";

/**
 * Chromium and the module's files over http, both ended when the test `t` ends.
 * @param {{after: (fn: () => Promise<void>) => void}} t the test's context
 * @returns {Promise<{browser: import("puppeteer-core").Browser, origin: string}>}
 */
export async function moduleBrowser(t) {
  const http = await serveModuleFiles(moduleRoot);
  const { browser, close } = await launchChromium();
  t.after(async () => {
    await close();
    await http.close();
  });
  return { browser, origin: http.origin };
}

/**
 * A new page on the module's origin holding `body` (styled `bodyStyle`), the module's stylesheet added.
 * @param {import("puppeteer-core").Browser} browser
 * @param {string} origin `moduleBrowser`'s
 * @param {{width: number, height: number, body: string, lang?: string, bodyStyle?: string}} options
 *   `lang`: the page's `lang` attribute (none without it)
 * @returns {Promise<{page: import("puppeteer-core").Page, errors: string[]}>} `errors`: the page's uncaught errors
 */
export async function modulePage(browser, origin, { width, height, body, lang, bodyStyle = FOUNDRY_BODY }) {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${origin}/module.json`);
  await page.setContent(`<!doctype html><html${lang === undefined ? "" : ` lang="${lang}"`}><body style="${bodyStyle}">${body}</body></html>`);
  await page.addStyleTag({ content: CSS });
  return { page, errors };
}

/**
 * Foundry's application window as the dialogs and sheets are drawn in: a parchment section of the
 * window's `position.width`, its dark title bar (`#title`), the form, and one full-width button.
 * @param {{id: string, width: number, form: string, button: string}} options `id`: the section's;
 *   `form`: the form's attributes besides its padding; `button`: the button's id
 * @returns {string}
 */
export function foundryWindow({ id, width, form, button }) {
  return (
    `<section id="${id}" style="box-sizing:border-box;width:${width}px;margin:12px 20px;background:#f0eee6;color:#191813;border-radius:6px;box-shadow:0 0 12px #000">` +
    `<header id="title" style="padding:6px 10px;background:#23221d;color:#f0f0e0;border-radius:6px 6px 0 0"></header>` +
    `<form ${form} style="padding:8px 10px"></form>` +
    `<footer style="padding:0 10px 10px"><button id="${button}" type="button" style="width:100%;line-height:28px"></button></footer></section>`
  );
}
