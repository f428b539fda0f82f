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
