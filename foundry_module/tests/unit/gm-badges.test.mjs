// The GM's badges (DET-4) on the strict Foundry stand-in: a badge on each token some observer does
// not pinpoint, with the counts; its hover says in words who locates it how (English, German,
// Chinese); nothing for a player.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { badgeCounts, badgeLabel, badgeLines, pairReasons, reasonWords } from "../../scripts/core/gm-badges.mjs";
import { BADGES_LABEL, installGmBadges } from "../../scripts/foundry/gm-badges.mjs";
import { VISIBILITY_HOOK } from "../../scripts/foundry/visibility-canvas.mjs";
import { FakeCanvas, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";
import { i18nFor } from "../helpers/i18n.mjs";
import { sidecarRulings } from "../helpers/sidecar.mjs";

const g = /** @type {any} */ (globalThis);

/** @param {"gm"|"ann"} as @param {string} [language] */
function table(as, language = "en") {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("ann", "Ann");
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const bram = world.addActor("bram", "Bram", {});
  const ogre = world.addActor("ogre", "Ogre", {});
  const flag = (/** @type {Record<string, string>} */ visibility) => ({ [MODULE_ID]: { visibility } });
  world.addToken("tA", ayla, 400, 400, world.scene, { name: "Ayla" });
  world.addToken("tB", bram, 600, 400, world.scene, { name: "Bram" });
  world.addToken("tO", ogre, 1000, 400, world.scene, { name: "Ogre", flags: flag({ tA: "a", tB: "u" }) });
  world.loginAs(as);
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  const i18n = i18nFor(language);
  Object.assign(g, { game: { user: world.user, i18n }, canvas, Hooks: world.hooks, PIXI: FAKE_PIXI });
  const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  const badges = installGmBadges({ env: g, localize });
  canvas.draw();
  const layer = () => canvas.controls.children.find((/** @type {any} */ c) => c.name === BADGES_LABEL);
  return { world, canvas, badges, layer };
}

test("DET-4 the GM sees a badge on each token some observer does not pinpoint, with the counts, at the token; hovering it says who locates it how", (t) => {
  t.after(() => ["game", "canvas", "Hooks", "PIXI"].forEach((n) => delete g[n]));
  const { layer, badges, world } = table("gm");
  assert.equal(layer().children.length, 1, "only the ogre, which not everyone pinpoints");
  const badge = badges.badges.get("tO");
  assert.ok(badge);
  const texts = badge.children.filter((/** @type {any} */ c) => typeof c.text === "string").map((/** @type {any} */ c) => c.text);
  assert.equal(texts[0], "≈1 ✕1");
  assert.ok(badge.x > 1000 && badge.y < 400, "at the token's top right");
  assert.equal(badge.vttWords.visible, false);
  badge.emit("pointerover");
  assert.equal(badge.vttWords.visible, true);
  assert.equal(badge.vttWords.text, "1 locate it roughly, 1 cannot find it\nAyla: roughly (an area, not its square)\nBram: cannot find it\nwhy: ask on the browser that runs the bridge");
  badge.emit("pointerout");
  assert.equal(badge.vttWords.visible, false);
  // a ruling that lets everyone pinpoint it: the badge goes
  /** @type {any} */ (world.scene.tokens.find((d) => d.id === "tO"))._source.flags = {};
  world.hooks.callAll(VISIBILITY_HOOK, []);
  assert.equal(layer().children.length, 0);
});

test("DET-4 a player gets no badge", (t) => {
  t.after(() => ["game", "canvas", "Hooks", "PIXI"].forEach((n) => delete g[n]));
  const { layer } = table("ann");
  assert.equal(layer()?.children.length ?? 0, 0);
});

test("DET-4 the badge's words in German and Chinese; counts from the flag (an unreadable entry counts as unlocated)", () => {
  const counts = /** @type {import("../../scripts/core/gm-badges.mjs").BadgeCounts} */ (badgeCounts({ b: "u", a: "a", c: "zz" }));
  assert.deepEqual(counts, { approximate: 1, unlocated: 2, pairs: [{ observer: "a", state: "approximate" }, { observer: "b", state: "unlocated" }, { observer: "c", state: "unlocated" }] });
  assert.equal(badgeLabel(counts), "≈1 ✕2");
  assert.equal(badgeCounts({}), null);
  assert.equal(badgeCounts(undefined), null);
  for (const [language, first] of [["de", "1 orten es ungefähr, 2 finden es nicht"], ["zh-CN", "1 个模糊定位，2 个无法定位"]]) {
    const i18n = i18nFor(language);
    const lines = badgeLines(counts, (id) => id.toUpperCase(), (key, data) => (data ? i18n.format(key, data) : i18n.localize(key)));
    assert.equal(lines[0], first);
    assert.equal(lines.length, 4);
    assert.ok(!lines.some((l) => l.includes("VTTBRIDGE")), lines.join("|"));
  }
});

/** The sidecar's table for the tooltip: a cloaked Thief; Ayla hears her, Bran lost a contest and the GM pinned him to roughly. */
const WHY_STATE = {
  scene: { id: "s", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, detection: [{ name: "ears", sense: "hearing", essence: "natural", rank: "B" }] },
    "Actor.bram": { name: "Bram", health: { max: 7 } },
    "Actor.thief": { name: "Thief", health: { max: 7 }, antiDetection: [{ name: "cloak", essence: "magical", rank: "C" }] },
  },
  tokens: { tA: { actor: "Actor.ayla", x: 400, y: 400 }, tB: { actor: "Actor.bram", x: 600, y: 400 }, tO: { actor: "Actor.thief", x: 1000, y: 400 } },
};

