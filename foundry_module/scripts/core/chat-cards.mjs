/**
 * PURE: the chat card of a ruling. The sidecar explains each ruling as `log: [{rule, text, data, key}]`
 * (and its dice as `rolls`); a card shows, per step, the rule id, the rule's localized title and the
 * sentence of the step's key (`VTTBRIDGE.Step.<key>`, the sidecar's declared vocabulary) made from
 * its `data`. A step whose key the language does not word (an older or newer sidecar) shows the
 * sidecar's English text instead, under the localized title.
 *
 * Localization keys: `VTTBRIDGE.Rules.<rule id>.Title` for every rule id, `VTTBRIDGE.Step.*` for the
 * step sentences and their words, `VTTBRIDGE.Rules.Card.*` for the card's own words. Every value that reaches the HTML is escaped (actor and token names come
 * from users).
 * @module chat-cards
 */

import { NO_AGAIN, SUCCESS_THRESHOLD } from "./rolls.mjs";

/** The localization block of this module part. */
export const RULES_KEY = "VTTBRIDGE.Rules";
const CARD_KEY = `${RULES_KEY}.Card`;

/**
 * The localization key of the name of a condition or emotion point kind (RANK-9: the keys of
 * `conditionPoints` / `emotionPoints`, e.g. "burn", "fear"), shared by the chat cards and the
 * counters drawn on tokens.
 * @param {string} kind
 */
export const pointNameKey = (kind) => `${CARD_KEY}.Point.${kind}`;

/**
 * @typedef {object} Step one step of a ruling's log
 * @property {string} rule
 * @property {string} text
 * @property {Record<string, any>|null} [data]
 * @property {string|null} [key] the step's key in the sidecar's declared vocabulary (`vtt-bridge schema`, `$defs.StepCatalogue`)
 */

/**
 * @typedef {object} I18n what the card reads from Foundry's `game.i18n`
 * @property {(key: string) => string} localize
 * @property {(key: string, data?: Record<string, string>) => string} format
 * @property {(key: string) => boolean} has
 * @property {string} [lang] the reader's language (Foundry's `game.i18n.lang`), for plural forms
 */

/**
 * @typedef {object} CardInput
 * @property {Step[]} log
 * @property {import("./rolls.mjs").EngineRoll[]} [rolls]
 * @property {string} [kind] the action or query kind ("damage", "explain", ...); inferred when absent
 * @property {string} [subject] who the ruling is about (a name; escaped here)
 * @property {(id: string) => string|undefined} [names] actor uuid / token id → display name
 * @property {Summary|null} [summary] what the sidecar left out of `log` and `rolls` (`summaryOf`)
 */

/**
 * What a `result` or `patch` says it left out of its log and rolls (docs/protocol.md): how many
 * steps and rolls the ruling made in all, and its steps per key.
 * @typedef {{steps: number, rolls: number, keys: Record<string, number>}} Summary
 */

/**
 * Escape a value for HTML text and attribute values.
 * @param {unknown} value
 * @returns {string}
 */
