// The GM's badges (DET-4) on the strict Foundry stand-in: a badge on each token some observer does
// not pinpoint, with the counts; its hover says in words who locates it how (English, German,
// Chinese); nothing for a player.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { badgeCounts, badgeLabel, badgeLines } from "../../scripts/core/gm-badges.mjs";
import { BADGES_LABEL, installGmBadges } from "../../scripts/foundry/gm-badges.mjs";
import { VISIBILITY_HOOK } from "../../scripts/foundry/visibility-canvas.mjs";
import { FakeCanvas, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";
import { i18nFor } from "../helpers/i18n.mjs";

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
  assert.equal(badge.vttWords.text, "1 locate it roughly, 1 cannot find it\nAyla: roughly (an area, not its square)\nBram: cannot find it");
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