/** The real sidecar's answers: the state's visibility and both explain answers. */
async function whyAnswers() {
  const out = await sidecarRulings(WHY_STATE, [
    { kind: "contest", observer: "tB", target: "tO" },
    { kind: "pinLocate", observer: "tB", target: "tO", state: "approximate", until: "scene", by: "Kim" },
    { query: { kind: "explain", observer: "tA", target: "tO" } },
    { query: { kind: "explain", observer: "tB", target: "tO" } },
    { query: { kind: "state" } },
  ]);
  const visibility = out[4].state.visibility;
  /** @type {Record<string, string>} */
  const flag = {};
  for (const observer of ["tA", "tB"]) flag[observer] = visibility[observer].tO;
  return { flag, answers: { tA: out[2], tB: out[3] } };
}

/** The badge's table with the flag of the sidecar and an explainer over its answers. @param {string} language @param {any} why */
function whyTable(language, why, { bridge = true } = {}) {
  const world = new FakeWorld({ generation: 13 });
  const ayla = world.addActor("ayla", "Ayla", {});
  const bram = world.addActor("bram", "Bram", {});
  const thief = world.addActor("thief", "Thief", {});
  world.addToken("tA", ayla, 400, 400, world.scene, { name: "Ayla" });
  world.addToken("tB", bram, 600, 400, world.scene, { name: "Bram" });
  world.addToken("tO", thief, 1000, 400, world.scene, { name: "Thief", flags: { [MODULE_ID]: { visibility: why.flag } } });
  world.loginAs("gm");
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  const i18n = i18nFor(language);
  Object.assign(g, { game: { user: world.user, i18n }, canvas, Hooks: world.hooks, PIXI: FAKE_PIXI });
  const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  /** @type {any[]} */
  const asked = [];
  const query = async (/** @type {any} */ q) => {
    asked.push(q);
    return why.answers[q.observer];
  };
  const badges = installGmBadges({ env: g, localize, explainer: () => (bridge ? query : null) });
  canvas.draw();
  return { badges, asked };
}

