/**
 * PURE: the headline of a ruling card, the line a table reads first: who did what to whom and what
 * came of it ("Ayla → Goblin 2: 6 lethal, badly injured, unconscious"). A card keeps its ruling as
 * data (`HeadlineSource`, names resolved when it was posted, every value a catalogue id) and each
 * client words it in its own user's language: `VTTBRIDGE.Headline.*` (its grades too), the Health status and condition words of `VTTBRIDGE.Rules.Card.*`.
 * Undo, redo and a refused undo name rulings by these headlines; the sidecar's error codes and
 * field paths become sentences here too.
 * @module headline
 */

import { countWord, escapeHtml, renderCardInner, wordField } from "./chat-cards.mjs";

/** The localization block of this module part. */
export const HEADLINE_KEY = "VTTBRIDGE.Headline";

/** The grades in the rulebook's order (HEALTH-1: bashing, lethal, aggravated). */
const GRADES = Object.freeze(["B", "L", "A"]);

/**
 * What one named one came out of a ruling with: the damage each grade dealt (HEALTH-2), what each
 * grade healed (HEALTH-8..10), and the Health status and conditions it ended with (HEALTH-6).
 * @typedef {{name: string, dealt: Record<string, number>, healed: Record<string, number>, status: string|null, conditions: string[], hit: boolean}} Outcome
 */

/**
 * A ruling as its headline needs it, in no language: its kind, who acted (a user's name, or null
 * when this client cannot know), its subject's name, the outcome per named one in log order, and
 * for a round its number and how many pairs changed (DET-8.round).
 * @typedef {object} HeadlineSource
 * @property {string} kind
 * @property {string|null} by
 * @property {string|null} subject
 * @property {Outcome[]} outcomes
 * @property {number|null} round
 * @property {number|null} changed
 * @property {number|null} successes DICE-1.result of a roll
 * @property {Array<{observer: string, target: string, before: string, result: string}>} [changes] a round's pairs whose locate state changed (DICE-5), by name
 */

/** @typedef {import("./chat-cards.mjs").Step} Step @typedef {import("./chat-cards.mjs").I18n} I18n */

/**
 * The outcome of each actor the Health steps of a log name, in the order they first appear.
 * @param {Step[]} log
 * @param {(id: string) => string|undefined} names
 * @returns {Outcome[]}
 */
export function outcomesOf(log, names) {
  /** @type {Map<string, Outcome>} */
  const byId = new Map();
  const of = (/** @type {string} */ id) => {
    let known = byId.get(id);
    if (!known) {
      known = { name: names(id) ?? id, dealt: {}, healed: {}, status: null, conditions: [], hit: false };
      byId.set(id, known);
    }
    return known;
  };
  for (const step of log) {
    const data = step.data ?? {};
    const actor = typeof data.actor === "string" ? data.actor : null;
    if (!actor) continue;
    if (step.key === "HEALTH-2.damage" && typeof data.amount === "number" && typeof data.grade === "string") {
      const out = of(actor);
      out.dealt[data.grade] = (out.dealt[data.grade] ?? 0) + data.amount;
      out.hit = true;
    } else if (step.key === "HEALTH-2.none") {
      of(actor).hit = true;
    } else if (/^HEALTH-(8|9|10)\.healed$/.test(step.key ?? "") && data.healed && typeof data.healed === "object") {
      const out = of(actor);
      for (const [grade, n] of Object.entries(data.healed)) if (typeof n === "number" && n) out.healed[grade] = (out.healed[grade] ?? 0) + n;
      out.hit = true;
    } else if (step.key === "HEALTH-6.status" && typeof data.status === "string") {
      const out = of(actor);
      out.status = data.status;
      out.conditions = Array.isArray(data.conditions) ? data.conditions.filter((c) => typeof c === "string") : [];
    }
  }
  return [...byId.values()].filter((o) => o.hit || o.status !== null);
}

/**
 * The headline source of a ruling.
 * @param {{log: Step[], kind: string, by?: string|null, subject?: string|null, names: (id: string) => string|undefined}} input
 * @returns {HeadlineSource}
 */
