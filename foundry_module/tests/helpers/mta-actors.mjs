/**
 * Actor data shaped as the Chronicles of Darkness 2e system (`mta`) publishes it, for three
 * published versions whose paths differ (read from each version's template.json and its actor
 * class' data preparation):
 * - "0.11" (Foundry v10): an ephemeral being's Rank is a plain `system.rank`; max Willpower is a
 *   stored field; derived traits have no `willpower`;
 * - "0.16" (Foundry v12): `system.eph_general.rank.{value}`; max Willpower is prepared from
 *   `derivedTraits.willpower.final`; Health has a `marked` string (resistant boxes); a
 *   `simple_antagonist` type without Skills;
 * - "v14-fork" (Foundry v14, another system id): as 0.16, plus `derivedTraits.stability`.
 * Every trait is `{value}` in the stored data; data preparation adds `final` (value plus the
 * modifiers of Items), as the adapter receives it. Derived traits: Size 5, Speed = 5 + STR + DEX,
 * Health = Stamina + Size, Willpower = Resolve + Composure, Perception = Wits + Composure.
 */

/** @typedef {"0.11"|"0.16"|"v14-fork"} MtaVersion */

/** @param {number} value @param {number} [bonus] */
const trait = (value, bonus = 0) => ({ value, final: value + bonus });
/** @param {number} value */
const derived = (value) => ({ value, mod: 0, final: value });

/**
 * A mortal character.
 * @param {MtaVersion} version
 * @param {{str?: number, dex?: number, sta?: number, int?: number, wits?: number, res?: number, pre?: number, man?: number, com?: number,
 *   investigation?: number, stealth?: number, witsBonus?: number, health?: {max?: number, value?: number, lethal?: number, aggravated?: number},
 *   willpower?: number}} [o]
 */
export function mtaCharacter(version, o = {}) {
  const { str = 2, dex = 3, sta = 2, int = 2, wits = 3, res = 2, pre = 1, man = 1, com = 2 } = o;
  const max = o.health?.max ?? sta + 5;
  /** @type {Record<string, any>} */
  const health = { max, value: max, lethal: max, aggravated: max, ...o.health };
  /** @type {Record<string, any>} */
  const derivedTraits = {
    size: derived(5),
    speed: derived(5 + str + dex),
    defense: derived(Math.min(wits, dex)),
    armor: derived(0),
    ballistic: derived(0),
    initiativeMod: derived(dex + com),
    perception: derived(wits + com),
    health: derived(sta + 5),
  };
  const willpowerMax = res + com;
  if (version !== "0.11") derivedTraits.willpower = derived(willpowerMax);
  if (version === "v14-fork") derivedTraits.stability = derived(0);
  if (version !== "0.11") health.marked = Array(health.max).fill("0").join(",");
  /** @param {number} value */
  const skill = (value) => ({ value, final: value, specialties: [], isRote: false });
  return {
    type: "character",
    system: {
      characterType: "Mortal",
      health,
      derivedTraits,
      attributes_physical: { strength: trait(str), dexterity: trait(dex), stamina: trait(sta) },
      attributes_social: { presence: trait(pre), manipulation: trait(man), composure: trait(com) },
      attributes_mental: { intelligence: trait(int), wits: trait(wits, o.witsBonus ?? 0), resolve: trait(res) },
      skills_physical: { athletics: skill(1), stealth: skill(o.stealth ?? 1), brawl: skill(0) },
      skills_social: { empathy: skill(0), persuasion: skill(1) },
      skills_mental: { investigation: skill(o.investigation ?? 2), occult: skill(0) },
      willpower: { value: o.willpower ?? willpowerMax, max: willpowerMax },
      isDead: false,
    },
    flags: {},
    /** @type {Array<{type: string, name: string}>} */
    items: [],
  };
}

/**
 * An ephemeral being (a spirit) of Rank `rank`.
 * @param {MtaVersion} version
 * @param {{rank?: number, power?: number, finesse?: number, resistance?: number}} [o]
 */
export function mtaEphemeral(version, o = {}) {
  const { rank = 2, power = 3, finesse = 4, resistance = 2 } = o;
  const max = resistance + 5;
  /** @type {Record<string, any>} */
  const system = {
    ephemeralType: "Spirit",
    health: { max, value: max, lethal: max, aggravated: max },
    derivedTraits: {
      size: derived(5),
      speed: derived(5 + power + finesse),
      defense: derived(Math.min(power, finesse)),
      perception: derived(finesse + resistance),
      health: derived(max),
    },
    essence: { value: 10, max: 10 },
    willpower: { value: finesse + resistance, max: finesse + resistance },
    eph_physical: { power: trait(power) },
    eph_social: { finesse: trait(finesse) },
    eph_mental: { resistance: trait(resistance) },
  };
  if (version === "0.11") system.rank = rank;
  else {
    system.eph_general = { rank: trait(rank) };
    system.derivedTraits.willpower = derived(finesse + resistance);
    system.health.marked = Array(max).fill("0").join(",");
  }
  return { type: "ephemeral", system, flags: {}, items: /** @type {Array<{type: string, name: string}>} */ ([]) };
}

/**
 * A simple antagonist (0.16 and later): Attributes, no Skills.
 * @param {{sta?: number}} [o]
 */
export function mtaSimpleAntagonist(o = {}) {
  const character = mtaCharacter("0.16", { sta: o.sta ?? 3 });
  const { skills_physical: _p, skills_social: _s, skills_mental: _m, ...system } = character.system;
  return { ...character, type: "simple_antagonist", system };
}
