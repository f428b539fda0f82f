/**
 * Pixel tests of the canvas drawing: headless Chromium (Debian's /usr/bin/chromium or
 * `$CHROMIUM_PATH`, driven by puppeteer-core) loads the REAL pixi.js (7.4.2, the PixiJS 7 line
 * Foundry 13 ships; from node_modules) and the module's real `scripts/core/drawing.mjs` and
 * `scripts/core/health-track.mjs` from a tiny local http server, renders several box mixes and a
 * silhouette with WebGL (SwiftShader), and the test reads the pixels back. The visibility layer
 * runs for real too: the GM overlay, and the Token mixin of `scripts/foundry/visibility-canvas.mjs` over a
 * Foundry-shaped Token class built on `PIXI.Container` (tokens pinpointed, approximate, unlocated).
 *
 * The PNGs go to docs/images/ only when VTT_BRIDGE_WRITE_SCREENSHOTS=1 (`npm run screenshots`),
 * otherwise into a temporary folder, so a test run never changes the repository. A missing browser
 * FAILS the test; nothing is skipped.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import puppeteer from "puppeteer-core";

import { COLORS } from "../scripts/core/drawing.mjs";
import { locateLook, PALETTES } from "../scripts/core/palette.mjs";
import { END_MARKERS, OVERLAY_STYLES } from "../scripts/core/visibility.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const writeDocs = process.env.VTT_BRIDGE_WRITE_SCREENSHOTS === "1";
const imageDir = writeDocs ? join(moduleRoot, "..", "docs", "images") : mkdtempSync(join(tmpdir(), "vtt-bridge-pixi-"));
const devDependencies = JSON.parse(readFileSync(join(moduleRoot, "package.json"), "utf8")).devDependencies;
/**
 * The PixiJS builds the drawing runs on: 7.4.2 (Foundry 12/13; this run writes the screenshots) and
 * PixiJS 8 (npm alias "pixi8"; Foundry's tracker plans to adopt it), picked by the page's `?pixi=`.
 */
const BUILDS = [
  { title: "PixiJS 7 (Foundry 13)", query: "", dir: "pixi.js", version: devDependencies["pixi.js"], screenshots: true },
  { title: "PixiJS 8", query: "?pixi=8", dir: "pixi8", version: String(devDependencies.pixi8).replace(/^npm:pixi\.js@/, ""), screenshots: false },
];
/** The files of node_modules the page may load. */
const PIXI_PATHS = BUILDS.map((b) => join(moduleRoot, "node_modules", b.dir, "dist", "pixi.mjs"));

/** @type {Awaited<ReturnType<typeof serveModuleFiles>>|null} */
let http = null;
/** @type {import("puppeteer-core").Browser|null} */
let browser = null;
/** @type {import("puppeteer-core").Page|null} */
let page = null;
let profile = "";
/** @type {string[]} */
const consoleErrors = [];

