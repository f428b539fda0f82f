/**
 * PURE: the Chronicles of Darkness 2e system (id `mta`, and forks under other ids) as the sidecar's
 * actor fields, and back. Picked by the shape of the data: Health thresholds
 * `system.health.{max, value, lethal, aggravated}` beside CofD Attributes (`attributes_physical`)
 * or an ephemeral being's (`eph_physical`).
 *
 * The system's Health fields are thresholds, not counts: `value` boxes have no damage, `lethal`
 * boxes no lethal or aggravated damage, `aggravated` boxes no aggravated damage; so
 * A = max − aggravated, L = aggravated − lethal, B = lethal − value, and a valid track has
 * 0 ≤ value ≤ lethal ≤ aggravated ≤ max.
 *
 * Attributes: PER is not a CofD Attribute; it is read from Wits, the Mental Attribute in PER's
 * place (INT PER RES ↔ Intelligence Wits Resolve), rated 1–5 like every Attribute. The derived
 * Perception (Wits + Composure) is a dice pool already: DET-8 adds Investigation to PER, so a pool
 * there would count Composure into an Attribute. An ephemeral being's three Attributes stand for
 * the nine (CofD 2e): Power for STR INT PRE, Finesse for DEX PER MAN, Resistance for STA RES COM.
 * @module systems/mta
 */

import { getPath, MAX_RATING, readNumber, traitPaths, wholeNumber } from "./data.mjs";

/** @typedef {import("./_types.mjs").ActorData} ActorData */
/** @typedef {import("./_types.mjs").SystemProblem} SystemProblem */

export const id = "mta";

/** Our Attribute → the CofD Attribute it is read from. */
export const ATTRIBUTE_PATHS = Object.freeze({
  STR: "attributes_physical.strength",
  DEX: "attributes_physical.dexterity",
  STA: "attributes_physical.stamina",
  INT: "attributes_mental.intelligence",
  PER: "attributes_mental.wits",
  RES: "attributes_mental.resolve",
  PRE: "attributes_social.presence",
  MAN: "attributes_social.manipulation",
  COM: "attributes_social.composure",
});

/** Our Attribute → the ephemeral being's Attribute that stands for it. */
export const EPHEMERAL_ATTRIBUTE_PATHS = Object.freeze({
  STR: "eph_physical.power",
  INT: "eph_physical.power",
  PRE: "eph_physical.power",
  DEX: "eph_social.finesse",
  PER: "eph_social.finesse",
  MAN: "eph_social.finesse",
  STA: "eph_mental.resistance",
  RES: "eph_mental.resistance",
  COM: "eph_mental.resistance",
});

/** The Skills the rules use (DET-8) → the CofD Skill. */
export const SKILL_PATHS = Object.freeze({
  investigation: "skills_mental.investigation",
  stealth: "skills_physical.stealth",
});

/** The system's three groups of Skills: each Skill in them is read under its own key (a roll's trait). */
export const SKILL_GROUPS = Object.freeze(["skills_mental", "skills_physical", "skills_social"]);

/**
 * Every Skill of a character, its key → its path (the rules' two first, then each group's own in
 * the system's order): a roll may name any of them (DICE-1), Brawl as surely as Stealth.
 * @param {ActorData} actorData
 * @returns {[string, string][]}
 */
export function skillPaths(actorData) {
  /** @type {Map<string, string>} */
  const out = new Map(Object.entries(SKILL_PATHS));
  for (const group of SKILL_GROUPS) {
    const node = getPath(actorData, `system.${group}`);
    if (node === null || typeof node !== "object") continue;
    for (const [key, skill] of Object.entries(/** @type {Record<string, unknown>} */ (node))) {
      if (!out.has(key) && skill !== null && typeof skill === "object" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(key)) out.set(key, `${group}.${key}`);
    }
  }
  return [...out];
}

