import assert from "node:assert/strict";
import { test } from "node:test";

import { ATTRIBUTES, defineRulesSheet, isUpdateKey, parseSheetForm, sheetContext, slugify } from "../../scripts/foundry/rules-sheet.mjs";

test("the sheet shows defaults where nothing is stored", () => {
  const ctx = sheetContext(undefined);
  assert.equal(ctx.healthMax, 7);
  assert.equal(ctx.willpowerMax, 2);
  assert.deepEqual(ctx.attributes.map((a) => a.key), ATTRIBUTES);
  assert.ok(ctx.attributes.every((a) => a.value === 1));
  assert.deepEqual(ctx.skills, [{ key: "investigation", value: 0 }, { key: "stealth", value: 0 }]);
  assert.deepEqual(JSON.parse(ctx.json.find((j) => j.key === "detection")?.text ?? ""), [
    { name: "sight", sense: "sight", essence: "natural", rank: "unranked", capability: "pinpoint", range: null },
    { name: "hearing", sense: "hearing", essence: "natural", rank: "unranked", capability: "approximate", range: null },
  ]);
});

test("the sheet shows stored flags", () => {
  const ctx = sheetContext({ health: { max: 9 }, attributes: { STR: 4 }, skills: { stealth: 3 }, iwr: { immunities: [{ type: "fire" }] } });
  assert.equal(ctx.healthMax, 9);
  assert.equal(ctx.attributes[0].value, 4);
  assert.equal(ctx.skills[1].value, 3);
  assert.deepEqual(JSON.parse(ctx.json.find((j) => j.key === "iwr")?.text ?? ""), { immunities: [{ type: "fire" }] });
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
    "json.detection": "[]",
    "json.antiDetection": '[{"name":"cloak","essence":"magical","rank":"C"}]',
    "json.immunities": "[]",
    "json.iwr": '{"immunities":[],"weaknesses":[],"resistances":[{"type":"fire","value":2}]}',
    "json.energyPools": "{}",
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
  assert.deepEqual(update["flags.vtt-bridge.iwr"], { immunities: [], weaknesses: [], resistances: [{ type: "fire", value: 2 }] }, "none stored yet: whole");
  assert.deepEqual(parseSheetForm(form(), {}).update["flags.vtt-bridge.attributes"], Object.fromEntries(ATTRIBUTES.map((a) => [a, 2])), "no attributes yet: all nine");
  assert.equal(parseSheetForm(form(), {}).update["flags.vtt-bridge.willpower.current"], 3, "new Willpower starts full");
});

test("wrong fields are all reported and nothing is written", () => {
  const bad = { ...form(), healthMax: 0, "attributes.DEX": 2.5, "json.iwr": "[]", "json.detection": "{oops" };
  const { update, errors } = parseSheetForm(bad);
  assert.deepEqual(update, {});
  assert.deepEqual(errors, [
    { field: "healthMax", problem: "integer" },
    { field: "attributes.DEX", problem: "integer" },
    { field: "json.detection", problem: "json" },
    { field: "json.iwr", problem: "shape" },
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
});
