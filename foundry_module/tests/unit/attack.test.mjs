import assert from "node:assert/strict";
import { test } from "node:test";

import { attackMissed, attackMode, damageActions, damageSends, guessSquare, iwrChanges, targetLabel } from "../../scripts/core/attack.mjs";
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

test("DET-10 guessSquare inside the scene's rectangle (Foundry's sceneRect, inside the padding); the squares count from the canvas origin", () => {
  const rect = { x: 200, y: 100, width: 1000, height: 800, size: 100 };
  assert.deepEqual(guessSquare({ x: 250, y: 120 }, rect), { x: 200, y: 100, center: { x: 250, y: 150 } });
  assert.equal(guessSquare({ x: 150, y: 120 }, rect), null, "in the padding, left of the scene");
  assert.equal(guessSquare({ x: 1200, y: 120 }, rect), null, "right edge: outside");
  assert.deepEqual(guessSquare({ x: 1199, y: 899 }, rect)?.center, { x: 1150, y: 850 });
});

test("asBatches: one damage alone as it is; several as batches of at most 64; other kinds untouched", async () => {
  const { asBatches, BATCH_LIMIT } = await import("../../scripts/core/attack.mjs");
  const one = { kind: "damage", target: "Actor.a", instances: [{ amount: 1, grade: "B" }] };
  assert.deepEqual(asBatches([one]), [one]);
  assert.deepEqual(asBatches([]), []);
  assert.deepEqual(asBatches([one, one]), [{ kind: "batch", actions: [one, one] }]);
  const many = asBatches(Array.from({ length: BATCH_LIMIT + 1 }, () => one));
  assert.deepEqual(many.map((b) => /** @type {any} */ (b).actions.length), [BATCH_LIMIT, 1]);
  const heal = { kind: "heal", target: "Actor.a", amount: 1 };
  assert.deepEqual(asBatches([heal, heal]), [heal, heal]);
});

test("attackerFor: the one controlled token the user owns; none, several or another's: a clear refusal", async () => {
  const { attackerFor } = await import("../../scripts/core/attack.mjs");
  assert.deepEqual(attackerFor({ controlled: [{ id: "t1", owned: true }], isGM: false }), { token: "t1" });
  assert.deepEqual(attackerFor({ controlled: [], isGM: false }), { error: "NoAttacker" });
  assert.deepEqual(attackerFor({ controlled: [{ id: "t1", owned: true }, { id: "t2", owned: true }], isGM: false }), { error: "ManyAttackers" });
  assert.deepEqual(attackerFor({ controlled: [{ id: "t9", owned: false }], isGM: false }), { error: "NotYours" }, "guessing by a token the user does not control");
  assert.deepEqual(attackerFor({ controlled: [{ id: "t9", owned: false }], isGM: true }), { token: "t9" }, "a GM attacks with any token");
});

test("attackFromForm and squareAttack: the dialog's counts; the damage at a square names no target and no token", async () => {
  const { attackFromForm, squareAttack } = await import("../../scripts/core/attack.mjs");
  assert.deepEqual(attackFromForm({ successes: "4", extraSuccesses: "1", effectPoints: "0" }, "tMe"), { attacker: "tMe", successes: 4, extraSuccesses: 1 });
  assert.equal(attackFromForm({ successes: "" }, "tMe"), null);
  assert.throws(() => attackFromForm({ successes: "-1" }, "tMe"), TypeError);
  assert.throws(() => attackFromForm({ successes: "2.5" }, "tMe"), TypeError);
  const instances = [{ amount: 6, grade: /** @type {const} */ ("L") }];
  assert.deepEqual(squareAttack({ attacker: "tMe", successes: 3 }, instances, { x: 250, y: 150 }), {
    kind: "damage",
    instances,
    attack: { attacker: "tMe", successes: 3, guess: { x: 250, y: 150 } },
  });
  assert.throws(() => squareAttack({ attacker: "tMe", successes: 3 }, [], { x: 1, y: 1 }), TypeError);
});

test("pickEvent: armed, a left click in the scene attacks its square's centre; outside: an error, still armed; Escape or a right click cancels", async () => {
  const { armPick, PICK_IDLE, pickEvent } = await import("../../scripts/core/attack.mjs");
  const scene = { x: 0, y: 0, width: 1000, height: 800, size: 100 };
  const armed = armPick({ attacker: "tMe", successes: 2 }, [{ amount: 4, grade: "L" }]);
  const hit = pickEvent(armed, { type: "pointer", button: 0, point: { x: 321, y: 456 } }, scene);
  assert.equal(hit.state.armed, false, "one click");
  assert.deepEqual(hit.outcome?.kind === "attack" && hit.outcome.action.attack, { attacker: "tMe", successes: 2, guess: { x: 350, y: 450 } });
  const outside = pickEvent(armed, { type: "pointer", button: 0, point: { x: 1500, y: 10 } }, scene);
  assert.deepEqual(outside, { state: armed, outcome: { kind: "outside" } });
  assert.deepEqual(pickEvent(armed, { type: "key", key: "Escape" }, scene), { state: PICK_IDLE, outcome: { kind: "cancel" } });
  assert.deepEqual(pickEvent(armed, { type: "pointer", button: 2, point: { x: 5, y: 5 } }, scene), { state: PICK_IDLE, outcome: { kind: "cancel" } });
  assert.deepEqual(pickEvent(armed, { type: "key", key: "a" }, scene), { state: armed, outcome: null });
  assert.deepEqual(pickEvent(armed, { type: "pointer", button: 1, point: { x: 5, y: 5 } }, scene), { state: armed, outcome: null });
  assert.deepEqual(pickEvent(PICK_IDLE, { type: "pointer", button: 0, point: { x: 5, y: 5 } }, scene), { state: PICK_IDLE, outcome: null });
});

