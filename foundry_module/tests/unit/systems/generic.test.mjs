/**
 * The generic adapter: a world mapping from our fields to data paths, and its Simple Worldbuilding
 * preset (`system.health` / `system.power` bars, the GM's own keys under `system.attributes`).
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { createGenericAdapter, parseMapping, SIMPLE_WORLDBUILDING, worldbuilding } from "../../../scripts/systems/generic.mjs";
import { withSystemFields } from "../../../scripts/systems/index.mjs";
import { mergeUpdate } from "../../helpers/fake-foundry.mjs";

/** A Simple Worldbuilding character whose GM defined the Attributes the preset names. */
function swCharacter() {
  /** @param {number} value */
  const attr = (value) => ({ value, label: "", dtype: "Number" });
  return {
    type: "character",
    system: {
      biography: "",
      health: { value: 10, min: 0, max: 10 },
      power: { value: 3, min: 0, max: 4 },
      attributes: { str: attr(2), dex: attr(3), sta: attr(2), per: attr(4), stealth: attr(1), speed: attr(6), notes: { value: "x", dtype: "String" } },
      groups: {},
    },
    flags: {},
  };
}

/** @param {any} adapter @param {any} actorData */
function readAll(adapter, actorData) {
  /** @type {any[]} */
  const problems = [];
  return { fields: adapter.read(actorData, problems), problems };
}

test("parseMapping: a JSON object of known fields to system/flags paths; anything else is refused with the reason", () => {
  assert.deepEqual(parseMapping(""), { ok: true, mapping: {} });
  assert.deepEqual(parseMapping('{"attributes.DEX": "system.abilities.dex.value"}'), { ok: true, mapping: { "attributes.DEX": "system.abilities.dex.value" } });
  assert.deepEqual(parseMapping("{nope"), { ok: false, error: "json" });
  assert.deepEqual(parseMapping("[1]"), { ok: false, error: "object" });
  assert.deepEqual(parseMapping('{"attributes.LUCK": "system.luck"}'), { ok: false, error: "field:attributes.LUCK" });
  assert.deepEqual(parseMapping('{"speed": "name"}'), { ok: false, error: "path:speed" });
  assert.deepEqual(parseMapping('{"speed": 3}'), { ok: false, error: "path:speed" });
});

test("Simple Worldbuilding preset: reads what the GM defined, leaves the rest out quietly", () => {
  const { fields, problems } = readAll(worldbuilding, swCharacter());
  assert.deepEqual(problems, []);
  assert.deepEqual(fields, {
    attributes: { STR: 2, DEX: 3, STA: 2, PER: 4 },
    skills: { stealth: 1 },
    speed: 6,
    health: { max: 10 },
    willpower: { max: 4, current: 3 },
  });
  assert.equal(worldbuilding.healthBar, "health");
  assert.deepEqual([...worldbuilding.fields], ["attributes", "skills", "speed", "health", "willpower"]);
});

test("Simple Worldbuilding preset: a ruling's damage shows as the bar's undamaged boxes; Willpower as power", () => {
  const actor = swCharacter();
  const state = withSystemFields({ health: { max: 10, bashing: 0, lethal: 0, aggravated: 0 } }, readAll(worldbuilding, actor).fields);
  assert.deepEqual(worldbuilding.write(actor, state), {}, "round trip: nothing changed, nothing written");
  const update = worldbuilding.write(actor, { ...state, health: { max: 10, bashing: 2, lethal: 1, aggravated: 0 }, willpower: { max: 4, current: 1 } });
  assert.deepEqual(update, { "system.health.value": 7, "system.power.value": 1 });
  mergeUpdate(actor, update);
  assert.deepEqual(actor.system.health, { value: 7, min: 0, max: 10 });
  assert.deepEqual(actor.system.power, { value: 1, min: 0, max: 4 });
});

test("a custom mapping with B/L/A counts: read and written both ways; bad values refused and never overwritten", () => {
  const mapping = parseMapping(
    JSON.stringify({
      "health.max": "system.wounds.max",
      "health.bashing": "system.wounds.b",
      "health.lethal": "system.wounds.l",
      "health.aggravated": "system.wounds.a",
      "attributes.DEX": "system.abilities.dex",
      "skills.investigation": "system.skills.inv",
    }),
  );
  assert.ok(mapping.ok);
  const adapter = createGenericAdapter(mapping.mapping);
  const actor = { type: "pc", system: { wounds: { max: 8, b: 1, l: 2, a: 0 }, abilities: { dex: 4 }, skills: { inv: "three" } }, flags: {} };
  assert.ok(adapter.detect(actor));
  assert.ok(!adapter.detect({ type: "x", system: { other: 1 } }));
  const { fields, problems } = readAll(adapter, actor);
  assert.deepEqual(problems, [{ field: "skills.investigation", path: "system.skills.inv", problem: "number" }]);
  assert.deepEqual(fields, { attributes: { DEX: 4 }, health: { max: 8, bashing: 1, lethal: 2, aggravated: 0 } });
  const update = adapter.write(actor, { health: { max: 8, bashing: 3, lethal: 2, aggravated: 1 }, skills: { investigation: 0 } });
  assert.deepEqual(update, { "system.wounds.b": 3, "system.wounds.a": 1 });
  // counts over the max: the track is refused, and nothing is written over it
  const broken = { type: "pc", system: { wounds: { max: 2, b: 2, l: 2, a: 0 } }, flags: {} };
  assert.deepEqual(readAll(adapter, broken).problems, [{ field: "health", path: "system.wounds.max", problem: "range" }]);
  assert.deepEqual(adapter.write(broken, { health: { max: 2, bashing: 0, lethal: 0, aggravated: 0 } }), {});
});

test("a custom mapping: counts and current Willpower only with their max (what is sent always fits); WP-6", () => {
  const partial = createGenericAdapter({ "health.bashing": "system.b", "willpower.current": "system.wp" });
  assert.deepEqual(readAll(partial, { type: "x", system: { b: 9, wp: 9 }, flags: {} }), { fields: {}, problems: [] });
  assert.deepEqual(partial.write({ type: "x", system: { b: 9, wp: 9 }, flags: {} }, { health: { max: 7, bashing: 1, lethal: 0, aggravated: 0 } }), {}, "not read, not written");
  const full = createGenericAdapter({ "willpower.max": "system.wpMax", "willpower.current": "system.wp" });
  assert.deepEqual(readAll(full, { type: "x", system: { wpMax: 3, wp: 5 }, flags: {} }).fields, { willpower: { max: 3, current: 3 } });
});

test("the preset names every Attribute and the rules' Skills", () => {
  for (const key of ["STR", "DEX", "STA", "INT", "PER", "RES", "PRE", "MAN", "COM"]) assert.ok(`attributes.${key}` in SIMPLE_WORLDBUILDING, key);
  assert.ok(parseMapping(JSON.stringify(SIMPLE_WORLDBUILDING)).ok);
});

test("a data model's getters are read; a path through a function or a number is nothing", () => {
  class HealthModel {
    get max() {
      return 6;
    }
  }
  const adapter = createGenericAdapter({ "health.max": "system.hp.max", speed: "system.constructor.name", "attributes.STR": "system.str.value" });
  const { fields, problems } = readAll(adapter, { type: "x", system: { hp: new HealthModel(), str: 3 }, flags: {} });
  assert.deepEqual(fields, { health: { max: 6 } });
  assert.deepEqual(problems, []);
});
