// The roll action as a player asks for it (roll-command.mjs: the `/vroll` parser and the dialog's
// pool building), the chat-command listener and dialog of roll-dialog.mjs, and the chat card of the
// sidecar's real roll rulings in en, de and zh-CN (the rulings come from the sidecar's own code).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { inferKind, renderCard, renderStep, keyedTemplate } from "../../scripts/core/chat-cards.mjs";
import { PLAYER_ACTION_KINDS } from "../../scripts/core/messages.mjs";
import {
  opposedFromDialog,
  parseModifiers,
  parseRollCommand,
  poolFromChoices,
  poolTotal,
  requestFromDialog,
  rollAction,
  RollInputError,
  stackedModifiers,
  traitOptions,
} from "../../scripts/core/roll-command.mjs";
import { chatMessageListener, openRollDialog, rollDialogContent } from "../../scripts/foundry/roll-dialog.mjs";
import { i18nFor, langs, lookup } from "../helpers/i18n.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const repo = join(root, "..");

/** @param {() => unknown} fn @param {string} code */
function refusedAs(fn, code) {
  assert.throws(fn, (/** @type {any} */ error) => error instanceof RollInputError && error.code === code);
}

const ANN = { attributes: { STR: 2, DEX: 3, STA: 2, INT: 2, PER: 2, RES: 2, PRE: 1, MAN: 1, COM: 1 }, skills: { stealth: 2, investigation: 1 } };

test("/vroll DEX+stealth 9again wp: the issue's command", () => {
  assert.deepEqual(parseRollCommand("/vroll DEX+stealth 9again wp"), {
    pool: ["DEX", "stealth"],
    again: 9,
    willpower: true,
    modifiers: [],
    extraSuccesses: 0,
  });
});

test("/vroll: every word, in any order and case", () => {
  assert.deepEqual(parseRollCommand("  /VROLL dex+stealth +2equipment wp -1 +1aid! noagain extra2 "), {
    pool: ["DEX", "stealth"],
    again: null,
    willpower: true,
    modifiers: [
      { type: "equipment", value: 2 },
      { type: "circumstance", value: -1 },
      { type: "aid", value: 1, perfect: true },
    ],
    extraSuccesses: 2,
  });
  assert.deepEqual(parseRollCommand("/vroll 5 8again")?.pool, 5);
  assert.equal(parseRollCommand("/vroll 5")?.again, 10);
  assert.equal(parseRollCommand("hello /vroll 5"), null, "not a command");
  assert.equal(parseRollCommand("/vrolls 5"), null, "another command");
});

test("/vroll: bad words are refused with a code that names the localized message", () => {
  refusedAs(() => parseRollCommand("/vroll"), "NoPool");
  refusedAs(() => parseRollCommand("/vroll DEX+"), "Pool");
  refusedAs(() => parseRollCommand("/vroll -1"), "Pool");
  refusedAs(() => parseRollCommand("/vroll 1000000"), "PoolSize");
  refusedAs(() => parseRollCommand("/vroll DEX+dex"), "Twice");
  refusedAs(() => parseRollCommand("/vroll 5 7again"), "Word");
  refusedAs(() => parseRollCommand("/vroll 5 9again 8again"), "Repeated");
  refusedAs(() => parseRollCommand("/vroll 5 wp wp"), "Repeated");
  refusedAs(() => parseRollCommand("/vroll 5 +2equipment?"), "Word");
  refusedAs(() => parseRollCommand("/vroll 5 extra101"), "Extra");
  for (const lang of Object.keys(langs)) {
    for (const code of ["NoPool", "Pool", "PoolSize", "Twice", "Unknown", "Modifier", "Word", "Repeated", "Extra", "Again", "NoActor"]) {
      assert.ok(lookup(langs[lang], `VTTBRIDGE.Roll.Error.${code}`), `${lang}: ${code}`);
    }
  }
});

test("the dialog's pool: the chosen traits, or a number of dice; the actor's traits only", () => {
  const options = traitOptions(ANN);
  assert.deepEqual(
    options.map((o) => `${o.trait}=${o.value}`),
    ["STR=2", "DEX=3", "STA=2", "INT=2", "PER=2", "RES=2", "PRE=1", "MAN=1", "COM=1", "investigation=1", "stealth=2"],
  );
  assert.deepEqual(poolFromChoices(options, ["DEX", "stealth"]), { pool: ["DEX", "stealth"], base: 5 });
  assert.deepEqual(poolFromChoices(options, ["", ""], "4"), { pool: 4, base: 4 });
  assert.deepEqual(poolFromChoices(options, ["PER", ""]), { pool: ["PER"], base: 2 });
  refusedAs(() => poolFromChoices(options, ["DEX", "sneak"]), "Unknown");
  refusedAs(() => poolFromChoices(options, ["", ""], "-1"), "PoolSize");
  refusedAs(() => poolFromChoices(options, ["", ""], "1.5"), "PoolSize");
  // an actor that lists no Attributes has the sidecar's default, 1 each
  assert.ok(traitOptions({}).every((o) => o.value === 1));
});

