// The Foundry wiring of the Health track (health-canvas.mjs) in Node, with Foundry-shaped tokens and
// a tiny PIXI stand-in that records what is drawn (the real pixi.js needs a DOM; tests/pixi.test.mjs
// renders the same wiring with the real one in Chromium and checks pixels).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { pointNameKey } from "../../scripts/core/chat-cards.mjs";
import { PALETTE_SETTING, PALETTES } from "../../scripts/core/palette.mjs";
import { HEALTH_CONTAINER_NAME, installHealthTrack } from "../../scripts/foundry/health-canvas.mjs";
import { FakeHooks } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI, FakeDisplay, FakeText } from "../helpers/fake-pixi.mjs";

const PIXI = FAKE_PIXI;

/** @param {Record<string, any>} flags @param {boolean} [isOwner] */
function makeToken(flags, isOwner = true) {
  const token = new FakeDisplay();
  Object.assign(token, { w: 100, h: 100, isOwner, actor: { flags: { "vtt-bridge": flags } } });
  return /** @type {any} */ (token);
}

/** @param {any} token */
const containerOf = (token) => token.children.find((/** @type {any} */ c) => c.name === HEALTH_CONTAINER_NAME);

/** @param {any} token the labels of its counters, left to right */
const counterLabels = (token) =>
  containerOf(token)
    .children[1].children.map((/** @type {any} */ badge) => badge.children.filter((/** @type {any} */ c) => c instanceof FakeText).map((/** @type {any} */ t) => t.text).join(" "));

test("'who sees Health boxes' is read once, not on every refreshToken, and again when it changes", () => {
  const hooks = new FakeHooks();
  const settings = { healthVisibility: "owner" };
  let reads = 0;
  const token = makeToken({ health: { max: 5, lethal: 1 } }, false);
  installHealthTrack({
    hooks,
    PIXI,
    getSetting: (key) => {
      if (key === "healthVisibility") reads += 1;
      return /** @type {Record<string, unknown>} */ (settings)[key];
    },
    isGM: () => false,
    localize: (key) => key,
    tokens: () => [token],
  });
  hooks.call("drawToken", token);
  for (let frame = 0; frame < 60; frame++) hooks.call("refreshToken", token, { refreshPosition: true });
  assert.equal(reads, 1, "a second of a moving token reads the world setting once");
  const words = containerOf(token);
  assert.ok(words && words.children[0].children.every((/** @type {any} */ c) => !(c.calls ?? []).length), "'owner': another player's token shows no boxes (HEALTH-6: at most its status word)");

  settings.healthVisibility = "everyone";
  hooks.call("updateSetting", { key: "vtt-bridge.someOtherSetting" });
  hooks.call("refreshToken", token, {});
  assert.equal(reads, 1, "another setting's change keeps the cached value");
  hooks.call("updateSetting", { key: "vtt-bridge.healthVisibility" });
  assert.equal(reads, 2);
  assert.equal(containerOf(token)?.visible, true, "'everyone': the track shows at once");
  settings.healthVisibility = "gm";
  hooks.call("createSetting", { key: "vtt-bridge.healthVisibility" });
  assert.equal(containerOf(token).visible, false);
});

test("counters are labelled with the point kind's name in the reader's language, the id when it has none", () => {
  const de = JSON.parse(readFileSync(new URL("../../lang/de.json", import.meta.url), "utf8"));
  /** @param {string} key */
  const localize = (key) => key.split(".").reduce((node, part) => node?.[part], de) ?? key;
  const hooks = new FakeHooks();
  const token = makeToken({ health: { max: 5, tempHp: 2 }, conditionPoints: { burn: 3, "mental-bind": 1, "not-a-kind": 2 }, emotionPoints: { fear: 2 } });
  installHealthTrack({ hooks, PIXI, getSetting: () => "owner", isGM: () => false, localize, tokens: () => [token] });
  hooks.call("drawToken", token);
  const tempHp = localize("VTTBRIDGE.HealthTrack.TempHp");
  assert.notEqual(tempHp, "VTTBRIDGE.HealthTrack.TempHp");
  assert.deepEqual(counterLabels(token), [`2 ${tempHp}`, "3 Brand", "1 Geistesfessel", "2 not-a-kind", "2 Furcht"]);
});

