// The GM's panel of observers against targets (DET-4, issue 31) on the strict Foundry stand-in
// (ApplicationV2 as its pages describe it) with the real sidecar's rulings: every pair's state and
// area from the flags the sidecar's document puts on the tokens, pins read with the `pins` query,
// ticked pairs pinned and released in one `batch` the real sidecar accepts (one ruling, one undo),
// the filter and the GM's selection narrowing the pairs; a player gets no panel; German and Chinese.
import assert from "node:assert/strict";
import { test } from "node:test";

import { planPatch } from "../../scripts/core/apply-patch.mjs";
import { AREAS_FLAG, MODULE_ID } from "../../scripts/core/constants.mjs";
import { panelHtml, panelRows, PANEL_BATCH_LIMIT, pinBatches, releaseBatches, tickedPairs } from "../../scripts/core/locate-panel.mjs";
import { installGmBadges } from "../../scripts/foundry/gm-badges.mjs";
import { addPanelTool, installLocatePanel, PANEL_TOOL } from "../../scripts/foundry/locate-panel.mjs";
import { ownedSubject } from "../../scripts/foundry/player-requests.mjs";
import { VISIBILITY_HOOK } from "../../scripts/foundry/visibility-canvas.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { FakeApplicationV2, FakeCanvas, FakeWorld, mergeUpdate } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";
import { i18nFor } from "../helpers/i18n.mjs";
import { sidecarRulings } from "../helpers/sidecar.mjs";

const g = /** @type {any} */ (globalThis);
const GLOBALS = ["game", "canvas", "Hooks", "PIXI", "foundry", "ui"];

const CLOAK = [{ name: "cloak", essence: "magical", rank: "C" }];
/** Ayla hears well; Bram sees plainly; a cloaked Thief and a plain Ogre. */
export const PANEL_STATE = {
  scene: { id: "scene1", round: 2, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, detection: [{ name: "ears", sense: "hearing", essence: "natural", rank: "B" }] },
    "Actor.bram": { name: "Bram", health: { max: 7 } },
    "Actor.thief": { name: "Thief", health: { max: 7 }, antiDetection: CLOAK },
    "Actor.ogre": { name: "Ogre", health: { max: 9 } },
  },
  tokens: {
    tA: { actor: "Actor.ayla", x: 400, y: 400 },
    tB: { actor: "Actor.bram", x: 600, y: 400 },
    tT: { actor: "Actor.thief", x: 1000, y: 600 },
    tO: { actor: "Actor.ogre", x: 1400, y: 400 },
  },
};
const NAMES = /** @type {Record<string, string>} */ ({ tA: "Ayla", tB: "Bram", tT: "Thief", tO: "Ogre" });

/**
 * The flags the module writes from the sidecar's document (its own planner, a sync): on each
 * target, `visibility.<observer>` (the pair's code) and `areas.<observer>` ([x, y, r]).
 * @param {any} doc the state document
 */
export function flagsOf(doc) {
  /** @type {Record<string, {flags: Record<string, {visibility: Record<string, string>, areas: Record<string, unknown>}>}>} */
  const tokens = {};
  for (const id of Object.keys(doc.tokens)) tokens[id] = { flags: { [MODULE_ID]: { visibility: {}, areas: {} } } };
  const plan = planPatch(null, ["visibility", "areas"].map((part) => ({ op: "replace", path: `/${part}`, value: doc[part] ?? {} })), {
    mode: "sync",
    statusIds: new Set(),
    deletion: deletionOperator({}),
  });
  assert.equal(plan.resync, false, plan.reason);
  for (const [id, update] of plan.tokenUpdates) mergeUpdate(tokens[id], update);
  return Object.fromEntries(Object.entries(tokens).map(([id, token]) => [id, token.flags[MODULE_ID]]));
}

