import assert from "node:assert/strict";
import { test } from "node:test";

import { renderBatchSummary } from "../../scripts/core/batch-card.mjs";
import { renderStep } from "../../scripts/core/chat-cards.mjs";
import {
  cardData,
  errorSentence,
  fieldWords,
  headline,
  headlineSource,
  isCardData,
  isQuietRound,
  laterRulings,
  outcomeLines,
  renderCardData,
  undoAllActions,
  undoHeadline,
} from "../../scripts/core/headline.mjs";
import { i18nFor } from "../helpers/i18n.mjs";

const en = i18nFor("en");
const de = i18nFor("de");
const zh = i18nFor("zh-CN");
const NAMES = /** @type {Record<string, string>} */ ({ "Actor.g1": "Goblin 1", "Actor.g2": "Goblin 2", "Actor.g3": "Goblin 3", tokA: "Ayla", tokT: "Thief" });
const names = (/** @type {string} */ id) => NAMES[id];

/** @param {string} actor @param {number} amount @param {string} status @param {string[]} [conditions] */
const hit = (actor, amount, status, conditions = []) => [
  { rule: "HEALTH-2", key: "HEALTH-2.damage", text: "", data: { actor, grade: "L", amount, track: "first" } },
  { rule: "HEALTH-6", key: "HEALTH-6.status", text: "", data: { actor, status, conditions } },
];

test("HEALTH-2 HEALTH-6: the headline says who hit whom and what came of it, in en, de and zh-CN", () => {
  const log = hit("Actor.g2", 6, "badly", ["unconscious"]);
  const source = headlineSource({ log, kind: "damage", by: "Ayla", names });
  assert.equal(headline(source, en), "Ayla → Goblin 2: 6 lethal, badly injured, Unconscious");
  assert.equal(headline(source, de), "Ayla → Goblin 2: 6 tödlich, schwer verletzt, Bewusstlos");
  assert.equal(headline(source, zh), "Ayla → Goblin 2：6点致命，重伤，昏迷");
  // no acting user known: the target alone
  assert.equal(headline(headlineSource({ log, kind: "damage", names }), en), "Goblin 2: 6 lethal, badly injured, Unconscious");
  // a hit that dealt nothing says so
  const none = [{ rule: "HEALTH-2", key: "HEALTH-2.none", text: "", data: { actor: "Actor.g1", amount: 0 } }];
  assert.equal(headline(headlineSource({ log: none, kind: "damage", by: "Ayla", names }), en), "Ayla → Goblin 1: no damage");
});

test("three targets: the headline names them, one line each says what came of it", () => {
  const log = [...hit("Actor.g1", 4, "moderately"), ...hit("Actor.g2", 6, "badly"), ...hit("Actor.g3", 1, "lightly")];
  const source = headlineSource({ log, kind: "batch", by: "Ayla", names });
  assert.equal(headline(source, en), "Ayla → Goblin 1, Goblin 2, Goblin 3");
  const lines = outcomeLines(source, en);
  assert.equal((lines.match(/<li>/g) ?? []).length, 3);
  assert.match(lines, /Goblin 2<\/span> 6 lethal, badly injured/);
  assert.equal(outcomeLines(headlineSource({ log: hit("Actor.g1", 1, "lightly"), kind: "damage", names }), en), "", "one target: the headline says it all");
});