test("every condition and emotion point kind the sidecar writes has a name in en, de and zh-CN", () => {
  const source = readFileSync(new URL("../../../vtt_bridge/rules/conditions.py", import.meta.url), "utf8");
  /** @param {string} cls */
  const kinds = (cls) => {
    const body = source.split(`class ${cls}(StrEnum):`)[1].split("\n\n\n")[0];
    return [...body.matchAll(/^ {4}[A-Z_]+ = "([a-z-]+)"$/gm)].map((m) => m[1]);
  };
  const all = [...kinds("ConditionPointKind"), ...kinds("EmotionPointKind")];
  assert.equal(all.length, 20, "17 condition point kinds and 3 emotion point kinds (RANK-9)");
  for (const lang of ["en", "de", "zh-CN"]) {
    const data = JSON.parse(readFileSync(new URL(`../../lang/${lang}.json`, import.meta.url), "utf8"));
    for (const kind of all) {
      const name = pointNameKey(kind).split(".").reduce((node, part) => node?.[part], data);
      assert.equal(typeof name, "string", `${lang}: ${pointNameKey(kind)}`);
      if (lang === "zh-CN") assert.match(name, /[\u4e00-\u9fff]/, `zh-CN ${kind} is Chinese`);
    }
  }
});

/** The fill colours a token's track drew, in order. @param {any} token @returns {number[]} */
const trackFills = (token) => {
  const [g] = containerOf(token).children[0].children;
  return g.calls.filter((/** @type {any[]} */ c) => c[0] === "beginFill").map((/** @type {any[]} */ c) => c[1]);
};

test("the palette (a client setting): read once, the track redrawn in it when it changes, the marks the same", () => {
  const hooks = new FakeHooks();
  /** @type {Record<string, unknown>} */
  const settings = { healthVisibility: "everyone" };
  let reads = 0;
  const token = makeToken({ health: { max: 3, aggravated: 1, lethal: 1 } });
  installHealthTrack({
    hooks,
    PIXI,
    getSetting: (key) => {
      if (key === PALETTE_SETTING) reads += 1;
      return settings[key];
    },
    isGM: () => false,
    localize: (key) => key,
    tokens: () => [token],
  });
  hooks.call("drawToken", token);
  for (let frame = 0; frame < 30; frame++) hooks.call("refreshToken", token, {});
  assert.equal(reads, 1);
  // unset: the standard palette; aggravated (the first box) filled in its red
  assert.ok(trackFills(token).includes(PALETTES.standard.track.aggravated));
  assert.ok(!trackFills(token).includes(PALETTES.okabeIto.track.aggravated));
  const marks = (/** @type {any} */ t) => containerOf(t).children[0].children[0].calls.filter((/** @type {any[]} */ c) => c[0] === "moveTo").length;
  const before = marks(token);
  settings[PALETTE_SETTING] = "okabeIto";
  hooks.call("updateSetting", { key: `vtt-bridge.${PALETTE_SETTING}` });
  assert.equal(reads, 2);
  assert.ok(trackFills(token).includes(PALETTES.okabeIto.track.aggravated), "redrawn in the colour-blind palette");
  assert.ok(!trackFills(token).includes(PALETTES.standard.track.aggravated));
  assert.equal(marks(token), before, "the same marks: / and X on the lethal box, the asterisk on the aggravated one");
  assert.equal(before, 2 + 3, "lethal: 2 strokes, aggravated: 3");
});

