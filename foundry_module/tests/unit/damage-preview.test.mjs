// The pure parts of "damage seen before it lands" (core/damage-preview.mjs): a roll card's Apply as
// damage row, the damage type list, and the preview rows read from the real sidecar's `preview`
// answers (a single damage, a batch with a missed attack at an empty square), in en, de and zh-CN.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyAsDamageHtml, DAMAGE_TYPES, damageTypeOf, damageTypeOptions, OTHER_TYPE, previewRows, renderPreview, rollSuccesses } from "../../scripts/core/damage-preview.mjs";
import { actionFromDialog } from "../../scripts/core/damage.mjs";
import { i18nFor, LANGS, lookup, langs } from "../helpers/i18n.mjs";
import { sidecarPython, sidecarRulings } from "../helpers/sidecar.mjs";

const STATE = {
  scene: { id: "s", round: 1, gridSize: 100, width: 2000, height: 2000 },
  actors: {
    "Actor.a": { name: "Ann", health: { max: 7 } },
    "Actor.o": { name: "Ogre", health: { max: 9 }, iwr: { weaknesses: [{ type: "cold", value: 2 }] } },
  },
  tokens: { ta: { actor: "Actor.a", x: 0, y: 0 }, to: { actor: "Actor.o", x: 300, y: 0 } },
};

test("the damage types are the sidecar's own (its DamageType), each with a word in every language, then other", async () => {
  const { execFileSync } = await import("node:child_process");
  const known = JSON.parse(execFileSync(sidecarPython(), ["-c", "import json; from vtt_bridge.rules.damage import DamageType; print(json.dumps([t.value for t in DamageType]))"], { encoding: "utf8" }));
  assert.deepEqual([...DAMAGE_TYPES].sort(), [...known].sort());
  for (const lang of LANGS) {
    for (const type of DAMAGE_TYPES) assert.ok(lookup(langs[lang], `VTTBRIDGE.Rules.Card.DamageType.${type}`), `${lang}: ${type}`);
    const options = damageTypeOptions(i18nFor(lang), "fire");
    assert.equal((options.match(/<option /g) ?? []).length, DAMAGE_TYPES.length + 1);
    assert.match(options, new RegExp(`<option value="fire" selected>${lookup(langs[lang], "VTTBRIDGE.Rules.Card.DamageType.fire")}</option>`));
    assert.match(options, /<option value="other">[^<]+<\/option>$/);
  }
  assert.equal(damageTypeOf(OTHER_TYPE), "untyped");
  assert.equal(damageTypeOf("Fire".toLowerCase()), "fire");
  assert.throws(() => damageTypeOf("holy"), TypeError, "a type the list does not offer is refused before it is sent");
  assert.deepEqual(actionFromDialog("Actor.o", { mode: "damage", amount: "3", grade: "L", type: "other" }), { kind: "damage", target: "Actor.o", instances: [{ amount: 3, grade: "L" }] });
  assert.deepEqual(actionFromDialog("Actor.o", { mode: "damage", amount: "3", grade: "L", type: "cold" }).instances, [{ amount: 3, grade: "L", type: "cold" }]);
});

test("a roll card's Apply as damage: its successes as the amount, a button per grade, worded in each language; no successes, no row", async () => {
  const [rolled, opposed] = await sidecarRulings(STATE, [
    { kind: "roll", actor: "Actor.a", pool: 10 },
    { kind: "roll", actor: "Actor.a", pool: 6, opponent: "Actor.o", opposed: { pool: 2 } },
  ]);
  const successes = rollSuccesses(rolled.log);
  assert.equal(successes, rolled.log.find((/** @type {any} */ s) => s.key === "DICE-1.result").data.successes);
  assert.equal(rollSuccesses(opposed.log), opposed.log.find((/** @type {any} */ s) => s.key === "DICE-5.opposed").data.successes);
  assert.equal(rollSuccesses([{ rule: "HEALTH-2", text: "", key: "HEALTH-2.damage", data: {} }]), null, "no roll, no successes");
  for (const lang of LANGS) {
    const html = applyAsDamageHtml(3, i18nFor(lang));
    for (const grade of ["B", "L", "A"]) {
      const action = JSON.stringify({ kind: "damage", instances: [{ amount: 3, grade }] }).replace(/"/g, "&#34;");
      assert.ok(html.includes(`data-vtt-bridge-action="${action}">${lookup(langs[lang], `VTTBRIDGE.Grade.${grade}`)}</button>`), `${lang} ${grade}`);
    }
    assert.ok(html.includes(lookup(langs[lang], "VTTBRIDGE.Preview.ApplyAsDamage")?.replace("{amount}", "3") ?? "?"), lang);
  }
  assert.equal(applyAsDamageHtml(0, i18nFor("en")), "");
  assert.equal(applyAsDamageHtml(null, i18nFor("en")), "");
});

test("the preview rows: a single damage's target, its Health after, the weakness that changed it, its status; a batch's rows in order, a miss at an empty square", async () => {
  const cold = { kind: "damage", target: "Actor.o", instances: [{ amount: 4, grade: "L", type: "cold" }] };
  const miss = { kind: "damage", instances: [{ amount: 4, grade: "L" }], attack: { attacker: "ta", successes: 3, guess: { x: 1500, y: 1500 } } };
  const [single, batch] = await sidecarRulings(STATE, [
    { query: { kind: "preview", action: cold } },
    { query: { kind: "preview", action: { kind: "batch", actions: [cold, { ...cold, target: "Actor.a" }, miss] } } },
  ]);
  const [ogre] = previewRows(single.data.log, "Actor.o");
  assert.equal(ogre.target, "Actor.o");
  assert.equal(ogre.missed, false);
  assert.deepEqual(ogre.totals, [{ type: "cold", from: 4, to: 6 }], "weakness 2 adds");
  assert.deepEqual(ogre.health, { max: 9, healthy: 3, bashing: 0, lethal: 6, aggravated: 0 });
  assert.ok(ogre.changes.some((s) => s.key === "IWR-6.weakness"), "the weakness step is listed");
  assert.equal(typeof ogre.status, "string");
  const rows = previewRows(batch.data.log);
  assert.deepEqual(rows.map((r) => [r.target, r.missed]), [["Actor.o", false], ["Actor.a", false], [null, true]]);
  assert.deepEqual(rows[1].health, { max: 7, healthy: 3, bashing: 0, lethal: 4, aggravated: 0 });
  for (const lang of LANGS) {
    const html = renderPreview(rows, i18nFor(lang), (id) => ({ "Actor.o": "Ogre", "Actor.a": "Ann" })[/** @type {"Actor.o"} */ (id)]);
    assert.ok(html.includes(`<td class="num">3/9</td><td class="num">0</td><td class="num">6</td><td class="num">0</td>`), lang);
    assert.ok(html.includes(lookup(langs[lang], "VTTBRIDGE.Batch.Missed") ?? "?"), `${lang}: the miss`);
    assert.ok(html.includes(lookup(langs[lang], "VTTBRIDGE.Batch.Nobody") ?? "?"), `${lang}: nobody at the square`);
    assert.doesNotMatch(html, /VTTBRIDGE\./, `${lang}: every key has its words`);
  }
});