test("the GM's card of a batch: per target each instance's total (12 fire → 7) and the steps that changed it; a miss says so", async () => {
  const { batchItems, instanceTotals, renderBatchSummary } = await import("../../scripts/core/batch-card.mjs");
  const { i18nFor } = await import("../helpers/i18n.mjs");
  const log = [
    { rule: "BATCH", key: "BATCH.item", text: "item 1 of 2", data: { index: 0, number: 1, count: 2, kind: "damage", target: "Actor.a" } },
    { rule: "IWR-8", text: "instance 0: 12 fire (L, unranked)", data: { index: 0, type: "fire", amount: 12, grade: "L", rank: "unranked", actor: "Actor.a" } },
    { rule: "IWR-7", text: "resistance to fire 5: 12 - 5 = 7", data: { index: 0, resistance: "fire", value: 5, before: 12, after: 7, actor: "Actor.a" } },
    { rule: "IWR-8", text: "instance 0 deals 7 fire", data: { index: 0, type: "fire", amount: 7, actor: "Actor.a" } },
    { rule: "BATCH", key: "BATCH.item", text: "item 2 of 2", data: { index: 1, number: 2, count: 2, kind: "damage", target: "Actor.b" } },
    { rule: "DET-4", text: "tMe locates tB: unlocated", data: { locate: "unlocated" } },
    { rule: "DET-10", key: "DET-10.guessWrong", text: "the guessed square is wrong: the attack misses", data: { attacker: "Actor.me", target: "Actor.b", guessed: true, right: false } },
  ];
  const items = batchItems(log);
  assert.deepEqual(items.map((i) => [i.target, i.steps.length]), [["Actor.a", 3], ["Actor.b", 2]]);
  assert.deepEqual(instanceTotals(items[0].steps), [{ index: 0, type: "fire", from: 12, to: 7 }]);
  const html = renderBatchSummary(log, i18nFor("en"), (id) => ({ "Actor.a": "Ogre", "Actor.b": "Ghoul" })[id]);
  assert.match(html, /<h4>Ogre<\/h4><ul><li class="vtt-bridge-batch-total">12 fire → 7<\/li><\/ul><ol class="vtt-bridge-steps"><li class="vtt-bridge-step" data-rule="IWR-7"/);
  assert.match(html, /<h4>Ghoul<\/h4><ul><li class="vtt-bridge-batch-missed">missed<\/li><\/ul>/);
  assert.match(html, /Damage to 2 targets/);
  assert.equal(renderBatchSummary(log.slice(1, 4), i18nFor("en"), () => undefined), "", "no batch: no summary");
});

test("damageSends: several targets one batch, one target the damage itself, no target at all NoTargets (a guessed square excepted), other kinds as they are", () => {
  const instances = [{ amount: 3, grade: "L" }];
  const card = { kind: "damage", instances };
  const two = [{ actor: "Actor.a", token: "tA" }, { actor: "Actor.b", token: "tB" }];
  assert.deepEqual(damageSends(card, two), {
    actions: [{ kind: "batch", actions: [{ kind: "damage", target: "Actor.a", instances }, { kind: "damage", target: "Actor.b", instances }] }],
  });
  assert.deepEqual(damageSends(card, [two[0]]), { actions: [{ kind: "damage", target: "Actor.a", instances }] });
  assert.deepEqual(damageSends(card, []), { error: "NoTargets" });
  assert.deepEqual(damageSends({ ...card, target: "Actor.c" }, []), { actions: [{ ...card, target: "Actor.c" }] });
  const square = { ...card, attack: { attacker: "tA", successes: 2, guess: { x: 150, y: 150 } } };
  assert.deepEqual(damageSends(square, []), { actions: [square] });
  const reveal = { kind: "approveReveal", observer: "tA", target: "tB", accept: true };
  assert.deepEqual(damageSends(reveal, []), { actions: [reveal] });
  assert.throws(() => damageSends({ ...card, attack: { attacker: "tA", successes: 1 } }, [{ actor: "Actor.a" }]), /has no token/);
});