test("DET-8: a round that changed nothing is one line; one that changed a pair says who now locates whom", () => {
  const quiet = [
    { rule: "ROUND", key: "ROUND.begins", text: "", data: { round: 3 } },
    { rule: "DET-8", key: "DET-8.round", text: "", data: { round: 3, contests: 8, changed: 0, detailed: 8 } },
    { rule: "DICE-5", key: "DICE-5.hidden", text: "", data: { observer: "tokA", target: "tokT", before: "approximate", result: "approximate" } },
  ];
  assert.equal(isQuietRound(quiet, "round"), true);
  const card = cardData({ log: quiet, kind: "round", names, ids: ["tokA", "tokT"] });
  const html = renderCardData(card, en);
  assert.ok(html.startsWith('<details class="vtt-bridge-why vtt-bridge-quiet"><summary class="vtt-bridge-ruling-head">'), html);
  assert.match(html, /Round 3: nothing changed/);
  assert.ok(!/<header/.test(html), "no line above the fold");
  // a Health step makes it no longer quiet
  assert.equal(isQuietRound([...quiet, ...hit("Actor.g1", 1, "lightly")], "round"), false);
  const changed = [
    { rule: "DET-8", key: "DET-8.round", text: "", data: { round: 4, contests: 8, changed: 1, detailed: 8 } },
    { rule: "DICE-5", key: "DICE-5.spotted", text: "", data: { observer: "tokA", target: "tokT", before: "approximate", result: "pinpointed" } },
  ];
  assert.equal(isQuietRound(changed, "round"), false);
  const source = headlineSource({ log: changed, kind: "round", names });
  assert.equal(headline(source, en), "Round 4: 1 pair changed");
  assert.match(outcomeLines(source, de), /Ayla → Thief: genau geortet \(vorher ungefähr geortet\)/);
});

test("a card folds its rule steps under a closed Why, below the headline", () => {
  const card = cardData({ log: hit("Actor.g2", 6, "badly"), kind: "damage", by: "Ayla", names, ids: ["Actor.g2"] });
  assert.ok(isCardData(card));
  assert.ok(!isCardData({ id: "x", rev: 1, kind: "damage" }), "a ruling flag is no card data");
  const html = renderCardData(card, en);
  const head = html.indexOf("vtt-bridge-headline");
  const fold = html.indexOf('<details class="vtt-bridge-why">');
  assert.ok(head >= 0 && fold > head, html);
  assert.ok(!/<details[^>]* open/.test(html), "closed by default");
  assert.ok(html.indexOf('class="vtt-bridge-step"') > fold, "the steps are inside the fold");
  assert.match(html, /<summary>Why<\/summary>/);
  assert.match(renderCardData(card, zh), /<summary>原因<\/summary>/);
  // the names it was posted with travel in the flag as pairs (an actor uuid holds dots)
  assert.deepEqual(card.names, [["Actor.g2", "Goblin 2"]]);
});

test("UNDO: undo and redo cards name the ruling by its headline and who undid it", () => {
  const undid = headlineSource({ log: hit("Actor.g2", 6, "badly"), kind: "damage", by: "Ayla", names });
  assert.equal(undoHeadline({ mode: "undo", by: "Mara", undid }, en), "Mara undid: Ayla → Goblin 2: 6 lethal, badly injured");
  assert.equal(undoHeadline({ mode: "redo", by: "Mara", undid }, de), "Mara hat wiederhergestellt: Ayla → Goblin 2: 6 tödlich, schwer verletzt");
  // a ruling this client holds no card of: its kind and rev, in words
  assert.equal(undoHeadline({ mode: "undo", by: null, undid: null, kind: "damage", rev: 17 }, en), "The GM undid: Damage (rev 17)");
});

test("UNDO: a refused undo's later rulings, once each and newest first; undo them all ends with the refused one", () => {
  const details = [
    { path: ["actors", "a", "health", "lethal"], message: "", rulings: [{ kind: "damage", action: "r12", rev: 12 }, { kind: "batch", action: "r14", rev: 14 }] },
    { path: ["actors", "a", "health", "bashing"], message: "", rulings: [{ kind: "damage", action: "r12", rev: 12 }] },
  ];
  const later = laterRulings(details);
  assert.deepEqual(later.map((r) => r.rev), [14, 12]);
  assert.deepEqual(undoAllActions(later, "r8"), [
    { kind: "undo", action: "r14" },
    { kind: "undo", action: "r12" },
    { kind: "undo", action: "r8" },
  ]);
  // a later sync has no action id: it cannot be undone, so none is offered
  assert.equal(undoAllActions([...later, { kind: "sync", action: null, rev: 13 }], "r8"), null);
  assert.deepEqual(laterRulings("not a list"), []);
});

