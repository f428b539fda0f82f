import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  cardAudience,
  escapeHtml,
  immunityLabel,
  inferKind,
  MAX_CARD_ROLLS,
  MAX_CARD_STEPS,
  namedIds,
  renderCard,
  renderStep,
  keyedTemplate,
  RULES_KEY,
  shouldPostCard,
} from "../../scripts/core/chat-cards.mjs";
import { i18nFor, langs, lookup } from "../helpers/i18n.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const repo = join(root, "..");

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

test("every rule id of docs/rules.md (67) and every id the sidecar writes has a title in en, de and zh-CN", () => {
  const documented = documentedRuleIds();
  assert.equal(documented.length, 67);
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

/** Steps shaped as the sidecar writes them (vtt_bridge/actions/*.py, rules/*.py). */
const SAMPLES = [
  { rule: "IWR-8", key: "IWR-8.instance", text: "instance 0: 5 slashing (L, C)", data: { actor: "Actor.hero", index: 0, type: "slashing", amount: 5, grade: "L", rank: "C" } },
  { rule: "IWR-7", key: "IWR-7.resistance", text: "resistance to slashing 2: 5 - 2 = 3", data: { actor: "Actor.hero", index: 0, type: "slashing", resistance: "slashing", value: 2, before: 5, after: 3 } },
  { rule: "IWR-8", key: "IWR-8.deals", text: "instance 0 deals 3 slashing", data: { actor: "Actor.hero", index: 0, type: "slashing", amount: 3 } },
  { rule: "HEALTH-11", key: "HEALTH-11.absorb", text: "temporary HP 2 absorbs 2L; 0 left", data: { actor: "Actor.hero", absorbed: { L: 2 }, tempHpBefore: 2, tempHp: 0 } },
  { rule: "HEALTH-2", key: "HEALTH-2.damage", text: "1 L damage: ...", data: { actor: "Actor.hero", track: "first", grade: "L", amount: 1, healthyTo: 1, bashingUp: 0, lethalUp: 0, leftOver: 0, max: 7, healthy: 6, bashing: 0, lethal: 1, aggravated: 0 } },
  { rule: "HEALTH-4", key: "HEALTH-4.recheck", text: "new damage: worsening is checked again", data: { actor: "Actor.hero", recheck: true } },
  { rule: "WP-3", key: "WP-3.blow", text: "a new blow: ...", data: { actor: "Actor.hero", lapse: "blow" } },
  { rule: "HEALTH-6", key: "HEALTH-6.status", text: "status: badly; unconscious", data: { actor: "Actor.hero", status: "badly", conditions: ["unconscious"] } },
  { rule: "HEALTH-10", key: "HEALTH-10.source", text: "fastHealing 3: ...", data: { actor: "Actor.hero", source: "fastHealing", points: 3 } },
  { rule: "HEALTH-10", key: "HEALTH-10.healed", text: "heals 2L; now ...", data: { actor: "Actor.hero", healed: { L: 2 }, max: 7, healthy: 7, bashing: 0, lethal: 0, aggravated: 0 } },
  { rule: "HEALTH-4", key: "HEALTH-4.stabilized", text: "healing restores Health: worsening stops until new damage", data: { actor: "Actor.hero", stabilized: true } },
  { rule: "ROUND", key: "ROUND.begins", text: "round 3 begins", data: { round: 3 } },
  { rule: "HEALTH-4", key: "HEALTH-4.worsening", text: "Hero: injuries worsen ...", data: { track: "first", grade: "L", from: "L", max: 7, healthy: 0, bashing: 0, lethal: 5, aggravated: 2, actor: "Actor.hero" } },
  { rule: "WP-2", key: "WP-2.roll", text: "1 current Willpower: +3 DP ...", data: { actor: "Actor.hero", use: "roll", paidFrom: "current", bonus: 3, current: 4, temporary: 0 } },
  { rule: "DET-9", key: "DET-9.modifier", text: "hider +10 DP: ...", data: { observer: "tokObs", target: "tokHid", side: "hider", dp: 10, reason: "invisible" } },
  { rule: "DET-8", key: "DET-8.contest", text: "obs PER + Investigation 5 DP: ...", data: { observer: "tokObs", target: "tokHid", observerPool: 5, observerDice: [8, 2, 10, 3, 1, 9], observerSuccesses: 3, hiderPool: 14, hiderDice: [], hiderSuccesses: 4 } },
  { rule: "DICE-5", key: "DICE-5.hidden", text: "the hider wins: unlocated → unlocated", data: { observer: "tokObs", target: "tokHid", observerWins: false, result: "unlocated" } },
  { rule: "DET-5", key: "DET-5.distance", text: "a → b: distance 12.50 m", data: { observer: "tokObs", target: "tokHid", distance: 12.5, units: "m" } },
  { rule: "DET-1", key: "DET-1.anti", text: "stage one: the target has anti-detection: cloak (magical C)", data: { observer: "tokObs", target: "tokHid", anti: ["cloak"] } },
  { rule: "DET-5", key: "DET-5.unusable", text: "eyes (sight, natural unranked): unusable, the observer is blinded", data: { observer: "tokObs", target: "tokHid", means: "eyes", unusable: "blinded" } },
  { rule: "DET-7", key: "DET-7.worst", text: "ears: the anti-detection worst for it gives approximate", data: { observer: "tokObs", target: "tokHid", means: "ears", result: "approximate" } },
  { rule: "DET-8", key: "DET-8.noWin", text: "stage three: no standing win this round", data: { observer: "tokObs", target: "tokHid", win: false } },
  { rule: "DET-4", key: "DET-4.locate", text: "a locates b: unlocated", data: { observer: "tokObs", target: "tokHid", result: "unlocated" } },
  { rule: "DET-10", key: "DET-10.halved", text: "attack: halved", data: { attacker: "tokObs", target: "tokHid", successes: 1, extraSuccesses: 0, effectPoints: 2, halved: true, guessedPositionOnly: false, spell: null, spellAllowed: true, spellChance: 1 } },
];

test("each sample step gets a localized sentence with every placeholder filled, in all three languages", () => {
  for (const lang of Object.keys(langs)) {
    const loc = i18nFor(lang);
    for (const step of SAMPLES) {
      const key = keyedTemplate(step, loc);
      assert.ok(key, `${lang}: no sentence for ${step.key}`);
      const html = renderStep(step, loc, (id) => (id === "Actor.hero" ? "Hero" : undefined));
      assert.ok(!html.includes('lang="en"'), `${lang} ${key}: fell back`);
      assert.doesNotMatch(html, /{[A-Za-z]+}/, `${lang} ${key}: ${html}`);
      assert.ok(html.includes(`>${step.rule}<`) && html.includes(lookup(langs[lang], `${RULES_KEY}.${step.rule}.Title`) ?? "?"), html);
    }
  }
  const en = i18nFor("en");
  assert.match(renderStep(SAMPLES[4], en), /Actor\.hero takes 1 lethal damage on the first Health track: now 6 healthy, 0 B, 1 L, 0 A</);
  assert.match(renderStep(SAMPLES[7], i18nFor("de")), /Actor\.hero: schwer verletzt; Bewusstlos</);
  assert.match(renderStep(SAMPLES[12], en, () => "Hero"), /Hero's injuries worsen on the first Health track: 1 lethal becomes A/);
  assert.match(renderStep(SAMPLES[14], i18nFor("zh-CN")), /tokObs 对 tokHid：隐藏者 \+10（观察者无法定位隐藏者/);
});

test("a condition point step names the kind in the reader's language (the word the token counters show)", () => {
  const step = { rule: "RANK-5", key: "RANK-5.points", text: "gains 2 burn points (now 3)", data: { actor: "Actor.hero", kind: "burn", points: 2, total: 3 } };
  assert.match(renderStep(step, i18nFor("en")), /Actor\.hero: Gains 2 points of burn \(now 3\)</);
  assert.match(renderStep(step, i18nFor("de")), /Actor\.hero: Erhält 2 Punkte Brand \(jetzt 3\)</);
  assert.match(renderStep(step, i18nFor("zh-CN")), /获得2点燃烧点/);
  const unknown = { ...step, data: { kind: "glitter", points: 1, total: 1 } };
  assert.match(renderStep(unknown, i18nFor("de")), /Erhält 1 Punkt glitter/, "a kind without a name keeps its id");
});

test("a step whose key the language does not word shows the sidecar's English text under the localized title", () => {
  const step = { rule: "RANK-9", key: "RANK-9.somethingNew", text: "immunity to fire blocks fire damage", data: { immunity: { kind: "damage", type: "fire" } } };
  assert.equal(keyedTemplate(step, i18nFor("de")), null);
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
        { rule: "HEALTH-4", key: "HEALTH-4.worsening", text: "x", data: { track: "first", grade: "L", from: "L", healthy: 0, bashing: 0, lethal: 1, aggravated: 1, actor: "a" } },
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
  assert.equal(shouldPostCard([{ rule: "DET-5", key: "DET-5.moved", text: "moved", data: { token: "t", changedPairs: 2 } }]), false);
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

/** Immunity and Energy Pool steps as the sidecar writes them (rules/immunities.py, rules/energy.py, actions/effects.py, actions/energy.py, rules/detection/), with the sentence expected in en, de and zh-CN. */
const WORDED = [
  {
    step: { rule: "RANK-5", key: "RANK-5.blocks", text: "C-Rank flat-footed immunity blocks the flat-footed condition (C-Rank) - equal Rank (C): the shield wins ties", data: { actor: "Actor.hero", what: "condition", condition: "flat-footed", immunity: { kind: "flat-footed", rank: "C", source: "Title: Mage Slayer" }, effectRank: "C", blocked: true } },
    en: /Immunity to being flat-footed \(C-Rank\) blocks the Flat-footed condition \(the effect: C-Rank\)/,
    de: /Immunität gegen Unvorbereitetsein \(Rang C\) blockiert den Zustand Unvorbereitet \(der Effekt: Rang C\)/,
    "zh-CN": /对措手不及（C级）的免疫挡住了措手不及状态（效果：C级）/,
  },
  {
    step: { rule: "RANK-5", key: "RANK-5.unstopped", text: "D-Rank mind-affecting immunity does not stop fear points (A-Rank) - ...", data: { actor: "Actor.hero", what: "points", kind: "fear", immunity: { kind: "mind-affecting", rank: "D" }, effectRank: "A", blocked: false } },
    en: /Immunity to mind-affecting effects \(D-Rank\) does not stop fear points \(the effect: A-Rank\): the higher Rank breaks it/,
    de: /Immunität gegen geistesbeeinflussende Effekte \(Rang D\) hält Furcht-Punkte nicht auf \(der Effekt: Rang A\)/,
    "zh-CN": /对影响心灵的效果（D级）的免疫挡不住恐惧点（效果：A级）/,
  },
  {
    step: { rule: "RANK-9", key: "RANK-9.blocks", text: "immunity to emotion-points (fear) blocks fear points", data: { actor: "Actor.hero", what: "points", kind: "fear", immunity: { kind: "emotion-points", subject: "fear", rank: "unranked" }, blocked: true } },
    en: /Immunity to fear points blocks fear points/,
    de: /Immunität gegen Furcht-Punkte blockiert Furcht-Punkte/,
    "zh-CN": /对恐惧点的免疫挡住了恐惧点/,
  },
  {
    step: { rule: "RANK-5", key: "RANK-5.blocks", text: "B-Rank poison immunity blocks the effect (C-Rank) - ...", data: { actor: "Actor.hero", what: "effect", immunity: { kind: "poison", rank: "B" }, effectRank: "C", blocked: true } },
    en: /Immunity to poison \(B-Rank\) blocks the effect \(the effect: C-Rank\)/,
    de: /Immunität gegen Gift \(Rang B\) blockiert den Effekt/,
    "zh-CN": /对毒素（B级）的免疫挡住了该效果/,
  },
  {
    step: { rule: "RANK-9", key: "RANK-9.blocks", text: "immunity to damage (fire) blocks 9 fire", data: { actor: "Actor.hero", index: 0, type: "fire", before: 9, after: 0, what: "damage", amount: 9, immunity: { kind: "damage", subject: "fire", rank: "unranked" }, blocked: true } },
    en: /Immunity to fire damage blocks 9 fire damage/,
    de: /Immunität gegen Schaden \(Feuer\) blockiert 9 Schaden \(Feuer\)/,
    "zh-CN": /对火焰伤害的免疫挡住了9点火焰伤害/,
  },
  {
    step: { rule: "RANK-13", key: "RANK-13.bonus", text: "B-Rank flat-footed from 'Bloodline' replaces ...", data: { actor: "Actor.hero", replaced: { kind: "flat-footed", rank: "C", source: "Mage Slayer" }, immunity: { kind: "flat-footed", rank: "B", source: "Bloodline" }, save: "reflex", bonus: 4, total: 4 } },
    en: /Immunity to being flat-footed \(B-Rank\) from Bloodline replaces immunity to being flat-footed \(C-Rank\) from Mage Slayer: \+4 dice perfect bonus on Reflex saves/,
    de: /aus Bloodline ersetzt Immunität gegen Unvorbereitetsein \(Rang C\) aus Mage Slayer: \+4 Würfel perfekter Bonus auf Reflex-Rettungswürfe/,
    "zh-CN": /来自Bloodline的对措手不及（B级）的免疫取代了来自Mage Slayer的对措手不及（C级）的免疫：反射豁免获得\+4 颗骰子完美加值/,
  },
  {
    step: { rule: "RANK-13", key: "RANK-13.sameSource", text: "... from the same (or an unnamed) source: no bonus", data: { actor: "Actor.hero", replaced: { kind: "flat-footed", rank: "C", source: "Mage Slayer" }, immunity: { kind: "flat-footed", rank: "B", source: "Mage Slayer" } } },
    en: /from the same \(or an unnamed\) source: no bonus/,
    de: /aus derselben \(oder einer ungenannten\) Quelle: kein Bonus/,
    "zh-CN": /没有加值/,
  },
  {
    step: { rule: "RANK-9", key: "RANK-9.already", text: "already immune to damage (fire): nothing changes", data: { actor: "Actor.hero", immunity: { kind: "damage", subject: "fire", rank: "unranked" }, already: true } },
    en: /Already immune to fire damage: nothing changes/,
    de: /Bereits immun gegen Schaden \(Feuer\): nichts ändert sich/,
    "zh-CN": /已免疫火焰伤害：没有变化/,
  },
  {
    step: { rule: "RANK-9", key: "RANK-9.gains", text: "gains immunity to condition (blinded)", data: { actor: "Actor.hero", immunity: { kind: "condition", subject: "blinded", rank: "unranked" }, gained: true } },
    en: /Gains immunity to the Blinded condition/,
    de: /Erhält Immunität gegen den Zustand Geblendet/,
    "zh-CN": /获得对目盲状态的免疫/,
  },
  {
    step: { rule: "RANK-10", key: "RANK-10.gains", text: "gains immunity to A-Rank energy-pool (chakra)", data: { actor: "Actor.hero", immunity: { kind: "energy-pool", subject: "chakra", rank: "A" }, gained: true } },
    en: /Gains immunity to effects of the chakra Energy Pool \(A-Rank\)/,
    de: /Erhält Immunität gegen Effekte des Energiepools „chakra“ \(Rang A\)/,
    "zh-CN": /获得对“chakra”能量池的效果（A级）的免疫/,
  },
  {
    step: { rule: "EP-1", key: "EP-1.gained", text: "Inner Force: STA 3 + PER 2 = max 5; general eastern, mental and physical", data: { actor: "Actor.hero", max: 5, keyAttributes: { STA: 3, PER: 2 }, traits: ["mental", "physical"], name: "Inner Force", category: "general", region: "eastern" } },
    en: /Inner Force: Stamina 3 \+ Perception 2 = max 5; general, Eastern; Mental, Physical/,
    de: /Inner Force: Widerstand 3 \+ Wahrnehmung 2 = Maximum 5; allgemein, östlich; geistig, körperlich/,
    "zh-CN": /Inner Force：耐力 3 \+ 感知 2 = 上限5；通用，东方；精神, 肉体/,
  },
  {
    step: { rule: "EP-2", key: "EP-2.rejects", text: "Picky (onlyWith 'western') rejects Inner Force: annihilated, dead beyond revival", data: { actor: "Actor.hero", holder: "Picky", mode: "onlyWith", class: "western", other: "Inner Force" } },
    en: /Picky \(compatible only with Western\) rejects Inner Force: annihilated, dead beyond revival/,
    de: /Picky \(nur kompatibel mit westlich\) stößt Inner Force ab: ausgelöscht/,
    "zh-CN": /Picky（仅与西方兼容）排斥Inner Force：湮灭/,
  },
  {
    step: { rule: "EP-2", key: "EP-2.annihilated", text: "conflicting Energy Pools or Gauges meet: annihilated, dead beyond any revival, no save", data: { actor: "Actor.hero", conflicts: [{ rule: "EP-2", text: "Picky (onlyWith 'western') rejects Inner Force" }] } },
    en: /Conflicting Energy Pools or Gauges meet: annihilated/,
    de: /Unverträgliche Energiepools oder Anzeigen treffen aufeinander/,
    "zh-CN": /相互冲突的能量池或量表相遇/,
  },
  {
    step: { rule: "EP-3", key: "EP-3.anchoredWith", text: "from now on (True Essence condensing) gaining a 'eastern' Energy Pool annihilates; taking part: inner-force", data: { actor: "Actor.hero", class: "eastern", participants: ["inner-force"], anchorSource: "True Essence condensing" } },
    en: /From now on \(True Essence condensing\) gaining a Eastern Energy Pool annihilates; taking part: inner-force/,
    de: /Ab jetzt \(True Essence condensing\) löscht das Erhalten eines Energiepools der Klasse östlich aus; beteiligt: inner-force/,
    "zh-CN": /从现在起（True Essence condensing），获得东方能量池将导致湮灭；参与者：inner-force/,
  },
  {
    step: { rule: "EP-3", key: "EP-3.anchored", text: "... gaining a 'eastern' Energy Pool annihilates", data: { actor: "Actor.hero", class: "eastern", participants: [], anchorSource: "True Essence condensing" } },
    en: /From now on \(True Essence condensing\) gaining a Eastern Energy Pool annihilates/,
    de: /der Klasse östlich aus/,
    "zh-CN": /获得东方能量池将导致湮灭/,
  },
  {
    step: { rule: "EP-3", key: "EP-3.anchor", text: "cannot gain 'eastern' Energy Pools again since True Essence condensing; Buddha Power is one: ...", data: { actor: "Actor.hero", class: "eastern", anchorSource: "True Essence condensing", name: "Buddha Power" } },
    en: /Cannot gain Eastern Energy Pools again since True Essence condensing; Buddha Power is one: annihilated/,
    de: /Seit True Essence condensing können keine Energiepools der Klasse östlich mehr erhalten werden; Buddha Power ist einer/,
    "zh-CN": /自True Essence condensing起不可再获得东方能量池；Buddha Power正是其一/,
  },
  {
    step: { rule: "EP-4", key: "EP-4.reopened", text: "Mana opened again from Necronomicon (reopening 2): max +3, 10 -> 13", data: { actor: "Actor.hero", reopening: 2, bonus: 3, max: 13, name: "Mana", gainedFrom: "Necronomicon", before: 10 } },
    en: /Mana opened again from Necronomicon \(reopening 2\): max \+3, 10 → 13/,
    de: /Mana erneut geöffnet durch Necronomicon \(2\. Wiederöffnung\): Maximum \+3, 10 → 13/,
    "zh-CN": /Mana经由Necronomicon再次开启（第2次）：上限\+3，10 → 13/,
  },
  {
    step: { rule: "EP-4", key: "EP-4.noBonus", text: "Mana opened again from c (reopening 5): no further bonus", data: { actor: "Actor.hero", reopening: 5, bonus: 0, max: 15, name: "Mana", gainedFrom: "Ordo", before: 15 } },
    en: /Mana opened again from Ordo \(reopening 5\): no further bonus/,
    de: /kein weiterer Bonus/,
    "zh-CN": /没有更多加值/,
  },
  {
    step: { rule: "EP-7", key: "EP-7.variant", text: "Dark Mana is a variant of mana: a separate pool, no reopening bonus", data: { actor: "Actor.hero", variantOf: "mana", name: "Dark Mana" } },
    en: /Dark Mana is a variant of mana: a separate pool, no reopening bonus/,
    de: /Dark Mana ist eine Variante von mana: ein eigener Pool/,
    "zh-CN": /Dark Mana是mana的变体/,
  },
  {
    step: { rule: "EP-7", key: "EP-7.substitute", text: "Dark Mana spent in place of mana; immunity is judged on Dark Mana", data: { actor: "Actor.hero", pool: "dark-mana", classes: ["dark-mana", "general", "mana", "mental", "western"], name: "Dark Mana", inPlaceOf: "mana" } },
    en: /Dark Mana is spent in place of mana; immunity is judged on Dark Mana \(dark-mana, general, mana, Mental, Western\)/,
    de: /\(dark-mana, allgemein, mana, geistig, westlich\)/,
    "zh-CN": /（dark-mana, 通用, mana, 精神, 西方）/,
  },
  {
    step: { rule: "EP-8", key: "EP-8.untouched", text: "Calories doesn't count as an Energy Pool: effects that attack Energy Pools don't touch it", data: { actor: "Actor.hero", pool: "calories", name: "Calories", attack: true } },
    en: /Calories doesn't count as an Energy Pool/,
    de: /Calories zählt nicht als Energiepool/,
    "zh-CN": /Calories不算作能量池/,
  },
  {
    step: { rule: "EP-9", key: "EP-9.rejects", text: "Hungry (rejectsGauges 'hunger') rejects Belly: annihilated", data: { actor: "Actor.hero", holder: "Hungry", mode: "rejectsGauges", class: "hunger", other: "Belly" } },
    en: /Hungry \(rejects hunger Gauges\) rejects Belly: annihilated/,
    de: /Hungry \(lehnt Anzeigen „hunger“ ab\) stößt Belly ab/,
    "zh-CN": /Hungry（排斥hunger量表）排斥Belly/,
  },
  {
    step: { rule: "DET-8", key: "DET-8.round", text: "stage three, round 4: 25443 contests, 1646 changed a pair's state; the 1646 that changed are detailed", data: { round: 4, contests: 25443, changed: 1646, detailed: 1646 } },
    en: /Round 4: 25443 contests, 1646 pairs changed, 1646 shown/,
    de: /Runde 4: 25443/,
    "zh-CN": /25443/,
  },
  {
    step: { rule: "DET-8", key: "DET-8.lostThisRound", text: "stage three: lost in round 2: approximate; no other contest this round", data: { observer: "tokObs", target: "tokHid", lostIn: 2, result: "approximate", thisRound: true } },
    en: /Stage three: lost in round 2: approximate; no other contest this round/,
    de: /Stufe drei: in Runde 2 verloren: ungefähr geortet; in dieser Runde keine weitere Probe/,
    "zh-CN": /第三阶段：于第2回合落败：.+；本回合不再进行对抗/,
  },
  {
    step: { rule: "DET-8", key: "DET-8.lost", text: "stage three: lost in round 2: unlocated", data: { observer: "tokObs", target: "tokHid", lostIn: 2, result: "unlocated", thisRound: false } },
    en: /Stage three: lost in round 2: unlocated$/,
    de: /Stufe drei: in Runde 2 verloren: .+$/,
    "zh-CN": /第三阶段：于第2回合落败：.+$/,
  },
  {
    step: { rule: "DET-1", key: "DET-1.anti", text: "stage one: the target has anti-detection: cloak (magical C), hush (technological unranked)", data: { observer: "tokObs", target: "tokHid", anti: ["cloak", "hush"], antiDetection: [{ name: "cloak", essence: "magical", rank: "C" }, { name: "hush", essence: "technological", rank: "unranked" }] } },
    en: /Stage one: the target has anti-detection: cloak \(magical C-Rank\), hush \(technological unranked\)/,
    de: /Stufe eins: das Ziel hat Antiortung: cloak \(magisch, Rang C\), hush \(technologisch, ohne Rang\)/,
    "zh-CN": /第一阶段：目标拥有反侦测：cloak（魔法，C级）, hush（科技，无等级）/,
  },
];

/** Names that come from users (pools, sources, anti-detection means) and stay as written. */
const USER_WORDS = /Actor\.hero|tokObs|tokHid|Mage Slayer|Bloodline|Inner Force|Buddha Power|True Essence condensing|inner-force|Dark Mana|dark-mana|Necronomicon|Ordo|Mana|mana|Picky|Hungry|Belly|hunger|chakra|Calories|cloak|hush/g;
/** English words of the templates and lookups that must not be left in a German sentence. */
const ENGLISH = /\b(immunity|immune|blocks|does not|points|damage|the|effect|from|rejects|compatible|gains|Eastern|Western|general|special|natural|magical|technological|unranked|Physical|Mental|opened|variant|spent|annihilated|condition|stage|target)\b/i;

test("immunity and Energy Pool steps are worded in the reader's language: placeholders filled, no English left", () => {
  for (const { step, ...expected } of WORDED) {
    for (const lang of ["en", "de", "zh-CN"]) {
      const html = renderStep(step, i18nFor(lang));
      assert.ok(!html.includes('lang="en"'), `${lang} ${step.key}: fell back`);
      assert.doesNotMatch(html, /{[A-Za-z]+}/, `${lang}: ${html}`);
      const sentence = (html.match(/<div class="vtt-bridge-text">(.*)<\/div><\/li>$/)?.[1] ?? "").replace(/&#39;/g, "'");
      assert.match(sentence, /** @type {Record<string, RegExp>} */ (expected)[lang], `${lang}: ${sentence}`);
      const own = sentence.replace(USER_WORDS, "");
      if (lang === "de") assert.doesNotMatch(own, ENGLISH, `de: ${sentence}`);
      if (lang === "zh-CN") assert.doesNotMatch(own, /[A-Za-z]{2,}/, `zh-CN: ${sentence}`);
    }
  }
});

test("every immunity kind of the catalogue, damage type, pool class and Essence has a name in en, de and zh-CN", () => {
  const source = readFileSync(join(repo, "vtt_bridge", "rules", "immunities.py"), "utf8");
  const kinds = [...(source.match(/class ImmunityKindId\(StrEnum\):([\s\S]*?)\n\n\n/)?.[1] ?? "").matchAll(/= "([^"]+)"/g)].map((m) => m[1]);
  assert.equal(kinds.length, 43);
  const iwr = readFileSync(join(repo, "vtt_bridge", "rules", "damage.py"), "utf8");
  const damage = [...(iwr.match(/class DamageType\(StrEnum\):([\s\S]*?)@property/)?.[1] ?? "").matchAll(/= "([^"]+)"/g)].map((m) => m[1]);
  assert.equal(damage.length, 20);
  const means = readFileSync(join(repo, "vtt_bridge", "rules", "detection", "means.py"), "utf8");
  const essences = [...(means.match(/class Essence\(StrEnum\):([\s\S]*?)\n\n\n/)?.[1] ?? "").matchAll(/= "([^"]+)"/g)].map((m) => m[1]);
  assert.equal(essences.length, 4);
  // DET-9 contest modifiers: ContestModifier(side, dp, text, reason)
  const contests = readFileSync(join(repo, "vtt_bridge", "rules", "detection", "contests.py"), "utf8");
  const reasons = [...contests.matchAll(/ContestModifier\(\s*"(?:observer|hider)",[^)]*?"([A-Za-z]+)"\s*\)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(reasons)].sort(), ["approximateRange", "attacked", "invisible", "moved", "noisy", "sensoryRange", "smell", "sound", "woundPenalty"]);
  const tables = { Immunity: kinds, DamageType: damage, Essence: essences, Reason: reasons, PoolClass: ["eastern", "western", "special", "general", "physical", "mental", "social"], PoolKind: ["special", "eastern", "western", "both", "general"], Mode: ["onlyWith", "incompatibleWith", "rejectsGauges"], Save: ["reflex", "fortitude", "will"], Rank: ["unranked", "D", "C", "B", "A", "S"] };
  for (const [group, ids] of Object.entries(tables)) {
    for (const id of ids) {
      const en = lookup(langs.en, `${RULES_KEY}.Card.${group}.${id}`);
      assert.ok(en, `en: ${group}.${id}`);
      for (const lang of ["de", "zh-CN"]) assert.ok(lookup(langs[lang], `${RULES_KEY}.Card.${group}.${id}`), `${lang}: ${group}.${id}`);
    }
  }
  const en = i18nFor("en");
  /** @type {(group: string, value: unknown) => string} */
  const word = (group, value) => en.localize(`${RULES_KEY}.Card.${group}.${value}`);
  assert.equal(immunityLabel({ kind: "condition-points", subject: "burn", rank: "unranked" }, en, word), "burn points");
  assert.equal(immunityLabel({ kind: "brand-new", subject: "x" }, en, word), "brand-new (x)", "a kind the module does not know keeps its id");
});

// ---- every Step the sidecar writes has a sentence template ------------------------------------------

test("a crowded card lists at most MAX_CARD_STEPS steps and MAX_CARD_ROLLS rolls, and counts the rest", () => {
  const log = Array.from({ length: MAX_CARD_STEPS + 25 }, (_, i) => ({ rule: "DET-8", text: `contest ${i}`, data: { win: false } }));
  const rolls = Array.from({ length: MAX_CARD_ROLLS + 7 }, () => ({ pool: 2, again: 10, dice: [8, 3], successes: 1 }));
  const html = renderCard({ log, rolls, kind: "round" }, i18nFor("en"));
  assert.equal([...html.matchAll(/class="vtt-bridge-step"/g)].length, MAX_CARD_STEPS);
  assert.equal([...html.matchAll(/class="vtt-bridge-roll"/g)].length, MAX_CARD_ROLLS);
  assert.match(html, /… and 25 more steps/);
  assert.match(html, /… and 7 more rolls/);
  assert.match(renderCard({ log, rolls, kind: "round" }, i18nFor("de")), /… und 25 weitere Schritte/);
  const small = renderCard({ log: log.slice(0, 3), rolls: rolls.slice(0, 2) }, i18nFor("en"));
  assert.doesNotMatch(small, /more steps|more rolls/);
});
