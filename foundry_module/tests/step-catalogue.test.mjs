// The module's step sentences against the sidecar's own catalogue (`vtt-bridge schema`,
// `$defs.StepCatalogue`): every declared key has a sentence in en, de and zh-CN whose placeholders
// are declared fields; and real rulings of the sidecar (a round with two guards and one assassin,
// a worsening on the second Health track) rendered as cards in each language (issue 18).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { DERIVED_PARAMS, fieldWording, renderCard, STEP_KEY } from "../scripts/core/chat-cards.mjs";
import { STEP_FIELDS } from "../scripts/core/step-fields.mjs";
import { i18nFor, LANGS, langs, lookup } from "./helpers/i18n.mjs";
import { sidecarSchema } from "./helpers/schema-check.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(root, "..");

/** The sidecar's Python: the venv's, or VTT_BRIDGE_PYTHON's. */
function python() {
  const bin = process.env.VTT_BRIDGE_PYTHON ?? join(repo, ".venv", "bin", "python");
  if (!existsSync(bin)) throw new Error(`no sidecar Python at ${bin} (create the venv, or set VTT_BRIDGE_PYTHON)`);
  return bin;
}

/** The exported catalogue: key → its schema entry. */
function catalogue() {
  const entries = sidecarSchema().$defs.StepCatalogue.oneOf;
  return new Map(entries.map((/** @type {any} */ e) => [e.properties.key.const, e]));
}

test("every key of the sidecar's catalogue has a sentence in en, de and zh-CN, each placeholder a declared field", () => {
  const keys = catalogue();
  assert.ok(keys.size >= 20, `only ${keys.size} keys`);
  for (const [key, entry] of keys) {
    const fields = Object.keys(entry.properties.data.properties);
    for (const subject of entry["x-subjects"]) assert.equal(fieldWording(key, subject)[0], "subject", `${key}: subject ${subject} is not shown by name`);
    for (const lang of LANGS) {
      const sentence = lookup(langs[lang], `${STEP_KEY}.${key}`);
      assert.ok(sentence, `${lang}: no sentence for ${key}`);
      for (const [, placeholder] of sentence.matchAll(/{([^}]+)}/g)) {
        const from = /** @type {Record<string, string[]>} */ (DERIVED_PARAMS)[placeholder];
        const known = fields.includes(placeholder) || (from !== undefined && from.every((f) => fields.includes(f)));
        assert.ok(known, `${lang} ${key}: {${placeholder}} is not a field of ${key} (nor derived from its fields)`);
      }
      for (const subject of entry["x-subjects"]) assert.ok(sentence.includes(`{${subject}}`), `${lang} ${key}: the sentence does not name its ${subject}`);
    }
  }
  const words = new Set(Object.values(STEP_FIELDS).flatMap((f) => Object.values(f).filter((w) => w.includes(":")).map((w) => w.split(":")[1])));
  assert.ok(words.size >= 10, `only ${words.size} counted words`);
  for (const word of words) {
    for (const lang of LANGS) assert.ok(lookup(langs[lang], `${STEP_KEY}.Count.${word}.other`), `${lang}: no plural of ${word}`);
  }
});

test("the module words each field as the sidecar's catalogue says: step-fields.mjs holds every key and field with its x-wording", () => {
  const keys = catalogue();
  assert.deepEqual(Object.keys(STEP_FIELDS).sort(), [...keys.keys()].sort(), "step-fields.mjs and the catalogue name other keys: make docs");
  for (const [key, entry] of keys) {
    const declared = Object.fromEntries(
      Object.entries(entry.properties.data.properties).map(([field, /** @type {any} */ schema]) => [field, schema["x-counts"] ? `${schema["x-wording"]}:${schema["x-counts"]}` : schema["x-wording"]]),
    );
    assert.deepEqual(STEP_FIELDS[key], declared, `${key}: step-fields.mjs words its fields otherwise than the catalogue (make docs)`);
  }
  // the headline words a Health status, a condition and locate states as these fields of these keys are
  assert.equal(STEP_FIELDS["HEALTH-6.status"].status, "health-status");
  assert.equal(STEP_FIELDS["RANK-5.condition"].condition, "condition");
  assert.deepEqual([STEP_FIELDS["DICE-5.spotted"].result, STEP_FIELDS["DICE-5.spotted"].before], ["locate", "locate"]);
});

