import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  cardAudience,
  escapeHtml,
  inferKind,
  namedIds,
  renderCard,
  renderStep,
  RULES_KEY,
  SHARED_RULES,
  shouldPostCard,
  stepTemplateKey,
  TEMPLATES,
} from "../../scripts/chat-cards.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const repo = join(root, "..");
/** @type {Record<string, Record<string, any>>} */
const langs = Object.fromEntries(["en", "de", "zh-CN"].map((l) => [l, JSON.parse(readFileSync(join(root, "lang", `${l}.json`), "utf8"))]));

/** @param {Record<string, any>} tree @param {string} key */
function lookup(tree, key) {
  /** @type {any} */
  let node = tree;
  for (const part of key.split(".")) node = node?.[part];
  return typeof node === "string" ? node : undefined;
}

/** A Foundry-like i18n over one language file. @param {string} lang @returns {import("../../scripts/chat-cards.mjs").I18n} */
function i18nFor(lang) {
  const tree = langs[lang];
  return {
    has: (key) => lookup(tree, key) !== undefined,
    localize: (key) => lookup(tree, key) ?? key,
    format: (key, data = {}) => (lookup(tree, key) ?? key).replace(/{([^}]+)}/g, (m, k) => (k in data ? data[k] : m)),
  };
}

/** Rule ids listed in docs/rules.md ("HEALTH-1..13" ranges). */
function documentedRuleIds() {
  const text = readFileSync(join(repo, "docs", "rules.md"), "utf8");
  const ids = new Set();
  for (const [, area, from, to] of text.matchAll(/\b([A-Z]+)-(\d+)\.\.(\d+)\b/g)) {
    for (let n = Number(from); n <= Number(to); n++) ids.add(`${area}-${n}`);
  }
  return [...ids];
}

/** Rule ids the sidecar writes literally (`rule="X"`, `"X" if ... else "Y"`). */
function emittedRuleIds() {
  const ids = new Set();
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".py")) {
        const source = readFileSync(path, "utf8");
        for (const [, expr] of source.matchAll(/\brule=([^,\n]+)/g)) {
          for (const [, id] of expr.matchAll(/"([A-Z]+(?:-\d+)?)"/g)) ids.add(id);
        }
      }
    }
  };
  walk(join(repo, "vtt_bridge"));
  return [...ids];
}

test("every rule id of docs/rules.md (66) and every id the sidecar writes has a title in en, de and zh-CN", () => {
  const documented = documentedRuleIds();
  assert.equal(documented.length, 66);
  const emitted = emittedRuleIds();
  assert.ok(emitted.includes("HEALTH-2") && emitted.includes("ROUND"), emitted.join(" "));
  for (const lang of Object.keys(langs)) {
    for (const id of new Set([...documented, ...emitted])) {
      const title = lookup(langs[lang], `${RULES_KEY}.${id}.Title`);
      assert.ok(title && title.trim(), `${lang}: ${id}`);
    }
  }
  const en = langs.en.VTTBRIDGE.Rules;
  assert.notEqual(langs.de.VTTBRIDGE.Rules["HEALTH-2"].Title, en["HEALTH-2"].Title);
  assert.notEqual(langs["zh-CN"].VTTBRIDGE.Rules["HEALTH-2"].Title, en["HEALTH-2"].Title);
});

test("every sentence template exists in all three languages, with the same placeholders", () => {
  /** @type {string[]} */
  const keys = [];
  for (const [rule, variants] of Object.entries(TEMPLATES)) {
    const rules = rule === "*" ? [...SHARED_RULES] : [rule];
    for (const r of rules) for (const [variant] of variants) if (rule !== "*" || lookup(langs.en, `${RULES_KEY}.${r}.${variant}`)) keys.push(`${RULES_KEY}.${r}.${variant}`);
  }
  assert.ok(keys.length > 80, String(keys.length));
  /** @param {string} s */
  const holes = (s) => [...s.matchAll(/{([^}]+)}/g)].map((m) => m[1]).sort();
  for (const key of keys) {
    const en = lookup(langs.en, key);
    assert.ok(en, `en: ${key}`);
    for (const lang of ["de", "zh-CN"]) {
      const text = lookup(langs[lang], key);
      assert.ok(text, `${lang}: ${key}`);
      assert.deepEqual(holes(text), holes(en), `${lang}: ${key}`);
    }
  }
});