/**
 * The system's Conditions and Tilts (Items of type `condition` / `tilt`, named by the GM, English
 * names of the CofD books) that the rules know → our condition id.
 */
export const CONDITION_ITEMS = Object.freeze({
  blinded: "blinded",
  blind: "blinded",
  deafened: "deafened",
  deaf: "deafened",
  "knocked down": "prone",
  prone: "prone",
  poisoned: "poisoned",
  sick: "diseased",
});

/**
 * The condition a Condition or Tilt Item stands for, or null.
 * @param {{type?: string, name?: string}} item
 * @returns {string|null}
 */
export function conditionOfItem(item) {
  if (item?.type !== "condition" && item?.type !== "tilt") return null;
  return /** @type {Record<string, string>} */ (CONDITION_ITEMS)[String(item.name ?? "").trim().toLowerCase()] ?? null;
}

/** The sidecar fields taken from this system (read-only on the rules sheet). */
export const fields = Object.freeze(["attributes", "skills", "health", "willpower", "speed"]);

/** The token bar attribute of the system's Health (its `primaryTokenAttribute`). */
export const healthBar = "health";

/** @param {ActorData} actorData */
function isEphemeral(actorData) {
  const physical = getPath(actorData, "system.eph_physical");
  return actorData.type === "ephemeral" || (physical !== null && typeof physical === "object");
}

/**
 * Whether the data has the mta shape (any version, any fork id).
 * @param {ActorData} actorData
 * @returns {boolean}
 */
export function detect(actorData) {
  const health = getPath(actorData, "system.health");
  if (health === null || typeof health !== "object") return false;
  if (!["max", "value", "lethal", "aggravated"].every((key) => key in /** @type {object} */ (health))) return false;
  return ["system.attributes_physical", "system.eph_physical", "system.derivedTraits"].some((path) => {
    const node = getPath(actorData, path);
    return node !== null && typeof node === "object";
  });
}

/**
 * The Health track from the thresholds, or undefined (with a problem) when they are not a track.
 * @param {ActorData} actorData
 * @param {SystemProblem[]} [problems]
 * @returns {{max: number, bashing: number, lethal: number, aggravated: number}|undefined}
 */
export function readHealth(actorData, problems) {
  const check = { field: "health" };
  const max = readNumber(actorData, "system.health.max", { ...check, min: 1 }, problems);
  if (max === undefined) return undefined;
  const within = { ...check, max };
  const value = readNumber(actorData, "system.health.value", within, problems);
  const lethal = readNumber(actorData, "system.health.lethal", within, problems);
  const aggravated = readNumber(actorData, "system.health.aggravated", within, problems);
  if (value === undefined || lethal === undefined || aggravated === undefined) return undefined;
  if (!(value <= lethal && lethal <= aggravated)) {
    problems?.push({ field: "health", path: "system.health", problem: "range" });
    return undefined;
  }
  return { max, bashing: lethal - value, lethal: aggravated - lethal, aggravated: max - aggravated };
}

/**
 * Willpower `{max, current}`, or undefined (with a problem). `max` is the prepared one (a derived
 * trait in the versions that compute it, so a lower Resolve lowers it at once); a current above it
 * is read as the max (WP-6: what is above the max is lost), and written so.
 * @param {ActorData} actorData
 * @param {SystemProblem[]} [problems]
 * @returns {{max: number, current: number}|undefined}
 */
export function readWillpower(actorData, problems) {
  const max = readNumber(actorData, "system.willpower.max", { field: "willpower" }, problems);
  if (max === undefined) return undefined;
  const current = readNumber(actorData, "system.willpower.value", { field: "willpower" }, problems);
  return current === undefined ? undefined : { max, current: Math.min(current, max) };
}

/**
 * The ephemeral being's Rank: `system.eph_general.rank` (0.16 and later) or a plain
 * `system.rank` (earlier versions); undefined for other actors or unusable data. Not sent: the
 * sidecar's actor has no Rank (the rules' Ranks D..S belong to abilities, docs/foundry-module.md).
 * @param {ActorData} actorData
 * @param {SystemProblem[]} [problems]
 * @returns {number|undefined}
 */