export function escapeHtml(value) {
  return String(value ?? "").replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** @param {Record<string, any>} d @param {string} key */
const has = (d, key) => Object.prototype.hasOwnProperty.call(d, key);

/**
 * Whether a data value is an immunity as the sidecar writes it (RANK-9..13: `{kind, subject?, rank,
 * source?}`).
 * @param {unknown} value
 * @returns {value is {kind: string, subject?: string, rank?: string, source?: string}}
 */
const isImmunity = (value) => typeof value === "object" && value !== null && typeof (/** @type {any} */ (value).kind) === "string";

/**
 * `{B: 1, L: 2}` → "1 B + 2 L"; `[a, b]` → "a, b"; numbers and strings as they are.
 * @param {unknown} value
 * @returns {string}
 */
export function plainValue(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(plainValue).join(", ");
  if (typeof value === "object") {
    const parts = Object.entries(value)
      .filter(([, n]) => typeof n !== "number" || n !== 0)
      .map(([k, n]) => (typeof n === "number" ? `${n} ${k}` : `${k}: ${plainValue(n)}`));
    return parts.join(" + ") || "0";
  }
  if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(2);
  return String(value);
}

/**
 * The data fields of a step in the reader's language, not yet escaped: each field formatted for its
 * kind (immunities, pools, traits, conditions, sources ...), plus the parameters `DERIVED_PARAMS`
 * derives from declared fields.
 * @param {Step} step
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @returns {Record<string, string>}
 */
function fieldParams(step, i18n, names) {
  const data = step.data ?? {};
  const word = (/** @type {string} */ group, /** @type {unknown} */ value) => {
    const key = `${CARD_KEY}.${group}.${value}`;
    return i18n.has(key) ? i18n.localize(key) : String(value);
  };
  /** @type {Record<string, string>} */
  const out = {};
  for (const [key, value] of Object.entries(data)) out[key] = plainValue(value);
  for (const key of ["result", "locate"]) if (typeof data[key] === "string") out[key] = word("Locate", data[key]);
  if (typeof data.status === "string") out.status = word("Status", data.status);
  if (Array.isArray(data.conditions)) {
    out.conditions = data.conditions.length ? `; ${data.conditions.map((c) => word("Condition", c)).join(", ")}` : "";
  }
  if (typeof data.condition === "string") out.condition = word("Condition", data.condition);
  // a condition or emotion point kind (RANK-9), worded as on the counters drawn on tokens
  if (typeof data.kind === "string") out.kind = word("Point", data.kind);
  if (typeof data.side === "string") out.side = word("Side", data.side);
  if (typeof data.reason === "string") out.reason = word("Reason", data.reason);
  if (typeof data.paidFrom === "string") out.paidFrom = word("Pool", data.paidFrom);
  if (typeof data.unusable === "string") out.unusable = word("Condition", data.unusable);
  if (typeof data.source === "string") {
    const key = `VTTBRIDGE.HealSource.${data.source}`;
    out.source = i18n.has(key) ? i18n.localize(key) : data.source;
  }
  if (typeof data.dp === "number") out.dp = data.dp > 0 ? `+${data.dp}` : String(data.dp);
  if (typeof data.delta === "number") out.delta = data.delta > 0 ? `+${data.delta}` : String(data.delta);
  if (typeof data.spellChance === "number") out.spellChance = `${Math.round(data.spellChance * 100)}%`;
  if (typeof data.spell === "string") out.spell = word("Spell", data.spell);
  // a means of detection: the ordinary senses (DET-5) in the reader's language, a named one as written
  if (typeof data.means === "string") out.means = word("Sense", data.means);
  // a Rank (RANK-1) as its letter, "unranked" in the reader's language
  if (typeof data.rank === "string") out.rank = data.rank === "unranked" ? word("Rank", data.rank) : data.rank;
  // the damage type an immunity's trait names (IWR-2)
  if (typeof data.trait === "string") out.trait = word("DamageType", data.trait);
  // the kind of ruling an undo or redo names
  if (typeof data.kind === "string" && typeof data.action === "string") out.kind = word("Kind", data.kind);
  for (const key of ["token", "actor", "opponent"]) if (typeof data[key] === "string") out[key] = names?.(data[key]) ?? data[key];
  Object.assign(out, immunityParams(data, i18n, word), energyParams(data, i18n, word), rollParams(data, i18n));
  if (Array.isArray(data.antiDetection)) {
    out.anti = data.antiDetection
      .map((/** @type {Record<string, any>} */ a) => i18n.format(`${CARD_KEY}.Means`, { name: String(a.name), essence: word("Essence", a.essence), rank: word("Rank", a.rank) }))
      .join(", ");
  }
  if (typeof data.healthy === "number") {
    const { healthy, bashing = 0, lethal = 0, aggravated = 0 } = data;
    out.boxes = i18n.format(`${CARD_KEY}.Boxes`, { healthy: String(healthy), bashing: String(bashing), lethal: String(lethal), aggravated: String(aggravated) });
  }
  return out;
}

/** Parameters a sentence may use besides the declared fields, each made from the fields it lists. */
export const DERIVED_PARAMS = Object.freeze({
  boxes: ["healthy", "bashing", "lethal", "aggravated"],
  immunitySource: ["immunity"],
  replacedSource: ["replaced"],
});

/** @typedef {(group: string, value: unknown) => string} Word a table value in the reader's language */

/** @param {unknown} n */
const signed = (n) => (typeof n === "number" && n >= 0 ? `+${n}` : String(n));

/**
 * The parameters of the roll action's steps (DICE-1/4): the pool's traits (Attributes by their
 * name in the reader's language, Skills as the sheet names them) and the modifiers, each marked
 * perfect or not counted (DICE-4).
 * @param {Record<string, any>} data
 * @param {I18n} i18n
 * @returns {Record<string, string>}
 */
function rollParams(data, i18n) {
  /** @type {Record<string, string>} */
  const out = {};
  if (Array.isArray(data.traits) && has(data, "base")) {
    const name = (/** @type {string} */ trait) => {
      if (trait === "dice") return i18n.localize(`${CARD_KEY}.Dice`);
      const key = /^[A-Z]{3}$/.test(trait) ? `VTTBRIDGE.Attribute.${trait}` : `VTTBRIDGE.Skill.${trait}`;
      return i18n.has(key) ? i18n.localize(key) : trait;
    };
    out.traits = data.traits.map((/** @type {Record<string, any>} */ t) => `${name(String(t.trait))} ${t.value}`).join(" + ");
  }
  if (Array.isArray(data.modifiers) && has(data, "total")) {
    out.modifiers = data.modifiers
      .map((/** @type {Record<string, any>} */ m) => {
        const text = `${m.type} ${signed(m.value)}`;
        if (!m.counted) return i18n.format(`${CARD_KEY}.NotStacked`, { modifier: text });
        return m.perfect ? i18n.format(`${CARD_KEY}.Perfect`, { modifier: text }) : text;
      })
      .join(", ");
  }
  if (typeof data.total === "number" && Array.isArray(data.modifiers)) out.total = signed(data.total);
  return out;
}

/** The table an immunity kind's `subject` names (RANK-9), as a `Card` lookup block. */
const SUBJECT_WORDS = Object.freeze({ damage: "DamageType", "emotion-points": "Point", "condition-points": "Point", condition: "Condition" });

/**
 * An immunity in the reader's language: the catalogue kind (RANK-9/10, `Card.Immunity.<kind>`), its
 * subject worded from its table, and its Rank when it has one ("poison (C-Rank)").
 * @param {{kind: string, subject?: string, rank?: string}} immunity
 * @param {I18n} i18n
 * @param {Word} word
 * @returns {string}
 */
export function immunityLabel(immunity, i18n, word) {
  const group = /** @type {Record<string, string>} */ (SUBJECT_WORDS)[immunity.kind];
  const subject = immunity.subject === undefined ? "" : group ? word(group, immunity.subject) : String(immunity.subject);
  const key = `${CARD_KEY}.Immunity.${immunity.kind}`;
  const name = i18n.has(key) ? i18n.format(key, { subject }) : subject ? `${immunity.kind} (${subject})` : immunity.kind;
  if (!immunity.rank || immunity.rank === "unranked") return name;
  return i18n.format(`${CARD_KEY}.Ranked`, { immunity: name, rank: word("Rank", immunity.rank) });
}

/**
 * The parameters of the immunity steps (RANK-5/9/10/13): `immunity`, `replaced`, their sources,
 * `effectRank`, `save` and `what` (the thing an immunity blocks: points, a condition, the effect, damage).
 * @param {Record<string, any>} data
 * @param {I18n} i18n
 * @param {Word} word
 * @returns {Record<string, string>}
 */
function immunityParams(data, i18n, word) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const key of ["immunity", "replaced"]) {
    const immunity = data[key];
    if (!isImmunity(immunity)) continue;
    out[key] = immunityLabel(immunity, i18n, word);
    out[`${key}Source`] = immunity.source ?? "?";
  }
  if (!isImmunity(data.immunity)) return out;
  if (typeof data.effectRank === "string") out.effectRank = word("Rank", data.effectRank);
  if (typeof data.save === "string") out.save = word("Save", data.save);
  if (typeof data.what === "string") {
    const key = `${CARD_KEY}.What.${data.what}`;
    const parts = {
      kind: word("Point", data.kind),
      condition: word("Condition", data.condition),
      amount: String(data.amount ?? ""),
      type: word("DamageType", data.type),
    };
    out.what = i18n.has(key) ? i18n.format(key, parts) : data.what;
  }
  return out;
}

