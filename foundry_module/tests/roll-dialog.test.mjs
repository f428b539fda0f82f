// The roll dialog and /vroll (roll-dialog.mjs) for a Chronicles of Darkness 2e table, on the strict
// Foundry stand-in (tests/helpers/fake-foundry.mjs: DialogV2 rendered with its render option, a
// user's field changes firing `change`, the canvas' tokens), the actors shaped as the `mta` system
// publishes them and read through the module's own adapters (systems/index.mjs, as main.mjs wires
// `stateOf` and `systemOf`), and the real sidecar ruling what the dialog sends (its World, seeded dice).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chatMessageListener, openRollDialog } from "../scripts/foundry/roll-dialog.mjs";
import { actorDataOf, actorStateWithSystem, adapterSelection } from "../scripts/systems/index.mjs";
import { FakeCanvas, FakeDialogs, FakeFormData, FakeWorld } from "./helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "./helpers/fake-pixi.mjs";
import { i18nFor } from "./helpers/i18n.mjs";
import { mtaCharacter } from "./helpers/mta-actors.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";

const pick = adapterSelection({ choice: "auto", mapping: "" }).pick;
/** main.mjs's `stateOf`: the actor's flags with its game system's fields over them. @param {any} actor */
const stateOf = (actor) => actorStateWithSystem(actor, pick).state;
/** main.mjs's `systemOf`. @param {any} actor */
const systemOf = (actor) => pick(actorDataOf(actor))?.id ?? null;

/**
 * A CofD table: Ayla (Strength 3, Brawl 2, Wits 3) and a Goblin (Dexterity 3, Athletics 2), each a
 * token on the scene, the GM's browser in `lang`.
 * @param {string} lang
 */
function table(lang) {
  const world = new FakeWorld({ generation: 13 });
  /** @param {string} id @param {string} name @param {any} shaped */
  const cofd = (id, name, shaped) => {
    const doc = /** @type {any} */ (world.addActor(id, name, {}));
    Object.assign(doc, { flags: {}, type: shaped.type, system: shaped.system, items: shaped.items });
    return doc;
  };
  const ayla = cofd("ayla", "Ayla", mtaCharacter("0.16", { str: 3, wits: 3 }));
  ayla.system.skills_physical.brawl = { value: 2, final: 2, specialties: [], isRote: false };
  const goblin = cofd("goblin", "Goblin", mtaCharacter("0.16", { dex: 3 }));
  goblin.system.skills_physical.athletics = { value: 2, final: 2, specialties: [], isRote: false };
  world.addToken("tA", ayla, 400, 400, world.scene, { disposition: 1 });
  world.addToken("tG", goblin, 800, 400, world.scene, { disposition: -1 });
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  canvas.draw();
  const dialogs = new FakeDialogs();
  const i18n = i18nFor(lang);
  /** @type {Record<string, unknown>[]} */
  const sent = [];
  /** @type {string[]} */
  const errors = [];
  const env = { game: { user: world.user, i18n }, canvas, foundry: { applications: { api: { DialogV2: dialogs.DialogV2 } } }, FormData: FakeFormData, ChatMessage: { getSpeakerActor: () => null } };
  const t = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  const deps = { env, t, sendAction: (/** @type {Record<string, unknown>} */ action) => void sent.push(action), notifyError: (/** @type {string} */ m) => void errors.push(m), stateOf, systemOf };
  /** The sidecar's state of this table (as the module syncs it: each actor's system fields). */
  const state = {
    scene: { id: "scene1", round: 1, gridSize: 100 },
    actors: { "Actor.ayla": stateOf(ayla), "Actor.goblin": stateOf(goblin) },
    tokens: { tA: { actor: "Actor.ayla", x: 400, y: 400 }, tG: { actor: "Actor.goblin", x: 800, y: 400 } },
  };
  return { world, canvas, dialogs, sent, errors, deps, ayla, goblin, state };
}

/** The text of the dialog's pool line, as the user reads it after their changes. @param {any} element */
const totalLine = (element) => element.querySelector(".vtt-bridge-roll-total")?.textContent;

