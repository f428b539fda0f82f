import assert from "node:assert/strict";
import { test } from "node:test";

import { listValue } from "../../scripts/core/rules-form.mjs";
import { ATTRIBUTES, defineRulesSheet, isUpdateKey, parseSheetForm, rulesSheetHtml, sheetContext, slugify } from "../../scripts/foundry/rules-sheet.mjs";
import { readForm } from "../helpers/form-reader.mjs";
import { i18nFor } from "../helpers/i18n.mjs";

test("the sheet shows defaults where nothing is stored", () => {
  const ctx = sheetContext(undefined);
  assert.equal(ctx.healthMax, 7);
  assert.equal(ctx.willpowerMax, 2);
  assert.deepEqual(ctx.attributes.map((a) => a.key), ATTRIBUTES);
  assert.ok(ctx.attributes.every((a) => a.value === 1));
  assert.deepEqual(ctx.skills, [{ key: "investigation", value: 0 }, { key: "stealth", value: 0 }]);
  assert.deepEqual(listValue(undefined, "detection"), [
    { name: "sight", sense: "sight", essence: "natural", rank: "unranked", capability: "pinpoint", range: null },
    { name: "hearing", sense: "hearing", essence: "natural", rank: "unranked", capability: "approximate", range: null },
  ]);
});

test("the sheet shows stored flags", () => {
  const ctx = sheetContext({ health: { max: 9 }, attributes: { STR: 4 }, skills: { stealth: 3 }, iwr: { immunities: [{ type: "fire" }] } });
  assert.equal(ctx.healthMax, 9);
  assert.equal(ctx.attributes[0].value, 4);
  assert.equal(ctx.skills[1].value, 3);
  assert.deepEqual(listValue({ iwr: { immunities: [{ type: "fire" }] } }, "iwrImmunities"), [{ type: "fire" }]);
});

/** @returns {Record<string, unknown>} */
function form() {
  return {
    healthMax: 8,
    willpowerMax: "3",
    speed: 6,
    ...Object.fromEntries(ATTRIBUTES.map((a) => [`attributes.${a}`, 2])),
    "skills.investigation": 1,
    "skills.stealth": 3,
    "list.detection._present": "1",
    "list.antiDetection._present": "1",
    "list.antiDetection.0.name": "cloak",
    "list.antiDetection.0.essence": "magical",
    "list.antiDetection.0.rank": "C",
    "list.iwrResistances._present": "1",
    "list.iwrResistances.0.type": "fire",
    "list.iwrResistances.0.value": "2",
  };
}

test("a submitted form becomes flat flag updates of what differs; Willpower current is kept within max", () => {
  const { update, errors } = parseSheetForm(form(), { willpower: { max: 5, current: 5 }, attributes: { STR: 2 } });
  assert.deepEqual(errors, []);
  assert.equal(update["flags.vtt-bridge.health.max"], 8);
  assert.equal(update["flags.vtt-bridge.willpower.max"], 3);
  assert.equal(update["flags.vtt-bridge.willpower.current"], 3);
  assert.equal(update["flags.vtt-bridge.speed"], 6);
  assert.equal(update["flags.vtt-bridge.attributes.DEX"], 2);
  assert.ok(!("flags.vtt-bridge.attributes.STR" in update), "unchanged: not written");
  assert.equal(update["flags.vtt-bridge.skills.stealth"], 3);
  assert.deepEqual(update["flags.vtt-bridge.antiDetection"], [{ name: "cloak", essence: "magical", rank: "C" }]);
  assert.deepEqual(update["flags.vtt-bridge.iwr.resistances"], [{ type: "fire", value: 2 }]);
  assert.deepEqual(update["flags.vtt-bridge.detection"], [], "every sense removed: an empty list");
  assert.ok(!("flags.vtt-bridge.iwr.weaknesses" in update), "a list not in the form is not touched");
  assert.deepEqual(parseSheetForm(form(), {}).update["flags.vtt-bridge.attributes"], Object.fromEntries(ATTRIBUTES.map((a) => [a, 2])), "no attributes yet: all nine");
  assert.equal(parseSheetForm(form(), {}).update["flags.vtt-bridge.willpower.current"], 3, "new Willpower starts full");
});