/**
 * The parameters of the Energy Pool steps (EP-1..9): key Attributes by name, the pool's kind and
 * traits, pool classes (`class`, `classes`) and compatibility modes (`mode`) in the reader's language;
 * pool, Gauge and source names stay as the users wrote them.
 * @param {Record<string, any>} data
 * @param {I18n} i18n
 * @param {Word} word
 * @returns {Record<string, string>}
 */
function energyParams(data, i18n, word) {
  /** @type {Record<string, string>} */
  const out = {};
  const poolClass = (/** @type {unknown} */ c) => word("PoolClass", c);
  if (data.keyAttributes && typeof data.keyAttributes === "object") {
    out.keyAttributes = Object.entries(data.keyAttributes)
      .map(([attribute, value]) => {
        const key = `VTTBRIDGE.Attribute.${attribute}`;
        return `${i18n.has(key) ? i18n.localize(key) : attribute} ${value}`;
      })
      .join(" + ");
    out.category = word("PoolKind", data.region ?? data.category);
  }
  if (Array.isArray(data.traits)) out.traits = data.traits.map(poolClass).join(", ");
  if (Array.isArray(data.classes)) out.classes = data.classes.map(poolClass).join(", ");
  if (typeof data.class === "string") out.class = poolClass(data.class);
  if (typeof data.mode === "string") {
    const key = `${CARD_KEY}.Mode.${data.mode}`;
    out.mode = i18n.has(key) ? i18n.format(key, { class: out.class ?? "" }) : `${data.mode} ${out.class ?? ""}`;
  }
  return out;
}

/** The localization block of the keyed step sentences: `VTTBRIDGE.Step.<step key>`. */
export const STEP_KEY = "VTTBRIDGE.Step";

/** Data fields that name a step's subjects (actor uuids or token ids): shown by their names. */
export const SUBJECT_FIELDS = Object.freeze(["observer", "target", "actor", "opponent", "attacker", "token"]);

/**
 * Count fields and the word they count (`VTTBRIDGE.Step.Count.<word>.<plural category>`). The sidecar's
 * status page words its steps with this very file (it serves it to the browser).
 */
export const COUNT_FIELDS = Object.freeze({
  observerSuccesses: "success",
  hiderSuccesses: "success",
  successes: "success",
  observerPool: "dieWith",
  hiderPool: "dieWith",
  penalty: "die",
  contests: "contest",
  changed: "pair",
  changedPairs: "pair",
  lapsed: "result",
  actors: "actor",
  tokens: "token",
  extraSuccesses: "extra",
  effectPoints: "effectPoint",
  rerolls: "reroll",
  restHours: "hour",
  periodHours: "hour",
  longRests: "longRest",
});

/** Count fields of one key whose word is not the field's own (`key → field → word`). */
export const KEY_COUNT_FIELDS = Object.freeze({
  "DICE-3.extra": { extra: "extra", total: "success" },
  "DICE-3.noExtra": { extra: "extra" },
  "DICE-1.rolled": { successes: "success" },
  "DICE-1.pool": { base: "die" },
  "DICE-1.toRoll": { pool: "die" },
  "DICE-4.modifiers": { total: "die" },
  "DICE-7.bonus": { bonus: "die" },
  "WP-2.roll": { bonus: "die" },
  "RANK-13.bonus": { bonus: "die" },
  "RANK-5.points": { points: "point" },
  "RANK-12.points": { points: "point" },
  "HEALTH-9.cost": { aggravated: "aggravatedBox", cost: "point" },
  "HEALTH-13.new": { max: "healthyBoxWith" },
});

