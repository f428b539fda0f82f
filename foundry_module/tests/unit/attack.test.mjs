import assert from "node:assert/strict";
import { test } from "node:test";

import { attackMissed, attackMode, damageActions, guessSquare, iwrChanges, targetLabel } from "../../scripts/core/attack.mjs";
import { cardAudience } from "../../scripts/core/chat-cards.mjs";
import { presentationFor } from "../../scripts/core/visibility.mjs";

test("DET-10 attackMode: pinpointed or no ruling as Foundry does; approximate at the silhouette; unlocated at a guessed square", () => {
  assert.equal(attackMode("pinpointed"), "direct");
  assert.equal(attackMode(null), "direct");
  assert.equal(attackMode("approximate"), "silhouette");
  assert.equal(attackMode("unlocated"), "guess");
});

test("DET-10 a player's silhouette target: targetable, and nothing names it: no name, bars, effects, disposition, tracker row, core marker", () => {
  const p = /** @type {Record<string, any>} */ (presentationFor({ state: "approximate", isGM: false }));
  assert.equal(p.targetable, true);
  for (const field of ["name", "bars", "effects", "tooltip", "art", "targetMarkers", "inCombatTracker", "hud", "view"]) assert.equal(p[field], false, field);
  assert.equal(p.border, "neutral", "no disposition colour");
  assert.equal(targetLabel({ name: "Thief", identityHidden: p.identityHidden, isGM: false, someone: "Someone" }), "Someone");
  assert.equal(targetLabel({ name: "Thief", identityHidden: p.identityHidden, isGM: true, someone: "Someone" }), "Thief", "the GM knows");
  assert.equal(presentationFor({ state: "unlocated", isGM: false }).targetable, false, "an unlocated token is attacked at a square, never targeted");
  // the damage card of such an attack carries DET steps: whispered to the GM whatever the setting
  const log = [
    { rule: "DET-4", text: "tokA locates tokT: approximate", data: { locate: "approximate" } },
    { rule: "DET-10", text: "the damage counts half: 6 → 3", data: { before: [6], after: [3] } },
    { rule: "IWR-8", text: "instance 0 deals 3 fire", data: { index: 0, amount: 3 } },
  ];
  assert.equal(cardAudience({ log, mode: "public", named: ["Actor.thief"] }), "gm");
});

test("DET-10 guessSquare: the square a click falls in; outside the scene none", () => {
  const scene = { width: 1000, height: 800, size: 100 };
  assert.deepEqual(guessSquare({ x: 250, y: 120 }, scene), { x: 200, y: 100, center: { x: 250, y: 150 } });
  assert.deepEqual(guessSquare({ x: 0, y: 0 }, scene), { x: 0, y: 0, center: { x: 50, y: 50 } });
  for (const point of [{ x: -1, y: 5 }, { x: 1000, y: 5 }, { x: 5, y: 800 }, { x: NaN, y: 5 }]) assert.equal(guessSquare(point, scene), null, JSON.stringify(point));
  assert.equal(guessSquare({ x: 5, y: 5 }, { ...scene, size: 0 }), null);
});

test("damageActions: one damage per target, in order, each with its own attack and guess", () => {
  const instances = [{ amount: 12, grade: /** @type {const} */ ("L"), type: "fire" }];
  const actions = damageActions(
    [
      { actor: "Actor.a", token: "tA" },
      { actor: "Actor.b", token: "tB", guess: { x: 350, y: 150 } },
    ],
    instances,
    { attacker: "tMe", successes: 4, extraSuccesses: 1 },
  );
  assert.deepEqual(actions, [
    { kind: "damage", target: "Actor.a", instances, attack: { attacker: "tMe", token: "tA", successes: 4, extraSuccesses: 1 } },
    { kind: "damage", target: "Actor.b", instances, attack: { attacker: "tMe", token: "tB", successes: 4, extraSuccesses: 1, guess: { x: 350, y: 150 } } },
  ]);
  assert.deepEqual(damageActions([{ actor: "Actor.a" }, { actor: "Actor.b" }], instances), [
    { kind: "damage", target: "Actor.a", instances },
    { kind: "damage", target: "Actor.b", instances },
  ]);
  assert.throws(() => damageActions([], instances), TypeError);
  assert.throws(() => damageActions([{ actor: "Actor.a" }], instances, { attacker: "tMe", successes: 1 }), /no token/);
});

test("iwrChanges: only the steps that changed the amount (12 fire → 7: resistance 5, IWR-7); attackMissed reads DET-10's guess", () => {
  const log = [
    { rule: "IWR-8", text: "instance 0: 12 fire (L, unranked)", data: { index: 0, type: "fire", amount: 12 } },
    { rule: "IWR-7", text: "resistance to fire 5: 12 - 5 = 7", data: { index: 0, resistance: "fire", value: 5, before: 12, after: 7 } },
    { rule: "IWR-7", text: "resistance to cold 0", data: { index: 0, before: 7, after: 7 } },
    { rule: "IWR-8", text: "instance 0 deals 7 fire", data: { index: 0, amount: 7 } },
    { rule: "HEALTH-2", text: "7 L", data: { lethal: 7 } },
  ];
  assert.deepEqual(iwrChanges(log), [log[1]]);
  const missed = [{ rule: "DET-10", text: "the guessed square is wrong: the attack misses", key: "DET-10.guessWrong", data: { attacker: "tMe", target: "tB", guessed: true, right: false } }];
  assert.equal(attackMissed(missed), true);
  assert.deepEqual(iwrChanges(missed), missed);
  assert.equal(attackMissed(log), false);
});

test("batchTargets: a player's targets; a GM's selection, else targets; none: the dialog's own actor", async () => {
  const { batchTargets, retarget } = await import("../../scripts/core/attack.mjs");
  const targeted = [{ id: "t1", actor: "Actor.a" }, { id: "t2", actor: "Actor.b" }, { id: "t3", actor: undefined }];
  const controlled = [{ id: "c1", actor: "Actor.c" }];
  const fallback = { actor: "Actor.z" };
  assert.deepEqual(batchTargets({ isGM: false, targeted, controlled, fallback }), [
    { actor: "Actor.a", token: "t1" },
    { actor: "Actor.b", token: "t2" },
  ]);
  assert.deepEqual(batchTargets({ isGM: true, targeted, controlled, fallback }), [{ actor: "Actor.c", token: "c1" }]);
  assert.deepEqual(batchTargets({ isGM: true, targeted, controlled: [], fallback }).length, 2);
  assert.deepEqual(batchTargets({ isGM: false, targeted: [], controlled, fallback }), [fallback]);
  assert.deepEqual(batchTargets({ isGM: false, targeted: [], controlled: [], fallback: null }), []);
  const card = { kind: "damage", target: "Actor.z", instances: [{ amount: 3, grade: "B" }] };
  assert.deepEqual(retarget(card, [{ actor: "Actor.a", token: "t1" }, { actor: "Actor.b", token: "t2" }]), [
    { kind: "damage", target: "Actor.a", instances: card.instances },
    { kind: "damage", target: "Actor.b", instances: card.instances },
  ]);
  const heal = { kind: "heal", target: "Actor.z", amount: 1 };
  assert.deepEqual(retarget(heal, [{ actor: "Actor.a" }]), [heal]);
});