test("the dialog's form makes the roll action, with only the fields that differ from the defaults", () => {
  const options = traitOptions(ANN);
  const request = requestFromDialog(options, { attribute: "DEX", skill: "stealth", dice: "0", again: "9", willpower: "on", modifiers: "+2equipment, +1aid!", extra: "1" });
  assert.deepEqual(rollAction("Actor.ann", request, { options, opponent: "Actor.guard" }), {
    kind: "roll",
    actor: "Actor.ann",
    pool: ["DEX", "stealth"],
    again: 9,
    willpower: true,
    modifiers: [
      { type: "equipment", value: 2 },
      { type: "aid", value: 1, perfect: true },
    ],
    extraSuccesses: 1,
    opponent: "Actor.guard",
  });
  const plain = requestFromDialog(options, { attribute: "", skill: "", dice: "3", again: "10", modifiers: "", extra: "0" });
  assert.deepEqual(rollAction("Actor.ann", plain, { opponent: "Actor.ann" }), { kind: "roll", actor: "Actor.ann", pool: 3 });
  assert.equal(requestFromDialog(options, { dice: "2", again: "none" }).again, null);
  refusedAs(() => requestFromDialog(options, { dice: "2", again: "7" }), "Again");
  refusedAs(() => parseModifiers("+2 equipment"), "Modifier");
  refusedAs(() => rollAction("Actor.ann", { pool: ["AGI"], again: 10, willpower: false, modifiers: [], extraSuccesses: 0 }, { options }), "Unknown");
  assert.ok(PLAYER_ACTION_KINDS.includes("roll"), "a player's roll is relayed to the GM's bridge");
});

test("the dialog offers the actor's traits by name in the reader's language, escaped", () => {
  const de = i18nFor("de");
  const options = traitOptions({ attributes: { DEX: 3 }, skills: { stealth: 2, "<b>": 1 } });
  const html = rollDialogContent({ options, system: null, opponents: [], opponent: null }, (k, d) => (d ? de.format(k, d) : de.localize(k)));
  assert.match(html, /<option value="DEX">Geschick \(3\)<\/option>/);
  assert.match(html, /<option value="stealth">Heimlichkeit \(2\)<\/option>/);
  assert.ok(!html.includes("<b>") && html.includes("&#60;b&#62;"));
  assert.match(html, /<option value="none">Keine Nachwürfe<\/option>/);
});

/** A Foundry-shaped world for roll-dialog.mjs, from the public API pages (DialogV2.prompt, ChatMessage.getSpeakerActor, game.user.targets). */
function installGlobals({ form = /** @type {Record<string, string>|null} */ (null), targets = /** @type {any[]} */ ([]) } = {}) {
  const g = /** @type {any} */ (globalThis);
  const actor = { uuid: "Actor.ann", name: "Ann", flags: { "vtt-bridge": ANN } };
  g.game = { user: { targets: new Set(targets), character: null } };
  g.ChatMessage = { getSpeakerActor: (/** @type {any} */ speaker) => (speaker?.actor === "ann" ? actor : null) };
  g.canvas = { tokens: { controlled: [] } };
  g.foundry = {
    applications: {
      api: {
        DialogV2: {
          /** @param {any} options */
          async prompt(options) {
            return form === null ? null : options.ok.callback({}, { form });
          },
        },
      },
    },
  };
  const RealFormData = g.FormData;
  g.FormData = class {
    /** @param {any} f */
    constructor(f) {
      this.f = f;
    }
    entries() {
      return Object.entries(this.f);
    }
  };
  return {
    actor,
    restore: () => {
      for (const name of ["game", "ChatMessage", "canvas", "foundry"]) delete g[name];
      g.FormData = RealFormData;
    },
  };
}

function deps() {
  /** @type {any[]} */
  const sent = [];
  /** @type {string[]} */
  const errors = [];
  const en = i18nFor("en");
  return {
    sent,
    errors,
    sendAction: (/** @type {any} */ action) => sent.push(action),
    t: (/** @type {string} */ k, /** @type {Record<string, string>|undefined} */ d) => (d ? en.format(k, d) : en.localize(k)),
    notifyError: (/** @type {string} */ message) => errors.push(message),
  };
}