test("DET-4 hovering a badge says why each observer locates it so, from the sidecar's explain: the means, the Ranks and Essences that decided, the contest, the GM's pin", async (t) => {
  t.after(() => ["game", "canvas", "Hooks", "PIXI"].forEach((n) => delete g[n]));
  const why = await whyAnswers();
  assert.deepEqual(why.flag, { tA: "a", tB: "a" }, "Ayla hears the Thief; Bram's pin makes it roughly");
  const { badges, asked } = whyTable("en", why);
  const badge = badges.badges.get("tO");
  badge.emit("pointerover");
  await badge.vttWhy;
  assert.deepEqual(
    asked.map((q) => `${q.kind} ${q.observer}→${q.target}`),
    ["explain tA→tO", "explain tB→tO"],
  );
  const lines = badge.vttWords.text.split("\n");
  assert.equal(lines[0], "2 locate it roughly, 0 cannot find it");
  assert.equal(lines[1], "Ayla: roughly (an area, not its square)");
  assert.match(lines[2], /ears counts as Rank A against magical anti-detection Rank C: roughly/);
  assert.equal(lines[3], "Bram: roughly (an area, not its square)");
  assert.match(lines[4], /^\u00a0{4}no means of detection reaches it; sight counts as Rank D against magical anti-detection Rank C: not found; hearing counts as Rank D/);
  assert.match(lines[4], /lost the contest in round 1: not found; pinned by Kim to roughly until the end of the scene \(the rules alone: not found\)$/);
  // asked once per hover until a ruling redraws the badges
  badge.emit("pointerout");
  badge.emit("pointerover");
  await badge.vttWhy;
  assert.equal(asked.length, 2);
  g.Hooks.callAll(VISIBILITY_HOOK, []);
  const again = badges.badges.get("tO");
  again.emit("pointerover");
  await again.vttWhy;
  assert.equal(asked.length, 4, "a ruling forgets the answers");
});

test("DET-4 the tooltip's reasons in German and Chinese (no English left); without the bridge it says where to ask", async (t) => {
  t.after(() => ["game", "canvas", "Hooks", "PIXI"].forEach((n) => delete g[n]));
  const why = await whyAnswers();
  const reasons = pairReasons(why.answers.tB.log);
  assert.deepEqual(
    reasons.map((r) => r.key),
    ["noMeans", "versus", "versus", "lost", "pin"],
  );
  const english = /\b(counts|against|means|lost|pinned|until|round|scene|roughly|found|the|sight|hearing)\b/;
  for (const language of ["de", "zh-CN"]) {
    const i18n = i18nFor(language);
    const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
    for (const log of [why.answers.tA.log, why.answers.tB.log]) {
      const words = reasonWords(pairReasons(log), localize);
      assert.ok(!words.includes("VTTBRIDGE"), words);
      assert.doesNotMatch(words, english, `${language}: ${words}`);
    }
  }
  assert.match(reasonWords(reasons, (k, d) => (d ? i18nFor("de").format(k, d) : i18nFor("de").localize(k))), /von Kim auf ungefähr festgelegt bis zum Ende der Szene/);
  const { badges } = whyTable("en", why, { bridge: false });
  const badge = badges.badges.get("tO");
  badge.emit("pointerover");
  await badge.vttWhy;
  assert.match(badge.vttWords.text, /why: ask on the browser that runs the bridge$/);
});

test("DET-4 the reasons of other explain logs: out of range, unusable, exposed, a contest won; an unreadable log gives none", () => {
  const pair = { observer: "a", target: "b" };
  const log = [
    { key: "DET-6.exposed", data: { ...pair, exposed: true } },
    { key: "DET-5.outOfRange", data: { ...pair, means: "scent", distance: 30, range: 10 } },
    { key: "DET-5.unusable", data: { ...pair, means: "eyes", unusable: "blinded" } },
    { key: "DET-6.means", data: { ...pair, means: "ears", result: "approximate" } },
    { key: "DET-8.won", data: { ...pair, round: 2, result: "pinpointed" } },
    { key: "DET-4.locate", data: { ...pair, result: "pinpointed", means: "ears" } },
  ];
  const i18n = i18nFor("en");
  const words = reasonWords(pairReasons(log), (k, d) => (d ? i18n.format(k, d) : i18n.localize(k)));
  assert.equal(words, "it has no anti-detection; ears at its capability: roughly; scent is out of range; eyes cannot be used (blinded); won the contest in round 2: pinpointed");
  assert.deepEqual(pairReasons(null), []);
  assert.deepEqual(pairReasons([{ key: "DET-6.exposed", data: {} }]), [], "no DET-4.locate: no reasons");
});