test("wrong fields are all reported, each as a sentence naming list, row and field, and nothing is written", async () => {
  const bad = { ...form(), healthMax: 0, "attributes.DEX": 2.5, "list.antiDetection.0.rank": "E", "list.iwrResistances.0.value": "0", "list.detection.4.name": "", "list.detection.4.sense": "sight", "list.detection.4.range": "-1" };
  const { update, errors } = parseSheetForm(bad);
  assert.deepEqual(update, {});
  assert.deepEqual(errors.map(({ field, problem }) => ({ field, problem })), [
    { field: "healthMax", problem: "integer" },
    { field: "attributes.DEX", problem: "integer" },
    { field: "list.detection.4.name", problem: "required" },
    { field: "list.detection.4.range", problem: "number" },
    { field: "list.antiDetection.0.rank", problem: "choice" },
    { field: "list.iwrResistances.0.value", problem: "integer" },
  ]);
  const en = i18nFor("en");
  const { sheetErrorText } = await import("../../scripts/foundry/rules-sheet.mjs");
  assert.deepEqual(errors.map((e) => sheetErrorText(e, en)), [
    "Health (max): must be a whole number from the minimum up to 1000",
    "Dexterity: must be a whole number from the minimum up to 1000",
    "Senses, row 1, Name: must be filled in",
    "Senses, row 1, Range: must be a number of 0 or more",
    "Anti-detection, row 1, Rank: is not one of the choices",
    "Resistances, row 1, Value: must be a whole number from the minimum up to 1000",
  ]);
});

test("slugify makes an update key of a name", () => {
  assert.equal(slugify("Potion 1.5"), "potion-1-5");
  assert.equal(slugify("St. Élmo's Fire"), "st-elmo-s-fire");
  assert.equal(slugify("-=gone"), "gone");
  assert.equal(slugify("气 (Qi)"), "气-qi");
  assert.ok(["potion-1-5", "st-elmo-s-fire", "gone"].every(isUpdateKey));
  assert.ok(!isUpdateKey("a.b") && !isUpdateKey("-=a") && !isUpdateKey("==a") && isUpdateKey("a-=b"));
});

test("the DocumentSheetV2 class is built from the injected API and submits through document.update", async () => {
  class DocumentSheetV2 {
    /** @param {any} options */
    constructor(options) {
      this.options = options;
      this.document = options.document;
    }
  }
  const Sheet = defineRulesSheet({ DocumentSheetV2, HandlebarsApplicationMixin: (base) => class extends base {} }, { localize: (k) => k, notifyError: () => {} });
  /** @type {any[]} */
  const updates = [];
  const actor = { uuid: "Actor.a", name: "Ann", flags: {}, update: async (/** @type {any} */ u) => updates.push(u) };
  const sheet = new Sheet({ document: actor });
  assert.equal(Sheet.DEFAULT_OPTIONS.tag, "form");
  assert.equal(Sheet.DEFAULT_OPTIONS.sheetConfig, false);
  assert.equal(Sheet.PARTS.form.template, "modules/vtt-bridge/templates/rules-sheet.hbs");
  const ctx = await sheet._prepareContext();
  assert.equal(ctx.actorName, "Ann");
  await Sheet.DEFAULT_OPTIONS.form.handler.call(sheet, new Event("submit"), /** @type {any} */ ({}), { object: form() });
  assert.equal(updates.length, 1);
  await assert.rejects(Sheet.DEFAULT_OPTIONS.form.handler.call(sheet, new Event("submit"), /** @type {any} */ ({}), { object: { healthMax: -1 } }));
});

