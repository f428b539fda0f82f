// The ruling cards' Undo and Redo buttons and the "undo the last ruling of this scene" shortcut
// (foundry/ruling-messages.mjs), against the strict stand-in (chat messages, flags, keybindings).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardButton, lastStandingRuling, rulingFlag, undoneBy } from "../../scripts/core/chat-cards.mjs";
import { installChatCards, UNDO_LAST_ACTION } from "../../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "../helpers/chat-globals.mjs";
import { FakeElement } from "../helpers/fake-dom.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

const MODULE = "vtt-bridge";

/** A connection the wiring follows: its `log` events, and the actions it was asked to send. */
function fakeConnection() {
  /** @type {Record<string, Function[]>} */
  const listeners = {};
  /** @type {any[]} */
  const sent = [];
  return {
    status: "open",
    sent,
    /** @param {string} name @param {Function} fn */
    on(name, fn) {
      (listeners[name] ??= []).push(fn);
    },
    /** @param {string} name @param {any} event */
    async emit(name, event) {
      for (const fn of listeners[name] ?? []) await fn(event);
    },
    /** @param {any} action */
    async action(action) {
      sent.push(action);
      return { rev: 0 };
    },
  };
}

/** @param {12|13|14} [generation] */
function setUp(generation = 13) {
  const world = new FakeWorld({ generation });
  world.addUser("p1", "Player");
  /** @type {string[]} */
  const notices = [];
  installChatGlobals(world, notices);
  // "Who sees Health boxes": everyone, so the player reads the same ruling card as the GM
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => (key === "healthVisibility" ? "everyone" : "public") });
  world.keybindings.initialized = true; // `init` is over
  const connection = fakeConnection();
  world.hooks.callAll(`${MODULE}.connection`, connection);
  return { world, connection, notices };
}

const tearDown = clearChatGlobals;

const damageLog = [{ rule: "HEALTH-2", text: "3 lethal", data: { amount: 3, grade: "L" } }];

/** @param {string} id @param {number} rev */
const damage = (id, rev) => ({ rev, log: damageLog, rolls: [], request: { type: "action", payload: { kind: "damage", target: "a" }, id } });

/** @param {string} id @param {string} action @param {number} rev @param {"undone"|"redone"} verb */
const undo = (id, action, rev, verb) => ({
  rev,
  log: [{ rule: "UNDO", text: `damage ${action} ${verb}`, data: { key: `UNDO.${verb}`, action, kind: "damage", rev: 2 } }],
  rolls: [],
  request: { type: "action", payload: { kind: verb === "undone" ? "undo" : "redo", action }, id },
});

test("a ruling card carries its ruling; the GM's Undo sends the undo, the undone card is struck through with Redo", async (t) => {
  t.after(tearDown);
  const { world, connection } = setUp();
  await connection.emit("log", damage("act-1", 2));
  const card = world.messages.get("msg1");
  assert.ok(card);
  assert.deepEqual(card.getFlag(MODULE, "ruling"), { id: "act-1", rev: 2, kind: "damage", scene: "scene1", undone: false });
  let root = world.renderMessage(card, FakeElement);
  const undoButton = root.querySelector(`.${MODULE}-undo`);
  assert.ok(undoButton, "the GM sees Undo");
  assert.equal(undoButton.textContent, "VTTBRIDGE.Rules.Card.Undo");
  assert.equal(root.querySelector(`.${MODULE}-redo`), null);
  assert.equal(undoButton.click(), true, "the click is the button's");
  assert.deepEqual(connection.sent, [{ kind: "undo", action: "act-1" }]);

  // the sidecar's answer: the undo's own card, and the undone card marked
  await connection.emit("log", undo("u-1", "act-1", 3, "undone"));
  assert.equal(card.getFlag(MODULE, "ruling.undone"), true);
  const undoCard = world.messages.get("msg2");
  assert.ok(undoCard && undoCard.getFlag(MODULE, "ruling") === undefined, "an undo's card has no Undo of its own");
  root = world.renderMessage(card, FakeElement);
  const ruling = root.querySelector(".vtt-bridge-ruling");
  assert.ok(ruling?.classList.contains(`${MODULE}-undone`), "struck through");
  assert.equal(root.querySelector(`.${MODULE}-undo`), null);
  root.querySelector(`.${MODULE}-redo`)?.click();
  assert.deepEqual(connection.sent.at(-1), { kind: "redo", action: "act-1" });
  await connection.emit("log", undo("r-1", "act-1", 4, "redone"));
  assert.equal(card.getFlag(MODULE, "ruling.undone"), false);
  assert.ok(world.renderMessage(card, FakeElement).querySelector(`.${MODULE}-undo`), "Undo again");
});

