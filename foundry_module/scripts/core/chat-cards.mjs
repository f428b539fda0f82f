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
import { STEP_FIELDS } from "./step-fields.mjs";

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

/** Parameters a sentence may use besides the declared fields, each made from the fields it lists. */
export const DERIVED_PARAMS = Object.freeze({
  boxes: ["healthy", "bashing", "lethal", "aggravated"],
  immunitySource: ["immunity"],
  replacedSource: ["replaced"],
});

/** @typedef {(group: string, value: unknown) => string} Word a table value in the reader's language */

/** @param {unknown} n */
const signed = (n) => (typeof n === "number" && n >= 0 ? `+${n}` : String(n));

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

/** The localization block of the keyed step sentences: `VTTBRIDGE.Step.<step key>`. */
export const STEP_KEY = "VTTBRIDGE.Step";

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

/**
 * How a field of a declared step key is worded (the sidecar's catalogue, `x-wording` of its schema,
 * copied into step-fields.mjs): the wording and, for a count, the word it counts. A field the
 * catalogue does not declare (an older or newer sidecar's) is shown as written.
 * @param {string|null|undefined} key
 * @param {string} field
 * @returns {[string, string]}
 */
export function fieldWording(key, field) {
  const fields = /** @type {Record<string, Record<string, string>>} */ (STEP_FIELDS)[key ?? ""];
  const [wording, counted = ""] = (fields?.[field] ?? "plain").split(":");
  return [wording, counted];
}

/**
 * What a worder is given: the field's value, the step's data (a few wordings read a sibling field),
 * the word it counts, and the reader's language.
 * @typedef {{value: any, data: Record<string, any>, counted: string, i18n: I18n, names?: (id: string) => string|undefined, card: Word, word: (key: string, value: unknown) => string}} WordCtx
 */

/**
 * A pool class (EP-1), as worded on the card.
 * @param {WordCtx} c @param {unknown} value
 */
const poolClass = (c, value) => c.card("PoolClass", value);

/** @param {Record<string, any>} data */
const holdsImmunity = (data) => isImmunity(data.immunity);

/**
 * The worders of the catalogue's wordings (`Wording` in the sidecar's steps.py), each from a value of
 * the declared type; a value of another type is shown as written.
 * @type {Readonly<Record<string, (c: WordCtx) => string>>}
 */