/** Count fields shown with their sign ("+1 die"): `key → fields`. */
export const SIGNED_COUNT_FIELDS = Object.freeze({ "DICE-4.modifiers": ["total"] });

/**
 * Fields shown negated (`key → fields`): a wound penalty as the dice it takes ("0 → -3"), as the
 * status page's table and the token show it (HEALTH-7).
 */
export const NEGATED_FIELDS = Object.freeze({ "HEALTH-7.change": ["before", "after"] });

/** Fields holding a Rank's number (DET-2/7: unranked 0 ... S 5, S+1 6), shown as the Rank's letter. */
const RANK_NUMBER_FIELDS = new Set(["effectiveRank", "antiRank"]);

/** The Ranks by number (RANK-1); 6 is S+1 (DET-2: a means one Rank above S). */
export const RANK_LETTERS = Object.freeze(["unranked", "D", "C", "B", "A", "S", "S+1"]);

/**
 * A Rank's number as its letter ("3" → "B"); unranked in the reader's language.
 * @param {number} number
 * @param {I18n} i18n
 */
export function rankLetter(number, i18n) {
  const letter = RANK_LETTERS[number] ?? String(number);
  const key = `${CARD_KEY}.Rank.${letter}`;
  return letter === "unranked" && i18n.has(key) ? i18n.localize(key) : letter;
}

/** Fields holding a locate state (DET-4), worded by `Card.Locate.<state>`. */
const LOCATE_FIELDS = new Set(["result", "before", "locate", "state", "shown", "rules"]);

/**
 * A count in the reader's language with its plural form ("1 success", "2 successes"; zh-CN has one
 * form), by `Intl.PluralRules`.
 * @param {number} count
 * @param {string} word
 * @param {I18n} i18n
 * @param {string} [shown] how the number is written (default: as it is; "+1" for a signed count)
 */
export function countWord(count, word, i18n, shown = String(count)) {
  const category = Number.isFinite(count) ? new Intl.PluralRules(i18n.lang ?? "en").select(count) : "other";
  const base = `${STEP_KEY}.Count.${word}`;
  const key = i18n.has(`${base}.${category}`) ? `${base}.${category}` : `${base}.other`;
  return i18n.format(key, { count: shown });
}

/**
 * When a GM's pin ends (`until`: "scene", "move" or `{round}`), in the reader's language.
 * @param {unknown} until
 * @param {I18n} i18n
 */
function untilWords(until, i18n) {
  if (typeof until === "string") return i18n.has(`${STEP_KEY}.Until.${until}`) ? i18n.localize(`${STEP_KEY}.Until.${until}`) : until;
  const round = /** @type {{round?: unknown}} */ (until ?? {}).round;
  return i18n.format(`${STEP_KEY}.Until.round`, { round: String(round ?? "?") });
}

/** The fields of an IWR step that name a damage type (IWR-6/7: the instance's, the resistance's, the weakness's). */
const IWR_TYPE_FIELDS = new Set(["type", "resistance", "weakness"]);

/**
 * The parameters of a keyed step: every data field, formatted for its kind (subjects by name,
 * counts with their plural form, locate states, grades and tracks in the reader's language), escaped.
 * @param {Step} step
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @returns {Record<string, string>}
 */
export function keyedParams(step, i18n, names) {
  const data = step.data ?? {};
  const word = (/** @type {string} */ key, /** @type {unknown} */ value) => (i18n.has(key) ? i18n.localize(key) : String(value));
  const card = (/** @type {string} */ group, /** @type {unknown} */ value) => word(`${CARD_KEY}.${group}.${value}`, value);
  const counts = /** @type {Record<string, string>} */ (COUNT_FIELDS);
  const keyCounts = /** @type {Record<string, Record<string, string>>} */ (KEY_COUNT_FIELDS)[step.key ?? ""] ?? {};
  const signedCounts = /** @type {Record<string, string[]>} */ (SIGNED_COUNT_FIELDS)[step.key ?? ""] ?? [];
  const negated = /** @type {Record<string, string[]>} */ (NEGATED_FIELDS)[step.key ?? ""] ?? [];
  const out = fieldParams(step, i18n, names);
  for (const [field, value] of Object.entries(data)) {
    if (negated.includes(field) && typeof value === "number") out[field] = value ? String(-value) : "0";
    else if (field in keyCounts && typeof value === "number") out[field] = countWord(value, keyCounts[field], i18n, signedCounts.includes(field) ? signed(value) : undefined);
    else if (SUBJECT_FIELDS.includes(field) && typeof value === "string") out[field] = names?.(value) ?? value;
    else if (SUBJECT_FIELDS.includes(field) && value === null) out[field] = i18n.localize(`${STEP_KEY}.Every`);
    else if (field in counts && typeof value === "number") out[field] = countWord(value, counts[field], i18n);
    else if (LOCATE_FIELDS.has(field) && typeof value === "string") out[field] = card("Locate", value);
    else if (field === "spell") out[field] = card("Spell", value);
    else if (field === "spellChance" && typeof value === "number") out[field] = `${Math.round(value * 100)}%`;
    else if (field === "by") out[field] = typeof value === "string" && value ? value : i18n.localize(`${STEP_KEY}.TheGM`);
    else if (field === "until") out[field] = untilWords(value, i18n);
    else if (field === "side") out[field] = card("Side", value);
    else if (field === "reason") out[field] = card("Reason", value);
    else if (field === "status") out[field] = card("Status", value);
    else if (field === "track") out[field] = word(`${STEP_KEY}.Track.${value}`, value);
    else if (field === "grade") out[field] = word(`${STEP_KEY}.Grade.${value}`, value);
    else if (field === "wins") out[field] = word(`${STEP_KEY}.Wins.${value}`, value);
    else if (field === "dp") out[field] = typeof value === "number" && value > 0 ? `+${value}` : String(value);
    // a damage instance's place in its action, counted from 1 as people count (the sidecar's from 0)
    else if (field === "index" && typeof value === "number" && String(step.rule).startsWith("IWR")) out[field] = String(value + 1);
    else if (field === "conditions") out[field] = Array.isArray(value) && value.length ? `; ${value.map((c) => card("Condition", c)).join(", ")}` : "";
    else if (field === "means" && step.key === "DET-4.summary") out[field] = typeof value === "string" ? `${out.means ?? value}, ` : "";
    else if (field === "old" || field === "new") out[field] = value === null || value === undefined ? i18n.localize(`${STEP_KEY}.Nothing`) : JSON.stringify(value);
    else if (RANK_NUMBER_FIELDS.has(field) && typeof value === "number") out[field] = rankLetter(value, i18n);
    else if (IWR_TYPE_FIELDS.has(field) && typeof value === "string" && String(step.rule).startsWith("IWR")) out[field] = card("DamageType", value);
    else if (!(field in out)) out[field] = plainValue(value);
  }
  for (const key of Object.keys(out)) out[key] = escapeHtml(out[key]);
  return out;
}