/** Steps shaped as the sidecar writes them (vtt_bridge/actions/*.py, rules/*.py). */
const SAMPLES = [
  { rule: "IWR-8", text: "instance 0: 5 slashing (L, C)", data: { index: 0, type: "slashing", amount: 5, grade: "L", rank: "C" } },
  { rule: "IWR-7", text: "resistance to slashing 2: 5 - 2 = 3", data: { index: 0, type: "slashing", resistance: "slashing", value: 2, before: 5, after: 3 } },
  { rule: "IWR-8", text: "instance 0 deals 3 slashing", data: { index: 0, type: "slashing", amount: 3 } },
  { rule: "HEALTH-11", text: "temporary HP 2 absorbs 2L; 0 left", data: { absorbed: { L: 2 }, tempHpBefore: 2, tempHp: 0 } },
  { rule: "HEALTH-2", text: "1 L damage: ...", data: { grade: "L", amount: 1, healthyTo: 1, bashingUp: 0, lethalUp: 0, leftOver: 0, max: 7, healthy: 6, bashing: 0, lethal: 1, aggravated: 0 } },
  { rule: "HEALTH-4", text: "new damage: worsening is checked again", data: { recheck: true } },
  { rule: "WP-3", text: "a new blow: ...", data: { lapse: "blow" } },
  { rule: "HEALTH-6", text: "status: badly; unconscious", data: { status: "badly", conditions: ["unconscious"] } },
  { rule: "HEALTH-10", text: "fastHealing 3: ...", data: { source: "fastHealing", points: 3 } },
  { rule: "HEALTH-10", text: "heals 2L; now ...", data: { healed: { L: 2 }, max: 7, healthy: 7, bashing: 0, lethal: 0, aggravated: 0 } },
  { rule: "HEALTH-4", text: "healing restores Health: worsening stops until new damage", data: { stabilized: true } },
  { rule: "ROUND", text: "round 3 begins", data: { round: 3 } },
  { rule: "HEALTH-4", text: "Hero: injuries worsen ...", data: { from: "L", max: 7, healthy: 0, bashing: 0, lethal: 5, aggravated: 2, actor: "Actor.hero" } },
  { rule: "WP-2", text: "1 current Willpower: +3 DP ...", data: { use: "roll", paidFrom: "current", bonus: 3, current: 4, temporary: 0 } },
  { rule: "DET-9", text: "hider +10 DP: ...", data: { side: "hider", dp: 10, reason: "invisible" } },
  { rule: "DET-8", text: "obs PER + Investigation 5 DP: ...", data: { observerPool: 5, observerDice: [8, 2, 10, 3, 1, 9], observerSuccesses: 3, hiderPool: 14, hiderDice: [], hiderSuccesses: 4 } },
  { rule: "DICE-5", text: "the hider wins: unlocated → unlocated", data: { observerWins: false, result: "unlocated" } },
  { rule: "DET-5", text: "a → b: distance 12.50 m", data: { distance: 12.5 } },
  { rule: "DET-1", text: "stage one: the target has anti-detection: cloak (magical C)", data: { anti: ["cloak"] } },
  { rule: "DET-5", text: "eyes (sight, natural unranked): unusable, the observer is blinded", data: { means: "eyes", unusable: "blinded" } },
  { rule: "DET-7", text: "ears: the anti-detection worst for it gives approximate", data: { means: "ears", result: "approximate" } },
  { rule: "DET-8", text: "stage three: no standing win this round", data: { win: false } },
  { rule: "DET-4", text: "a locates b: unlocated", data: { result: "unlocated" } },
  { rule: "DET-10", text: "attack: halved", data: { successes: 1, extraSuccesses: 0, effectPoints: 2, halved: true, guessedPositionOnly: false, spell: null, spellAllowed: true, spellChance: 1 } },
];

test("each sample step gets a localized sentence with every placeholder filled, in all three languages", () => {
  for (const lang of Object.keys(langs)) {
    const loc = i18nFor(lang);
    for (const step of SAMPLES) {
      const key = stepTemplateKey(step);
      assert.ok(key, `${step.rule} ${JSON.stringify(step.data)}`);
      const html = renderStep(step, loc, (id) => (id === "Actor.hero" ? "Hero" : undefined));
      assert.ok(!html.includes('lang="en"'), `${lang} ${key}: fell back`);
      assert.doesNotMatch(html, /{[A-Za-z]+}/, `${lang} ${key}: ${html}`);
      assert.ok(html.includes(`>${step.rule}<`) && html.includes(lookup(langs[lang], `${RULES_KEY}.${step.rule}.Title`) ?? "?"), html);
    }
  }
  const en = i18nFor("en");
  assert.match(renderStep(SAMPLES[4], en), /1 L damage: 1 healthy boxes take it, 0 B and 0 L are upgraded; now 6 healthy, 0 B, 1 L, 0 A\./);
  assert.match(renderStep(SAMPLES[7], i18nFor("de")), /Zustand: schwer verletzt; Bewusstlos\./);
  assert.match(renderStep(SAMPLES[12], en, () => "Hero"), /Hero:<\/span> Injuries worsen/);
  assert.match(renderStep(SAMPLES[14], i18nFor("zh-CN")), /隐藏者 \+10骰：观察者无法定位隐藏者/);
});

test("a condition point step names the kind in the reader's language (the word the token counters show)", () => {
  const step = { rule: "RANK-5", text: "gains 2 burn points (now 3)", data: { kind: "burn", points: 2, total: 3 } };
  assert.match(renderStep(step, i18nFor("en")), /Gains 2 burn points \(now 3\)\./);
  assert.match(renderStep(step, i18nFor("de")), /Erhält 2 Brand-Punkte \(jetzt 3\)\./);
  assert.match(renderStep(step, i18nFor("zh-CN")), /获得2点燃烧点/);
  const unknown = { ...step, data: { kind: "glitter", points: 1, total: 1 } };
  assert.match(renderStep(unknown, i18nFor("de")), /Erhält 1 glitter-Punkte/, "a kind without a name keeps its id");
});

