/**
 * PURE: the `roll` action (DICE-1..7, WP-2, RANK-11) as a player asks for it, from the chat command
 * `/vroll DEX+stealth 9again wp +2equipment +1aid! extra1` or from the roll dialog's form. Nothing
 * here touches Foundry; `roll-dialog.mjs` wires it in.
 *
 * Command words, in any order after the pool:
 * - the pool: traits joined by `+` (`DEX+stealth`; Attributes in any case, Skills as the sheet
 *   names them) or a number of dice (`5`);
 * - `10again`, `9again`, `8again`, `noagain` (DICE-2; 10-again when absent);
 * - `wp`: spend 1 Willpower for +3 dice (WP-2, DICE-7);
 * - a modifier `+2equipment`, `-1circumstance`, `+1aid!` (`!`: a perfect bonus, DICE-4); without a
 *   type it is a `circumstance` modifier;
 * - `extra2`: 2 extra successes (DICE-3).
 * A bad word throws a `RollInputError` whose `code` names the localized message
 * (`VTTBRIDGE.Roll.Error.<code>`) and whose `data` fills it.
 * @module roll-command
 */

/** The nine Attributes of the state document (`attributes` keys). */
export const ATTRIBUTES = Object.freeze(["STR", "DEX", "STA", "INT", "PER", "RES", "PRE", "MAN", "COM"]);

/** The command that asks for a roll in the chat. */
export const ROLL_COMMAND = "/vroll";

/** DICE-2: the choices of `again` (null: no rerolls). */
export const AGAIN_CHOICES = Object.freeze([10, 9, 8, null]);

/** The sidecar's bounds (actions/roll.py): dice in a pool given as a number, traits in a pool. */
export const MAX_POOL = 1000;
export const MAX_TRAITS = 10;
export const MAX_EXTRA_SUCCESSES = 100;

/** The type of a modifier written without one. */
export const DEFAULT_MODIFIER_TYPE = "circumstance";

/** A refused command word or form field; `code` picks the localized message. */
export class RollInputError extends Error {
  /** @param {string} code @param {Record<string, string>} [data] */
  constructor(code, data = {}) {
    super(`${code}: ${JSON.stringify(data)}`);
    this.name = "RollInputError";
    this.code = code;
    this.data = data;
  }
}

/**
 * @typedef {object} Modifier a DICE-4 modifier
 * @property {string} type
 * @property {number} value
 * @property {boolean} [perfect]
 */

/**
 * @typedef {object} RollRequest what a player asks for (the `roll` action less its actor)
 * @property {string[]|number} pool
 * @property {number|null} again
 * @property {boolean} willpower
 * @property {Modifier[]} modifiers
 * @property {number} extraSuccesses
 */

const MODIFIER_WORD = /^([+-])(\d{1,4})([a-z][a-z0-9-]{0,63})?(!)?$/;
const TRAIT = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * A trait as the state document names it: an Attribute in upper case (`dex` → `DEX`), any other
 * name as written (a Skill key).
 * @param {string} name
 */
export function traitName(name) {
  const upper = name.toUpperCase();
  return ATTRIBUTES.includes(upper) ? upper : name;
}

/**
 * The pool word: traits joined by `+`, or a number of dice.
 * @param {string} word
 * @returns {string[]|number}
 */
export function parsePool(word) {
  if (/^\d+$/.test(word)) {
    const dice = Number(word);
    if (dice > MAX_POOL) throw new RollInputError("PoolSize", { pool: word, max: String(MAX_POOL) });
    return dice;
  }
  const parts = word.split("+");
  if (parts.length > MAX_TRAITS || parts.some((part) => !TRAIT.test(part))) throw new RollInputError("Pool", { pool: word });
  const traits = parts.map(traitName);
  const twice = traits.find((trait, index) => traits.indexOf(trait) !== index);
  if (twice) throw new RollInputError("Twice", { trait: twice });
  return traits;
}

/**
 * A modifier word: `+2equipment`, `-1`, `+1aid!`.
 * @param {string} word
 * @returns {Modifier|null} null: not a modifier word
 */
export function parseModifier(word) {
  const match = MODIFIER_WORD.exec(word);
  if (!match) return null;
  const value = Number(match[2]) * (match[1] === "-" ? -1 : 1);
  if (Math.abs(value) > MAX_POOL) throw new RollInputError("Modifier", { word });
  /** @type {Modifier} */
  const modifier = { type: match[3] ?? DEFAULT_MODIFIER_TYPE, value };
  if (match[4]) modifier.perfect = true;
  return modifier;
}

/**
 * Modifiers written in one field, separated by spaces or commas (the dialog's modifiers field).
 * @param {string} text
 * @returns {Modifier[]}
 */