/**
 * The sentence key of a keyed step the language has (null: none, use the rule's template or text).
 * @param {Step} step
 * @param {I18n} i18n
 */
export function keyedTemplate(step, i18n) {
  if (typeof step.key !== "string" || !step.key) return null;
  const key = `${STEP_KEY}.${step.key}`;
  return i18n.has(key) ? key : null;
}

/**
 * One step as HTML: rule id, localized title, localized sentence (or the English text).
 * @param {Step} step
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @returns {string}
 */
export function renderStep(step, i18n, names) {
  const rule = escapeHtml(step.rule);
  const titleKey = `${RULES_KEY}.${step.rule}.Title`;
  const title = i18n.has(titleKey) ? escapeHtml(i18n.localize(titleKey)) : "";
  const keyed = keyedTemplate(step, i18n);
  const localized = keyed !== null;
  const sentence = keyed ? i18n.format(keyed, keyedParams(step, i18n, names)) : escapeHtml(step.text);
  const who = !keyed && typeof step.data?.actor === "string" ? names?.(step.data.actor) : undefined;
  const whoHtml = who ? `<span class="vtt-bridge-who">${escapeHtml(who)}:</span> ` : "";
  const keyAttr = typeof step.key === "string" ? ` data-key="${escapeHtml(step.key)}"` : "";
  return (
    `<li class="vtt-bridge-step" data-rule="${rule}"${keyAttr}>` +
    `<div class="vtt-bridge-step-head"><span class="vtt-bridge-rule">${rule}</span>` +
    (title ? ` <span class="vtt-bridge-title">${title}</span>` : "") +
    `</div><div class="vtt-bridge-text"${localized ? "" : ' lang="en"'}>${whoHtml}${sentence}</div></li>`
  );
}

/**
 * One roll as HTML: whose roll and what for (when the sidecar names it: `by`, `purpose`), the faces
 * (successes and rerolls marked) and the successes.
 * @param {import("./rolls.mjs").EngineRoll & {by?: string, purpose?: string}} roll
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @returns {string}
 */
export function renderRoll(roll, i18n, names) {
  const faces = (roll.dice ?? [])
    .map((face) => {
      const cls = ["vtt-bridge-die", face >= SUCCESS_THRESHOLD ? "success" : "", face >= roll.again ? "exploded" : ""].filter(Boolean).join(" ");
      return `<span class="${cls}">${escapeHtml(face)}</span>`;
    })
    .join("");
  const again = roll.again >= NO_AGAIN ? i18n.localize(`${CARD_KEY}.NoAgain`) : i18n.format(`${CARD_KEY}.Again`, { again: String(roll.again) });
  const summary =
    typeof roll.by === "string" && i18n.has(`${STEP_KEY}.RollBy`)
      ? i18n.format(`${STEP_KEY}.RollBy`, {
          who: escapeHtml(names?.(roll.by) ?? roll.by),
          purpose: escapeHtml(i18n.has(`${STEP_KEY}.Purpose.${roll.purpose}`) ? i18n.localize(`${STEP_KEY}.Purpose.${roll.purpose}`) : roll.purpose ?? ""),
          pool: escapeHtml(countWord(roll.pool, "die", i18n)),
          again: escapeHtml(again),
          successes: escapeHtml(countWord(roll.successes, "success", i18n)),
        })
      : i18n.format(`${CARD_KEY}.Roll`, { pool: escapeHtml(countWord(roll.pool, "die", i18n)), again: escapeHtml(again), successes: escapeHtml(countWord(roll.successes, "success", i18n)) });
  const byAttr = typeof roll.by === "string" ? ` data-by="${escapeHtml(roll.by)}"` : "";
  return `<div class="vtt-bridge-roll"${byAttr}><div class="vtt-bridge-roll-summary">${summary}</div><div class="vtt-bridge-dice">${faces}</div></div>`;
}