/**
 * The wiring with a placement, a zoom and an overlay as Foundry would give them.
 * @param {Record<string, unknown>} settings @param {{zoom?: number}} [view]
 */
function placed(settings, view = { zoom: 1 }) {
  const hooks = new FakeHooks();
  const overlay = new FakeDisplay();
  const layer = new FakeDisplay();
  const a = makeToken({ health: { max: 7, lethal: 3 }, status: "moderately", woundPenalty: 1 });
  const b = makeToken({ health: { max: 7 }, status: "unharmed" });
  const nameplate = new FakeDisplay();
  nameplate.y = 102;
  a.nameplate = nameplate;
  a.addChild(nameplate);
  a.position.set(200, 300);
  b.position.set(200, 400);
  layer.addChild(a, b);
  /** @type {any[]} every text drawn */
  const drawnTexts = [];
  const texts = {
    get length() {
      return drawnTexts.length;
    },
    set length(n) {
      drawnTexts.length = n;
    },
    some: (/** @type {(t: string) => boolean} */ fn) => drawnTexts.some((t) => fn(String(t.text))),
    join: (/** @type {string} */ sep) => drawnTexts.map((t) => t.text).join(sep),
  };
  installHealthTrack({
    hooks,
    PIXI: {
      ...PIXI,
      Text: class extends FakeText {
        constructor() {
          super();
          drawnTexts.push(this);
        }
      },
    },
    getSetting: (key) => settings[key],
    isGM: () => true,
    localize: (key) => key.split(".").at(-1) ?? key,
    tokens: () => [a, b],
    zoom: () => /** @type {number} */ (view.zoom),
    overlay: () => overlay,
  });
  for (const t of [a, b]) hooks.call("drawToken", t);
  return { hooks, overlay, layer, a, b, texts, view };
}

test("placement 'inside': the track sits inside the token along its bottom edge, the nameplate stays; 'below' under it, the nameplate moved down", () => {
  const inside = placed({ trackPlacement: "inside" });
  const track = containerOf(inside.a).children[0];
  assert.ok(track.y > 50 && track.y < 100, `inside the 100 px token (${track.y})`);
  assert.equal(inside.a.nameplate.y, 102, "the nameplate is not pushed down");
  const below = placed({ trackPlacement: "below" });
  assert.equal(containerOf(below.a).children[0].y, 102);
  assert.ok(below.a.nameplate.y > 110, "the nameplate moves below the track");
  const unknown = placed({ trackPlacement: "sideways" });
  assert.equal(containerOf(unknown.a).children[0].y, 102, "an unknown value: below");
});

test("placement 'hover': no track until the pointer is over the token (hoverToken), none after it leaves", () => {
  const { hooks, a, b } = placed({ trackPlacement: "hover" });
  assert.ok(!containerOf(a) || !containerOf(a).visible, "not hovered: nothing shown");
  hooks.call("hoverToken", a, true);
  const lifted = (/** @type {any} */ t) => t.children.find((/** @type {any} */ c) => c.name === HEALTH_CONTAINER_NAME);
  assert.equal(lifted(a), undefined, "lifted out of the token into the overlay");
  hooks.call("hoverToken", a, false);
  assert.equal(lifted(a)?.visible, false, "back in the token, hidden");
  assert.ok(!lifted(b) || !lifted(b).visible, "the other token never showed");
});

test("hovering a token in a melee lifts its track above every neighbour's (the overlay's last child), at the same place; leaving puts it back", () => {
  const { hooks, overlay, a, b } = placed({ trackPlacement: "below" });
  const own = containerOf(a);
  hooks.call("hoverToken", b, true);
  hooks.call("hoverToken", a, true);
  assert.equal(own.parent, overlay);
  assert.equal(overlay.children.at(-1), own, "drawn after the other lifted track");
  assert.deepEqual([own.x, own.y], [200, 300], "where the token is");
  hooks.call("hoverToken", a, false);
  assert.equal(own.parent, a);
  assert.deepEqual([own.x, own.y], [0, 0]);
});

