// F13 (issue 31): the derived Health status icons (unconscious, worsening, dying) follow "Who sees
// Health boxes" on every client, on the strict Foundry stand-in: the module's Token class leaves
// them out of a token the viewer does not own unless the setting lets that viewer read its Health;
// the GM and the owner see them; "dead" stays public; a change of the setting redraws them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { hiddenEffectImages } from "../../scripts/core/status-privacy.mjs";
import { HEALTH_VISIBILITY_SETTING } from "../../scripts/foundry/health-canvas.mjs";
import { addStatusEffects, CONDITION_ICONS, missingStatusEffects } from "../../scripts/foundry/status-effects.mjs";
import { hiddenForViewer, installStatusPrivacy, statusPrivacyMixin } from "../../scripts/foundry/status-privacy.mjs";
import { FakeCanvas, FakeSettings, FakeToken, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";

const g = /** @type {any} */ (globalThis);
const GLOBALS = ["game", "canvas", "Hooks", "PIXI"];

/** The world: Ann plays Ayla; the GM's Ogre is unconscious, dying and prone; Ayla unconscious; a Rat dead. */
async function table(generation = /** @type {12|13|14} */ (13)) {
  const world = new FakeWorld({ generation });
  world.addUser("ann", "Ann");
  addStatusEffects(world.statusEffects, missingStatusEffects(world.statusEffects));
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const ogre = world.addActor("ogre", "Ogre", {});
  const rat = world.addActor("rat", "Rat", {});
  world.addToken("tA", ayla, 400, 400);
  world.addToken("tO", ogre, 800, 400);
  world.addToken("tR", rat, 1200, 400);
  for (const id of ["unconscious", "dying", "prone"]) await ogre.toggleStatusEffect(id, { active: true });
  await ayla.toggleStatusEffect("unconscious", { active: true });
  await rat.toggleStatusEffect("dead", { active: true });
  const settings = (/** @type {any} */ user) => {
    const s = new FakeSettings(world, user, world.hooks);
    s.register(MODULE_ID, HEALTH_VISIBILITY_SETTING, { scope: "world", default: "owner", type: String });
    return s;
  };
  const gmSettings = settings(world.users.get("gm"));
  return { world, gmSettings, settings };
}

/** What this client draws on each token. @param {any} world @param {string} as @param {any} settings */
async function drawnAs(world, as, settings) {
  world.loginAs(as);
  world.config.Token.objectClass = statusPrivacyMixin(FakeToken, hiddenForViewer(g));
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  Object.assign(g, { game: { user: world.user, settings }, canvas, Hooks: world.hooks, PIXI: FAKE_PIXI });
  canvas.draw();
  for (const token of canvas.tokens.placeables) await token.drawEffects();
  return canvas;
}

/** @param {any} canvas */
function drawn(canvas) {
  return Object.fromEntries(canvas.tokens.placeables.map((/** @type {any} */ t) => [t.document.id, t.drawnEffects]));
}

test("F13 under 'Owners and GM' a player sees no unconscious or dying icon on a token she does not own; her own and the GM's view keep them; dead stays public", async (t) => {
  t.after(() => GLOBALS.forEach((n) => delete g[n]));
  const { world, settings } = await table();
  const ann = drawn(await drawnAs(world, "ann", settings(world.users.get("ann"))));
  assert.deepEqual(ann.tO, ["icons/svg/prone.svg"], "the Ogre: prone only");
  assert.deepEqual(ann.tA, ["icons/svg/unconscious.svg"], "her own Ayla: every icon");
  assert.deepEqual(ann.tR, ["overlay:icons/svg/dead.svg"], "dead stays public");
  const gm = drawn(await drawnAs(world, "gm", settings(world.users.get("gm"))));
  assert.deepEqual(gm.tO, ["icons/svg/unconscious.svg", CONDITION_ICONS.dying, "icons/svg/prone.svg"]);
});

test("F13 the setting decides on every client and a change redraws: 'Everyone' shows them to the player, 'GM only' hides them (v12, v14 shapes)", async (t) => {
  t.after(() => GLOBALS.forEach((n) => delete g[n]));
  for (const generation of /** @type {const} */ ([12, 14])) {
    const { world, gmSettings, settings } = await table(generation);
    const canvas = await drawnAs(world, "ann", settings(world.users.get("ann")));
    installStatusPrivacy(g);
    assert.deepEqual(drawn(canvas).tO, ["icons/svg/prone.svg"]);
    await gmSettings.set(MODULE_ID, HEALTH_VISIBILITY_SETTING, "everyone");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(drawn(canvas).tO, ["icons/svg/unconscious.svg", CONDITION_ICONS.dying, "icons/svg/prone.svg"], `v${generation}: redrawn for everyone`);
    await gmSettings.set(MODULE_ID, HEALTH_VISIBILITY_SETTING, "gm");
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(drawn(canvas).tO, ["icons/svg/prone.svg"]);
    assert.deepEqual(drawn(canvas).tA, ["icons/svg/unconscious.svg"], "her own token still");
  }
});

test("F13 by image: an image a shown effect uses too stays drawn; worsening is private; 'boxes' hides nothing", () => {
  const effects = [
    { img: "degen.svg", statuses: ["worsening"] },
    { img: "blood.svg", statuses: ["dying"] },
    { img: "blood.svg", statuses: ["bleeding"] },
    { img: "skull.svg", statuses: ["dead", "unconscious"] },
  ];
  assert.deepEqual([...hiddenEffectImages(effects, "words")], ["degen.svg"]);
  assert.deepEqual([...hiddenEffectImages(effects, "none")], ["degen.svg"]);
  assert.deepEqual([...hiddenEffectImages(effects, "boxes")], []);
});
