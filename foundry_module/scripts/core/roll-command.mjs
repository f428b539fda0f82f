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

const AGAIN_WORD = /^(10|9|8|no)again$/;
const MODIFIER_WORD = /^([+-])(\d{1,4})([a-z][a-z0-9-]{0,63})?(!)?$/;
const EXTRA_WORD = /^extra(\d{1,3})$/;
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
 * The chat command, or null when the message is not one (`/vroll` must be its first word).
 * @param {string} message
 * @returns {RollRequest|null}
 */
export function parseRollCommand(message) {
  const words = String(message ?? "").trim().split(/\s+/);
  if (words[0]?.toLowerCase() !== ROLL_COMMAND) return null;
  if (words.length < 2 || !words[1]) throw new RollInputError("NoPool");
  /** @type {RollRequest} */
  const request = { pool: parsePool(words[1]), again: 10, willpower: false, modifiers: [], extraSuccesses: 0 };
  const seen = new Set();
  for (const raw of words.slice(2)) {
    const word = raw.toLowerCase();
    const again = AGAIN_WORD.exec(word);
    const extra = EXTRA_WORD.exec(word);
    const modifier = again || extra || word === "wp" ? null : parseModifier(word);
    const kind = again ? "again" : extra ? "extra" : word === "wp" ? "wp" : modifier ? null : "unknown";
    if (kind === "unknown") throw new RollInputError("Word", { word: raw });
    if (kind && seen.has(kind)) throw new RollInputError("Repeated", { word: raw });
    if (kind) seen.add(kind);
    if (again) request.again = again[1] === "no" ? null : Number(again[1]);
    else if (extra) request.extraSuccesses = checkedExtra(Number(extra[1]));
    else if (word === "wp") request.willpower = true;
    else if (modifier) request.modifiers.push(modifier);
  }
  return request;
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
 * The `roll` action of a request: the actor's uuid, an opponent (a targeted token's actor, for
 * RANK-11) when there is one, and only the fields that differ from the sidecar's defaults.
 * Traits the actor does not have are refused here already (the sidecar refuses them too).
 * @param {string} actor actor uuid
 * @param {RollRequest} request
 * @param {{options?: TraitOption[], opponent?: string|null}} [context]
 * @returns {Record<string, unknown>}
 */
export function rollAction(actor, request, { options, opponent = null } = {}) {
  if (options && Array.isArray(request.pool)) {
    for (const trait of request.pool) if (!options.some((o) => o.trait === trait)) throw new RollInputError("Unknown", { trait });
  }
  /** @type {Record<string, unknown>} */
  const action = { kind: "roll", actor, pool: request.pool };
  if (request.again !== 10) action.again = request.again;
  if (request.willpower) action.willpower = true;
  if (request.modifiers.length) action.modifiers = request.modifiers;
  if (request.extraSuccesses) action.extraSuccesses = checkedExtra(request.extraSuccesses);
  if (opponent && opponent !== actor) action.opponent = opponent;
  return action;
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
    modifiers: parseModifiers(String(form.modifiers ?? "")),
    extraSuccesses: checkedExtra(Number(String(form.extra ?? "0") || "0")),
  };
}