test("a step with no template shows the sidecar's English text under the localized title", () => {
  const step = { rule: "RANK-9", text: "immunity to fire blocks fire damage", data: { immunity: { kind: "damage", type: "fire" } } };
  assert.equal(stepTemplateKey(step), null);
  const html = renderStep(step, i18nFor("de"));
  assert.match(html, /lang="en">immunity to fire blocks fire damage</);
  assert.ok(html.includes(langs.de.VTTBRIDGE.Rules["RANK-9"].Title));
  const unknown = renderStep({ rule: "NEW-1", text: "something new" }, i18nFor("en"));
  assert.match(unknown, /NEW-1.*something new/);
});

test("every value is escaped: names, fallback text, data", () => {
  const evil = `<img src=x onerror="alert(1)">`;
  const html = renderCard(
    {
      log: [
        { rule: "HEALTH-4", text: "x", data: { from: "L", healthy: 0, bashing: 0, lethal: 1, aggravated: 1, actor: "a" } },
        { rule: "RANK-9", text: evil },
        { rule: "IWR-5", text: "t", data: { effect: evil, untilRound: 3 } },
        { rule: evil, text: evil },
      ],
      subject: evil,
      names: () => evil,
      kind: evil,
    },
    i18nFor("en"),
  );
  assert.ok(!html.includes("<img"), html);
  assert.ok(html.includes(escapeHtml(evil)));
  assert.equal(escapeHtml(`a&b<"'>`), "a&#38;b&#60;&#34;&#39;&#62;");
});

test("the card: header by kind (given or inferred), steps in order, dice with successes and rerolls marked", () => {
  const html = renderCard({ log: SAMPLES.slice(0, 8), rolls: [{ pool: 3, again: 10, dice: [10, 8, 2, 5], successes: 2 }], subject: "Hero" }, i18nFor("en"));
  assert.match(html, /data-kind="damage"/);
  assert.match(html, /<header class="vtt-bridge-ruling-head">Damage <span class="vtt-bridge-subject">Hero<\/span><\/header>/);
  assert.deepEqual([...html.matchAll(/data-rule="([^"]+)"/g)].map((m) => m[1]), SAMPLES.slice(0, 8).map((s) => s.rule));
  assert.match(html, /3 dice, 10-again: 2 successes/);
  assert.match(html, /<span class="vtt-bridge-die success exploded">10<\/span><span class="vtt-bridge-die success">8<\/span><span class="vtt-bridge-die">2<\/span>/);
  assert.equal(inferKind([{ rule: "ROUND", text: "", data: { round: 1 } }]), "round");
  assert.equal(inferKind(SAMPLES.slice(14, 17)), "contest");
  assert.equal(inferKind([SAMPLES[13]]), "spendWillpower");
  assert.equal(inferKind([SAMPLES[8], SAMPLES[9]]), "heal");
  assert.match(renderCard({ log: [SAMPLES[17]], kind: "explain" }, i18nFor("de")), /Warum dieses Token/);
  assert.match(renderCard({ log: [], rolls: [{ pool: 2, again: 11, dice: [3, 4], successes: 0 }] }, i18nFor("en")), /no rerolls: 0 successes/);
});

test("bookkeeping and plain moves get no card", () => {
  assert.equal(shouldPostCard([]), false);
  assert.equal(shouldPostCard([{ rule: "UPSERT", text: "the VTT set /x", data: { path: "/x" } }]), false);
  assert.equal(shouldPostCard([{ rule: "DET-5", text: "moved", data: { token: "t", changedPairs: 2 } }]), false);
  assert.equal(shouldPostCard([SAMPLES[4]]), true);
});

test("audience: off, GM only, public; DET steps and hidden tokens are always whispered", () => {
  const health = [SAMPLES[4], SAMPLES[7]];
  assert.equal(cardAudience({ log: health, mode: "off" }), "none");
  assert.equal(cardAudience({ log: health, mode: "gm" }), "gm");
  assert.equal(cardAudience({ log: health, mode: "public" }), "public");
  assert.equal(cardAudience({ log: [...health, SAMPLES[14]], mode: "public" }), "gm");
  const round = [SAMPLES[11], SAMPLES[12]];
  assert.deepEqual(namedIds(round, ["tok1"]).sort(), ["Actor.hero", "tok1"]);
  assert.equal(cardAudience({ log: round, mode: "public", named: namedIds(round), isSecret: (id) => id === "Actor.hero" }), "gm");
  assert.equal(cardAudience({ log: round, mode: "public", named: namedIds(round), isSecret: () => false }), "public");
  assert.equal(cardAudience({ log: health, mode: "nonsense" }), "gm");
});