/** The stand-in table, the panel installed. @param {"gm"|"ann"} as @param {any} doc @param {{language?: string, pins?: any}} [options] */
function table(as, doc, { language = "en", pins = {} } = {}) {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("ann", "Ann");
  const flags = flagsOf(doc);
  for (const [id, token] of Object.entries(PANEL_STATE.tokens)) {
    const actor = world.addActor(id, NAMES[id], {}, id === "tA" ? { default: 0, ann: 3 } : undefined);
    world.addToken(id, actor, token.x, token.y, world.scene, { name: NAMES[id], flags: { [MODULE_ID]: { visibility: flags[id].visibility, [AREAS_FLAG]: flags[id].areas } } });
  }
  world.loginAs(as);
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  const i18n = i18nFor(language);
  Object.assign(g, {
    game: { user: world.user, i18n, keybindings: world.keybindings, combat: { round: 2 } },
    canvas,
    Hooks: world.hooks,
    PIXI: FAKE_PIXI,
    foundry: { applications: { api: { ApplicationV2: FakeApplicationV2 } } },
    ui: { notifications: { error() {} } },
  });
  const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  /** @type {any[]} */
  const sent = [];
  /** @type {any[]} */
  const asked = [];
  const query = async (/** @type {any} */ q) => {
    asked.push(q);
    return { data: { pins } };
  };
  const installed = installLocatePanel({ env: g, localize, query: () => query, send: async (a) => void sent.push(a), canSend: () => true });
  canvas.draw();
  return { world, canvas, installed, sent, asked, localize };
}

/** The panel's rows as "observer→target state" lines. @param {any} panel */
function rowsOf(panel) {
  return panel.element.querySelectorAll(".vtt-bridge-pair").map((/** @type {any} */ box) => box.value);
}

/** @param {any} panel @param {string} action */
function button(panel, action) {
  return panel.element.querySelectorAll("[data-action]").find((/** @type {any} */ b) => b.dataset.action === action);
}