test("no language words a step key the sidecar does not declare", () => {
  const keys = catalogue();
  for (const lang of LANGS) {
    const block = langs[lang].VTTBRIDGE.Step;
    for (const [rule, sentences] of Object.entries(block)) {
      if (!/^[A-Z]+(-\d+)?$/.test(rule)) continue; // Count, Track, Grade ...: words, not keys
      for (const what of Object.keys(/** @type {object} */ (sentences))) assert.ok(keys.has(`${rule}.${what}`), `${lang}: ${rule}.${what} is not a declared key`);
    }
  }
});

/** @type {string|null} the rulings' JSON, made once for the file (each call parses its own copy) */
let rulingsJson = null;

/** Real rulings of the sidecar (its World, its seeded dice), a fresh copy each call. */
function sidecarRulings() {
  rulingsJson ??= rulingsText();
  return JSON.parse(rulingsJson);
}

/** The rulings as the sidecar's Python prints them (one Python for the file). */
function rulingsText() {
  const script = `
import json
from vtt_bridge.engine.world import World
from vtt_bridge.engine.roller import SeededRoller
guard = {"health": {"max": 7}, "attributes": {"PER": 3}, "skills": {"investigation": 2}}
w = World("w")
w.commit(w.prepare_sync({"state": {"scene": {"id": "s", "gridDistance": 1.5, "gridSize": 100}, "actors": {
  "Actor.assassin": {"name": "Assassin", "attributes": {"DEX": 3}, "skills": {"stealth": 3},
                     "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}]},
  "Actor.bran": {**guard, "name": "Bran"},
  "Actor.cora": {**guard, "name": "Cora", "secondHealth": {"max": 3}}},
  "tokens": {"tokAssassin": {"actor": "Actor.assassin", "x": 200, "y": 0},
             "tokBran": {"actor": "Actor.bran", "x": 0, "y": 0}, "tokCora": {"actor": "Actor.cora", "x": 400, "y": 0}}}}), "")
out = {}
roller = SeededRoller(5)
def run(name, action):
  pending = w.prepare_action(name, action, roller)
  w.commit(pending, "")
  out[name] = pending.result
run("round1", {"kind": "round", "round": 1})
run("hit1", {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 8, "grade": "A"}]})
run("hit2", {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 2, "grade": "L"}]})
run("round2", {"kind": "round", "round": 2})
print(json.dumps(out))
`;
  return execFileSync(python(), ["-c", script], { cwd: repo, encoding: "utf8" });
}

const NAMES = /** @type {Record<string, string>} */ ({ tokAssassin: "Assassin", tokBran: "Bran", tokCora: "Cora", "Actor.bran": "Bran", "Actor.cora": "Cora", "Actor.assassin": "Assassin" });
const names = (/** @type {string} */ id) => NAMES[id];

/** The step items and roll blocks of a card. @param {string} html */
function parts(html) {
  const steps = [...html.matchAll(/<li class="vtt-bridge-step" data-rule="([^"]+)"(?: data-key="([^"]+)")?>([\s\S]*?)<\/li>/g)].map(([, rule, key, body]) => ({ rule, key, body }));
  const rolls = [...html.matchAll(/<div class="vtt-bridge-roll"(?: data-by="([^"]+)")?><div class="vtt-bridge-roll-summary">([\s\S]*?)<\/div>/g)].map(([, by, summary]) => ({ by, summary }));
  return { steps, rolls };
}