export function headlineSource({ log, kind, by = null, subject = null, names }) {
  const round = log.find((s) => s.key === "DET-8.round")?.data ?? null;
  const begins = log.find((s) => s.key === "ROUND.begins")?.data ?? null;
  const result = log.find((s) => s.key === "DICE-1.result")?.data ?? null;
  const number = (/** @type {unknown} */ n) => (typeof n === "number" ? n : null);
  return {
    kind,
    by,
    subject,
    outcomes: outcomesOf(log, names),
    round: number(round?.round ?? begins?.round),
    changed: number(round?.changed),
    successes: number(result?.successes),
    changes: log
      .filter((s) => /^DICE-5\./.test(s.key ?? "") && s.data && typeof s.data.result === "string" && s.data.before !== s.data.result)
      .map((s) => {
        const d = /** @type {Record<string, any>} */ (s.data);
        return { observer: names(String(d.observer)) ?? String(d.observer), target: names(String(d.target)) ?? String(d.target), before: String(d.before), result: String(d.result) };
      }),
  };
}

/**
 * Whether a round changed nothing a table needs to read: no pair of observer and hidden one
 * changed (DET-8.round `changed`, when there were contests), and no Health, Willpower or other step but the round's own and
 * its contests (ROUND, DET-*, DICE-*). Its card is one line.
 * @param {Step[]} log
 * @param {string} kind
 */
export function isQuietRound(log, kind) {
  if (kind !== "round") return false;
  const summary = log.find((s) => s.key === "DET-8.round");
  if (summary && summary.data?.changed !== 0) return false;
  return log.every((s) => s.rule === "ROUND" || /^(DET|DICE)-/.test(String(s.rule)));
}

/**
 * "6 lethal, 1 aggravated" in the reader's language (grades in the rulebook's order).
 * @param {Record<string, number>} amounts
 * @param {I18n} i18n
 */
function gradeAmounts(amounts, i18n) {
  return GRADES.filter((g) => amounts[g])
    .map((g) => i18n.format(`${HEADLINE_KEY}.Amount`, { count: String(amounts[g]), grade: i18n.localize(`${HEADLINE_KEY}.Grade.${g}`) }))
    .join(i18n.localize(`${HEADLINE_KEY}.Comma`));
}

/** The steps the headline's words come from: each value is worded as the catalogue words that field of that key. */
const STATUS_STEP = "HEALTH-6.status";
const CONDITION_STEP = "RANK-5.condition";
const LOCATE_STEP = "DICE-5.spotted";

/**
 * What came of one named one, in words: "6 lethal, badly injured, unconscious"; "no damage" when a
 * hit dealt nothing.
 * @param {Outcome} outcome
 * @param {I18n} i18n
 * @returns {string}
 */
export function outcomeWords(outcome, i18n) {
  const comma = i18n.localize(`${HEADLINE_KEY}.Comma`);
  const parts = [];
  const dealt = gradeAmounts(outcome.dealt, i18n);
  const healed = gradeAmounts(outcome.healed, i18n);
  if (dealt) parts.push(dealt);
  if (healed) parts.push(i18n.format(`${HEADLINE_KEY}.Healed`, { amounts: healed }));
  if (!dealt && !healed && outcome.hit) parts.push(i18n.localize(`${HEADLINE_KEY}.NoDamage`));
  if (outcome.status) parts.push(wordField(STATUS_STEP, "status", outcome.status, i18n));
  // the conditions the Health status brings besides its own word (a dying one is not also "dying")
  for (const condition of outcome.conditions) if (condition !== outcome.status) parts.push(wordField(CONDITION_STEP, "condition", condition, i18n));
  return parts.join(comma);
}

/**
 * The headline, not escaped: "Ayla → Goblin 2: 6 lethal, unconscious"; for several named ones
 * "Ayla → Goblin 1, Goblin 2, Goblin 3" (their outcomes are the card's lines, `outcomeLines`); a
 * round "Round 3: 2 pairs changed" or "Round 3: nothing changed"; a roll "Ayla: 4 successes".
 * @param {HeadlineSource} source
 * @param {I18n} i18n
 * @returns {string}
 */
