/**
 * A generated scene for the tests of a large `sync`: `count` tokens, each with an actor of its own
 * written out in full (every field the sidecar's state document holds, as a GM's world sends them),
 * spread over a 100-square map; seeded, so the same count gives the same scene.
 */

/**
 * A small seeded generator (mulberry32), uniform in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @param {number} count tokens (and actors)
 * @param {{seed?: number, name?: (i: number) => string}} [options] `name`: each actor's name
 * @returns {{scene: Record<string, any>, settings: Record<string, any>, actors: Record<string, any>, tokens: Record<string, any>}}
 */
export function bigScene(count, { seed = 7, name = (i) => `npc ${i}` } = {}) {
  const random = seeded(seed);
  /** @type {Record<string, any>} */
  const actors = {};
  /** @type {Record<string, any>} */
  const tokens = {};
  const ranks = ["unranked", "D", "C", "B"];
  for (let i = 0; i < count; i++) {
    const id = `Actor.a${String(i).padStart(15, "0")}`;
    actors[id] = {
      name: name(i),
      humanoid: i % 3 !== 0,
      speed: 0,
      attributes: { STR: 1, DEX: 1 + (i % 3), STA: 1, INT: 1, PER: 1 + (i % 4), RES: 1, PRE: 1, MAN: 1, COM: 1 },
      skills: {},
      health: { max: 7, bashing: 0, lethal: 0, aggravated: 0, tempHp: 0, temporaryMax: {}, stabilized: false, woken: false, restMinutes: 0 },
      secondHealth: null,
      willpower: { max: 2, current: 2, temporary: 0, keptConscious: false, drained: false, hungerScene: null },
      energyPools: {},
      saveBonuses: { reflex: 0, fortitude: 0, will: 0 },
      iwr: { immunities: [], weaknesses: [], resistances: [] },
      detection: [
        { name: "sight", sense: "sight", essence: "natural", rank: "unranked", capability: "pinpoint", range: 40 },
        { name: "keen hearing", sense: "hearing", essence: "natural", rank: ranks[i % 4], capability: "pinpoint", range: 30 },
        { name: "scent", sense: "smell", essence: "natural", rank: "C", capability: "approximate", range: 12 },
      ],
      antiDetection: i % 5 === 0 ? [{ name: "optic camouflage", essence: "technological", rank: "C" }] : [],
      conditions: {},
      lastTurn: { attacked: false, madeSound: false, movedOverHalfSpeed: false },
    };
    tokens[`tok${String(i).padStart(13, "0")}`] = {
      actor: id,
      x: Math.round(random() * 10_000),
      y: Math.round(random() * 10_000),
      elevation: 0,
    };
  }
  return {
    scene: { id: "bigScene0000001", round: 1, gridSize: 100, gridDistance: 1.5, gridUnits: "m" },
    settings: { woundPenalty: false, approveReveals: false },
    actors,
    tokens,
  };
}