test("the sidecar's error codes and field paths read as sentences in each language", () => {
  assert.equal(fieldWords(["action", "instances", 1, "grade"], en), "the grade of damage instance 2");
  assert.equal(fieldWords(["action", "instances", 1, "grade"], zh), "第2个伤害实例的等级");
  assert.equal(fieldWords(["action"], de), "die Aktion");
  assert.equal(errorSentence({ code: "not_found" }, en), "The bridge refused it: no such actor or token.");
  assert.equal(errorSentence({ code: "stale" }, zh), "桥接拒绝了：世界在此期间已改变；请重试。");
  assert.equal(
    errorSentence({ code: "invalid", details: [{ path: ["action", "target"] }, { path: ["action", "instances", 0, "amount"] }] }, de),
    "Die Brücke hat abgelehnt: ein Wert fehlt oder ist nicht erlaubt: das Ziel, die Menge von Schadensinstanz 1.",
  );
  assert.equal(errorSentence({ code: "no-such-code" }, en), "The bridge refused it: refused.");
});

test("IWR-8: a damage instance is counted from 1, and a batch's totals name the damage type in the reader's language", () => {
  const step = { rule: "IWR-8", key: "IWR-8.instance", text: "", data: { actor: "Actor.g1", index: 0, type: "fire", amount: 4, grade: "L", rank: "unranked" } };
  assert.match(renderStep(step, en, names), /Instance 1: 4 fire/);
  // the Rank named once, in each language's own words (not "Rank unranked", "Rang ohne Rang")
  const ranked = { ...step, data: { ...step.data, rank: "B" } };
  assert.match(renderStep(step, en, names), /\(lethal, unranked\)</);
  assert.match(renderStep(ranked, en, names), /\(lethal, B-Rank\)</);
  assert.match(renderStep(step, de, names), /Instanz 1: 4 tödlichen Schaden \(Feuer, ohne Rang\)</);
  assert.match(renderStep(ranked, de, names), /, Rang B\)</);
  assert.match(renderStep(step, zh, names), /，无等级）</);
  assert.match(renderStep(ranked, zh, names), /，B级）</);
  // the grade word is declined for "Schaden": the German sentences put it before "Schaden(s)"
  const worse = { rule: "HEALTH-4", key: "HEALTH-4.worsening", text: "", data: { actor: "Actor.g1", track: "primary", grade: "L", healthy: 3, bashing: 0, lethal: 3, aggravated: 1 } };
  assert.match(renderStep(worse, de, names), /: 1 Kästchen tödlichen Schadens wird A;/);
  const rest = { rule: "HEALTH-8", key: "HEALTH-8.restCarried", text: "", data: { actor: "Actor.g1", grade: "B", restHours: 2, periodHours: 8 } };
  assert.match(renderStep(rest, de, names), /Ruhe für das nächste Kästchen stumpfen Schadens: /);
  const log = [
    { rule: "BATCH", key: "BATCH.item", text: "", data: { index: 0, number: 1, count: 1, kind: "damage", target: "Actor.g1" } },
    step,
    { rule: "IWR-8", key: "IWR-8.deals", text: "", data: { actor: "Actor.g1", index: 0, type: "fire", amount: 4 } },
  ];
  const html = renderBatchSummary(log, de, names);
  assert.match(html, /4 Feuer → 4/);
  assert.ok(!/fire/.test(html), html);
});

test("a GM's action the sidecar refuses is told as a sentence in the GM's language (send-action)", async () => {
  const { makeSendAction } = await import("../../scripts/foundry/send-action.mjs");
  const { BridgeError } = await import("../../scripts/core/connection.mjs");
  /** @type {string[]} */
  const errors = [];
  const env = { game: { i18n: de }, ui: { notifications: { error: (/** @type {string} */ m) => errors.push(m), info() {}, warn() {} } } };
  const refusing = { action: async () => Promise.reject(new BridgeError("invalid", "invalid damage action", [{ path: ["action", "instances", 0, "type"], message: "not a damage type" }])) };
  const send = makeSendAction({ env, connection: () => refusing, localize: (key, data) => de.format(key, data) });
  await send({ kind: "damage", target: "Actor.g1", instances: [{ amount: 1, grade: "L", type: "fier" }] });
  assert.equal(errors.length, 1);
  assert.match(errors[0], /ein Wert fehlt oder ist nicht erlaubt: die Schadensart von Schadensinstanz 1\./, errors[0]);
  assert.ok(!/invalid damage action/.test(errors[0]), errors[0]);
});
