import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { statusForCondition } from "../../scripts/core/apply-patch.mjs";
import { statusEffectIds } from "../../scripts/foundry/compat.mjs";
import { addStatusEffects, CONDITION_ICONS, missingStatusEffects, SIDECAR_CONDITIONS } from "../../scripts/foundry/status-effects.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Core v13's status effect ids (public docs: CONFIG.statusEffects). */
const CORE_IDS = ["dead", "unconscious", "sleep", "stun", "prone", "restrain", "paralysis", "fly", "blind", "deaf", "silence", "fear", "burning", "frozen", "shock", "corrode", "bleeding", "disease", "poison", "curse", "regen", "degen", "hover", "burrow", "upgrade", "downgrade", "invisible", "target", "eye", "bless", "fireShield", "coldShield", "magicShield", "holyShield"];
const core = () => CORE_IDS.map((id) => ({ id, name: `EFFECT.Status${id}`, img: `icons/svg/${id}.svg` }));

// SIDECAR_CONDITIONS against the sidecar's Condition ids: tests/unit/schema.test.mjs.

test("only conditions with no core status (by id or alias) are added, each with a core icon and a localized name", () => {
  const added = missingStatusEffects(core());
  const ids = added.map((e) => e.id);
  for (const id of ["worsening", "dying", "annihilated", "nauseated", "petrified", "flat-footed"]) assert.ok(ids.includes(id), id);
  for (const id of ["unconscious", "dead", "blinded", "deafened", "asleep", "frozen", "prone", "silenced", "poisoned", "diseased", "cursed"]) assert.ok(!ids.includes(id), id);
  for (const effect of added) {
    assert.match(effect.img, /^icons\/svg\/[a-z-]+\.svg$/);
    assert.equal(effect.name, `VTTBRIDGE.Rules.Card.Condition.${effect.id}`);
  }
  assert.equal(CONDITION_ICONS.worsening, "icons/svg/degen.svg");
  const langs = ["en", "de", "zh-CN"].map((l) => JSON.parse(readFileSync(join(root, "lang", `${l}.json`), "utf8")));
  for (const lang of langs) for (const id of SIDECAR_CONDITIONS) assert.ok(lang.VTTBRIDGE.Rules.Card.Condition[id], id);
});

test("v12/v13 array and v14 object both get the additions; afterwards every condition has a status", () => {
  const array = core();
  const added = addStatusEffects(array, missingStatusEffects(array));
  assert.ok(added.includes("dying"));
  assert.equal(missingStatusEffects(array).length, 0);
  const object = Object.fromEntries(core().map((e) => [e.id, e]));
  addStatusEffects(object, missingStatusEffects(object));
  assert.deepEqual(object.worsening, { id: "worsening", name: "VTTBRIDGE.Rules.Card.Condition.worsening", img: "icons/svg/degen.svg" });
  for (const statuses of [array, object]) {
    const ids = statusEffectIds(statuses);
    for (const condition of SIDECAR_CONDITIONS) assert.ok(statusForCondition(condition, ids), condition);
  }
  assert.deepEqual(addStatusEffects(undefined, [{ id: "x", name: "x", img: "x" }]), []);
});