test("a round's card with two guards and one assassin names each guard beside its own contest and its own roll, in en, de and zh-CN", () => {
  const { round1 } = sidecarRulings();
  const contests = round1.log.filter((/** @type {any} */ s) => s.key === "DET-8.contest");
  assert.deepEqual(contests.map((/** @type {any} */ s) => s.data.observer).sort(), ["tokBran", "tokCora"]);
  assert.equal(round1.rolls.length, 4);
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    const { steps, rolls } = parts(renderCard({ log: round1.log, rolls: round1.rolls, kind: "round", names }, i18n));
    for (const contest of contests) {
      const guard = NAMES[contest.data.observer];
      const other = guard === "Bran" ? "Cora" : "Bran";
      const success = (/** @type {number} */ n) => i18n.format(`${STEP_KEY}.Count.success.${n === 1 && lang !== "zh-CN" ? "one" : "other"}`, { count: String(n) });
      const item = steps.find((s) => s.key === "DET-8.contest" && s.body.includes(guard));
      assert.ok(item, `${lang}: no contest line names ${guard}`);
      assert.ok(!item.body.includes(other), `${lang}: ${guard}'s contest line names ${other}`);
      assert.ok(item.body.includes("Assassin"), `${lang}: ${guard}'s contest line does not name the hider`);
      assert.ok(item.body.includes(success(contest.data.observerSuccesses)), `${lang}: ${item.body}`);
      const roll = rolls.find((r) => r.by === contest.data.observer);
      assert.ok(roll, `${lang}: no roll of ${guard}`);
      assert.ok(roll.summary.startsWith(guard), `${lang}: ${roll.summary}`);
      assert.ok(roll.summary.includes(success(contest.data.observerSuccesses)), `${lang}: ${roll.summary}`);
      assert.ok(roll.summary.includes(i18n.localize(`${STEP_KEY}.Purpose.spot`)), `${lang}: ${roll.summary}`);
    }
    assert.equal(rolls.filter((r) => r.by === "tokAssassin").length, 2, `${lang}: the hider's two rolls`);
    const verdicts = steps.filter((s) => s.key?.startsWith("DICE-5."));
    assert.equal(verdicts.length, 2);
    for (const verdict of verdicts) {
      const tieWords = { en: "ties go to the detecting side", de: "entdeckende Seite", "zh-CN": "平局归探测方" }[lang];
      assert.equal(verdict.body.includes(/** @type {string} */ (tieWords)), verdict.key === "DICE-5.tie", `${lang}: ${verdict.body}`);
    }
  }
});

test("the worsening on the second Health track names the second track in en, de and zh-CN", () => {
  const { round2 } = sidecarRulings();
  const worse = round2.log.find((/** @type {any} */ s) => s.key === "HEALTH-13.worsening");
  assert.ok(worse, JSON.stringify(round2.log.map((/** @type {any} */ s) => s.key ?? s.rule)));
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    const { steps } = parts(renderCard({ log: [worse], kind: "round", names }, i18n));
    const second = i18n.localize(`${STEP_KEY}.Track.second`);
    const first = i18n.localize(`${STEP_KEY}.Track.first`);
    assert.ok(steps[0].body.includes(second), `${lang}: ${steps[0].body}`);
    assert.ok(!steps[0].body.includes(first), `${lang}: ${steps[0].body}`);
    assert.ok(steps[0].body.includes("Cora"), `${lang}: ${steps[0].body}`);
  }
});

test("counts take the language's plural form: 1 success, 2 successes; zh-CN has one form", () => {
  const step = { rule: "DICE-1", key: "DICE-1.result", text: "", data: { actor: "Actor.bran", successes: 1, wins: true } };
  const html = (/** @type {string} */ lang, /** @type {number} */ n) => renderCard({ log: [{ ...step, data: { ...step.data, successes: n } }], names }, i18nFor(lang));
  assert.match(html("en", 1), /Bran: 1 success</);
  assert.match(html("en", 2), /Bran: 2 successes</);
  assert.match(html("de", 1), /Bran: 1 Erfolg</);
  assert.match(html("de", 0), /Bran: 0 Erfolge</);
  assert.match(html("zh-CN", 1), /Bran：1 个成功</);
});

/** Every step the sidecar's own step scripts write (tests/engine/test_steps.py: six scenes through its World). */
function everyStep() {
  const script = "import json\nfrom tests.engine.test_steps import written\nprint(json.dumps(written()))";
  return JSON.parse(execFileSync(python(), ["-c", script], { cwd: repo, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
}

test("every step the sidecar writes is worded in en, de and zh-CN: its key's sentence, each placeholder filled, no English fallback", () => {
  const steps = everyStep();
  const keys = new Set(steps.map((/** @type {any} */ s) => s.key));
  assert.equal(keys.size, catalogue().size, "the scripts write every declared key");
  const someone = (/** @type {string} */ id) => `«${id}»`;
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    const seen = new Set();
    for (const step of steps) {
      if (seen.has(step.key)) continue;
      seen.add(step.key);
      const html = renderCard({ log: [step], names: someone }, i18n);
      const [item] = parts(html).steps;
      assert.equal(item.key, step.key);
      assert.ok(!item.body.includes('lang="en"'), `${lang} ${step.key}: the English text: ${item.body}`);
      assert.doesNotMatch(item.body, /{[A-Za-z]+}|undefined|\[object|NaN/, `${lang} ${step.key}: ${item.body}`);
      for (const subject of catalogue().get(step.key)["x-subjects"]) {
        const id = step.data[subject];
        if (typeof id === "string") assert.ok(item.body.includes(`«${id}»`), `${lang} ${step.key}: ${subject} not by name: ${item.body}`);
      }
    }
  }
});