/** A ruling another client made, as the connection hands it on from a pushed patch. @param {string} action @param {number} rev */
const pushedDamage = (action, rev) => ({ rev, log: damageLog, rolls: [], source: "patch", action, kind: "damage" });

/** An undo or redo another client made, pushed. @param {string} id @param {string} action @param {number} rev @param {"undone"|"redone"} verb */
const pushedUndo = (id, action, rev, verb) => ({ ...undo(id, action, rev, verb), request: undefined, source: "patch", action: id, kind: verb === "undone" ? "undo" : "redo" });

test("a ruling another client made gets its card with Undo; an undo another client made strikes it through, with Redo", async (t) => {
  t.after(tearDown);
  const { world, connection } = setUp();
  await connection.emit("log", pushedDamage("their-hit", 7));
  const card = world.messages.get("msg1");
  assert.ok(card);
  assert.deepEqual(card.getFlag(MODULE, "ruling"), { id: "their-hit", rev: 7, kind: "damage", scene: "scene1", undone: false });
  assert.match(String(card._source.content), /data-kind="damage"/, "the pushed kind names the card");
  world.renderMessage(card, FakeElement).querySelector(`.${MODULE}-undo`)?.click();
  assert.deepEqual(connection.sent, [{ kind: "undo", action: "their-hit" }]);

  // the other client undoes it: the pushed undo updates this card, and posts no Undo of its own
  await connection.emit("log", pushedUndo("their-undo", "their-hit", 8, "undone"));
  assert.equal(card.getFlag(MODULE, "ruling.undone"), true);
  assert.equal(world.messages.get("msg2")?.getFlag(MODULE, "ruling"), undefined);
  let root = world.renderMessage(card, FakeElement);
  assert.ok(root.querySelector(".vtt-bridge-ruling")?.classList.contains(`${MODULE}-undone`), "struck through");
  assert.equal(root.querySelector(`.${MODULE}-undo`), null);
  root.querySelector(`.${MODULE}-redo`)?.click();
  assert.deepEqual(connection.sent.at(-1), { kind: "redo", action: "their-hit" });
  await connection.emit("log", pushedUndo("their-redo", "their-hit", 9, "redone"));
  root = world.renderMessage(card, FakeElement);
  assert.equal(card.getFlag(MODULE, "ruling.undone"), false);
  assert.ok(root.querySelector(`.${MODULE}-undo`) && !root.querySelector(`.${MODULE}-redo`), "standing again: Undo");
});

test("a player sees no Undo or Redo on a ruling card", async (t) => {
  t.after(tearDown);
  const { world, connection } = setUp();
  await connection.emit("log", damage("act-1", 2));
  world.loginAs("p1");
  const root = world.renderMessage(/** @type {any} */ (world.messages.get("msg1")), FakeElement);
  assert.equal(root.querySelector(`.${MODULE}-undo`), null);
  assert.equal(root.querySelector(`.${MODULE}-redo`), null);
});