/**
 * The most steps a card lists; the rest are counted (a crowded round can have hundreds) and read when
 * the GM opens the card's "all steps" (`rulingPage`). The sidecar sends as many (its `LOG_SHOWN`).
 */
export const MAX_CARD_STEPS = 60;

/** The most rolls a card shows and attaches as Foundry rolls (Dice So Nice animates each); the sidecar sends as many. */
export const MAX_CARD_ROLLS = 10;

/** Steps (and rolls) asked for in one `ruling` query (the sidecar answers at most 1,000). */
export const RULING_PAGE = 500;

/**
 * A message's `summary`, checked: null when absent or malformed (the log and rolls are then taken as whole).
 * @param {unknown} value
 * @returns {Summary|null}
 */
export function summaryOf(value) {
  if (!value || typeof value !== "object") return null;
  const { steps, rolls, keys } = /** @type {Record<string, unknown>} */ (value);
  if (!Number.isSafeInteger(steps) || !Number.isSafeInteger(rolls) || !keys || typeof keys !== "object") return null;
  /** @type {Record<string, number>} */
  const counts = {};
  for (const [key, count] of Object.entries(keys)) if (Number.isSafeInteger(count)) counts[key] = Number(count);
  return { steps: Number(steps), rolls: Number(rolls), keys: counts };
}

/**
 * The `ruling` query of one page of a ruling's whole log and rolls.
 * @param {string} action the ruling's action id
 * @param {number} offset
 * @param {number} [limit]
 */
export function rulingPage(action, offset, limit = RULING_PAGE) {
  return { kind: "ruling", action, offset, limit };
}

/**
 * Read steps `from` to `to` (and the rolls of the same range) of a ruling, page after page, through
 * `query` (a connection's); stops early when a page comes back empty.
 * @param {(query: Record<string, unknown>) => Promise<any>} query
 * @param {string} action
 * @param {number} from
 * @param {number} to one past the last step wanted
 * @returns {Promise<{log: Step[], rolls: any[]}>}
 */
export async function readRuling(query, action, from, to) {
  /** @type {Step[]} */
  const log = [];
  /** @type {any[]} */
  const rolls = [];
  for (let offset = from; offset < to; offset += RULING_PAGE) {
    const answer = await query(rulingPage(action, offset, Math.min(RULING_PAGE, to - offset)));
    const page = Array.isArray(answer?.log) ? answer.log : [];
    log.push(...page);
    if (Array.isArray(answer?.rolls)) rolls.push(...answer.rolls);
    if (!page.length) break;
  }
  return { log, rolls };
}

/**
 * Where a cut log's held reveals are (`DET-8.held`, which come last in a ruling's log) when the
 * message did not carry all of them: the range to read, or null.
 * @param {Step[]} log the steps the message carried
 * @param {Summary|null} summary
 * @returns {{from: number, to: number}|null}
 */
export function heldRange(log, summary) {
  const held = summary?.keys["DET-8.held"] ?? 0;
  if (!summary || !held) return null;
  const carried = log.filter((s) => s.key === "DET-8.held").length;
  if (carried >= held) return null;
  return { from: Math.max(log.length, summary.steps - held), to: summary.steps };
}

/**
 * The steps of a ruling as a list (the card's "all steps", read through the query).
 * @param {Step[]} log
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @param {number} [start] the first step's number (1-based)
 */
export function renderStepList(log, i18n, names, start = 1) {
  return `<ol class="vtt-bridge-steps" start="${escapeHtml(start)}">${log.map((step) => renderStep(step, i18n, names)).join("")}</ol>`;
}

/** Action/query kinds a card names in its header. */
export const CARD_KINDS = Object.freeze(["damage", "heal", "round", "spendWillpower", "willpower", "contest", "explain", "attackCheck", "roll", "undo", "redo", "ruling"]);

/**
 * The kind of a ruling, from its steps, when the caller does not know it.
 * @param {Step[]} log
 * @returns {string}
 */
export function inferKind(log) {
  const rules = log.map((s) => s.rule);
  const keys = new Set(log.map((s) => s.key));
  if (rules.includes("ROUND")) return "round";
  if (keys.has("DET-8.contest")) return "contest";
  if (rules.includes("IWR-8") || rules.includes("HEALTH-2")) return "damage";
  if (keys.has("DICE-1.pool")) return "roll";
  if (["HEALTH-8.source", "HEALTH-9.source", "HEALTH-10.source"].some((k) => keys.has(k))) return "heal";
  if (["WP-2.roll", "WP-2.defense", "WP-3.stayConscious", "WP-3.hunger"].some((k) => keys.has(k))) return "spendWillpower";
  if (rules.some((r) => r.startsWith("WP-"))) return "willpower";
  return "ruling";
}

/**
 * The whole card: its headline first (`headline`, in words, from headline.mjs; else the kind and
 * subject), the lines under it (`lead`, HTML), then the rule steps and dice folded under "Why" (a
 * closed `<details>`; `why` is HTML put first in it). A quiet card (`quiet`: a round that changed
 * nothing) is one line: the headline is the fold's own summary.
 * @param {CardInput & {headline?: string, lead?: string, why?: string, quiet?: boolean}} input
 * @param {I18n} i18n
 * @returns {string}
 */