test("chatMessage: /vroll is sent as a roll of the speaker's actor against the one target, and no message is created", (t) => {
  const { restore } = installGlobals({ targets: [{ actor: { uuid: "Actor.guard" } }] });
  t.after(restore);
  const d = deps();
  const listener = chatMessageListener(d);
  assert.equal(listener(null, "/vroll DEX+stealth 9again wp", { speaker: { actor: "ann" } }), false);
  assert.deepEqual(d.sent, [{ kind: "roll", actor: "Actor.ann", pool: ["DEX", "stealth"], again: 9, willpower: true, opponent: "Actor.guard" }]);
  assert.equal(listener(null, "hello table", { speaker: { actor: "ann" } }), undefined, "other messages pass");
  assert.equal(listener(null, "/vroll DEX+sneak", { speaker: { actor: "ann" } }), false);
  assert.equal(listener(null, "/vroll 3 7again", { speaker: { actor: "ann" } }), false);
  assert.equal(listener(null, "/vroll 3", { speaker: {} }), false);
  assert.deepEqual(d.errors, [
    "This actor has no Attribute or Skill sneak.",
    "/vroll does not know 7again. Use 10again, 9again, 8again, noagain, wp, +2equipment, extra1.",
    "Select one token, or assign yourself a character, to roll for.",
  ]);
  assert.equal(d.sent.length, 1, "a refused command sends nothing");
});

test("the roll dialog sends what its form says; closing it sends nothing", async (t) => {
  const form = { attribute: "DEX", skill: "stealth", dice: "0", again: "8", modifiers: "+1aid!", extra: "0" };
  const { actor, restore } = installGlobals({ form });
  t.after(restore);
  const d = deps();
  assert.deepEqual(await openRollDialog(actor, d), { kind: "roll", actor: "Actor.ann", pool: ["DEX", "stealth"], again: 8, modifiers: [{ type: "aid", value: 1, perfect: true }] });
  assert.equal(d.sent.length, 1);
  restore();
  const closed = installGlobals({ form: null });
  assert.equal(await openRollDialog(closed.actor, d), null);
  assert.equal(d.sent.length, 1);
});

/** The sidecar's Python: the venv's, or VTT_BRIDGE_PYTHON's. */
function python() {
  const bin = process.env.VTT_BRIDGE_PYTHON ?? join(repo, ".venv", "bin", "python");
  if (!existsSync(bin)) throw new Error(`no sidecar Python at ${bin} (create the venv, or set VTT_BRIDGE_PYTHON)`);
  return bin;
}

