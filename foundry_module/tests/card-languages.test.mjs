// Every step key of the sidecar's catalogue (`vtt-bridge schema`, `$defs.StepCatalogue`) rendered as
// a card in en, de and zh-CN, with every value a field can take from the sidecar's own tables
// (damage types, senses, grades, Ranks, statuses, conditions, point kinds, pools...), and no English
// left in the German or Chinese card. English is found by comparison, not a word list: a word of a
// German card that the English language file or the sidecar's tables hold and the German file does
// not is English; in a Chinese card any Latin word but the names, rule ids and Attribute
// abbreviations the Chinese file itself writes. A key may keep English only when its language file
// lists it in `VTTBRIDGE.Step.Fallback` (none does today).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { fieldWording, renderCard } from "../scripts/core/chat-cards.mjs";
import { errorSentence } from "../scripts/core/headline.mjs";
import { i18nFor, LANGS, langs, lookup } from "./helpers/i18n.mjs";
import { sidecarSchema } from "./helpers/schema-check.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The sidecar's tables of values, as its own enums list them. */
function sidecarTables() {
  const bin = process.env.VTT_BRIDGE_PYTHON ?? join(repo, ".venv", "bin", "python");
  if (!existsSync(bin)) throw new Error(`no sidecar Python at ${bin}`);
  const script = `
import json
from vtt_bridge.rules import detection, energy, conditions, immunities, ranks, damage, health, willpower, iwr
out = {}
# what an IWR entry may name besides a damage type (rules/iwr.py IWR_NAMES, as matches reads them)
out["IwrName"] = sorted(iwr.IWR_NAMES)
for mod, names in [(detection, ["Essence", "Sense", "SpellKind"]), (energy, ["PoolTrait", "PoolCategory", "Region", "CompatibilityMode"]),
                   (conditions, ["Condition", "ConditionPointKind", "EmotionPointKind"]), (immunities, ["ImmunityKindId"]), (ranks, ["Rank"]),
                   (damage, ["DamageType"]), (health, ["Grade", "HealthStatus", "HealSource"]), (willpower, ["WillpowerUse"])]:
    for name in names:
        out[name] = [e.value for e in getattr(mod, name)]
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(bin, ["-c", script], { cwd: repo, encoding: "utf8" }));
}

/** Names users give (actors, pools, Gauges, means): words in no language file. */
const USER_WORDS = ["Qorvath", "Ylsse", "Brannoch", "Zuvrel", "Kessyl"];
const NAMES = /** @type {Record<string, string>} */ ({ tokA: "Qorvath", tokB: "Ylsse" });

/**
 * The values a field may take, from the sidecar's tables where it names one (by the field's name),
 * else from its schema; a user-named field gets a made-up name.
 * @param {string} key @param {string} field @param {any} schema @param {Record<string, string[]>} t
 * @returns {unknown[]}
 */
function valuesOf(key, field, schema, t) {
  const rule = key.split(".")[0];
  const points = [...t.ConditionPointKind, ...t.EmotionPointKind];
  if (fieldWording(key, field)[0] === "subject") return ["tokA"];
  const anyOf = schema.anyOf?.find((/** @type {any} */ s) => s.type !== "null") ?? schema;
  if (Array.isArray(anyOf.enum)) return anyOf.enum.filter((/** @type {unknown} */ v) => v !== null);
  const byName = /** @type {Record<string, unknown[]>} */ ({
    type: t.DamageType,
    resistance: t.DamageType,
    weakness: t.DamageType,
    trait: t.DamageType,
    means: t.Sense,
    status: t.HealthStatus,
    condition: t.Condition,
    unusable: t.Condition,
    source: rule.startsWith("HEALTH") ? t.HealSource : USER_WORDS.slice(2, 3),
    kind: rule === "UNDO" ? ["damage"] : points,
    region: t.Region,
    category: t.PoolCategory,
    class: t.PoolTrait,
    classes: [t.PoolTrait],
    mode: t.CompatibilityMode,
    effectRank: t.Rank,
    rank: t.Rank,
    conditions: [t.Condition],
    // an immunity as RANK-9 writes it; the IWR steps name the immunity's type as text (IWR-1/2/4)
    immunity: fieldWording(key, field)[0] === "immunity" ? t.ImmunityKindId.map((kind) => ({ kind, rank: "C", source: "Zuvrel" })) : fieldWording(key, field)[0] === "iwr-name" ? [...t.DamageType, ...t.IwrName] : USER_WORDS.slice(3, 4),
    exception: fieldWording(key, field)[0] === "iwr-name" ? [...t.DamageType, ...t.IwrName] : USER_WORDS.slice(0, 1),
    replaced: [{ kind: "poison", rank: "unranked", source: "Kessyl" }],
    healed: [{ B: 1, L: 2, A: 0 }],
    points: [{ B: 1 }],
    wasted: [{ L: 1 }],
    traits: rule === "DICE-1" ? [[{ trait: "DEX", value: 3 }, { trait: "stealth", value: 2 }]] : [t.PoolTrait],
    keyAttributes: [{ DEX: 2, PER: 1 }],
    antiDetection: [[{ name: "Brannoch", essence: "magical", rank: "C" }]],
    modifiers: [[{ type: "Brannoch", value: 2, counted: true, perfect: false }]],
    until: ["scene", "move", { round: 3 }],
  });
  if (field in byName) return byName[field];
  const type = Array.isArray(anyOf.type) ? anyOf.type[0] : anyOf.type;
  if (type === "integer") return [2];
  if (type === "number") return [1.5];
  if (type === "boolean") return [true, false];
  if (type === "string") return [USER_WORDS[0]];
  if (type === "array") return [[2, 1]];
  return [2];
}

/**
 * Steps of `key` covering every value of every field (a step per value of the field with most).
 * @param {string} key @param {any} entry @param {Record<string, string[]>} t
 */
function stepsOf(key, entry, t) {
  const fields = Object.entries(entry.properties.data.properties).map(([f, s]) => [f, valuesOf(key, f, s, t)]);
  const count = Math.max(1, ...fields.map(([, v]) => /** @type {unknown[]} */ (v).length));
  return Array.from({ length: count }, (_, i) => ({
    rule: entry.properties.rule?.const ?? key.split(".")[0],
    key,
    text: "ENGLISH-FALLBACK-TEXT",
    data: Object.fromEntries(fields.map(([f, v]) => [f, /** @type {unknown[]} */ (v)[i % /** @type {unknown[]} */ (v).length]])),
  }));
}

/** Every string of a language file. @param {any} node @returns {string[]} */
const strings = (node) => (typeof node === "string" ? [node] : node && typeof node === "object" ? Object.values(node).flatMap(strings) : []);

/** Latin words of two letters or more, lower-cased. @param {string} text */
const latinWords = (text) => (text.match(/[A-Za-zÀ-ÿß]{2,}/g) ?? []).map((w) => w.toLowerCase());

/** The text a card shows (tags gone, entities decoded). @param {string} html */
const textOf = (html) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, "&");

test("every step key of the catalogue renders in en, de and zh-CN with every sidecar value, and no English is left in de or zh-CN", () => {
  const tables = sidecarTables();
  const entries = sidecarSchema().$defs.StepCatalogue.oneOf;
  assert.ok(entries.length >= 100, `only ${entries.length} keys`);
  const tableWords = new Set(Object.values(tables).flat().flatMap((v) => latinWords(String(v))));
  const enWords = new Set(strings(langs.en).flatMap(latinWords));
  const allowed = new Set([...USER_WORDS, "ENGLISH"].flatMap(latinWords));
  // abbreviations the language files write as they are in every language (a tabletop's own words)
  for (const word of ["VTT", "GM"]) allowed.add(word.toLowerCase());
  /** @type {string[]} */
  const leaks = [];
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    const own = new Set(strings(langs[lang]).flatMap(latinWords));
    const fallback = new Set(/** @type {string[]} */ (langs[lang].VTTBRIDGE.Step.Fallback ?? []));
    for (const entry of entries) {
      const key = entry.properties.key.const;
      for (const step of stepsOf(key, entry, tables)) {
        const html = renderCard({ log: [step], kind: "ruling", names: (id) => NAMES[id] }, i18n);
        const body = /<div class="vtt-bridge-text"[^>]*>([\s\S]*?)<\/div><\/li>/.exec(html)?.[1] ?? "";
        assert.ok(!body.includes("ENGLISH-FALLBACK-TEXT") || fallback.has(key), `${lang} ${key}: the sidecar's English text is shown`);
        assert.ok(!/{[a-zA-Z]+}/.test(body), `${lang} ${key}: a placeholder is left: ${body}`);
        if (lang === "en" || fallback.has(key)) continue;
        const text = textOf(body);
        for (const word of latinWords(text)) {
          if (allowed.has(word)) continue;
          const english = lang === "zh-CN" ? !own.has(word) || enWords.has(word) || tableWords.has(word) : (enWords.has(word) || tableWords.has(word)) && !own.has(word);
          if (english) leaks.push(`${lang} ${key} "${word}": ${text.trim().slice(0, 140)}`);
        }
      }
    }
  }
  const unique = [...new Set(leaks)];
  if (process.env.LEAKS) console.log(unique.join("\n"));
  assert.deepEqual(unique.slice(0, 400), [], `${unique.length} English words in de/zh-CN cards`);
});