test("DET-4 the GM's panel lists every pair the real sidecar ruled not pinpointed, with its area; ticked pairs are pinned in one batch the sidecar rules as one", async (t) => {
  t.after(() => GLOBALS.forEach((n) => delete g[n]));
  const [{ state: doc }] = await sidecarRulings(PANEL_STATE, [{ query: { kind: "state" } }]);
  const { installed, sent, asked } = table("gm", doc);
  const panel = installed.open();
  await panel.render();
  assert.ok(panel.rendered);
  assert.deepEqual(asked.at(-1), { kind: "pins" }, "the pins are read with the pins query");
  // the sidecar's own not-pinpointed pairs, each listed once, nothing else
  /** @type {string[]} */
  const expected = [];
  for (const [observer, targets] of Object.entries(doc.visibility)) for (const target of Object.keys(/** @type {any} */ (targets))) expected.push(`${observer}:${target}`);
  assert.ok(expected.length >= 2, JSON.stringify(doc.visibility));
  assert.deepEqual([...rowsOf(panel)].sort(), expected.sort());
  const html = panel.element.textContent;
  const approx = Object.entries(doc.areas ?? {}).flatMap(([tt, os]) => Object.keys(/** @type {any} */ (os)).map((o) => `${o}:${tt}`));
  assert.ok(approx.length >= 1, "some pair is approximate, with an area");
  for (const pair of approx) {
    const [o, tt] = pair.split(":");
    assert.equal(doc.visibility[o]?.[tt], "a", `${pair}: the area's row is its target's, the cell its observer's`);
  }
  assert.match(html, /an area of 3 squares/);
  assert.match(html, /not found/);
  // every pair: the filter
  await panel.click(panel.element.querySelectorAll("[data-filter]").find((/** @type {any} */ b) => b.dataset.filter === "all"));
  assert.equal(rowsOf(panel).length, 12, "4 tokens: 12 ordered pairs");
  // tick Ayla→Ogre and Bram→Ogre, pin them to "not found" until this round ends
  const boxes = panel.element.querySelectorAll(".vtt-bridge-pair");
  for (const box of boxes) if (["tA:tO", "tB:tO"].includes(box.value)) await panel.click(box);
  const selects = panel.element.querySelectorAll("[data-field]");
  selects.find((/** @type {any} */ s) => s.dataset.field === "state").value = "unlocated";
  selects.find((/** @type {any} */ s) => s.dataset.field === "until").value = "round";
  await panel.click(button(panel, "pin"));
  assert.equal(sent.length, 1, "one batch");
  assert.deepEqual(sent[0], {
    kind: "batch",
    actions: [
      { kind: "pinLocate", observer: "tA", target: "tO", state: "unlocated", until: { round: 2 }, by: "Gamemaster" },
      { kind: "pinLocate", observer: "tB", target: "tO", state: "unlocated", until: { round: 2 }, by: "Gamemaster" },
    ],
  });
  // the real sidecar: one ruling, both pairs pinned; then the release the panel sends for them, and an undo of it
  const out = await sidecarRulings(PANEL_STATE, [sent[0], { query: { kind: "pins" } }, { query: { kind: "state" } }]);
  assert.ok(!out[0].error, JSON.stringify(out[0]));
  assert.equal(out[0].rev, 2, "one ruling");
  const pins = out[1].data.pins;
  assert.deepEqual(Object.keys(pins.tO.observers).sort(), ["tA", "tB"]);
  assert.equal(out[2].state.visibility.tA.tO, "u");
  const release = releaseBatches(tickedPairs(["tA:tO", "tB:tO", "tA:tT"]), pins);
  assert.deepEqual(release, [{ kind: "batch", actions: [{ kind: "releaseLocate", observer: "tA", target: "tO" }, { kind: "releaseLocate", observer: "tB", target: "tO" }] }], "a pair without a pin is left out");
  const after = await sidecarRulings(PANEL_STATE, [sent[0], release[0], { query: { kind: "pins" } }]);
  assert.ok(!after[1].error, JSON.stringify(after[1]));
  assert.deepEqual(after[2].data.pins, {});
});

test("DET-4 the panel shows the pins it read and releases them; the GM's selection narrows the pairs; the panel renders again after a ruling", async (t) => {
  t.after(() => GLOBALS.forEach((n) => delete g[n]));
  const [{ state: doc }] = await sidecarRulings(PANEL_STATE, [{ query: { kind: "state" } }]);
  const pins = { tO: { every: { state: "approximate", until: "scene", by: "Kim" }, observers: {} } };
  const { installed, sent, canvas } = table("gm", doc, { pins });
  canvas.tokens.get("tO").controlled = true;
  const panel = installed.open();
  await panel.render();
  assert.match(panel.element.textContent, /Only pairs with: Ogre/);
  const rows = rowsOf(panel);
  assert.ok(rows.length >= 3 && rows.every((/** @type {string} */ r) => r.split(":").includes("tO")), rows.join(","));
  assert.match(panel.element.textContent, /roughly for every observer until the end of the scene \(Kim\)/);
  await panel.click(panel.element.querySelectorAll("[data-action]").find((/** @type {any} */ b) => b.dataset.action === "tickAll"));
  assert.ok(panel.element.querySelectorAll(".vtt-bridge-pair").every((/** @type {any} */ b) => b.checked));
  await panel.click(button(panel, "release"));
  assert.deepEqual(sent, [{ kind: "batch", actions: [{ kind: "releaseLocate", target: "tO" }] }], "the pin for every observer, released once");
  const renders = panel.renders;
  g.Hooks.callAll(VISIBILITY_HOOK, ["tO"]);
  await new Promise((r) => setImmediate(r));
  assert.equal(panel.renders, renders + 1);
});

