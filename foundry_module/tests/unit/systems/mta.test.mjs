/**
 * The mta adapter on actor data shaped as three published versions of the system publish it
 * (tests/helpers/mta-actors.mjs), both ways: read → the sidecar's actor fields; a ruling's state →
 * the system's threshold fields, applied as Foundry applies update data (dot paths expanded,
 * objects merged: the shared stand-in's `mergeUpdate`).
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import * as mta from "../../../scripts/systems/mta.mjs";
import { worldbuilding } from "../../../scripts/systems/generic.mjs";
import { withSystemFields } from "../../../scripts/systems/index.mjs";
import { mergeUpdate } from "../../helpers/fake-foundry.mjs";
import { mtaCharacter, mtaEphemeral, mtaSimpleAntagonist } from "../../helpers/mta-actors.mjs";

/** @type {import("../../helpers/mta-actors.mjs").MtaVersion[]} */
const VERSIONS = ["0.11", "0.16", "v14-fork"];

/**
 * @param {import("../../../scripts/systems/_types.mjs").ActorData} actorData
 * @returns {{fields: Record<string, any>, problems: import("../../../scripts/systems/_types.mjs").SystemProblem[]}}
 */
function readAll(actorData) {
  /** @type {import("../../../scripts/systems/_types.mjs").SystemProblem[]} */
  const problems = [];
  return { fields: mta.read(actorData, problems), problems };
}

test("detect: every version's characters and ephemeral beings, by shape; not other systems' actors", () => {
  for (const version of VERSIONS) {
    assert.ok(mta.detect(mtaCharacter(version)), `${version} character`);
    assert.ok(mta.detect(mtaEphemeral(version)), `${version} ephemeral`);
  }
  assert.ok(mta.detect(mtaSimpleAntagonist()));
  const sw = { type: "character", system: { health: { value: 10, min: 0, max: 10 }, power: { value: 5, min: 0, max: 5 }, attributes: {} } };
  assert.ok(!mta.detect(sw));
  assert.ok(worldbuilding.detect(sw));
  assert.ok(!worldbuilding.detect(mtaCharacter("0.16")), "the worldbuilding preset does not take mta's thresholds");
  assert.ok(!mta.detect({ type: "character", system: { attributes: { hp: { value: 7, max: 7 } } } }));
  assert.ok(!mta.detect({ type: "character", system: {} }));
});

test("read: a mortal's Attributes (PER from Wits, with its modifiers), every Skill, Health, Willpower, Speed", () => {
  for (const version of VERSIONS) {
    const actor = mtaCharacter(version, { str: 3, dex: 2, sta: 3, wits: 2, witsBonus: 1, com: 3, res: 2, investigation: 4, stealth: 2 });
    const { fields, problems } = readAll(actor);
    assert.deepEqual(problems, [], version);
    assert.deepEqual(fields.attributes, { STR: 3, DEX: 2, STA: 3, INT: 2, PER: 3, RES: 2, PRE: 1, MAN: 1, COM: 3 }, version);
    // every Skill of the sheet, under the system's own key (a roll may name Brawl as well as Stealth)
    assert.deepEqual(fields.skills, { investigation: 4, stealth: 2, occult: 0, athletics: 1, brawl: 0, empathy: 0, persuasion: 1 }, version);
    assert.deepEqual(fields.health, { max: 8, bashing: 0, lethal: 0, aggravated: 0 }, `${version}: Stamina 3 + Size 5`);
    assert.deepEqual(fields.willpower, { max: 5, current: 5 }, `${version}: Resolve + Composure`);
    assert.equal(fields.speed, 10, `${version}: 5 + STR + DEX`);
  }
});

test("read: the thresholds as B/L/A counts (A = max − aggravated, L = aggravated − lethal, B = lethal − value)", () => {
  const actor = mtaCharacter("0.16", { sta: 2, health: { max: 7, aggravated: 6, lethal: 4, value: 1 } });
  assert.deepEqual(readAll(actor).fields.health, { max: 7, bashing: 3, lethal: 2, aggravated: 1 });
});