export function renderCard({ log, rolls = [], kind, subject, names, summary = null, headline, lead = "", why = "", quiet = false }, i18n) {
  const cardKind = kind && CARD_KINDS.includes(kind) ? kind : inferKind(log);
  return `<div class="vtt-bridge-ruling" data-kind="${escapeHtml(cardKind)}">${renderCardInner({ log, rolls, kind: cardKind, subject, names, summary, headline, lead, why, quiet }, i18n)}</div>`;
}

/**
 * The inside of `renderCard`'s `<div class="vtt-bridge-ruling">`: what each client renders again
 * in its own user's language from the card's flags.
 * @param {CardInput & {headline?: string, lead?: string, why?: string, quiet?: boolean}} input
 * @param {I18n} i18n
 * @returns {string}
 */
export function renderCardInner({ log, rolls = [], kind, subject, names, summary = null, headline, lead = "", why = "", quiet = false }, i18n) {
  const cardKind = kind && CARD_KINDS.includes(kind) ? kind : inferKind(log);
  const heading = escapeHtml(i18n.localize(`${CARD_KEY}.Kind.${cardKind}`));
  const subjectHtml = subject ? ` <span class="vtt-bridge-subject">${escapeHtml(subject)}</span>` : "";
  const title = headline ? `<span class="vtt-bridge-headline">${escapeHtml(headline)}</span>` : `${heading}${subjectHtml}`;
  const more = (/** @type {string} */ key, /** @type {string} */ word, /** @type {number} */ count) =>
    `<li class="vtt-bridge-more">${escapeHtml(i18n.format(`${CARD_KEY}.${key}`, { count: countWord(count, word, i18n) }))}</li>`;
  const stepCount = Math.max(summary?.steps ?? 0, log.length);
  const rollCount = Math.max(summary?.rolls ?? 0, rolls.length);
  const steps =
    log.slice(0, MAX_CARD_STEPS).map((step) => renderStep(step, i18n, names)).join("") +
    (stepCount > MAX_CARD_STEPS ? more("MoreSteps", "moreStep", stepCount - MAX_CARD_STEPS) : "");
  const shownRolls = rolls.slice(0, MAX_CARD_ROLLS);
  const dice = rollCount
    ? `<div class="vtt-bridge-rolls">${shownRolls.map((r) => renderRoll(r, i18n, names)).join("")}` +
      (rollCount > MAX_CARD_ROLLS ? `<ul class="vtt-bridge-more-rolls">${more("MoreRolls", "moreRoll", rollCount - MAX_CARD_ROLLS)}</ul>` : "") +
      "</div>"
    : "";
  const body = `${why}<ol class="vtt-bridge-steps">${steps}</ol>${dice}`;
  if (quiet) return `<details class="vtt-bridge-why vtt-bridge-quiet"><summary class="vtt-bridge-ruling-head">${title}</summary>${body}</details>`;
  const fold = `<details class="vtt-bridge-why"><summary>${escapeHtml(i18n.localize("VTTBRIDGE.Headline.Why"))}</summary>${body}</details>`;
  return `<header class="vtt-bridge-ruling-head">${title}</header>${lead}${fold}`;
}

/**
 * The public line of a card whose detail (boxes, IWR, dice pools) is whispered to the users who see
 * the named ones' Health (HEALTH-6, `healthAudience`): the card's kind, and per named one its name
 * and, where `status` is given, the rulebook's Health status word.
 * @param {{kind?: string, entries: Array<{name: string, status: string|null}>}} input
 * @param {I18n} i18n
 * @returns {string}
 */
export function renderHealthLine({ kind, entries }, i18n) {
  const cardKind = kind && CARD_KINDS.includes(kind) ? kind : "ruling";
  const heading = escapeHtml(i18n.localize(`${CARD_KEY}.Kind.${cardKind}`));
  const items = entries
    .map(({ name, status }) => {
      const word = status && i18n.has(`VTTBRIDGE.HealthTrack.Status.${status}`) ? i18n.localize(`VTTBRIDGE.HealthTrack.Status.${status}`) : null;
      return `<li>${escapeHtml(name)}${word ? `: <span class="vtt-bridge-health-word">${escapeHtml(word)}</span>` : ""}</li>`;
    })
    .join("");
  return (
    `<div class="vtt-bridge-ruling vtt-bridge-health-line" data-kind="${escapeHtml(cardKind)}">` +
    `<header class="vtt-bridge-ruling-head">${heading}</header>` +
    `<ol class="vtt-bridge-steps">${items}<li class="vtt-bridge-more">${escapeHtml(i18n.localize(`${CARD_KEY}.HealthHidden`))}</li></ol></div>`
  );
}

/** Steps that are bookkeeping, not rulings: a card made of these alone is not posted. */
const BOOKKEEPING = new Set(["SYNC", "UPSERT"]);

/**
 * Whether a ruling's log deserves a card: not bookkeeping (sync, upserts) and not a plain token
 * move (a `move` ruling is one DET-5 step counting the pairs that changed; moves are constant).
 * @param {Step[]} log
 * @returns {boolean}
 */
export function shouldPostCard(log) {
  if (!Array.isArray(log) || log.length === 0) return false;
  return !log.every((s) => BOOKKEEPING.has(s.rule) || s.key === "DET-5.moved");
}

/**
 * The token ids and actor uuids a ruling names (in step data, and the explain/attack pair).
 * @param {Step[]} log
 * @param {string[]} [extra] ids known from the request (observer, target, action target)
 * @returns {string[]}
 */