const WORDERS = Object.freeze({
  subject: (c) => (typeof c.value === "string" ? (c.names?.(c.value) ?? c.value) : c.value === null ? c.i18n.localize(`${STEP_KEY}.Every`) : plainValue(c.value)),
  count: (c) => (typeof c.value === "number" ? countWord(c.value, c.counted, c.i18n) : plainValue(c.value)),
  "signed-count": (c) => (typeof c.value === "number" ? countWord(c.value, c.counted, c.i18n, signed(c.value)) : plainValue(c.value)),
  signed: (c) => (typeof c.value === "number" ? (c.value > 0 ? `+${c.value}` : String(c.value)) : plainValue(c.value)),
  negated: (c) => (typeof c.value === "number" ? (c.value ? String(-c.value) : "0") : plainValue(c.value)),
  percent: (c) => (typeof c.value === "number" ? `${Math.round(c.value * 100)}%` : plainValue(c.value)),
  // a damage instance's place in its action, counted from 1 as people count (the sidecar's from 0)
  ordinal: (c) => (typeof c.value === "number" ? String(c.value + 1) : plainValue(c.value)),
  locate: (c) => (typeof c.value === "string" ? c.card("Locate", c.value) : plainValue(c.value)),
  grade: (c) => c.word(`${STEP_KEY}.Grade.${c.value}`, c.value),
  track: (c) => c.word(`${STEP_KEY}.Track.${c.value}`, c.value),
  wins: (c) => c.word(`${STEP_KEY}.Wins.${c.value}`, c.value),
  // a Rank (RANK-1) named in the reader's language ("B-Rank", "unranked"), so no sentence puts its
  // own word for Rank before it ("Rank unranked")
  rank: (c) => (typeof c.value === "string" ? c.card("Rank", c.value) : plainValue(c.value)),
  "rank-name": (c) => (typeof c.value === "string" && holdsImmunity(c.data) ? c.card("Rank", c.value) : plainValue(c.value)),
  "rank-number": (c) => (typeof c.value === "number" ? rankLetter(c.value, c.i18n) : plainValue(c.value)),
  "damage-type": (c) => (typeof c.value === "string" ? c.card("DamageType", c.value) : plainValue(c.value)),
  // an IWR entry (IWR-1..4): a damage type, else a group or category the rules know, else as written
  "iwr-name": (c) => (typeof c.value === "string" ? c.word(`${CARD_KEY}.DamageType.${c.value}`, c.card("IwrName", c.value)) : plainValue(c.value)),
  // a means of detection: the ordinary senses (DET-5) in the reader's language, a named one as written
  sense: (c) => (typeof c.value === "string" ? c.card("Sense", c.value) : plainValue(c.value)),
  "sense-lead": (c) => (typeof c.value === "string" ? `${c.card("Sense", c.value)}, ` : ""),
  "health-status": (c) => c.card("Status", c.value),
  condition: (c) => (typeof c.value === "string" ? c.card("Condition", c.value) : plainValue(c.value)),
  conditions: (c) => (Array.isArray(c.value) && c.value.length ? `; ${c.value.map((v) => c.card("Condition", v)).join(", ")}` : ""),
  // a condition or emotion point kind (RANK-9), worded as on the counters drawn on tokens
  "point-kind": (c) => (typeof c.value === "string" ? c.card("Point", c.value) : plainValue(c.value)),
  "ruling-kind": (c) => (typeof c.value === "string" ? c.card("Kind", c.value) : plainValue(c.value)),
  side: (c) => c.card("Side", c.value),
  reason: (c) => c.card("Reason", c.value),
  spell: (c) => c.card("Spell", c.value),
  user: (c) => (typeof c.value === "string" && c.value ? c.value : c.i18n.localize(`${STEP_KEY}.TheGM`)),
  until: (c) => untilWords(c.value, c.i18n),
  json: (c) => (c.value === null || c.value === undefined ? c.i18n.localize(`${STEP_KEY}.Nothing`) : JSON.stringify(c.value)),
  "heal-source": (c) => (typeof c.value === "string" ? c.word(`VTTBRIDGE.HealSource.${c.value}`, c.value) : plainValue(c.value)),
  "paid-from": (c) => (typeof c.value === "string" ? c.card("Pool", c.value) : plainValue(c.value)),
  save: (c) => (typeof c.value === "string" && holdsImmunity(c.data) ? c.card("Save", c.value) : plainValue(c.value)),
  immunity: (c) => (isImmunity(c.value) ? immunityLabel(c.value, c.i18n, c.card) : plainValue(c.value)),
  // the thing an immunity blocks (RANK-5/9): points of a kind, a condition, the effect, damage
  "immunity-what": (c) => {
    if (typeof c.value !== "string" || !holdsImmunity(c.data)) return plainValue(c.value);
    const key = `${CARD_KEY}.What.${c.value}`;
    const parts = { kind: c.card("Point", c.data.kind), condition: c.card("Condition", c.data.condition), amount: String(c.data.amount ?? ""), type: c.card("DamageType", c.data.type) };
    return c.i18n.has(key) ? c.i18n.format(key, parts) : c.value;
  },
  // key Attributes by their name in the reader's language (EP-1)
  attributes: (c) => {
    if (!c.value || typeof c.value !== "object") return plainValue(c.value);
    return Object.entries(c.value)
      .map(([attribute, n]) => `${c.word(`VTTBRIDGE.Attribute.${attribute}`, attribute)} ${n}`)
      .join(" + ");
  },
  "pool-kind": (c) => (c.data.keyAttributes && typeof c.data.keyAttributes === "object" ? c.card("PoolKind", c.data.region ?? c.data.category) : plainValue(c.value)),
  "pool-class": (c) => (typeof c.value === "string" ? poolClass(c, c.value) : plainValue(c.value)),
  "pool-classes": (c) => (Array.isArray(c.value) ? c.value.map((v) => poolClass(c, v)).join(", ") : plainValue(c.value)),
  // a compatibility mode with the pool class it is about (EP-2/9)
  mode: (c) => {
    if (typeof c.value !== "string") return plainValue(c.value);
    const poolWord = typeof c.data.class === "string" ? poolClass(c, c.data.class) : "";
    const key = `${CARD_KEY}.Mode.${c.value}`;
    return c.i18n.has(key) ? c.i18n.format(key, { class: poolWord }) : `${c.value} ${poolWord}`;
  },
  // the roll's pool (DICE-1): Attributes by their name in the reader's language, Skills as the sheet names them
  "roll-traits": (c) => {
    if (!Array.isArray(c.value) || !has(c.data, "base")) return plainValue(c.value);
    const name = (/** @type {string} */ trait) => {
      if (trait === "dice") return c.i18n.localize(`${CARD_KEY}.Dice`);
      return c.word(/^[A-Z]{3}$/.test(trait) ? `VTTBRIDGE.Attribute.${trait}` : `VTTBRIDGE.Skill.${trait}`, trait);
    };
    return c.value.map((/** @type {Record<string, any>} */ t) => `${name(String(t.trait))} ${t.value}`).join(" + ");
  },
  // the modifiers (DICE-4), each marked perfect or not counted (same-type bonuses do not stack)
  modifiers: (c) => {
    if (!Array.isArray(c.value) || !has(c.data, "total")) return plainValue(c.value);
    return c.value
      .map((/** @type {Record<string, any>} */ m) => {
        const text = `${m.type} ${signed(m.value)}`;
        if (!m.counted) return c.i18n.format(`${CARD_KEY}.NotStacked`, { modifier: text });
        return m.perfect ? c.i18n.format(`${CARD_KEY}.Perfect`, { modifier: text }) : text;
      })
      .join(", ");
  },
  // the target's anti-detection (DET-1) by name, Essence and Rank, from the step's `antiDetection`
  "anti-detection": (c) => {
    if (!Array.isArray(c.data.antiDetection)) return plainValue(c.value);
    return c.data.antiDetection
      .map((/** @type {Record<string, any>} */ a) => c.i18n.format(`${CARD_KEY}.Means`, { name: String(a.name), essence: c.card("Essence", a.essence), rank: c.card("Rank", a.rank) }))
      .join(", ");
  },
});