test("the roll dialog of a CofD character: its Attributes by CofD's names (Wits as Wits), every Skill of its sheet, the pool's total as it is built, an opposed roll against a chosen token the sidecar rolls both sides of", async () => {
  const { dialogs, sent, errors, deps, ayla, state } = table("en");
  dialogs.answers.push({
    button: "ok",
    edit: { attribute: "STR", skill: "brawl", modifier: "1", willpower: "on", again: "9", opponent: "Actor.goblin", opposedAttribute: "DEX", opposedSkill: "athletics" },
  });
  await openRollDialog(ayla, deps);
  assert.deepEqual(errors, []);
  const [dialog] = dialogs.opened;
  const content = String(dialog.content);
  assert.match(content, /<option value="PER">Wits \(3\)<\/option>/, "PER is read from Wits and named so");
  assert.doesNotMatch(content, /Perception/);
  for (const skill of ["Brawl \\(2\\)", "Athletics \\(1\\)", "Investigation \\(2\\)", "Persuasion \\(1\\)", "Occult \\(0\\)"]) assert.match(content, new RegExp(`>${skill}<`), skill);
  assert.match(content, /<option value="Actor.goblin">Goblin<\/option>/, "the opponent is chosen among the scene's tokens");
  // what the user read before pressing Roll: Strength 3 + Brawl 2, +1, Willpower's +3
  assert.equal(totalLine(dialogs.elements[0]), "Pool: 5 + 1 + 3 Willpower = 9 dice");
  assert.match(dialogs.elements[0].querySelector(".vtt-bridge-roll-opponent-pool")?.textContent ?? "", /Dexterity/, "the Goblin's own traits to oppose with");
  const action = { kind: "roll", actor: "Actor.ayla", pool: ["STR", "brawl"], again: 9, willpower: true, modifiers: [{ type: "circumstance", value: 1 }], opponent: "Actor.goblin", opposed: { pool: ["DEX", "athletics"] } };
  assert.deepEqual(sent, [action]);
  // the real sidecar rolls both: Ayla's 9 dice (3 + 2 + 1 + 3) against the Goblin's 3 + 2
  const [ruled] = await sidecarRulings(state, sent);
  assert.ok(!ruled.error, JSON.stringify(ruled.error));
  const pools = ruled.log.filter((/** @type {any} */ s) => s.key === "DICE-1.pool").map((/** @type {any} */ s) => s.data);
  assert.ok(ruled.log.some((/** @type {any} */ s) => s.rule === "DICE-5"), "an opposed roll (DICE-5)");
  assert.ok(pools.length >= 2 || ruled.rolls.length >= 2, `both sides rolled: ${JSON.stringify(ruled.log.map((/** @type {any} */ s) => s.key))}`);
});

test("the roll dialog in German and Chinese: CofD names in the reader's language, the total line too", async () => {
  for (const [lang, wits, brawl, total] of [
    ["de", "Geistesschärfe (3)", "Handgemenge (2)", "Pool: 5 = 5 Würfel"],
    ["zh-CN", "机智 (3)", "格斗 (2)", "骰池：5 = 5骰"],
  ]) {
    const { dialogs, sent, deps, ayla } = table(lang);
    dialogs.answers.push({ button: "ok", edit: { attribute: "STR", skill: "brawl" } });
    await openRollDialog(ayla, deps);
    const content = String(dialogs.opened[0].content);
    assert.ok(content.includes(`>${wits}<`), `${lang}: ${wits}`);
    assert.ok(content.includes(`>${brawl}<`), `${lang}: ${brawl}`);
    assert.equal(totalLine(dialogs.elements[0]), total, lang);
    assert.deepEqual(sent, [{ kind: "roll", actor: "Actor.ayla", pool: ["STR", "brawl"] }]);
  }
});

test("/vroll in each language: the pool in the reader's words (\"Stärke + Handgemenge\", \"力量+格斗\"), the command's words in it or in English; the help names that language's words", () => {
  for (const [lang, message, expected] of /** @type {const} */ ([
    ["de", "/vroll Stärke + Handgemenge 9wieder wk +1", { pool: ["STR", "brawl"], again: 9, willpower: true, modifiers: [{ type: "circumstance", value: 1 }] }],
    ["de", "/vroll stärke+handgemenge 8again wp", { pool: ["STR", "brawl"], again: 8, willpower: true }],
    ["de", "/vroll Geschick + Umgang mit Tieren keinwieder", { pool: ["DEX", "animalKen"], again: null }],
    ["zh-CN", "/vroll 力量+格斗 意志 附加2", { pool: ["STR", "brawl"], willpower: true, extraSuccesses: 2 }],
    ["zh-CN", "/vroll 机智 + 调查 9加骰", { pool: ["PER", "investigation"], again: 9 }],
    ["en", "/vroll Strength + Brawl 9again", { pool: ["STR", "brawl"], again: 9 }],
    ["en", "/vroll Wits+Animal Ken", { pool: ["PER", "animalKen"] }],
  ])) {
    const { sent, errors, deps, ayla } = table(lang);
    ayla.system.skills_social.animalKen = { value: 1, final: 1, specialties: [], isRote: false };
    deps.env.ChatMessage.getSpeakerActor = () => ayla;
    const handled = chatMessageListener(deps)(null, message, { speaker: { actor: "ayla" } });
    assert.equal(handled, false, `${lang}: ${message} is taken over`);
    assert.deepEqual(errors, [], `${lang}: ${message}`);
    assert.deepEqual(sent, [{ kind: "roll", actor: "Actor.ayla", ...expected }], `${lang}: ${message}`);
  }
  const { errors, deps, ayla } = table("de");
  deps.env.ChatMessage.getSpeakerActor = () => ayla;
  chatMessageListener(deps)(null, "/vroll Stärke + Handgemenge 7wieder", { speaker: { actor: "ayla" } });
  assert.equal(errors.length, 1);
  assert.match(errors[0], /kennt 7wieder nicht\. Erlaubt: 10wieder, 9wieder/, "the German help names the German words");
});