export function namedIds(log, extra = []) {
  const ids = new Set(extra.filter((id) => typeof id === "string" && id));
  for (const step of log) {
    for (const key of ["actor", "token", "observer", "target", "attacker", "opponent"]) {
      const value = step.data?.[key];
      if (typeof value === "string" && value) ids.add(value);
    }
  }
  return [...ids];
}

/**
 * Who sees a card: "none" (setting off), "gm" (whispered to the GMs) or "public". Any step of the
 * detection rules (DET-*), among those sent or those the `summary` counts, or a named token or
 * actor the players may not locate, makes it "gm" whatever the setting: a card must never reveal a
 * hidden token.
 * @param {{log: Step[], mode: string, named?: string[], isSecret?: (id: string) => boolean, summary?: Summary|null}} args
 * @returns {"none"|"gm"|"public"}
 */
export function cardAudience({ log, mode, named = [], isSecret = () => false, summary = null }) {
  if (mode === "off") return "none";
  if (mode !== "public") return "gm"; // "gm", or a value this version does not know: the safe side
  if (log.some((s) => typeof s.rule === "string" && s.rule.startsWith("DET-"))) return "gm";
  if (Object.keys(summary?.keys ?? {}).some((key) => key.startsWith("DET-"))) return "gm";
  if (named.some((id) => isSecret(id))) return "gm";
  return "public";
}

/**
 * What a ruling card remembers of its ruling (the message's `flags["vtt-bridge"].ruling`): the
 * action id an undo names, its rev and kind, the scene it was made in, whether it stands undone, and
 * for a ruling whose message left steps or rolls out (`summary`) how many it made in all (`steps`,
 * `rolls`), which the card's "all steps" reads.
 * @typedef {{id: string, rev: number, kind?: string, scene?: string|null, undone?: boolean, steps?: number, rolls?: number}} RulingFlag
 */

/**
 * Whether a card's "all steps" is offered: its ruling made more steps or rolls than the card shows.
 * @param {RulingFlag|null|undefined} flag
 */
export function hasMoreSteps(flag) {
  return !!flag && typeof flag.id === "string" && ((flag.steps ?? 0) > MAX_CARD_STEPS || (flag.rolls ?? 0) > MAX_CARD_ROLLS);
}

/** The flag key of a ruling card. */
export const RULING_FLAG = "ruling";

/**
 * The ruling a card is for, when it is a ruling one may undo (not an undo or redo itself: the card
 * of the ruling it names changes instead), whichever client made it: the connection's `log` event
 * names its action id and kind (`action`, `kind`), or the request this client sent.
 * @param {{rev: number, action?: string, kind?: string, request?: {id?: string, type?: string, payload?: Record<string, any>}, summary?: unknown}} event
 * @param {string|null} scene
 * @returns {RulingFlag|null}
 */
export function rulingFlag(event, scene) {
  const request = event.request;
  const sent = request?.type === "action" && typeof request.id === "string" ? request : undefined;
  const id = typeof event.action === "string" && event.action ? event.action : sent?.id;
  if (typeof id !== "string") return null;
  const kind = typeof event.kind === "string" ? event.kind : typeof sent?.payload?.kind === "string" ? sent.payload.kind : undefined;
  if (kind === "undo" || kind === "redo") return null;
  const summary = summaryOf(event.summary);
  /** @type {RulingFlag} */
  const flag = { id, rev: event.rev, kind, scene, undone: false };
  if (summary) Object.assign(flag, { steps: summary.steps, rolls: summary.rolls });
  return flag;
}

/**
 * The ruling an UNDO step undid or redid (`UNDO.undone` / `UNDO.redone`, data `{action, kind, rev}`).
 * @param {Step[]} log
 * @returns {{action: string, undone: boolean}|null}
 */
export function undoneBy(log) {
  const step = log.find((s) => s.rule === "UNDO" && s.data && typeof s.data.action === "string");
  if (!step || !step.data) return null;
  return { action: String(step.data.action), undone: step.data.key !== "UNDO.redone" };
}

/**
 * The buttons of a ruling card: none for a player; Undo, or (undone) Redo, for the GM.
 * @param {RulingFlag|null|undefined} flag
 * @param {boolean} isGM
 * @returns {{mode: "undo"|"redo", label: string}|null} the button and its label key
 */
export function cardButton(flag, isGM) {
  if (!isGM || !flag || typeof flag.id !== "string") return null;
  return flag.undone ? { mode: "redo", label: `${CARD_KEY}.Redo` } : { mode: "undo", label: `${CARD_KEY}.Undo` };
}

/**
 * The action an Undo or Redo button sends.
 * @param {"undo"|"redo"} mode
 * @param {RulingFlag} flag
 */
export function undoAction(mode, flag) {
  return { kind: mode, action: flag.id };
}

/**
 * The last ruling of a scene that stands (not undone): what the shortcut undoes; null when none.
 * @param {Array<RulingFlag|null|undefined>} flags the ruling cards' flags, in any order
 * @param {string|null} scene
 * @returns {RulingFlag|null}
 */
export function lastStandingRuling(flags, scene) {
  /** @type {RulingFlag|null} */
  let last = null;
  for (const flag of flags) {
    if (!flag || flag.undone || typeof flag.id !== "string" || flag.scene !== scene) continue;
    if (!last || flag.rev > last.rev) last = flag;
  }
  return last;
}
