// Counts in the reader's language (issue 18: "1 success", never "1 successes"): every step key the
// sidecar declares, each of its integer fields set to 1 and to 2 in turn (the fields read from the
// exported catalogue, so a new key or field is covered), and every card string that carries a count,
// rendered in en, de and zh-CN. A wrong form is a number followed by the other form of a counted word
// of the language files (`VTTBRIDGE.Step.Count.*`), or a noun the language files pair with a number.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { checkLine, CHECK_VERDICTS, renderPublicAttackCard, renderPublicRollCard } from "../../scripts/core/attack-card.mjs";
import { MAX_CARD_ROLLS, MAX_CARD_STEPS, renderCard, renderRoll, renderStep } from "../../scripts/core/chat-cards.mjs";
import { i18nFor, LANGS, langs } from "../helpers/i18n.mjs";
import { sidecarSchema } from "../helpers/schema-check.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The forms of every counted word of a language: [singular noun, plural noun] (the text after the number). */
/** @param {string} lang */
function forms(lang) {
  const count = langs[lang].VTTBRIDGE.Step.Count;
  return Object.values(count).map((/** @type {any} */ f) => [f.one ?? f.other, f.other].map((t) => String(t).replace("{count}", "").trim()));
}

/** Nouns that must never follow "1" (plural) or "2" (singular), per language. */
/** @param {string} lang */
function wrongAfter(lang) {
  const one = new Set();
  const other = new Set();
  const shared = new Set();
  for (const [singular, plural] of forms(lang)) {
    if (singular === plural) shared.add(singular);
    else {
      other.add(plural);
      one.add(singular);
    }
  }
  // nouns the English and German sentences used to put after a bare number
  if (lang === "en") for (const noun of ["dice", "points", "rerolls", "hours", "pairs", "boxes", "steps", "rolls", "successes", "long rests"]) other.add(noun);
  if (lang === "de") for (const noun of ["Erfolge", "Erfolgen", "Punkte", "Nachwürfe", "Stunden", "Paare", "Schritte", "Würfe"]) other.add(noun);
  // a noun both forms share ("Würfel" but after "mit", checked below) is right after any number
  for (const noun of [...other, ...shared]) one.delete(noun);
  return { afterOne: [...other], afterTwo: [...one] };
}

const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** @param {string} html @param {string} lang @param {number} n @param {string} where */
function assertForms(html, lang, n, where) {
  const text = html.replace(/<[^>]+>/g, " ").replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  const { afterOne, afterTwo } = wrongAfter(lang);
  const wrong = n === 1 ? afterOne : afterTwo;
  for (const noun of wrong) {
    // the number, perhaps one word ("1 burn points"), the noun
    const pattern = new RegExp(`(?<![\\d.])[+-]?${n} (?:[\\p{L}-]+ )?${escape(noun)}(?![\\p{L}])`, "u");
    assert.doesNotMatch(text, pattern, `${lang} ${where} = ${n}: "${n} ${noun}" in: ${text}`);
  }
  if (lang === "de") {
    // after "mit" the dative: "mit 1 Würfel", "mit 5 Würfeln"
    assert.doesNotMatch(text, /\bmit (?:[02-9]|\d\d+) Würfel(?!n)/u, `${lang} ${where} = ${n}: ${text}`);
    assert.doesNotMatch(text, /\bmit 1 Würfeln/u, `${lang} ${where} = ${n}: ${text}`);
  }
}

/** The sidecar's Python: the venv's, or VTT_BRIDGE_PYTHON's. */
function python() {
  const bin = process.env.VTT_BRIDGE_PYTHON ?? join(repo, ".venv", "bin", "python");
  if (!existsSync(bin)) throw new Error(`no sidecar Python at ${bin} (create the venv, or set VTT_BRIDGE_PYTHON)`);
  return bin;
}