test("zoomed out, the boxes keep a readable size on screen (they wrap, never wider than the token); a pan at the same zoom draws nothing new", () => {
  const view = { zoom: 0.5 };
  const { hooks, a, texts } = placed({ trackPlacement: "below" }, view);
  const track = containerOf(a).children[0];
  const boxes = track.children[0].calls.filter((/** @type {any[]} */ c) => c[0] === "drawRect");
  assert.ok(boxes.length >= 7);
  const side = Math.max(...boxes.map((/** @type {any[]} */ c) => c[3]));
  assert.ok(side * view.zoom >= 8, `a box is ≥ 8 px on screen (${side} × 0.5)`);
  assert.ok(Math.max(...boxes.map((/** @type {any[]} */ c) => c[1] + c[3])) <= 100, "and the track no wider than the token");
  const drawn = texts.length;
  hooks.call("canvasPan", {}, { x: 10, y: 10, scale: 0.5 });
  assert.equal(texts.length, drawn, "same zoom: no redraw");
  view.zoom = 1;
  hooks.call("canvasPan", {}, { x: 10, y: 10, scale: 1 });
  const again = containerOf(a).children[0].children[0].calls.filter((/** @type {any[]} */ c) => c[0] === "drawRect");
  assert.ok(Math.max(...again.map((/** @type {any[]} */ c) => c[3])) < side, "at 100 % the boxes are drawn smaller again");
  assert.ok(texts.length > drawn, "a new zoom step redraws");
});

test("HEALTH-7: no wound penalty shown on the dead", () => {
  const { hooks, a, texts } = placed({ trackPlacement: "below" });
  assert.ok(texts.some((t) => t.includes("\u22121")), texts.join(" | "));
  a.actor.flags["vtt-bridge"] = { health: { max: 7, lethal: 7 }, status: "dead", woundPenalty: 3 };
  texts.length = 0;
  hooks.call("updateActor", { ...a.actor, getActiveTokens: () => [a] }, { flags: { "vtt-bridge": { status: "dead" } } });
  assert.ok(texts.some((t) => t.includes("dead")), texts.join(" | "));
  assert.ok(!texts.some((t) => t.includes("\u2212")), `no penalty: ${texts.join(" | ")}`);
});

test("HEALTH-6 where the setting hides the boxes but allows words ('Owners and GM'), a token one does not own shows its Health status word and no boxes, counters or penalty; 'GM only' shows nothing", () => {
  for (const [setting, expected] of /** @type {const} */ ([["owner", ["VTTBRIDGE.HealthTrack.Status.badly"]], ["gm", null], ["everyone", "boxes"]])) {
    const hooks = new FakeHooks();
    const token = makeToken({ health: { max: 5, lethal: 3 }, status: "badly", woundPenalty: -2, conditionPoints: { burn: 2 } }, false);
    installHealthTrack({ hooks, PIXI, getSetting: () => setting, isGM: () => false, localize: (key) => key, tokens: () => [token] });
    hooks.call("drawToken", token);
    const container = containerOf(token);
    if (expected === null) {
      assert.ok(!container || container.visible === false, setting);
      continue;
    }
    const [track, counters] = container.children;
    const texts = track.children.filter((/** @type {any} */ c) => c instanceof FakeText).map((/** @type {any} */ t) => t.text);
    const boxes = track.children.filter((/** @type {any} */ c) => !(c instanceof FakeText)).flatMap((/** @type {any} */ c) => c.calls ?? []);
    if (expected === "boxes") {
      assert.ok(boxes.length > 0, "everyone: the boxes");
      assert.ok(counters.children.length > 0);
    } else {
      assert.deepEqual(texts, expected, `${setting}: the word alone`);
      assert.equal(boxes.length, 0, "no box");
      assert.equal(counters.children.length, 0, "no counters");
    }
  }
});