export function headline(source, i18n) {
  const { kind, by, subject, outcomes } = source;
  const comma = i18n.localize(`${HEADLINE_KEY}.Comma`);
  const kindWord = i18n.has(`VTTBRIDGE.Rules.Card.Kind.${kind}`) ? i18n.localize(`VTTBRIDGE.Rules.Card.Kind.${kind}`) : i18n.localize("VTTBRIDGE.Rules.Card.Kind.ruling");
  if (kind === "round") {
    const round = String(source.round ?? "?");
    const what = source.changed ? countWord(source.changed, "pair", i18n) : null;
    const line = what ? i18n.format(`${HEADLINE_KEY}.RoundChanged`, { round, pairs: what }) : i18n.format(`${HEADLINE_KEY}.RoundQuiet`, { round });
    if (!outcomes.length) return line;
    return `${line}${comma}${outcomes.map((o) => i18n.format(`${HEADLINE_KEY}.Outcome`, { name: o.name, what: outcomeWords(o, i18n) })).join(comma)}`;
  }
  if (kind === "roll" && source.successes !== null) {
    return i18n.format(`${HEADLINE_KEY}.Roll`, { name: subject ?? by ?? kindWord, successes: countWord(source.successes, "success", i18n) });
  }
  const whom = outcomes.length ? outcomes.map((o) => o.name).join(comma) : (subject ?? "");
  const head = by && whom ? i18n.format(`${HEADLINE_KEY}.ByOn`, { by, whom }) : whom || by || "";
  if (outcomes.length === 1) {
    const what = outcomeWords(outcomes[0], i18n);
    if (what) return i18n.format(`${HEADLINE_KEY}.Outcome`, { name: head, what });
  }
  if (outcomes.length > 1) return head;
  return head ? i18n.format(`${HEADLINE_KEY}.Outcome`, { name: head, what: kindWord }) : kindWord;
}

/**
 * The lines under the headline of a ruling that named several: one per named one, its name and
 * what came of it (escaped HTML); "" for one or none (the headline says it all).
 * @param {HeadlineSource} source
 * @param {I18n} i18n
 * @returns {string}
 */
export function outcomeLines(source, i18n) {
  if (source.kind === "round") {
    const items = (source.changes ?? []).map(
      (c) =>
        `<li>${escapeHtml(i18n.format(`${HEADLINE_KEY}.Locates`, { observer: c.observer, target: c.target, result: wordField(LOCATE_STEP, "result", c.result, i18n), before: wordField(LOCATE_STEP, "before", c.before, i18n) }))}</li>`,
    );
    return items.length ? `<ul class="vtt-bridge-outcomes">${items.join("")}</ul>` : "";
  }
  if (source.outcomes.length < 2) return "";
  const items = source.outcomes.map(
    (o) => `<li><span class="vtt-bridge-outcome-name">${escapeHtml(o.name)}</span> ${escapeHtml(outcomeWords(o, i18n) || i18n.localize(`${HEADLINE_KEY}.NoDamage`))}</li>`,
  );
  return `<ul class="vtt-bridge-outcomes">${items.join("")}</ul>`;
}

/**
 * The headline of an undo or redo card, not escaped: "Mara undid: Ayla → Goblin 2: 6 lethal".
 * @param {{mode: "undo"|"redo", by: string|null, undid: HeadlineSource|null, kind?: string, rev?: number}} input
 * @param {I18n} i18n
 */
export function undoHeadline({ mode, by, undid, kind, rev }, i18n) {
  const what = undid ? headline(undid, i18n) : unknownRuling(kind, rev, i18n);
  const who = by ?? i18n.localize(`${HEADLINE_KEY}.TheGM`);
  return i18n.format(`${HEADLINE_KEY}.${mode === "redo" ? "Redid" : "Undid"}`, { by: who, what });
}

/**
 * A ruling this client holds no card of, in words: its kind and rev ("a damage, rev 17").
 * @param {string|undefined} kind @param {number|undefined} rev @param {I18n} i18n
 */
export function unknownRuling(kind, rev, i18n) {
  const key = `VTTBRIDGE.Rules.Card.Kind.${kind}`;
  const word = kind && i18n.has(key) ? i18n.localize(key) : i18n.localize("VTTBRIDGE.Rules.Card.Kind.ruling");
  return i18n.format(`${HEADLINE_KEY}.Unknown`, { kind: word, rev: String(rev ?? "?") });
}

/**
 * The later rulings an undo's `conflict` names (each detail's `rulings`: `{kind, action, rev}`),
 * once each, newest first: the order they can be undone in.
 * @param {unknown} details the error's `details`
 * @returns {{kind: string, action: string|null, rev: number}[]}
 */
export function laterRulings(details) {
  /** @type {Map<number, {kind: string, action: string|null, rev: number}>} */
  const byRev = new Map();
  for (const detail of Array.isArray(details) ? details : []) {
    for (const ref of Array.isArray(detail?.rulings) ? detail.rulings : []) {
      if (!ref || typeof ref.rev !== "number") continue;
      byRev.set(ref.rev, { kind: String(ref.kind ?? ""), action: typeof ref.action === "string" ? ref.action : null, rev: ref.rev });
    }
  }
  return [...byRev.values()].sort((a, b) => b.rev - a.rev);
}