test("v12: the jQuery render hook gets the same buttons", async (t) => {
  t.after(tearDown);
  const { world, connection } = setUp(12);
  await connection.emit("log", damage("act-1", 2));
  const root = world.renderMessage(/** @type {any} */ (world.messages.get("msg1")), FakeElement);
  root.querySelector(`.${MODULE}-undo`)?.click();
  assert.deepEqual(connection.sent, [{ kind: "undo", action: "act-1" }]);
});

for (const generation of /** @type {const} */ ([12, 13, 14])) test(`v${generation}: the shortcut undoes the newest standing ruling of the viewed scene, for the GM only`, async (t) => {
  t.after(tearDown);
  const { world, connection, notices } = setUp(generation);
  const registered = world.keybindings.actions.get(`${MODULE}.${UNDO_LAST_ACTION}`);
  assert.ok(registered?.restricted, "restricted to the GM");
  assert.throws(() => installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: () => "public" }), /after init/);
  assert.deepEqual(registered?.editable, [{ key: "KeyZ", modifiers: ["Alt"] }]);
  assert.equal(world.keybindings.pressKey("KeyZ", ["Alt"], world.user), true);
  assert.deepEqual(connection.sent, [], "nothing to undo yet");
  assert.deepEqual(notices, ["VTTBRIDGE.Rules.Card.NothingToUndo"]);
  await connection.emit("log", damage("act-1", 2));
  await connection.emit("log", damage("act-2", 3));
  await connection.emit("log", undo("u-2", "act-2", 4, "undone"));
  assert.equal(world.keybindings.pressKey("KeyZ", ["Alt"], { isGM: false }), false, "a player cannot");
  assert.equal(world.keybindings.pressKey("KeyZ", ["Control"], world.user), false, "Ctrl+Z is Foundry's own undo");
  assert.equal(world.keybindings.pressKey("KeyZ", [], world.user), false);
  assert.deepEqual(connection.sent, []);
  assert.equal(world.keybindings.pressKey("KeyZ", ["Alt"], world.user), true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(connection.sent, [{ kind: "undo", action: "act-1" }], "act-2 stands undone: act-1 is the last standing");
});

test("the pure decisions: which ruling a card is for, what an UNDO step undid, the last standing ruling", () => {
  const request = { type: "action", payload: { kind: "damage" }, id: "a1" };
  assert.deepEqual(rulingFlag({ rev: 5, request }, "s"), { id: "a1", rev: 5, kind: "damage", scene: "s", undone: false });
  assert.equal(rulingFlag({ rev: 5, request: { ...request, payload: { kind: "undo" } } }, "s"), null);
  assert.equal(rulingFlag({ rev: 5, request: { type: "upsert", payload: {}, id: "x" } }, "s"), null);
  assert.equal(rulingFlag({ rev: 5 }, "s"), null, "a pushed change of an earlier sidecar names no ruling");
  // pushed by another client: the patch names the ruling's action id and kind
  assert.deepEqual(rulingFlag({ rev: 6, action: "b2", kind: "heal" }, "s"), { id: "b2", rev: 6, kind: "heal", scene: "s", undone: false });
  assert.equal(rulingFlag({ rev: 6, action: "u2", kind: "redo" }, "s"), null);
  assert.equal(rulingFlag({ rev: 6, kind: "upsert" }, "s"), null, "a sync or upsert has no action id");
  assert.deepEqual(undoneBy(undo("u", "a1", 3, "redone").log), { action: "a1", undone: false });
  assert.equal(undoneBy(damageLog), null);
  assert.equal(cardButton({ id: "a", rev: 1 }, false), null);
  assert.equal(cardButton({ id: "a", rev: 1, undone: true }, true)?.mode, "redo");
  const flags = [
    { id: "a", rev: 2, scene: "s" },
    { id: "b", rev: 4, scene: "other" },
    { id: "c", rev: 3, scene: "s", undone: true },
    null,
  ];
  assert.equal(lastStandingRuling(flags, "s")?.id, "a");
  assert.equal(lastStandingRuling(flags, "none"), null);
});