test("F17: while the GM types into the rules sheet, the actor's updates (the sidecar's writes) do not re-render it away; a forced render does", async () => {
  // ApplicationV2 as its page describes it: render() builds the element (replacing its content) and
  // calls _onRender after each render; `rendered` once it is shown
  class DocumentSheetV2 {
    /** @param {any} options */
    constructor(options) {
      this.options = options;
      this.document = options.document;
      this.rendered = false;
      this.renders = 0;
      /** @type {any} */
      this.element = null;
    }
    /** @param {any} [_options] */
    async render(_options) {
      await /** @type {any} */ (this)._prepareContext();
      /** @type {Record<string, Function[]>} */
      const listeners = {};
      this.element = { addEventListener: (/** @type {string} */ n, /** @type {Function} */ fn) => (listeners[n] = [...(listeners[n] ?? []), fn]), fire: (/** @type {string} */ n) => (listeners[n] ?? []).forEach((fn) => fn()) };
      this.renders += 1;
      this.rendered = true;
      /** @type {any} */ (this)._onRender({}, {});
      return this;
    }
  }
  const Sheet = defineRulesSheet({ DocumentSheetV2, HandlebarsApplicationMixin: (base) => class extends base {} }, { localize: (k) => k, notifyError: () => {} });
  /** @type {any[]} */
  const updates = [];
  const actor = { uuid: "Actor.a", name: "Ann", flags: { "vtt-bridge": { health: { max: 7 } } }, update: async (/** @type {any} */ u) => updates.push(u) };
  const sheet = /** @type {any} */ (new Sheet({ document: actor }));
  await sheet.render({ force: true });
  assert.equal(sheet.renders, 1);
  await sheet.render(); // an update of the actor, nothing typed: re-rendered
  assert.equal(sheet.renders, 2);
  sheet.element.fire("input"); // the GM types
  /** @type {any} */ (actor.flags["vtt-bridge"]).conditions = { blinded: true }; // the sidecar writes meanwhile
  await sheet.render();
  assert.equal(sheet.renders, 2, "the typed form stays");
  await sheet.render({ force: true });
  assert.equal(sheet.renders, 3, "a forced render (the GM reopens it) rebuilds it");
  // a row added or removed (a click, no typing) is an edit in progress too
  const button = /** @type {any} */ ({ closest: () => null });
  Sheet.DEFAULT_OPTIONS.actions.addRow.call(sheet, new Event("click"), button);
  await sheet.render();
  assert.equal(sheet.renders, 3, "the added row stays");
  await sheet.render({ force: true });
  Sheet.DEFAULT_OPTIONS.actions.removeRow.call(sheet, new Event("click"), button);
  await sheet.render();
  assert.equal(sheet.renders, 4, "the removed row stays removed");
});

/** An actor with a pool, a Gauge and a priced means, as the sheet renders them. */
const ASSASSIN = Object.freeze({
  antiDetection: [{ name: "cloak", essence: "magical", rank: "C", price: "C+300" }],
  energyPools: { ki: { name: "Ki", category: "special", keyAttributes: ["RES", "COM"], max: 4, current: 3, sources: ["training"] } },
  gauges: { rage: { name: "Rage", max: null, current: 2, source: "berserker" } },
});

test("the rendered form, submitted untouched, writes nothing; every list is fields, no JSON", () => {
  const html = rulesSheetHtml(ASSASSIN, { fields: [], name: "" }, i18nFor("en"));
  assert.doesNotMatch(html, /<textarea/);
  const submitted = readForm(html);
  assert.deepEqual(parseSheetForm(submitted, ASSASSIN, { rendered: ASSASSIN }), { update: {}, errors: [] });
  assert.equal(submitted["list.energyPools.0.keyAttributes.RES"], true);
  assert.equal(submitted["list.energyPools.0.keyAttributes.STR"], false);
});