test("read: an ephemeral being's Power, Finesse and Resistance stand for the nine Attributes; Rank from either version's path", () => {
  for (const version of VERSIONS) {
    const spirit = mtaEphemeral(version, { rank: 3, power: 5, finesse: 4, resistance: 2 });
    const { fields, problems } = readAll(spirit);
    assert.deepEqual(problems, [], version);
    assert.deepEqual(fields.attributes, { STR: 5, INT: 5, PRE: 5, DEX: 4, PER: 4, MAN: 4, STA: 2, RES: 2, COM: 2 }, version);
    assert.equal(fields.skills, undefined, `${version}: spirits have no Skills, and that is no problem`);
    assert.deepEqual(fields.health, { max: 7, bashing: 0, lethal: 0, aggravated: 0 });
    assert.equal(mta.readRank(spirit), 3, `${version}: ${version === "0.11" ? "system.rank" : "system.eph_general.rank"}`);
  }
  assert.equal(mta.readRank(mtaCharacter("0.16")), undefined, "a mortal has no Rank");
});

test("read: a simple antagonist has Attributes and no Skills", () => {
  const { fields, problems } = readAll(mtaSimpleAntagonist({ sta: 3 }));
  assert.deepEqual(problems, []);
  assert.equal(fields.attributes.STA, 3);
  assert.equal(fields.skills, undefined);
  assert.equal(fields.health.max, 8);
});

test("read: Conditions and Tilts (Items) the rules know become conditions; other Items do not", () => {
  const actor = mtaCharacter("0.16");
  actor.items = [
    { type: "tilt", name: "Knocked Down" },
    { type: "condition", name: " Blinded " },
    { type: "tilt", name: "Arm Wrack" },
    { type: "merit", name: "Deaf" },
  ];
  assert.deepEqual(readAll(actor).fields.conditions, { prone: true, blinded: true });
  assert.equal(mta.conditionOfItem({ type: "tilt", name: "Sick" }), "diseased");
  assert.equal(mta.conditionOfItem({ type: "merit", name: "Blind" }), null);
});

test("write: 2 bashing + 1 lethal on a 7-box track → the thresholds, applied as Foundry applies update data", () => {
  for (const version of VERSIONS) {
    const actor = mtaCharacter(version, { sta: 2 });
    const before = structuredClone(actor);
    const ruled = withSystemFields({ name: "Ann" }, readAll(actor).fields);
    ruled.health = { ...ruled.health, bashing: 2, lethal: 1 };
    const update = mta.write(actor, ruled);
    assert.deepEqual(update, { "system.health.value": 4, "system.health.lethal": 6 }, `${version}: aggravated stays 7`);
    mergeUpdate(actor, update);
    assert.deepEqual(
      { max: actor.system.health.max, value: actor.system.health.value, lethal: actor.system.health.lethal, aggravated: actor.system.health.aggravated },
      { max: 7, value: 4, lethal: 6, aggravated: 7 },
    );
    assert.equal(actor.system.health.marked, before.system.health.marked, "the rest of the Health object is merged, not replaced");
    assert.deepEqual(readAll(actor).fields.health, { max: 7, bashing: 2, lethal: 1, aggravated: 0 }, "and reads back as the ruling");
    assert.deepEqual(actor.system.attributes_physical, before.system.attributes_physical);
  }
});

test("write: aggravated, then healing back to full; Willpower spent", () => {
  const actor = mtaCharacter("0.16", { sta: 2, health: { value: 4, lethal: 6, aggravated: 7 } });
  const state = withSystemFields({}, readAll(actor).fields);
  const hurt = mta.write(actor, { ...state, health: { max: 7, bashing: 2, lethal: 1, aggravated: 2 } });
  assert.deepEqual(hurt, { "system.health.value": 2, "system.health.lethal": 4, "system.health.aggravated": 5 });
  mergeUpdate(actor, hurt);
  const healed = mta.write(actor, { ...state, health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 } });
  assert.deepEqual(healed, { "system.health.value": 7, "system.health.lethal": 7, "system.health.aggravated": 7 });
  mergeUpdate(actor, healed);
  const full = { max: 7, bashing: 0, lethal: 0, aggravated: 0 };
  assert.deepEqual(mta.write(actor, { ...state, health: full, willpower: { max: 4, current: 2, temporary: 0 } }), { "system.willpower.value": 2 });
});