/**
 * One value worded as the catalogue says a field of a key is (`fieldWording`), not escaped: for a
 * reader of a step's data outside its sentence (the headline's Health status, conditions, locate states).
 * @param {string} key a declared step key
 * @param {string} field
 * @param {unknown} value
 * @param {I18n} i18n
 * @param {{data?: Record<string, any>, names?: (id: string) => string|undefined}} [context] the step's other fields; names for subjects
 * @returns {string}
 */
export function wordField(key, field, value, i18n, { data = {}, names } = {}) {
  const word = (/** @type {string} */ k, /** @type {unknown} */ v) => (i18n.has(k) ? i18n.localize(k) : String(v));
  const card = (/** @type {string} */ group, /** @type {unknown} */ v) => word(`${CARD_KEY}.${group}.${v}`, v);
  const [wording, counted] = fieldWording(key, field);
  const worder = /** @type {Record<string, (c: WordCtx) => string>} */ (WORDERS)[wording];
  return worder ? worder({ value, data, counted, i18n, names, card, word }) : plainValue(value);
}

/**
 * The parameters `DERIVED_PARAMS` names, made from a step's data.
 * @param {Record<string, any>} data
 * @param {I18n} i18n
 * @returns {Record<string, string>}
 */
function derivedParams(data, i18n) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const key of ["immunity", "replaced"]) if (isImmunity(data[key])) out[`${key}Source`] = data[key].source ?? "?";
  if (typeof data.healthy === "number") {
    const { healthy, bashing = 0, lethal = 0, aggravated = 0 } = data;
    out.boxes = i18n.format(`${CARD_KEY}.Boxes`, { healthy: String(healthy), bashing: String(bashing), lethal: String(lethal), aggravated: String(aggravated) });
  }
  return out;
}

/**
 * The parameters of a keyed step: every data field worded as the sidecar's catalogue says
 * (`fieldWording`: subjects by name, counts with their plural form, locate states, grades and
 * tracks in the reader's language ...), and the derived ones (`DERIVED_PARAMS`), escaped.
 * @param {Step} step
 * @param {I18n} i18n
 * @param {(id: string) => string|undefined} [names]
 * @returns {Record<string, string>}
 */
export function keyedParams(step, i18n, names) {
  const data = step.data ?? {};
  const out = derivedParams(data, i18n);
  for (const [field, value] of Object.entries(data)) out[field] = wordField(step.key ?? "", field, value, i18n, { data, names });
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