/**
 * The undo actions of "undo them all": each later ruling, newest first, then the refused one. A
 * later ruling without an action id (a sync) cannot be undone: then none is offered (null).
 * @param {{kind: string, action: string|null, rev: number}[]} later newest first
 * @param {string} refused the action id of the refused undo's ruling
 * @returns {{kind: "undo", action: string}[]|null}
 */
export function undoAllActions(later, refused) {
  if (!later.length || later.some((r) => !r.action)) return null;
  return [...later.map((r) => ({ kind: /** @type {const} */ ("undo"), action: /** @type {string} */ (r.action) })), { kind: "undo", action: refused }];
}

/** Field names of the sidecar's request paths the language words (`VTTBRIDGE.Headline.Field.*`). */
const INDEXED = new Set(["instances", "actions", "traits", "modifiers", "antiDetection", "senses", "immunities"]);

/**
 * A field path of the sidecar's `details` (`["action", "instances", 0, "type"]`) in words: "the
 * damage type of damage instance 1"; segments the language does not word are shown as they are.
 * @param {unknown[]} path
 * @param {I18n} i18n
 */
export function fieldWords(path, i18n) {
  const parts = [];
  for (let at = 0; at < path.length; at += 1) {
    const part = path[at];
    if (typeof part !== "string" || part === "action" || part === "payload") continue;
    const next = path[at + 1];
    const key = `${HEADLINE_KEY}.Field.${part}`;
    const word = i18n.has(key) ? i18n.localize(key) : part;
    if (INDEXED.has(part) && typeof next === "number") {
      parts.push(i18n.format(`${HEADLINE_KEY}.Nth`, { what: word, number: String(next + 1) }));
      at += 1;
    } else {
      parts.push(word);
    }
  }
  if (!parts.length) return i18n.localize(`${HEADLINE_KEY}.Field.action`);
  // outermost first in the path: each inner part "of" what holds it, in the language's order
  return parts.reduce((outer, inner) => i18n.format(`${HEADLINE_KEY}.Of`, { inner, outer }));
}

/**
 * A refusal of the sidecar as a sentence in the reader's language: what its code means, and for
 * each field path of its `details` the field in words ("The bridge refused it: a value is not
 * allowed: the damage type of damage instance 1."). An unknown code reads as "refused"; an error
 * without a code (not the sidecar's) is told by its own message.
 * @param {{code?: unknown, details?: unknown, message?: unknown}} error
 * @param {I18n} i18n
 * @returns {string}
 */
export function errorSentence(error, i18n) {
  // not the sidecar's refusal (no code): a fault of this client, told as it is
  const message = /** @type {{message?: unknown}} */ (error)?.message;
  if (typeof error?.code !== "string" && typeof message === "string") return i18n.format(`${HEADLINE_KEY}.Refused`, { reason: message });
  const code = typeof error?.code === "string" ? error.code : "";
  const key = `${HEADLINE_KEY}.Error.${code}`;
  const reason = i18n.has(key) ? i18n.localize(key) : i18n.localize(`${HEADLINE_KEY}.Error.refused`);
  const paths = (Array.isArray(error?.details) ? error.details : []).map((d) => d?.path).filter(Array.isArray);
  if (!paths.length || code === "conflict") return i18n.format(`${HEADLINE_KEY}.Refused`, { reason });
  const fields = [...new Set(paths.map((p) => fieldWords(p, i18n)))].join(i18n.localize(`${HEADLINE_KEY}.Comma`));
  return i18n.format(`${HEADLINE_KEY}.RefusedFields`, { reason, fields });
}

/** The flag key (under the module's scope) of a card's ruling kept as data. */
export const CARD_DATA_FLAG = "rulingCard";

/**
 * A ruling card kept as data (the message's `flags["vtt-bridge"].rulingCard`), which every client renders
 * in its own user's language (`renderCardData`). `names` pairs each id the ruling names with the
 * name it had when posted (pairs, not an object: an actor uuid holds dots, which a flag update
 * would read as a path). `undo`: an undo or redo card, naming the ruling it undid by its
 * headline. `refusal`: an undo the sidecar refused, with the later rulings by their headlines and
 * the undo actions of "undo them all" (null: none can be offered).
 * @typedef {object} CardData
 * @property {string} kind
 * @property {string|null} by
 * @property {string|null} subject
 * @property {Array<[string, string]>} names
 * @property {Step[]} log
 * @property {any[]} rolls
 * @property {import("./chat-cards.mjs").Summary|null} summary
 * @property {HeadlineSource} source
 * @property {{mode: "undo"|"redo", undid: HeadlineSource|null, kind?: string, rev?: number}} [undo]
 * @property {{refused: HeadlineSource|null, kind?: string, rev?: number, later: Array<{kind: string, rev: number, source: HeadlineSource|null}>, actions: {kind: "undo", action: string}[]|null}} [refusal]
 */