test("the sidecar's refusals read as sentences in each language, their field paths in words", () => {
  const error = { code: "invalid", details: [{ path: ["action", "instances", 0, "type"], message: "not a damage type" }] };
  const expected = { en: "the damage type of damage instance 1", de: "die Schadensart von Schadensinstanz 1", "zh-CN": "第1个伤害实例的伤害类型" };
  for (const lang of LANGS) {
    const i18n = i18nFor(lang);
    const sentence = errorSentence(error, i18n);
    assert.ok(sentence.includes(expected[/** @type {"en"} */ (lang)]), `${lang}: ${sentence}`);
    assert.ok(sentence.includes(i18n.localize("VTTBRIDGE.Headline.Error.invalid")), `${lang}: ${sentence}`);
    for (const code of ["bad_request", "invalid", "not_found", "stale", "too_large", "rate_limited", "conflict", "not_undoable", "storage", "internal"]) {
      const text = errorSentence({ code }, i18n);
      assert.ok(!text.includes(code), `${lang}: ${code} is shown raw: ${text}`);
      if (lang === "zh-CN") assert.ok(!/[A-Za-z]{3,}/.test(text), `${lang}: ${text}`);
    }
  }
  // the protocol's codes, as the sidecar's schema lists them: each has a sentence in every language
  const codes = sidecarSchema().$defs.ErrorCode?.enum ?? [];
  assert.ok(codes.length >= 8, JSON.stringify(codes));
  for (const lang of LANGS) for (const code of codes) assert.ok(lookup(langs[lang], `VTTBRIDGE.Headline.Error.${code}`), `${lang}: no sentence for ${code}`);
});