export function readRank(actorData, problems) {
  if (!isEphemeral(actorData)) return undefined;
  return readNumber(actorData, [...traitPaths("system.eph_general.rank"), "system.rank"], { field: "rank", max: 10 }, problems);
}

/**
 * @param {ActorData} actorData
 * @param {SystemProblem[]} [problems] filled with what could not be used
 * @returns {Record<string, any>}
 */
export function read(actorData, problems) {
  /** @type {Record<string, any>} */
  const out = {};
  const ephemeral = isEphemeral(actorData);
  const hasAttributes = ephemeral || getPath(actorData, "system.attributes_physical") !== undefined;
  if (hasAttributes) {
    /** @type {Record<string, number>} */
    const attributes = {};
    for (const [key, path] of Object.entries(ephemeral ? EPHEMERAL_ATTRIBUTE_PATHS : ATTRIBUTE_PATHS)) {
      const n = readNumber(actorData, traitPaths(`system.${path}`), { field: `attributes.${key}`, max: MAX_RATING }, problems);
      if (n !== undefined) attributes[key] = n;
    }
    out.attributes = attributes;
  }
  // ephemeral beings and simple antagonists have no Skills: nothing to read, nothing wrong
  if (!ephemeral && getPath(actorData, "system.skills_physical") !== undefined) {
    /** @type {Record<string, number>} */
    const skills = {};
    for (const [key, path] of skillPaths(actorData)) {
      const n = readNumber(actorData, traitPaths(`system.${path}`), { field: `skills.${key}`, max: MAX_RATING }, problems);
      if (n !== undefined) skills[key] = n;
    }
    out.skills = skills;
  }
  const health = readHealth(actorData, problems);
  if (health) out.health = health;
  const willpower = readWillpower(actorData, problems);
  if (willpower) out.willpower = willpower;
  const speed = readNumber(actorData, traitPaths("system.derivedTraits.speed"), { field: "speed", max: 1e6, optional: true }, problems);
  if (speed !== undefined) out.speed = speed;
  /** @type {Record<string, boolean>} */
  const held = {};
  for (const item of actorData.items ?? []) {
    const condition = conditionOfItem(item);
    if (condition) held[condition] = true;
  }
  if (Object.keys(held).length) out.conditions = held;
  return out;
}

/**
 * The update that makes the system's Health thresholds and Willpower show the sidecar's actor.
 * Only what differs is written; nothing is written for a field whose system value the adapter
 * could not read (it was refused and never reached the sidecar), nor Health when the sidecar's
 * track has another size than the system's (the system's max is the system's own).
 * @param {ActorData} actorData
 * @param {Record<string, any>} sidecarActor
 * @returns {Record<string, number>}
 */
export function write(actorData, sidecarActor) {
  /** @type {Record<string, number>} */
  const update = {};
  const now = readHealth(actorData);
  const track = sidecarActor?.health;
  if (now && track && track.max === now.max) {
    const aggravated = Math.max(0, now.max - (track.aggravated ?? 0));
    const lethal = Math.max(0, aggravated - (track.lethal ?? 0));
    const value = Math.max(0, lethal - (track.bashing ?? 0));
    const stored = /** @type {Record<string, unknown>} */ (getPath(actorData, "system.health"));
    for (const [key, n] of Object.entries({ value, lethal, aggravated })) {
      if (Number(stored[key]) !== n) update[`system.health.${key}`] = n;
    }
  }
  const willpower = readWillpower(actorData);
  const current = sidecarActor?.willpower?.current;
  if (willpower && Number.isSafeInteger(current)) {
    const value = Math.min(current, willpower.max);
    if (wholeNumber(getPath(actorData, "system.willpower.value")) !== value) update["system.willpower.value"] = value;
  }
  return update;
}