/** Real roll rulings: the sidecar's World runs each action on a small state; their results, as JSON. */
function sidecarRolls() {
  const script = `
import json
from vtt_bridge.engine.world import World
from vtt_bridge.engine.roller import SeededRoller
w = World("w")
w.commit(w.prepare_sync({"state": {"scene": {"id": "s"}, "settings": {"woundPenalty": True}, "actors": {
  "Actor.ann": {"name": "Ann", "attributes": {"DEX": 3}, "skills": {"stealth": 2}, "health": {"max": 7, "lethal": 5},
                "willpower": {"max": 3, "current": 2}},
  "Actor.guard": {"name": "Guard", "immunities": [{"kind": "9-again"}]}}}}), "")
out = []
for i, action in enumerate([
  {"kind": "roll", "actor": "Actor.ann", "pool": ["DEX", "stealth"], "again": 9, "willpower": True, "extraSuccesses": 1,
   "modifiers": [{"type": "equipment", "value": 2}, {"type": "equipment", "value": 1}, {"type": "aid", "value": 1, "perfect": True}],
   "dice": [9, 2, 10, 3, 3, 1, 1, 1, 1, 5, 9, 1, 2]},
  {"kind": "roll", "actor": "Actor.ann", "pool": 2, "again": None, "extraSuccesses": 2, "dice": [1]},
  {"kind": "roll", "actor": "Actor.ann", "pool": 2, "again": 9, "opponent": "Actor.guard", "opposed": {"pool": 2}},
]):
  out.append(w.prepare_action(f"a{i}", action, SeededRoller(3)).result)
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(python(), ["-c", script], { cwd: repo, encoding: "utf8" }));
}

test("the sidecar's roll rulings: every step worded in en, de and zh-CN, with the dice on the card", () => {
  const results = sidecarRolls();
  const rules = new Set(results.flatMap((/** @type {any} */ r) => r.log.map((/** @type {any} */ s) => s.rule)));
  for (const rule of ["DICE-1", "DICE-2", "DICE-3", "DICE-4", "DICE-5", "DICE-6", "DICE-7", "WP-2", "HEALTH-7", "RANK-11"]) assert.ok(rules.has(rule), rule);
  const names = (/** @type {string} */ id) => ({ "Actor.ann": "Ann", "Actor.guard": "Guard" })[id];
  for (const lang of Object.keys(langs)) {
    const loc = i18nFor(lang);
    for (const result of results) {
      for (const step of result.log) {
        assert.ok(keyedTemplate(step, loc), `${lang}: no sentence for ${step.key}`);
        const html = renderStep(step, loc, names);
        assert.ok(!html.includes('lang="en"'), `${lang}: ${step.rule} fell back to English: ${html}`);
        assert.doesNotMatch(html, /{[A-Za-z]+}|undefined/, `${lang}: ${html}`);
      }
      assert.equal(inferKind(result.log), "roll");
      const card = renderCard({ log: result.log, rolls: result.rolls, kind: "roll", names }, loc);
      assert.equal([...card.matchAll(/class="vtt-bridge-roll"/g)].length, result.rolls.length);
      assert.ok(card.includes(`>${lookup(langs[lang], "VTTBRIDGE.Rules.Card.Kind.roll")}<`), card.slice(0, 200));
    }
  }
  const en = i18nFor("en");
  const [first] = results;
  const text = first.log.map((/** @type {any} */ s) => renderStep(s, en, names)).join("\n");
  assert.match(text, /Ann: Dice pool: Dexterity 3 \+ Stealth 2 = 5 dice</);
  assert.match(text, /Modifiers equipment \+2, equipment \+1 \(does not stack\), aid \+1 \(perfect\): \+3 dice/);
  assert.match(text, /Ann's wound penalty takes 1 die from the roll/);
  assert.match(text, /Ann: 9-again: 3 rerolls</, "the chained 9-again: the reroll 9 rerolls again");
  assert.match(text, /Ann: The VTT rolled 9, 2, 10, 3, 3, 1, 1, 1, 1, 5, 9, 1, 2: 3 successes</);
  assert.match(text, /Ann: 1 extra success added: 4 successes</);
  const [, second, third] = results;
  assert.match(renderStep(second.log.at(-2), i18nFor("de"), names), /Ann: 2 zusätzliche Erfolge, nicht gezählt/);
  assert.match(renderStep(third.log.at(-1), en, names), /opposed roll against Guard/);
  assert.equal(third.rolls[0].again, 10, "RANK-11: the guard is immune to 9-again");
});

test("DICE-4 the dialog's total: per type the highest bonus and the worst penalty, every perfect bonus, Willpower's +3 (DICE-7), as the sidecar counts", () => {
  assert.equal(stackedModifiers([{ type: "equipment", value: 2 }, { type: "equipment", value: 1 }, { type: "aid", value: 1, perfect: true }, { type: "aid", value: 2, perfect: true }]), 5);
  assert.equal(stackedModifiers([{ type: "circumstance", value: -1 }, { type: "circumstance", value: -3 }, { type: "circumstance", value: 2 }]), -1);
  const options = traitOptions({ attributes: { STR: 3 }, skills: { brawl: 2 } });
  assert.deepEqual(poolTotal(options, { attribute: "STR", skill: "brawl", modifier: "-1", modifiers: "+2equipment +1equipment", willpower: "on" }), { base: 5, modifiers: 1, willpower: 3, total: 9 });
  assert.deepEqual(poolTotal(options, { dice: "2", modifier: "-4" }), { base: 2, modifiers: -4, willpower: 0, total: 0 }, "never below 0 dice");
  assert.deepEqual(poolTotal(options, { attribute: "STR", modifiers: "+2 equipment" }), { error: "Modifier", data: { word: "equipment" } }, "a bad word says which");
});

test("DICE-5 the dialog's opposed roll: the opponent's pool from its own traits, none when nothing is chosen; it rides on the roll with its opponent only", () => {
  const goblin = traitOptions({ attributes: { DEX: 3 }, skills: { athletics: 2 } });
  assert.deepEqual(opposedFromDialog(goblin, { opposedAttribute: "DEX", opposedSkill: "athletics" }), { pool: ["DEX", "athletics"] });
  assert.deepEqual(opposedFromDialog(goblin, { opposedDice: "4" }), { pool: 4 });
  assert.equal(opposedFromDialog(goblin, { opposedAttribute: "", opposedSkill: "", opposedDice: "0" }), null);
  refusedAs(() => opposedFromDialog(goblin, { opposedSkill: "brawl" }), "Unknown");
  const request = { pool: 3, again: 10, willpower: false, modifiers: [], extraSuccesses: 0 };
  assert.deepEqual(rollAction("Actor.ayla", request, { opponent: "Actor.goblin", opposed: { pool: ["DEX"] } }), { kind: "roll", actor: "Actor.ayla", pool: 3, opponent: "Actor.goblin", opposed: { pool: ["DEX"] } });
  assert.deepEqual(rollAction("Actor.ayla", request, { opponent: null, opposed: { pool: ["DEX"] } }), { kind: "roll", actor: "Actor.ayla", pool: 3 }, "no opponent, no opposed roll");
});