/**
 * A ruling card as data.
 * @param {{log: Step[], rolls?: any[], kind: string, subject?: string|null, by?: string|null, names: (id: string) => string|undefined, ids: string[], summary?: import("./chat-cards.mjs").Summary|null}} input
 * @returns {CardData}
 */
export function cardData({ log, rolls = [], kind, subject = null, by = null, names, ids, summary = null }) {
  /** @type {Array<[string, string]>} */
  const pairs = [];
  for (const id of new Set(ids)) {
    const name = names(id);
    if (typeof name === "string") pairs.push([id, name]);
  }
  return { kind, by, subject, names: pairs, log, rolls, summary, source: headlineSource({ log, kind, by, subject, names }) };
}

/**
 * Whether a flag holds a card's data as `cardData` writes it (a log and names as arrays, a kind,
 * and a headline source, an undo or a refusal); anything else is rendered as it was posted.
 * @param {unknown} value
 * @returns {value is CardData}
 */
export function isCardData(value) {
  if (!value || typeof value !== "object") return false;
  const data = /** @type {Record<string, unknown>} */ (value);
  const shaped = (/** @type {unknown} */ v) => !!v && typeof v === "object";
  return typeof data.kind === "string" && Array.isArray(data.log) && Array.isArray(data.names) && (shaped(data.source) || shaped(data.undo) || shaped(data.refusal));
}

/**
 * The names a card's data holds, as a lookup.
 * @param {CardData} data
 * @returns {(id: string) => string|undefined}
 */
export function namesOf(data) {
  const map = new Map(Array.isArray(data.names) ? data.names.filter((p) => Array.isArray(p) && p.length === 2) : []);
  return (id) => map.get(id);
}

/**
 * The inside of a card from its data, in the reader's language: the headline, the outcome lines,
 * then "Why" (`why`: HTML put first in the fold, e.g. a batch's per-target breakdown). An undo or
 * redo card names the ruling by its headline; a refused undo lists the later rulings by theirs and
 * carries the "undo them all" button (its actions stay in the flag: the button sends them).
 * @param {CardData} data
 * @param {I18n} i18n
 * @param {{why?: string}} [extra]
 * @returns {string}
 */
export function renderCardData(data, i18n, { why = "" } = {}) {
  const names = namesOf(data);
  const log = Array.isArray(data.log) ? data.log : [];
  const rolls = Array.isArray(data.rolls) ? data.rolls : [];
  const base = { log, rolls, names, summary: data.summary ?? null, why };
  if (data.refusal) {
    const { refusal } = data;
    const refused = refusal.refused ? headline(refusal.refused, i18n) : unknownRuling(refusal.kind, refusal.rev, i18n);
    const title = i18n.format(`${HEADLINE_KEY}.UndoRefused`, { what: refused });
    const items = refusal.later.map((r) => `<li>${escapeHtml(r.source ? headline(r.source, i18n) : unknownRuling(r.kind, r.rev, i18n))}</li>`).join("");
    const lead =
      `<p class="vtt-bridge-refusal">${escapeHtml(i18n.localize(`${HEADLINE_KEY}.ChangedLater`))}</p><ol class="vtt-bridge-later">${items}</ol>` +
      (refusal.actions
        ? `<button type="button" class="vtt-bridge-undo-all">${escapeHtml(i18n.format(`${HEADLINE_KEY}.UndoAll`, { count: String(refusal.actions.length) }))}</button>`
        : "");
    return `<header class="vtt-bridge-ruling-head"><span class="vtt-bridge-headline">${escapeHtml(title)}</span></header>${lead}`;
  }
  if (data.undo) {
    const text = undoHeadline({ mode: data.undo.mode, by: data.by, undid: data.undo.undid, kind: data.undo.kind, rev: data.undo.rev }, i18n);
    return renderCardInner({ ...base, kind: data.undo.mode, headline: text }, i18n);
  }
  const source = data.source ?? headlineSource({ log, kind: data.kind, by: data.by, subject: data.subject, names });
  return renderCardInner(
    { ...base, kind: data.kind === "batch" ? "damage" : data.kind, headline: headline(source, i18n), lead: outcomeLines(source, i18n), quiet: isQuietRound(log, data.kind) },
    i18n,
  );
}