test("round trip: read, then write the same state back → no update at all, for every version and kind", () => {
  const actors = [
    ...VERSIONS.flatMap((v) => [mtaCharacter(v, { health: { max: 7, value: 3, lethal: 5, aggravated: 6 } }), mtaEphemeral(v)]),
    mtaSimpleAntagonist(),
  ];
  for (const actor of actors) {
    const before = structuredClone(actor);
    const state = withSystemFields({ name: "x", health: { tempHp: 1 }, willpower: { temporary: 1 } }, readAll(actor).fields);
    assert.deepEqual(mta.write(actor, state), {});
    assert.deepEqual(actor, before);
  }
});

test("bad data: reported once per field, the field left out, and nothing written back from it", () => {
  const actor = /** @type {any} */ (mtaCharacter("0.16"));
  actor.system.health.max = -2;
  actor.system.skills_physical.stealth.final = "three";
  actor.system.skills_physical.stealth.value = "three";
  delete actor.system.attributes_social.composure;
  const { fields, problems } = readAll(actor);
  assert.deepEqual(problems, [
    { field: "attributes.COM", path: "system.attributes_social.composure.final", problem: "missing" },
    { field: "skills.stealth", path: "system.skills_physical.stealth.final", problem: "number" },
    { field: "health", path: "system.health.max", problem: "range" },
  ]);
  assert.equal(fields.health, undefined);
  assert.equal(fields.skills.stealth, undefined);
  assert.equal(fields.skills.investigation, 2);
  assert.equal(fields.attributes.COM, undefined);
  // the sidecar's default track (7 boxes, 3 lethal) is never written over the refused thresholds
  assert.deepEqual(mta.write(actor, { health: { max: 7, bashing: 0, lethal: 3, aggravated: 0 } }), {});
  // thresholds out of order are no track either
  const tangled = mtaCharacter("0.16", { health: { max: 7, value: 6, lethal: 2, aggravated: 7 } });
  assert.deepEqual(readAll(tangled).problems, [{ field: "health", path: "system.health", problem: "range" }]);
  assert.deepEqual(mta.write(tangled, { health: { max: 7, bashing: 1, lethal: 0, aggravated: 0 } }), {});
  // numeric strings (a sheet's text input) are numbers; a negative Willpower is refused
  const typed = /** @type {any} */ (mtaCharacter("0.11"));
  typed.system.health.value = "5";
  typed.system.willpower.value = -1;
  const read = readAll(typed);
  assert.equal(read.fields.health.bashing, 2);
  assert.deepEqual(read.problems, [{ field: "willpower", path: "system.willpower.value", problem: "range" }]);
  assert.equal(read.fields.willpower, undefined);
  assert.deepEqual(mta.write(typed, { willpower: { max: 4, current: 1 } }), {});
});

test("WP-6: a current Willpower above the (derived) max is read as the max and written so", () => {
  const actor = mtaCharacter("0.16", { res: 2, com: 2 });
  actor.system.willpower.value = 6; // Resolve went down; the system derived max 4 and kept the value
  const { fields, problems } = readAll(actor);
  assert.deepEqual(problems, []);
  assert.deepEqual(fields.willpower, { max: 4, current: 4 });
  assert.deepEqual(mta.write(actor, withSystemFields({}, fields)), { "system.willpower.value": 4 });
});

test("write: a sidecar track of another size than the system's is not written (the system's max is its own)", () => {
  const actor = mtaCharacter("0.16", { sta: 2 });
  assert.deepEqual(mta.write(actor, { health: { max: 9, bashing: 1, lethal: 0, aggravated: 0 } }), {});
});