export function parseModifiers(text) {
  return String(text ?? "")
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((word) => {
      const modifier = parseModifier(word.toLowerCase());
      if (!modifier) throw new RollInputError("Modifier", { word });
      return modifier;
    });
}

/**
 * @typedef {object} Vocabulary a language's words of the command (English's are always taken too)
 * @property {Map<string, string>} [traits] a trait's name in that language, lower case and its
 *   spaces collapsed (`stärke`, `umgang mit tieren`, `力量`) → the state document's name (`STR`)
 * @property {{again?: string, none?: string, willpower?: string, extra?: string}} [words] the
 *   words for `again` (`9wieder`), `noagain`, `wp` and `extra` (`extra2`)
 */

/** English's words of the command. */
export const ENGLISH_WORDS = Object.freeze({ again: "again", none: "noagain", willpower: "wp", extra: "extra" });

/** @param {string} text */
const lowered = (text) => text.normalize("NFC").toLowerCase().replace(/\s+/g, " ").trim();

/** @param {string} text */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The non-pool word a command word is in English or the vocabulary's language, or null.
 * @param {string} word lower case
 * @param {Vocabulary["words"]} words
 * @returns {{kind: "again", again: number|null}|{kind: "extra", extra: number}|{kind: "wp"}|null}
 */
function commandWord(word, words = {}) {
  for (const set of [ENGLISH_WORDS, words]) {
    if (set.none && word === lowered(set.none)) return { kind: "again", again: null };
    if (set.willpower && word === lowered(set.willpower)) return { kind: "wp" };
    const again = set.again ? new RegExp(`^(10|9|8)-?${escapeRegExp(lowered(set.again))}$`).exec(word) : null;
    if (again) return { kind: "again", again: Number(again[1]) };
    const extra = set.extra ? new RegExp(`^${escapeRegExp(lowered(set.extra))}(\\d{1,3})$`).exec(word) : null;
    if (extra) return { kind: "extra", extra: Number(extra[1]) };
  }
  return null;
}

/**
 * The pool words (everything between `/vroll` and the first other word) as the state document's
 * names: each part between `+` signs a number, a trait's name in the vocabulary's language (spaces
 * inside allowed: "Umgang mit Tieren") or a trait as the state names it.
 * @param {string[]} words
 * @param {Vocabulary} vocabulary
 * @returns {string[]|number}
 */
function poolOfWords(words, vocabulary) {
  const text = words.join(" ");
  if (/^\d+$/.test(text)) return parsePool(text);
  const parts = text.split("+").map(lowered);
  if (parts.length > MAX_TRAITS || parts.some((part) => !part)) throw new RollInputError("Pool", { pool: text });
  const names = parts.map((part) => {
    const known = vocabulary.traits?.get(part);
    if (known) return known;
    if (!TRAIT.test(part)) throw new RollInputError("Pool", { pool: text });
    return part;
  });
  // a trait written as the state names it keeps its case (a Skill key), an Attribute upper case
  const original = text.split("+").map((part) => part.trim());
  const traits = names.map((name, i) => (vocabulary.traits?.has(parts[i]) ? name : traitName(original[i])));
  const twice = traits.find((trait, index) => traits.indexOf(trait) !== index);
  if (twice) throw new RollInputError("Twice", { trait: twice });
  return traits;
}

/**
 * The chat command, or null when the message is not one (`/vroll` must be its first word). The
 * pool may be written with spaces around its `+` and in the reader's language ("Stärke +
 * Handgemenge"); the other words in English or in the vocabulary's language.
 * @param {string} message
 * @param {Vocabulary} [vocabulary]
 * @returns {RollRequest|null}
 */
export function parseRollCommand(message, vocabulary = {}) {
  const words = String(message ?? "").trim().split(/\s+/);
  if (words[0]?.toLowerCase() !== ROLL_COMMAND) return null;
  if (words.length < 2 || !words[1]) throw new RollInputError("NoPool");
  // the pool's words: after `/vroll`, each word joined by a `+` ("Stärke + Handgemenge"), or
  // continuing a name of several words the vocabulary knows ("Umgang mit Tieren")
  const names = [...(vocabulary.traits?.keys() ?? [])];
  let end = 2;
  while (end < words.length) {
    const before = words.slice(1, end).join(" ");
    const word = words[end];
    const last = lowered(before.split("+").at(-1) ?? "");
    const joined = before.endsWith("+") || (word.startsWith("+") && !/^\+\d/.test(word));
    const longer = last !== "" && names.some((name) => name.startsWith(`${last} ${lowered(word)}`));
    if (!joined && !longer) break;
    end += 1;
  }
  /** @type {RollRequest} */
  const request = { pool: poolOfWords(words.slice(1, end), vocabulary), again: 10, willpower: false, modifiers: [], extraSuccesses: 0 };
  const seen = new Set();
  for (const raw of words.slice(end)) {
    const word = lowered(raw);
    const said = commandWord(word, vocabulary.words);
    const modifier = said ? null : parseModifier(word);
    if (!said && !modifier) throw new RollInputError("Word", { word: raw });
    if (said && seen.has(said.kind)) throw new RollInputError("Repeated", { word: raw });
    if (said) seen.add(said.kind);
    if (said?.kind === "again") request.again = said.again;
    else if (said?.kind === "extra") request.extraSuccesses = checkedExtra(said.extra);
    else if (said?.kind === "wp") request.willpower = true;
    else if (modifier) request.modifiers.push(modifier);
  }
  return request;
}