/** One real step of each key (tests/engine/test_steps.py: every key the sidecar writes). */
function oneStepPerKey() {
  const script = "import json\nfrom tests.engine.test_steps import written\nprint(json.dumps(written()))";
  const steps = JSON.parse(execFileSync(python(), ["-c", script], { cwd: repo, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
  return new Map(steps.map((/** @type {any} */ s) => [s.key, s]).reverse());
}

/** Whether a field's schema admits an integer. @param {any} schema */
const isInteger = (schema) => schema?.type === "integer" || (Array.isArray(schema?.type) && schema.type.includes("integer")) || (Array.isArray(schema?.anyOf) && schema.anyOf.some(isInteger));

const names = (/** @type {string} */ id) => ({ "Actor.hero": "Hero" })[id] ?? "Someone";

test("every integer field of every step key takes its plural form at 1 and 2, in en, de and zh-CN", () => {
  const catalogue = sidecarSchema().$defs.StepCatalogue.oneOf;
  const samples = oneStepPerKey();
  let checked = 0;
  for (const entry of catalogue) {
    const key = entry.properties.key.const;
    const step = samples.get(key);
    assert.ok(step, `no step of ${key} written`);
    const counts = Object.entries(entry.properties.data.properties).filter(([, schema]) => isInteger(schema)).map(([field]) => field);
    for (const field of counts) {
      for (const n of [1, 2]) {
        const changed = { ...step, data: { ...step.data, [field]: n } };
        for (const lang of LANGS) assertForms(renderStep(changed, i18nFor(lang), names), lang, n, `${key}.${field}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} counts checked`);
});

test("the card strings with a count take its plural form at 1 and 2: rolls, attacks, DET-10 checks, the rest counted", () => {
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    for (const n of [1, 2]) {
      const outcome = { target: "Actor.hero", square: false, missed: false, halved: false, from: n, to: n };
      for (const variant of [{}, { halved: true }, { missed: true }, { square: true }, { square: true, missed: true }]) {
        assertForms(renderPublicAttackCard({ attacker: "Hero", outcomes: [{ ...outcome, ...variant }] }, i18n, names), lang, n, `Attack.Card ${JSON.stringify(variant)}`);
      }
      for (const wins of [null, true, false]) assertForms(renderPublicRollCard({ actor: "Hero", target: "Someone", successes: n, wins }, i18n), lang, n, `Attack.Card.Roll ${wins}`);
      for (const verdict of CHECK_VERDICTS) {
        for (const target of ["Hero", null]) assertForms(checkLine(target, { verdict, successes: n }, i18n), lang, n, `Attack.Check.${verdict}`);
      }
      const roll = { pool: n, again: 10, dice: Array(n).fill(8), successes: n };
      assertForms(renderRoll(roll, i18n, names), lang, n, "Card.Roll");
      assertForms(renderRoll({ ...roll, by: "Actor.hero", purpose: "spot" }, i18n, names), lang, n, "Step.RollBy");
      const step = { rule: "ROUND", key: "ROUND.begins", text: "", data: { round: 3 } };
      const crowded = renderCard({ log: Array(MAX_CARD_STEPS + n).fill(step), rolls: Array(MAX_CARD_ROLLS + n).fill(roll) }, i18n);
      assertForms(crowded.slice(crowded.indexOf("vtt-bridge-more")), lang, n, "Card.MoreSteps/MoreRolls");
    }
  }
});

test("the check itself finds the wrong forms it is for", () => {
  assert.throws(() => assertForms("Bran: 1 successes", "en", 1, "x"), /1 successes/);
  assert.throws(() => assertForms("Bran: 1 dice to roll", "en", 1, "x"), /1 dice/);
  assert.throws(() => assertForms("Gains 1 fear points", "en", 1, "x"), /points/);
  assert.throws(() => assertForms("+1 dice perfect bonus", "en", 1, "x"), /1 dice/);
  assert.throws(() => assertForms("Bran: 2 success", "en", 2, "x"), /2 success/);
  assert.throws(() => assertForms("Bran: 1 Erfolge", "de", 1, "x"), /1 Erfolge/);
  assert.throws(() => assertForms("Bran sucht mit 5 Würfel: 2 Erfolge", "de", 2, "x"), /mit/);
  assertForms("Bran sucht mit 5 Würfeln: 1 Erfolg", "de", 1, "x");
  assertForms("Bran: 1 die to roll, 1 success", "en", 1, "x");
});
