/**
 * The rules sheet beside a game system: the fields the system holds are read-only there (shown
 * disabled, so not submitted) and never written from the sheet; the others stay ours.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { parseSheetForm, rulesSheetHtml, sheetContext } from "../../../scripts/foundry/rules-sheet.mjs";
import { readForm } from "../../helpers/form-reader.mjs";
import { i18nFor } from "../../helpers/i18n.mjs";
import { ADAPTERS } from "../../../scripts/systems/index.mjs";

const template = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "templates", "rules-sheet.hbs"), "utf8");

test("sheetContext marks the fields the system holds", () => {
  const [mta] = ADAPTERS;
  const ctx = sheetContext({ health: { max: 8 } }, { fields: mta.fields, name: mta.id });
  assert.deepEqual(ctx.fromSystem, { attributes: true, skills: true, health: true, willpower: true, speed: true });
  assert.equal(ctx.systemName, "mta");
  assert.equal(ctx.healthMax, 8, "the value shown is the one the system sent");
  assert.deepEqual(sheetContext({}).fromSystem, {}, "without a system every field is ours");
});

test("parseSheetForm: a form without the disabled (system) inputs writes only our fields, with no error", () => {
  const submitted = { "list.immunities._present": "1", "list.immunities.0.kind": "poison", "list.immunities.0.rank": "unranked", "list.iwrImmunities._present": "1" };
  const { update, errors } = parseSheetForm(submitted, {}, ["attributes", "skills", "health", "willpower", "speed"]);
  assert.deepEqual(errors, []);
  assert.deepEqual(Object.keys(update).sort(), ["flags.vtt-bridge.immunities", "flags.vtt-bridge.iwr.immunities"]);
  // without a system, the same form lacks required fields: the sheet refuses it
  assert.ok(parseSheetForm(submitted).errors.some((e) => e.field === "healthMax"));
  // a generic mapping that holds only Health: Willpower and the rest stay editable
  const mixed = parseSheetForm({ willpowerMax: "3", speed: "4", ...Object.fromEntries(["STR", "DEX", "STA", "INT", "PER", "RES", "PRE", "MAN", "COM"].map((a) => [`attributes.${a}`, "2"])), "skills.investigation": "1", "skills.stealth": "0" }, {}, ["health"]);
  assert.deepEqual(mixed.errors, []);
  assert.equal(mixed.update["flags.vtt-bridge.health.max"], undefined);
  assert.equal(mixed.update["flags.vtt-bridge.willpower.max"], 3);
});

test("the sheet disables each system-held input and says where it comes from", () => {
  const [mta] = ADAPTERS;
  const html = rulesSheetHtml({}, { fields: mta.fields, name: mta.id }, i18nFor("en"));
  for (const name of ["healthMax", "willpowerMax", "speed", "attributes.STR", "skills.stealth"]) assert.match(html, new RegExp(`name="${name.replace(".", "\\.")}"[^>]*disabled title="[^"]*mta`), name);
  assert.match(html, /class="hint from-system"/);
  const submitted = readForm(html);
  assert.ok(!("healthMax" in submitted) && !("attributes.STR" in submitted), "a disabled field is not submitted");
  assert.deepEqual(parseSheetForm(submitted, {}, { fromSystem: mta.fields, rendered: {} }), { update: {}, errors: [] });
  assert.match(template, /\{\{\{body\}\}\}/, "the template shows the sheet's form");
});