/**
 * The vocabulary of a language: each trait's localized name (`label(option)`) → its name.
 * @param {TraitOption[]} options the traits the actor has
 * @param {(option: TraitOption) => string} label its name in the language
 * @param {Vocabulary["words"]} [words]
 * @returns {Vocabulary}
 */
export function vocabularyOf(options, label, words = {}) {
  /** @type {Map<string, string>} */
  const traits = new Map();
  for (const option of options) {
    traits.set(lowered(option.trait), option.trait);
    const name = lowered(label(option));
    if (name && !traits.has(name)) traits.set(name, option.trait);
  }
  return { traits, words };
}

/** @param {number} extra */
function checkedExtra(extra) {
  if (!Number.isInteger(extra) || extra < 0 || extra > MAX_EXTRA_SUCCESSES) {
    throw new RollInputError("Extra", { extra: String(extra), max: String(MAX_EXTRA_SUCCESSES) });
  }
  return extra;
}

/**
 * @typedef {object} TraitOption one choice of the roll dialog
 * @property {string} trait the state document's name (`DEX`, `stealth`)
 * @property {number} value its dots
 * @property {"attribute"|"skill"} group
 */

/**
 * The traits an actor can roll (its state document's `attributes` and `skills`): the Attributes in
 * their fixed order, then the Skills by name. An Attribute the actor does not list has the
 * sidecar's default, 1, when it lists none at all (and 0 beside others).
 * @param {{attributes?: Record<string, number>, skills?: Record<string, number>}} actor
 * @returns {TraitOption[]}
 */
export function traitOptions(actor) {
  const attributes = actor?.attributes && typeof actor.attributes === "object" ? actor.attributes : null;
  const skills = actor?.skills && typeof actor.skills === "object" ? actor.skills : {};
  /** @type {TraitOption[]} */
  const out = ATTRIBUTES.map((trait) => ({ trait, value: attributes ? Number(attributes[trait] ?? 0) : 1, group: /** @type {const} */ ("attribute") }));
  for (const trait of Object.keys(skills).sort()) out.push({ trait, value: Number(skills[trait] ?? 0), group: "skill" });
  return out;
}

/**
 * The pool a dialog's choices make: the chosen traits (empty choices skipped) or, when none is
 * chosen, the number of dice; checked against the actor's traits.
 * @param {TraitOption[]} options the actor's traits
 * @param {string[]} chosen trait names from the dialog's selects ("" for none)
 * @param {number|string} [dice] the number of dice when no trait is chosen
 * @returns {{pool: string[]|number, base: number}}
 */
export function poolFromChoices(options, chosen, dice = 0) {
  const traits = chosen.filter(Boolean);
  if (!traits.length) {
    const count = Number(dice);
    if (!Number.isInteger(count) || count < 0 || count > MAX_POOL) throw new RollInputError("PoolSize", { pool: String(dice), max: String(MAX_POOL) });
    return { pool: count, base: count };
  }
  let base = 0;
  for (const trait of traits) {
    const option = options.find((o) => o.trait === trait);
    if (!option) throw new RollInputError("Unknown", { trait });
    base += option.value;
  }
  const twice = traits.find((trait, index) => traits.indexOf(trait) !== index);
  if (twice) throw new RollInputError("Twice", { trait: twice });
  return { pool: traits, base };
}

/**
 * The `roll` action of a request: the actor's uuid, an opponent (a targeted or chosen token's
 * actor, for RANK-11) when there is one, its roll when opposed (DICE-5: the sidecar rolls both),
 * and only the fields that differ from the sidecar's defaults. Traits the actor does not have are
 * refused here already (the sidecar refuses them too).
 * @param {string} actor actor uuid
 * @param {RollRequest} request
 * @param {{options?: TraitOption[], opponent?: string|null, opposed?: {pool: string[]|number}|null}} [context]
 * @returns {Record<string, unknown>}
 */