test("DET-4 a player gets no panel, no tool; a GM's badge click opens it on that token; the tool in v12 and v13 shapes", async (t) => {
  t.after(() => GLOBALS.forEach((n) => delete g[n]));
  const [{ state: doc }] = await sidecarRulings(PANEL_STATE, [{ query: { kind: "state" } }]);
  const player = table("ann", doc);
  assert.equal(player.installed.open(), null);
  /** @type {any} */
  const controls = { tokens: { tools: {} } };
  g.Hooks.callAll("getSceneControlButtons", controls);
  assert.deepEqual(Object.keys(controls.tokens.tools), []);
  GLOBALS.forEach((n) => delete g[n]);
  const gm = table("gm", doc);
  g.Hooks.callAll("getSceneControlButtons", controls);
  assert.equal(controls.tokens.tools[PANEL_TOOL].button, true);
  const v12 = [{ name: "token", tools: [] }];
  assert.ok(addPanelTool(v12, { name: "x", title: "t", icon: "i", onClick() {} }));
  assert.equal(/** @type {any} */ (v12[0].tools[0]).button, true);
  const badges = installGmBadges({ env: g, localize: gm.localize, onOpen: (focus) => gm.installed.open(focus) });
  badges.redraw();
  const badge = [...badges.badges.values()][0];
  const target = [...badges.badges.keys()][0];
  badge.emit("pointerdown");
  await new Promise((r) => setImmediate(r));
  const panel = gm.installed.open([target]);
  await panel.render();
  assert.ok(rowsOf(panel).every((/** @type {string} */ r) => r.split(":").includes(target)));
});

test("DET-4 the panel in German and Chinese (no English left); batches of at most 64 pairs; bad ends refused; a player's batch with a pin is never relayed", () => {
  const tokens = ["a", "b", "c"].map((id) => ({ id, name: id.toUpperCase(), visibility: id === "c" ? { a: "a", b: "u" } : {}, areas: id === "c" ? { a: [10, 20, 300] } : {} }));
  const { rows, total } = panelRows({ tokens });
  assert.equal(total, 2);
  assert.deepEqual(rows[0].area, { x: 10, y: 20, r: 300 });
  for (const language of ["de", "zh-CN"]) {
    const i18n = i18nFor(language);
    const localize = (/** @type {string} */ k, /** @type {any} */ d) => (d ? i18n.format(k, d) : i18n.localize(k));
    const html = panelHtml({ rows, total, filter: "hidden", focus: [], gridSize: 100, nameOf: (id) => id.toUpperCase(), canSend: false, pinsKnown: false }, localize);
    assert.ok(!html.includes("VTTBRIDGE"), html);
    // the words a reader sees: the text and the aria labels
    const words = html.replace(/aria-label="([^"]*)"/g, ">$1<").replace(/<[^>]*>/g, " ");
    assert.doesNotMatch(words, /\b(Observer|Target|Pin|Release|Every|pairs?|until|roughly|found|area|bridge|the)\b/i, `${language}: ${words}`);
  }
  const many = Array.from({ length: 130 }, (_, i) => ({ observer: `o${i}`, target: "t" }));
  const batches = pinBatches(many, { state: "approximate", until: "scene", round: 0, by: "Kim" });
  assert.deepEqual(batches.map((b) => /** @type {any[]} */ (b.actions).length), [PANEL_BATCH_LIMIT, PANEL_BATCH_LIMIT, 2]);
  assert.throws(() => pinBatches(many, { state: "approximate", until: "forever", round: 0, by: "" }), TypeError);
  assert.throws(() => pinBatches(many, { state: "seen", until: "scene", round: 0, by: "" }), TypeError);
  assert.deepEqual(tickedPairs(["a:b", "bad", "a:b:c", 3]), [{ observer: "a", target: "b" }]);
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [{ kind: "pinLocate", observer: "a", target: "b", state: "approximate", until: "scene" }] }), { token: "" }, "owned by nobody: a player's relay is refused");
});