test("a pool's field edited while the sidecar spent a point: only that field is written, the spent point stays", () => {
  const submitted = { ...readForm(rulesSheetHtml(ASSASSIN, { fields: [], name: "" }, i18nFor("en"))), "list.energyPools.0.name": "Chi", "list.energyPools.0.keyAttributes.STR": true };
  const now = { ...structuredClone(ASSASSIN), energyPools: { ki: { ...ASSASSIN.energyPools.ki, current: 1 } } };
  const { update, errors } = parseSheetForm(submitted, now, { rendered: ASSASSIN });
  assert.deepEqual(errors, []);
  assert.deepEqual(update, { "flags.vtt-bridge.energyPools.ki.name": "Chi", "flags.vtt-bridge.energyPools.ki.keyAttributes": ["STR", "RES", "COM"] });
});

test("an edited row keeps what the form does not show (a price, a pool's sources); a removed pool is deleted; a new one gets an id from its name", () => {
  const form = readForm(rulesSheetHtml(ASSASSIN, { fields: [], name: "" }, i18nFor("en")));
  form["list.antiDetection.0.rank"] = "B";
  for (const key of Object.keys(form)) if (key.startsWith("list.energyPools.0.")) delete form[key];
  Object.assign(form, { "list.energyPools.3.name": "Potion 1.5", "list.energyPools.3.category": "general", "list.energyPools.3.region": "both", "list.energyPools.3.current": "2", "list.energyPools.3.max": "2", "list.energyPools.3.keyAttributes.INT": true });
  const { update, errors } = parseSheetForm(form, ASSASSIN, { rendered: ASSASSIN });
  assert.deepEqual(errors, []);
  assert.deepEqual(update["flags.vtt-bridge.antiDetection"], [{ name: "cloak", essence: "magical", rank: "B", price: "C+300" }]);
  assert.equal(update["flags.vtt-bridge.energyPools.-=ki"], null);
  assert.deepEqual(update["flags.vtt-bridge.energyPools.potion-1-5"], { name: "Potion 1.5", category: "general", region: "both", current: 2, max: 2, keyAttributes: ["INT"] });
});

test("a pool id Foundry would split, or one used twice, is refused with a suggestion", () => {
  const form = { "list.energyPools._present": "1", "list.energyPools.0.id": "k.i", "list.energyPools.0.name": "Ki", "list.energyPools.0.category": "special", "list.energyPools.0.current": "1", "list.energyPools.0.max": "1",
    "list.energyPools.1.id": "", "list.energyPools.1.name": "K I", "list.energyPools.1.category": "special", "list.energyPools.1.current": "1", "list.energyPools.1.max": "1",
    "list.energyPools.2.id": "k-i", "list.energyPools.2.name": "Ki again", "list.energyPools.2.category": "special", "list.energyPools.2.current": "1", "list.energyPools.2.max": "1" };
  const { errors } = parseSheetForm(form, {}, ["health", "willpower", "speed", "attributes", "skills"]);
  assert.deepEqual(errors.map((e) => [e.field, e.problem, e.cell?.suggestion]), [["list.energyPools.0.id", "key", "k-i"], ["list.energyPools.2.id", "duplicate", undefined]]);
});