before(async () => {
  http = await serveModuleFiles(moduleRoot, { extra: PIXI_PATHS });

  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  assert.ok(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  for (const path of PIXI_PATHS) assert.ok(existsSync(path), `no pixi.js at ${path} (npm ci)`);
  profile = mkdtempSync(join(tmpdir(), "vtt-bridge-chromium-"));
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: [
      "--no-sandbox",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
      "--disable-background-networking",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

/**
 * Open the page on one PixiJS build. Errors fail the tests, and so do PixiJS's warnings (PixiJS 8
 * warns once per deprecated v7 form it still accepts, in a collapsed console group).
 * @param {typeof BUILDS[number]} build
 */
async function openPage(build) {
  assert.ok(browser && http, "the browser runs");
  consoleErrors.length = 0;
  page = await browser.newPage();
  page.on("console", (msg) => {
    const type = /** @type {string} */ (msg.type());
    if (type === "error") consoleErrors.push(msg.text());
    else if (/^(warn|warning|startGroupCollapsed|startGroup)$/.test(type) && /PixiJS/.test(msg.text())) consoleErrors.push(msg.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(String(error)));
  await page.goto(`${http.origin}/tests/browser/pixi.html${build.query}`);
  await page.waitForFunction(() => /** @type {any} */ (window).vttReady === true, { timeout: 60_000 }).catch((error) => {
    throw new Error(`the page did not load: ${error}\n${consoleErrors.join("\n")}`);
  });
}

after(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await http?.close();
  if (!writeDocs) rmSync(imageDir, { recursive: true, force: true });
});

/**
 * @typedef {object} Shot
 * @property {number} width
 * @property {number} height
 * @property {Uint8Array} rgba
 * @property {string} png data URL
 * @property {string} renderer
 * @property {{x: number, y: number, width: number}} token
 * @property {{x: number, y: number}} [origin]
 * @property {import("../scripts/core/health-track.mjs").TrackLayout} [layout]
 * @property {boolean} [isDisplayObject]
 * @property {boolean} [blurred]
 */

/** @param {string} fn @param {Record<string, unknown>} spec @returns {Promise<Shot>} */
async function render(fn, spec) {
  assert.ok(page, "the page is open");
  const shot = await page.evaluate((name, args) => /** @type {any} */ (window).vtt[name](args), fn, spec);
  assert.deepEqual(consoleErrors, []);
  return { ...shot, rgba: new Uint8Array(Buffer.from(shot.rgba, "base64")) };
}

/** The build whose page is open; only PixiJS 7's run writes the pictures. */
let current = BUILDS[0];

/** @param {Shot} shot @param {string} name */
function savePng(shot, name) {
  if (!current.screenshots) return null;
  mkdirSync(imageDir, { recursive: true });
  const file = join(imageDir, name);
  writeFileSync(file, Buffer.from(shot.png.replace(/^data:image\/png;base64,/, ""), "base64"));
  return file;
}

/** @param {Shot} shot @param {number} x @param {number} y @returns {[number, number, number]} */
function rgb(shot, x, y) {
  const i = (Math.round(y) * shot.width + Math.round(x)) * 4;
  return [shot.rgba[i], shot.rgba[i + 1], shot.rgba[i + 2]];
}

/** @param {number} color @returns {[number, number, number]} */
const hex = (color) => [(color >> 16) & 255, (color >> 8) & 255, color & 255];

/** @param {[number, number, number]} a @param {[number, number, number]} b @param {number} [tol] */
const near = (a, b, tol = 24) => Math.abs(a[0] - b[0]) <= tol && Math.abs(a[1] - b[1]) <= tol && Math.abs(a[2] - b[2]) <= tol;

const BG = 0x35503a;
const DARK = hex(COLORS.frame);
const EMPTY = hex(COLORS.empty);

/**
 * A pixel of `color` at (x, y) or one of its 8 neighbours.
 * @param {Shot} shot @param {number} x @param {number} y @param {[number, number, number]} color
 */
function markNear(shot, x, y, color) {
  for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (near(rgb(shot, x + dx, y + dy), color, 40)) return true;
  return false;
}

/**
 * Check the boxes of a track render against its layout, by reading pixels only.
 * @param {Shot} shot
 * @param {string} where
 * @param {import("../scripts/core/palette.mjs").Palette} [palette] the colours it was drawn in
 */
function checkTrack(shot, where, palette = PALETTES.standard) {
  const RED = hex(palette.track.aggravated);
  const layout = /** @type {NonNullable<Shot["layout"]>} */ (shot.layout);
  const origin = /** @type {NonNullable<Shot["origin"]>} */ (shot.origin);
  const { token } = shot;
  // 1. count the boxes: along the top frame line of each row, every box is one run of frame pixels
  let counted = 0;
  const rowTops = [...new Set(layout.boxes.map((b) => b.y))];
  for (const top of rowTops) {
    let inRun = false;
    for (let x = 0; x < shot.width; x++) {
      const dark = near(rgb(shot, x, origin.y + top), DARK, 30);
      if (dark && !inRun) counted++;
      inRun = dark;
    }
  }
  assert.equal(counted, layout.boxes.length, `${where}: boxes counted on the frame lines`);
  // 2. nothing past the token's width on the rows of boxes (left and right of the token: background)
  for (let y = origin.y; y < origin.y + layout.height; y++) {
    for (let x = 0; x < shot.width; x++) {
      if (x >= token.x && x < token.x + token.width) continue;
      assert.ok(near(rgb(shot, x, y), hex(BG), 6), `${where}: pixel (${x},${y}) outside the token is drawn: ${rgb(shot, x, y)}`);
    }
  }
  // 3. each box by its kind
  for (const box of layout.boxes) {
    const x = origin.x + box.x;
    const y = origin.y + box.y;
    const s = box.size;
    const frame = Math.max(1, Math.round(s / 10));
    const at = `${where}: box ${box.index} (${box.kind})`;
    // the frame: the four corners are dark
    for (const [cx, cy] of [[x, y], [x + s - 1, y], [x, y + s - 1], [x + s - 1, y + s - 1]]) {
      assert.ok(near(rgb(shot, cx, cy), DARK, 30), `${at}: frame corner (${cx},${cy}) ${rgb(shot, cx, cy)}`);
    }
    // the fill just inside the frame, left middle (no mark there)
    const fill = rgb(shot, x + frame, y + Math.floor(s / 2));
    if (box.kind === "aggravated") assert.ok(near(fill, RED, 30), `${at}: red fill ${fill}`);
    else assert.ok(near(fill, EMPTY, 30), `${at}: light fill ${fill}`);
    const pad = frame + Math.max(1, Math.round(s / 8));
    const inner = s - 2 * pad;
    // points along both diagonals, away from the centre where they cross
    const t = [0.2, 0.3, 0.7, 0.8].map((f) => Math.round(f * inner));
    // marks: dark on the light boxes, light on the red one
    /** @type {[number, number, number]} */
    const mark = box.kind === "aggravated" ? hex(palette.track.markOnAggravated) : DARK;
    const slash = t.every((d) => markNear(shot, x + pad + d, y + s - pad - d, mark));
    const backslash = t.every((d) => markNear(shot, x + pad + d, y + pad + d, mark));
    // the bar: near both ends of the mark, where the diagonals are far from the middle column
    const middle = [x + Math.floor(s / 2) - 1, x + Math.floor(s / 2)];
    const vertical = [y + pad + 1, y + s - pad - 2].every((yy) => middle.some((xx) => near(rgb(shot, xx, yy), mark, 40)));
    if (box.kind === "healthy") {
      // empty: not one dark pixel inside the frame
      for (let yy = y + frame; yy < y + s - frame; yy++) {
        for (let xx = x + frame; xx < x + s - frame; xx++) assert.ok(near(rgb(shot, xx, yy), EMPTY, 30), `${at}: empty at (${xx},${yy}) ${rgb(shot, xx, yy)}`);
      }
    } else {
      assert.ok(slash, `${at}: "/" on the rising diagonal`);
      assert.equal(backslash, box.kind !== "bashing", `${at}: "\\" only for lethal and aggravated`);
      // below 6 inner pixels the bar and the X share their pixels; the red fill tells A apart there
      if (inner >= 6) assert.equal(vertical, box.kind === "aggravated", `${at}: vertical bar only for aggravated`);
    }
  }
}

const MIXES = [
  { name: "unharmed", tokenWidth: 100, flags: { health: { max: 7 }, status: "unharmed" } },
  { name: "mixed", tokenWidth: 100, flags: { health: { max: 8, bashing: 2, lethal: 2, aggravated: 1, tempHp: 2 }, status: "moderately", woundPenalty: 1, conditionPoints: { poison: 3 }, emotionPoints: { fear: 2 } } },
  { name: "badly", tokenWidth: 100, flags: { health: { max: 7, bashing: 1, lethal: 4, aggravated: 1 }, status: "badly", woundPenalty: 2 } },
  { name: "dead", tokenWidth: 100, flags: { health: { max: 6, aggravated: 6 }, status: "dead", woundPenalty: 3 } },
  { name: "large-small-token", tokenWidth: 50, flags: { health: { max: 40, bashing: 12, lethal: 10, aggravated: 5 }, status: "moderately", woundPenalty: 1 } },
  { name: "one-box", tokenWidth: 50, flags: { health: { max: 1, bashing: 1 }, status: "badly" } },
];

for (const build of BUILDS) {
describe(build.title, () => {
  before(async () => {
    current = build;
    await openPage(build);
  });
  after(async () => {
    await page?.close();
    page = null;
  });

  test(`the page runs the real pixi.js ${build.version} with WebGL`, async () => {
    assert.ok(page);
    assert.match(build.version, /^\d+\.\d+\.\d+$/, "pinned to an exact version");
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).vtt.version), build.version);
    if (build.screenshots) assert.equal(build.version, "7.4.2", "the PixiJS 7 build Foundry 13 ships");
    const shot = await render("renderTrack", { tokenWidth: 50, flags: { health: { max: 1 } } });
    assert.match(shot.renderer, /^webgl/);
  });

  for (const mix of MIXES) {
    test(`Health track "${mix.name}": boxes counted, kinds by their pixels, nothing past the token`, async () => {
      const plain = await render("renderTrack", { tokenWidth: mix.tokenWidth, flags: mix.flags });
      assert.equal(plain.layout?.boxes.length, mix.flags.health.max);
      checkTrack(plain, mix.name);
      // with token art, counters and the texts (when a font renders): the boxes read the same
      const dressed = await render("renderTrack", { tokenWidth: mix.tokenWidth, flags: mix.flags, text: true, art: true });
      checkTrack(dressed, `${mix.name} (with text)`);
      // the picture for people, twice the size
      savePng(await render("renderTrack", { tokenWidth: mix.tokenWidth, flags: mix.flags, text: true, art: true, scale: 2 }), `health-track-${mix.name}.png`);
      // the colour-blind palette: other colours, the same marks, read the same way
      checkTrack(await render("renderTrack", { tokenWidth: mix.tokenWidth, flags: mix.flags, palette: "okabeIto" }), `${mix.name} (Okabe-Ito)`, PALETTES.okabeIto);
    });
  }

  test("condition counters: one round badge per non-zero counter, inside the token width", async () => {
    const flags = { health: { max: 5, tempHp: 1 }, conditionPoints: { poison: 3, bleeding: 0 }, emotionPoints: { fear: 2 } };
    const shot = await render("renderTrack", { tokenWidth: 100, flags });
    const { token } = shot;
    // the badges sit in the row just above the token; scan the middle of that row
    const d = 14;
    const y = token.y - 2 - d / 2;
    /** @type {Array<[number, number, number]>} */
    const centres = [];
    let run = 0;
    for (let x = 0; x < shot.width; x++) {
      const c = rgb(shot, x, y);
      const drawn = !near(c, hex(BG), 6);
      if (drawn) {
        assert.ok(x >= token.x && x < token.x + token.width, `badge pixel at x=${x} outside the token`);
        run++;
      } else if (run) {
        centres.push(rgb(shot, x - Math.ceil(run / 2), y));
        run = 0;
      }
    }
    assert.equal(centres.length, 3, "temporary Health, poison, fear");
    assert.ok(near(centres[0], hex(COLORS.badge.tempHp), 30), `temp Health badge ${centres[0]}`);
    assert.ok(near(centres[1], hex(COLORS.badge.condition), 30), `condition badge ${centres[1]}`);
    assert.ok(near(centres[2], hex(COLORS.badge.emotion), 30), `emotion badge ${centres[2]}`);
  });

  test("silhouette: an anonymous grey head and shoulders, blurred edges, the same for every token of a size", async () => {
    const shot = await render("renderSilhouette", { size: 100 });
    assert.equal(shot.isDisplayObject, true);
    assert.equal(shot.blurred, true);
    savePng(await render("renderSilhouette", { size: 100, scale: 2 }), "silhouette.png");
    const { token } = shot;
    let grey = 0;
    let darkest = 255;
    for (let y = 0; y < shot.height; y++) {
      for (let x = 0; x < shot.width; x++) {
        const [r, g, b] = rgb(shot, x, y);
        // no colour at all: no token art, no disposition colour
        assert.ok(Math.abs(r - g) <= 3 && Math.abs(g - b) <= 3, `colour at (${x},${y}): ${[r, g, b]}`);
        if (r < 250) {
          grey++;
          // nothing leaks out of the token's square
          assert.ok(x >= token.x && x < token.x + token.width && y >= token.y && y < token.y + token.width, `drawn outside the token at (${x},${y})`);
        }
        darkest = Math.min(darkest, r);
      }
    }
    assert.ok(grey > 0.15 * token.width * token.width, `a body-sized shape (${grey} px)`);
    assert.ok(darkest < 175, `a solid grey core (${darkest})`);
    // blurred: across the head's edge the grey fades over many pixels, not one or two
    const headY = token.y + 36;
    let fading = 0;
    for (let x = token.x; x < token.x + token.width / 2; x++) {
      const v = rgb(shot, x, headY)[0];
      if (v > darkest + 8 && v < 247) fading++;
    }
    assert.ok(fading >= 5, `a soft edge (${fading} intermediate pixels)`);
    // the head is above the shoulders, both centred: a generic shape, symmetric left/right
    for (let y = token.y; y < token.y + token.width; y += 5) {
      for (let dx = 0; dx < token.width / 2; dx += 3) {
        const left = rgb(shot, token.x + token.width / 2 - 1 - dx, y)[0];
        const right = rgb(shot, token.x + token.width / 2 + dx, y)[0];
        assert.ok(Math.abs(left - right) <= 6, `symmetric at y=${y} dx=${dx}: ${left} vs ${right}`);
      }
    }
    const again = await render("renderSilhouette", { size: 100 });
    assert.deepEqual(again.rgba, shot.rgba, "the same silhouette for every token of this size");
  });

  for (const palette of /** @type {const} */ (["standard", "okabeIto"])) {
    test(`GM overlay (${palette} palette): one line per ruled pair in its state's colour, dash pattern and end marker; legend counts`, async () => {
      const shot = await render("renderOverlay", palette === "standard" ? {} : { palette });
      if (palette === "standard") savePng(await render("renderOverlay", { scale: 1 }), "visibility-overlay.png");
      else savePng(shot, "visibility-overlay-okabe-ito.png");
      const bg = hex(0x202020);
      const colours = PALETTES[palette];
      /** @type {Record<string, import("../scripts/core/palette.mjs").LocateLook>} */
      const expected = {
        P: locateLook("pinpointed", colours),
        X: locateLook("approximate", colours),
        U: locateLook("unlocated", colours),
        M: locateLook("malformed", colours),
      };
      if (palette === "standard") assert.deepEqual(expected.X, OVERLAY_STYLES.approximate);
      /** @type {Record<string, any>} */
      const lines = /** @type {any} */ (shot).lines;
      for (const [id, style] of Object.entries(expected)) {
        const { from, to } = lines[id];
        const length = Math.hypot(to.x - from.x, to.y - from.y);
        const ux = (to.x - from.x) / length;
        const uy = (to.y - from.y) / length;
        // the line runs 5 px to the right of the centre line (so A→B and B→A do not overlap), from 30 px
        // (0.3 grid) after the observer; walk its first third, away from the label and the end marker
        let wrong = 0;
        /** @type {number[]} */
        const runs = [];
        /** @type {number[]} */
        const gaps = [];
        let run = 0;
        let gap = 0;
        for (let d = 30; d < length / 3; d++) {
          const cx = from.x + ux * d - uy * 5;
          const cy = from.y + uy * d + ux * 5;
          /** @type {Array<[number, number, number]>} */
          const around = [];
          for (let o = -2; o <= 2; o++) around.push(rgb(shot, cx - uy * o, cy + ux * o));
          if (around.some((c) => near(c, hex(style.color), 40))) {
            if (gap) gaps.push(gap);
            gap = 0;
            run++;
          } else if (around.every((c) => near(c, bg, 6))) {
            if (run) runs.push(run);
            run = 0;
            gap++;
          } else wrong++;
        }
        const drawn = runs.reduce((a, b) => a + b, 0) + run;
        assert.ok(drawn > 10, `${id}: the line is drawn in ${style.color.toString(16)} (${drawn} pixels)`);
        assert.equal(wrong, 0, `${id}: no other colour on the line`);
        if (!style.dash) {
          assert.deepEqual([runs.length, gaps.length], [0, 0], `${id}: solid`);
          continue;
        }
        // the pattern read back: every whole dash is one of the pattern's "on" lengths (±2 px)
        const on = style.dash.filter((_, i) => i % 2 === 0);
        // (the walk starts where the line does: every run a gap ended is a whole dash)
        const whole = runs;
        assert.ok(whole.length >= 2, `${id}: dashed (${runs.join(", ")})`);
        for (const r of whole) assert.ok(on.some((n) => Math.abs(r - n) <= 2), `${id}: a dash of ${r} px, the pattern's are ${on.join(", ")}`);
        if (on.length > 1) for (const n of on) assert.ok(whole.some((r) => Math.abs(r - n) <= 2), `${id}: dashes of ${n} px among ${whole.join(", ")}`);
      }
      // the end markers, read at points relative to each line's tip (back: px towards the observer,
      // side: px to the right)
      for (const [id, style] of Object.entries(expected)) {
        const { from, to } = lines[id];
        const length = Math.hypot(to.x - from.x, to.y - from.y);
        const ux = (to.x - from.x) / length;
        const uy = (to.y - from.y) / length;
        const tip = { x: from.x + ux * (length - 30) - uy * 5, y: from.y + uy * (length - 30) + ux * 5 };
        /** @param {number} back @param {number} side */
        const at = (back, side) => [tip.x - ux * back - uy * side, tip.y - uy * back + ux * side];
        /** @param {number} back @param {number} side */
        const inked = (back, side) => markNear(shot, ...(/** @type {[number, number]} */ (at(back, side))), hex(style.color));
        /** @param {number} back @param {number} side */
        const blank = (back, side) => {
          const [x, y] = at(back, side);
          for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (!near(rgb(shot, x + dx, y + dy), bg, 6)) return false;
          return true;
        };
        const where = `${id} (${style.end})`;
        if (style.end === "arrow") {
          for (const side of [-1.5, 0, 1.5]) assert.ok(inked(5, side), `${where}: a filled head`);
        } else if (style.end === "ring") {
          const r = END_MARKERS.ring;
          assert.ok(inked(r, r) && inked(r, -r) && inked(2 * r, 0) && inked(0, 0), `${where}: the ring's sides, back and front`);
          assert.ok(blank(r, 0), `${where}: hollow`);
        } else if (style.end === "cross") {
          assert.ok(inked(2.5, 2.5) && inked(2.5, -2.5), `${where}: both arms`);
          assert.ok(blank(0, 9.5) && blank(0, -9.5), `${where}: no bar`);
        } else {
          assert.ok(inked(0, 7) && inked(0, -7), `${where}: a bar across the tip`);
          assert.ok(blank(4, 7) && blank(4, -7), `${where}: only a bar`);
        }
      }
      assert.deepEqual(/** @type {any} */ (shot).legend.slice(0, 5), ["Title", "➤ pinpointed: 1", "○ approximate: 1", "✕ unlocated: 2", "⊣ Malformed: 1"]);
    });
  }

  test("the Foundry wiring: one container per token, shown by the setting and the identity predicate, redrawn on flag changes, removed on destroy", async () => {
    assert.ok(page);
    const log = await page.evaluate(() => /** @type {any} */ (window).vtt.wiring());
    assert.deepEqual(consoleErrors, []);
    const [mine, theirs, bare] = log.drawn;
    assert.equal(mine.boxesTop, 102, "the track sits just below the token");
    assert.ok(mine.trackRight <= 100, "inside the token width");
    assert.equal(mine.counters, 1, "poison 3");
    assert.ok(mine.nameplate > 102 + 10, `the nameplate moves below the track (${mine.nameplate})`);
    // HEALTH-6 under 'Owners and GM': another player's token shows its status word alone
    assert.deepEqual(theirs.texts, ["unharmed"], "'owner': another player's token shows its Health status word");
    assert.equal(theirs.boxesWidth, 0, "'owner': and no boxes");
    assert.equal(theirs.counters, 0);
    assert.ok(mine.boxesWidth > 50, `its own track has its boxes (${mine.boxesWidth})`);
    assert.equal(bare, "none", "an actor without a Health flag shows nothing");
    assert.ok(log.sameContainer, "refreshes reuse the one container");
    assert.equal(log.nameplateStable, mine.nameplate, "the nameplate does not drift on refreshes");
    assert.notEqual(log.everyone[1], "none", "'everyone': every token shows its track");
    assert.equal(log.gmOnly[0], "hidden");
    assert.equal(log.gmOnly[1], "hidden");
    assert.equal(log.gmOnly[2], 102, "the nameplate goes back when the track hides");
    assert.notEqual(log.asGm[0], "hidden");
    assert.notEqual(log.asGm[1], "hidden", "the GM always sees");
    assert.equal(log.identityHidden, "hidden", "a token shown as a silhouette shows no track");
    assert.equal(log.updated.counters, 0, "redrawn after updateActor");
    assert.equal(log.destroyed, "none");
  });

  test("Health track in play: a 50 px token readable, a 3×3 melee with the track inside each token, the hovered one lifted above its neighbours; en, de, zh-CN", async () => {
    assert.ok(page);
    const { langs } = await import("./helpers/i18n.mjs");
    const FLAGS = [
      { health: { max: 7, lethal: 3 }, status: "moderately", woundPenalty: 1 },
      { health: { max: 5, bashing: 1 }, status: "lightly" },
      { health: { max: 5, lethal: 5 }, status: "dead", woundPenalty: 3 },
      { health: { max: 9, aggravated: 2, lethal: 4 }, status: "badly", woundPenalty: 2, conditionPoints: { burn: 2 } },
      { health: { max: 7 }, status: "unharmed" },
      { health: { max: 5, lethal: 4, bashing: 1 }, status: "dying", woundPenalty: 3 },
    ];
    for (const lang of ["en", "de", "zh-CN"]) {
      // one 50 px token at 100 % zoom: boxes of 8 px or more, its status at 9 px or more on screen
      const small = await render("renderMelee", { grid: 1, size: 50, strings: langs[lang], flags: [FLAGS[0]], margin: 40, scale: 2 });
      const [only] = /** @type {any} */ (small).tracks;
      assert.ok(only.textScreen[0] >= 9, `${lang}: the status is ${only.textScreen[0]} px tall on screen`);
      assert.match(only.words[0], /\u22121/);
      savePng(small, `health-track-small-token-${lang}.png`);
      // the 3×3 melee, placement "inside", the centre token hovered, the canvas at 75 %
      const melee = await render("renderMelee", { grid: 3, size: 100, placement: "inside", hover: 4, zoom: 0.75, strings: langs[lang], flags: FLAGS, scale: 2 });
      const tracks = /** @type {any} */ (melee).tracks;
      assert.equal(tracks.length, 9);
      assert.ok(tracks.every((/** @type {any} */ t) => t && t.trackY < 100), `${lang}: every track inside its token`);
      assert.ok(tracks[4].lifted && /** @type {any} */ (melee).overlayLast, `${lang}: the hovered track is lifted above the others`);
      assert.ok(tracks.every((/** @type {any} */ t) => t.textScreen.every((/** @type {number} */ h) => h >= 9)), `${lang}: at 75 % every status is 9 px or taller on screen (${tracks.map((/** @type {any} */ t) => t.textScreen)})`);
      const dead = tracks[2];
      assert.ok(!dead.words.join(" ").includes("\u2212"), `${lang}: no wound penalty on the dead: ${dead.words}`);
      savePng(melee, `health-track-melee-${lang}.png`);
    }
  });

  test("visibility Token mixin for real: pinpointed drawn in full, approximate only the grey blurred silhouette, unlocated nothing; the GM sees all", async () => {
    assert.ok(page);
    const shot = await render("renderTokens", {});
    savePng(shot, "visibility-tokens.png");
    /** @type {Record<string, number>} */
    const C = await page.evaluate(() => /** @type {any} */ (window).vtt.TOKEN_COLORS);
    const info = /** @type {any} */ (shot);
    const bg = hex(info.background);
    const grey = (/** @type {[number, number, number]} */ [r, g, b]) => Math.abs(r - g) <= 3 && Math.abs(g - b) <= 3 && Math.abs(r - b) <= 3;
    /** Every pixel of a token's cell: its square, the tooltip above and the name plate below. */
    const cellPixels = (/** @type {{x: number, y: number, w: number, h: number}} */ cell) => {
      /** @type {Array<{x: number, y: number, c: [number, number, number]}>} */
      const out = [];
      for (let y = cell.y - 22; y < cell.y + cell.h + 26; y++) for (let x = cell.x - 8; x < cell.x + cell.w + 8; x++) out.push({ x, y, c: rgb(shot, x, y) });
      return out;
    };
    /** How many pixels of the cell have `color` (exactly enough to tell the parts apart). */
    const count = (/** @type {any} */ cell, /** @type {number} */ color) => cellPixels(cell).filter((p) => near(p.c, hex(color), 30)).length;
    const PARTS = { nameplate: C.nameplate, bars: C.bars, effects: C.effects, tooltip: C.tooltip, "other module's marker": C.marker };

    for (const [view, row] of Object.entries(info.rows)) {
      assert.equal(row.classChanged, true, `${view}: CONFIG.Token.objectClass is the mixin`);
      const cells = Object.fromEntries(row.cells.map((/** @type {any} */ c) => [c.id, c]));
      assert.ok(count(cells.obs, C.observerArt) > 3000, `${view}: the observer's own token shows its art`);
      const full = view === "gm" ? ["pin", "apx", "unl"] : ["pin"];
      for (const id of full) {
        const cell = cells[id];
        assert.ok(count(cell, C.art) > 3000, `${view} ${id}: the art (${count(cell, C.art)} px)`);
        for (const [part, color] of Object.entries(PARTS)) assert.ok(count(cell, color) > 20, `${view} ${id}: the ${part}`);
        assert.ok(count(cell, C.border) > 100, `${view} ${id}: the disposition border`);
      }
    }

    const player = Object.fromEntries(info.rows.player.cells.map((/** @type {any} */ c) => [c.id, c]));
    // approximate: no art, no part, not the disposition colour; only greys (the silhouette, the neutral border)
    const apx = player.apx;
    for (const p of cellPixels(apx)) assert.ok(grey(p.c), `approximate: colour at (${p.x},${p.y}): ${p.c}`);
    assert.equal(info.rows.player.silhouettes[2], 1, "one silhouette on the approximate token");
    assert.ok(count(apx, C.neutral) > 100, `approximate: the neutral border (${count(apx, C.neutral)} px)`);
    const silhouette = hex(COLORS.silhouette)[0];
    const darkest = Math.min(...cellPixels(apx).filter((p) => p.x > apx.x + 6 && p.x < apx.x + apx.w - 6 && p.y > apx.y + 6 && p.y < apx.y + apx.h - 6).map((p) => p.c[0]));
    assert.ok(darkest < silhouette + 16, `approximate: the silhouette's solid grey core (${darkest})`);
    // blurred: across the head's edge the grey fades over several pixels (intermediate alpha)
    let fading = 0;
    for (let x = apx.x + 6; x < apx.x + apx.w / 2; x++) {
      const v = rgb(shot, x, apx.y + 36)[0];
      if (v > darkest + 8 && v < bg[0] - 8) fading++;
    }
    assert.ok(fading >= 5, `approximate: a soft edge (${fading} intermediate pixels)`);
    // a body-sized shape, not a border only
    let body = 0;
    for (let y = apx.y + 6; y < apx.y + apx.h - 6; y++) for (let x = apx.x + 6; x < apx.x + apx.w - 6; x++) if (rgb(shot, x, y)[0] < bg[0] - 20) body++;
    assert.ok(body > 1500, `approximate: the silhouette fills the token (${body} px)`);

    // unlocated: the background only
    for (const p of cellPixels(player.unl)) assert.ok(near(p.c, bg, 4), `unlocated: drawn at (${p.x},${p.y}): ${p.c}`);
    assert.deepEqual(info.rows.player.visible, [true, true, true, false]);
    assert.deepEqual(info.rows.gm.silhouettes, [0, 0, 0, 0], "no silhouette for the GM");
  });

  test("DET-4 a player's map: two approximate creatures of different sizes as the same neutral marker off their squares; a step inside leaves it, a move far draws a new one", async () => {
    assert.ok(page);
    /** @type {Record<string, number>} */
    const C = await page.evaluate(() => /** @type {any} */ (window).vtt.TOKEN_COLORS);
    const first = /** @type {any} */ (await render("renderAreas", {}));
    savePng(first, "areas-player.png");
    const s = first.scale;
    assert.deepEqual(first.visible, { obs: true, big: false, tiny: false }, "the creatures are not drawn");
    assert.equal(first.markers.length, 2);
    assert.ok(first.markers.every((/** @type {any} */ m) => m.label === "vtt-bridge-area"));
    // nothing of the creatures' art anywhere; the player's own token is there
    let art = 0;
    let own = 0;
    for (let y = 0; y < first.height; y++) {
      for (let x = 0; x < first.width; x++) {
        const c = rgb(first, x, y);
        if (near(c, hex(C.art), 30)) art++;
        if (near(c, hex(C.observerArt), 30)) own++;
      }
    }
    assert.equal(art, 0, "no creature art on the map");
    assert.ok(own > 500, `the player's own token (${own} px)`);
    // the two markers look the same: equal crops around their middles
    const crop = (/** @type {any} */ shot, /** @type {{x: number, y: number}} */ m, /** @type {number} */ half) => {
      const out = [];
      for (let dy = -half; dy <= half; dy++) for (let dx = -half; dx <= half; dx++) out.push(rgb(shot, Math.round(m.x * s) + dx, Math.round(m.y * s) + dy).join(","));
      return out;
    };
    const [big, tiny] = first.markers;
    const bare = /** @type {any} */ (await render("renderAreas", { gridLines: false }));
    const tinyCrop = crop(bare, tiny, 100);
    const differ = crop(bare, big, 100).filter((p, i) => p !== tinyCrop[i]).length;
    assert.equal(differ, 0, `the Large and the Tiny creature's markers look alike, pixel for pixel (${differ} differ)`);
    // the marker is off the creature's square: its middle is not the token's centre
    assert.notDeepEqual({ x: big.x, y: big.y }, { x: 700 + 100, y: 300 + 100 });
    // a step of one square inside the area: the very same picture
    const inside = /** @type {any} */ (await render("renderAreas", { moves: [{ id: "big", x: 600, y: 300 }] }));
    savePng(inside, "areas-player-moved-inside.png");
    assert.deepEqual(inside.where.big, { x: 600, y: 300, w: 200 }, "the creature moved");
    assert.deepEqual(inside.markers, first.markers, "the markers stayed");
    assert.ok(Buffer.from(inside.rgba).equals(Buffer.from(first.rgba)), "the player's screen is unchanged, pixel for pixel");
    // far: a new area around it, drawn by the sidecar
    const far = /** @type {any} */ (await render("renderAreas", { moves: [{ id: "big", x: 600, y: 300 }, { id: "big", x: 200, y: 600, area: [330, 520, 300] }] }));
    savePng(far, "areas-player-moved-far.png");
    assert.deepEqual(
      far.markers.map((/** @type {any} */ m) => [m.x, m.y]).sort(),
      [[380, 570], [tiny.x, tiny.y]].sort(),
      "a new marker over the new area, the other where it was",
    );
    assert.ok(!Buffer.from(far.rgba).equals(Buffer.from(first.rgba)));
    const truth = /** @type {any} */ (await render("renderAreas", { truth: true }));
    savePng(truth, "areas-where-they-stand.png");
  });
});
}