export function rollAction(actor, request, { options, opponent = null, opposed = null } = {}) {
  if (options && Array.isArray(request.pool)) {
    for (const trait of request.pool) if (!options.some((o) => o.trait === trait)) throw new RollInputError("Unknown", { trait });
  }
  /** @type {Record<string, unknown>} */
  const action = { kind: "roll", actor, pool: request.pool };
  if (request.again !== 10) action.again = request.again;
  if (request.willpower) action.willpower = true;
  if (request.modifiers.length) action.modifiers = request.modifiers;
  if (request.extraSuccesses) action.extraSuccesses = checkedExtra(request.extraSuccesses);
  if (opponent && opponent !== actor) {
    action.opponent = opponent;
    if (opposed) action.opposed = { pool: opposed.pool };
  }
  return action;
}

/**
 * DICE-4: the dice the modifiers add: per type the highest bonus and the worst penalty, every
 * perfect bonus (as the sidecar counts them; DICE-7's Willpower is a perfect +3 of its own).
 * @param {Modifier[]} modifiers
 * @returns {number}
 */
export function stackedModifiers(modifiers) {
  /** @type {Map<string, number>} */
  const best = new Map();
  /** @type {Map<string, number>} */
  const worst = new Map();
  let perfect = 0;
  for (const { type, value, perfect: isPerfect } of modifiers) {
    if (isPerfect || type === "perfect") {
      perfect += value;
      continue;
    }
    const into = value >= 0 ? best : worst;
    const held = into.get(type);
    if (held === undefined || Math.abs(value) > Math.abs(held)) into.set(type, value);
  }
  return perfect + [...best.values(), ...worst.values()].reduce((a, b) => a + b, 0);
}

/** DICE-7 / WP-2: Willpower's dice. */
export const WILLPOWER_DICE = 3;

/**
 * The pool the dialog's fields make, as the roller builds it: the traits' or dice's base, the
 * modifiers (DICE-4), Willpower's +3 (DICE-7) and the total; `error` the code of a field not valid.
 * @param {TraitOption[]} options
 * @param {Record<string, FormDataEntryValue>} form
 * @returns {{base: number, modifiers: number, willpower: number, total: number}|{error: string, data: Record<string, string>}}
 */
export function poolTotal(options, form) {
  try {
    const request = requestFromDialog(options, form);
    const { base } = poolFromChoices(options, [String(form.attribute ?? ""), String(form.skill ?? "")], String(form.dice ?? "0") || "0");
    const modifiers = stackedModifiers(request.modifiers);
    const willpower = request.willpower ? WILLPOWER_DICE : 0;
    return { base, modifiers, willpower, total: Math.max(0, base + modifiers + willpower) };
  } catch (error) {
    return error instanceof RollInputError ? { error: error.code, data: error.data } : { error: "Pool", data: { pool: "" } };
  }
}

/**
 * The opposed roll (DICE-5) a dialog's fields ask for: the opponent's pool from its own traits
 * (an Attribute and a Skill, or a number of dice), or null when no opponent pool is chosen.
 * @param {TraitOption[]} options the opponent's traits
 * @param {Record<string, FormDataEntryValue>} form `opposedAttribute`, `opposedSkill`, `opposedDice`
 * @returns {{pool: string[]|number}|null}
 */
export function opposedFromDialog(options, form) {
  const chosen = [String(form.opposedAttribute ?? ""), String(form.opposedSkill ?? "")];
  const dice = String(form.opposedDice ?? "").trim();
  if (!chosen.some(Boolean) && (dice === "" || dice === "0")) return null;
  return { pool: poolFromChoices(options, chosen, dice || "0").pool };
}

/**
 * The dialog's number field of dice added or taken (a circumstance modifier), none for 0 or empty.
 * @param {unknown} value
 * @returns {Modifier[]}
 */
function dialogModifier(value) {
  const text = String(value ?? "").trim();
  if (text === "" || text === "0") return [];
  const n = Number(text);
  if (!Number.isInteger(n) || Math.abs(n) > MAX_POOL) throw new RollInputError("Modifier", { word: text });
  return [{ type: DEFAULT_MODIFIER_TYPE, value: n }];
}

/**
 * The request a submitted roll dialog makes (its form's fields as `FormData` entries).
 * @param {TraitOption[]} options the actor's traits
 * @param {Record<string, FormDataEntryValue>} form `attribute`, `skill`, `dice`, `again`, `willpower`, `modifiers`, `extra`
 * @returns {RollRequest}
 */
export function requestFromDialog(options, form) {
  const { pool } = poolFromChoices(options, [String(form.attribute ?? ""), String(form.skill ?? "")], String(form.dice ?? "0") || "0");
  const again = form.again === "none" ? null : Number(form.again ?? 10);
  if (!AGAIN_CHOICES.includes(again)) throw new RollInputError("Again", { again: String(form.again) });
  return {
    pool,
    again,
    willpower: form.willpower === "on" || form.willpower === "true",
    modifiers: [...dialogModifier(form.modifier), ...parseModifiers(String(form.modifiers ?? ""))],
    extraSuccesses: checkedExtra(Number(String(form.extra ?? "0") || "0")),
  };
}