test("what the sheet's lists write is what the real sidecar takes: a sync of it, then fire damage meets the weakness the GM added", async () => {
  const { sidecarRulings } = await import("../helpers/sidecar.mjs");
  const { parseLists } = await import("../../scripts/core/rules-form.mjs");
  const form = readForm(rulesSheetHtml(ASSASSIN, { fields: [], name: "" }, i18nFor("en")));
  Object.assign(form, { "list.iwrWeaknesses.0.type": "fire", "list.iwrWeaknesses.0.value": "2", "list.immunities.0.kind": "condition", "list.immunities.0.subject": "blinded", "list.immunities.0.rank": "C" });
  Object.assign(form, { "list.detection.5.name": "darkvision", "list.detection.5.sense": "sight", "list.detection.5.essence": "magical", "list.detection.5.rank": "D", "list.detection.5.capability": "pinpoint", "list.detection.5.range": "18" });
  const { values, errors } = parseLists(form, ASSASSIN);
  assert.deepEqual(errors, []);
  const actor = {
    name: "Assassin",
    health: { max: 7 },
    detection: values.detection,
    antiDetection: values.antiDetection,
    immunities: values.immunities,
    iwr: { immunities: values.iwrImmunities, weaknesses: values.iwrWeaknesses, resistances: values.iwrResistances },
    energyPools: values.energyPools,
    gauges: values.gauges,
  };
  const state = { scene: { id: "s", round: 1, gridSize: 100 }, actors: { "Actor.x": actor }, tokens: { t: { actor: "Actor.x", x: 0, y: 0 } } };
  const [ruling] = await sidecarRulings(state, [{ kind: "damage", target: "Actor.x", instances: [{ amount: 1, grade: "L", type: "fire" }] }]);
  assert.ok(!ruling.error, JSON.stringify(ruling));
  assert.ok(ruling.log.some((/** @type {any} */ step) => step.rule === "IWR-6"), JSON.stringify(ruling.log.map((/** @type {any} */ s) => s.rule)));
  assert.equal(ruling.patch.find((/** @type {any} */ op) => op.path === "/actors/Actor.x/health/lethal")?.value, 3, "1 fire + weakness 2");
});

test("the sheet's choices are the sidecar's own enumerations, each with a word in every language", async () => {
  const { execFileSync } = await import("node:child_process");
  const { sidecarPython } = await import("../helpers/sidecar.mjs");
  const { LANGS, langs, lookup } = await import("../helpers/i18n.mjs");
  const form = await import("../../scripts/core/rules-form.mjs");
  const script = [
    "import json",
    "from vtt_bridge.rules.detection import Essence, Sense, Capability",
    "from vtt_bridge.rules.energy import PoolCategory, Region",
    "from vtt_bridge.rules.immunities import ImmunityKindId",
    "from vtt_bridge.rules.ranks import Rank",
    "from vtt_bridge.rules.damage import DamageType",
    "print(json.dumps({n: [m.value for m in e] for n, e in dict(Sense=Sense, Essence=Essence, Capability=Capability, PoolCategory=PoolCategory, Region=Region, ImmunityKindId=ImmunityKindId, Rank=Rank, DamageType=DamageType).items()}))",
  ].join("\n");
  const known = JSON.parse(execFileSync(sidecarPython(), ["-c", script], { encoding: "utf8" }));
  assert.deepEqual([...form.SENSES], known.Sense);
  assert.deepEqual([...form.ESSENCES], known.Essence);
  assert.deepEqual([...form.CAPABILITIES], known.Capability);
  assert.deepEqual([...form.POOL_CATEGORIES], known.PoolCategory);
  assert.deepEqual([...form.REGIONS], known.Region);
  assert.deepEqual([...form.IMMUNITY_KINDS], known.ImmunityKindId);
  assert.deepEqual([...form.RANKS], known.Rank);
  assert.deepEqual([...form.IWR_TYPES].sort(), [...known.DamageType].sort());
  for (const lang of LANGS) {
    for (const spec of form.LISTS) {
      assert.ok(lookup(langs[lang], `VTTBRIDGE.Sheet.List.${spec.list}`) && lookup(langs[lang], `VTTBRIDGE.Sheet.Add.${spec.list}`), `${lang}: ${spec.list}`);
      for (const column of spec.columns) {
        assert.ok(lookup(langs[lang], `VTTBRIDGE.Sheet.Column.${column.key}`), `${lang}: column ${column.key}`);
        for (const option of column.options ?? []) assert.ok(lookup(langs[lang], `${column.labels}.${option}`), `${lang}: ${column.labels}.${option}`);
      }
    }
  }
});
