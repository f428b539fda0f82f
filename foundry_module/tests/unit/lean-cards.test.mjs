// A ruling whose message the sidecar cut (issue 33: the first 60 steps and 10 rolls, with a
// `summary` counting all of them): its card counts what it does not list, stays the GMs' when a
// left-out step is a detection step, and reads the rest through `query {kind: "ruling"}` only when
// the GM asks for them (the card's "all steps"), or when the module acts on them (the held reveals,
// which come last; a batch's per-target totals).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardAudience, heldRange, MAX_CARD_ROLLS, MAX_CARD_STEPS, readRuling, RULING_PAGE, summaryOf } from "../../scripts/core/chat-cards.mjs";
import { installChatCards } from "../../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "../helpers/chat-globals.mjs";
import { FakeElement } from "../helpers/fake-dom.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

const MODULE = "vtt-bridge";

/** @param {number} i */
const step = (i) => ({ rule: "HEALTH-2", text: `step ${i}`, data: { amount: i, grade: "B" }, key: "HEALTH-2.damage" });
/** @param {number} i */
const roll = (i) => ({ pool: 3, again: 10, dice: [1 + (i % 10), 2, 3], successes: 0 });

/**
 * A sidecar's store of whole rulings, answering the `ruling` query as docs/protocol.md says: steps
 * and rolls `offset` to `offset + limit - 1`, the totals in `data`.
 * @param {Record<string, {log: any[], rolls: any[]}>} rulings
 */
function fakeConnection(rulings) {
  /** @type {Record<string, Function[]>} */
  const listeners = {};
  /** @type {{kind: string, action: string, offset: number, limit: number}[]} */
  const queries = [];
  return {
    status: "open",
    queries,
    /** @param {string} name @param {Function} fn */
    on(name, fn) {
      (listeners[name] ??= []).push(fn);
    },
    /** @param {string} name @param {any} event */
    async emit(name, event) {
      for (const fn of listeners[name] ?? []) await fn(event);
    },
    async action() {
      return { rev: 0 };
    },
    /** @param {any} query */
    async query(query) {
      queries.push(query);
      assert.equal(query.kind, "ruling");
      assert.ok(Number.isSafeInteger(query.limit) && query.limit >= 1 && query.limit <= 1000, "a limit the sidecar takes");
      const whole = rulings[query.action];
      if (!whole) throw new Error("not_found");
      const { offset, limit } = query;
      return { rev: 9, patch: [], log: whole.log.slice(offset, offset + limit), rolls: whole.rolls.slice(offset, offset + limit), data: { steps: whole.log.length, rolls: whole.rolls.length } };
    },
  };
}

/** @param {Record<string, {log: any[], rolls: any[]}>} rulings @param {string} [mode] */
function setUp(rulings, mode = "public") {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("p1", "Player");
  /** @type {string[]} */
  const notices = [];
  installChatGlobals(world, notices);
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: () => mode });
  world.keybindings.initialized = true;
  const connection = fakeConnection(rulings);
  world.hooks.callAll(`${MODULE}.connection`, connection);
  return { world, connection, notices };
}

/**
 * The message the sidecar sends of a whole ruling: cut as it cuts it, with its summary.
 * @param {{log: any[], rolls: any[]}} whole @param {string} id @param {string} kind
 */
function cutEvent(whole, id, kind) {
  /** @type {Record<string, number>} */
  const keys = {};
  for (const s of whole.log) keys[s.key] = (keys[s.key] ?? 0) + 1;
  return {
    rev: 9,
    log: whole.log.slice(0, MAX_CARD_STEPS),
    rolls: whole.rolls.slice(0, MAX_CARD_ROLLS),
    summary: { steps: whole.log.length, rolls: whole.rolls.length, keys },
    source: "patch",
    action: id,
    kind,
  };
}

test("a cut ruling's card counts what it leaves out; its 'all steps' reads every step and roll in pages, in order, when clicked", async (t) => {
  t.after(clearChatGlobals);
  const whole = { log: Array.from({ length: 1234 }, (_, i) => step(i)), rolls: Array.from({ length: 25 }, (_, i) => roll(i)) };
  const { world, connection } = setUp({ "big-1": whole });
  await connection.emit("log", cutEvent(whole, "big-1", "damage"));
  assert.equal(connection.queries.length, 0, "nothing is read before the GM asks");
  const card = world.messages.get("msg1");
  assert.ok(card);
  assert.deepEqual(card.getFlag(MODULE, "ruling"), { id: "big-1", rev: 9, kind: "damage", scene: "scene1", undone: false, steps: 1234, rolls: 25 });
  const content = String(card._source.content);
  assert.match(content, /vtt-bridge-more/);
  assert.equal((content.match(/class="vtt-bridge-step"/g) ?? []).length, MAX_CARD_STEPS);
  const root = world.renderMessage(card, FakeElement);
  const more = root.querySelectorAll(".vtt-bridge-more");
  assert.equal(more.length, 2, "steps and rolls counted");
  let button = root.querySelector(`.${MODULE}-read-steps`);
  assert.ok(button, "the GM is offered the rest");
  const box = root.querySelector(`.${MODULE}-all-steps`);
  assert.ok(box);
  for (let page = 0; button && page < 10; page += 1) {
    button.click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    button = box.querySelector(`.${MODULE}-read-steps`);
  }
  assert.equal(button, null, "the button goes once every step is listed");
  assert.deepEqual(
    connection.queries.map((q) => q.offset),
    [0, RULING_PAGE, 2 * RULING_PAGE],
  );
  const listed = box.querySelectorAll(".vtt-bridge-step");
  assert.equal(listed.length, whole.log.length);
  assert.deepEqual(
    listed.map((li) => li.textContent.replace("HEALTH-2", "")),
    whole.log.map((s) => s.text),
    "every step, in order",
  );
  assert.equal(box.querySelectorAll(".vtt-bridge-roll").length, whole.rolls.length);
});

test("a card of a ruling whose left-out steps cite a detection rule is whispered to the GMs", async (t) => {
  t.after(clearChatGlobals);
  const whole = { log: [...Array.from({ length: 70 }, (_, i) => step(i)), { rule: "DET-8", text: "contest", data: {}, key: "DET-8.contest" }], rolls: [] };
  const { world, connection } = setUp({ r: whole });
  await connection.emit("log", cutEvent(whole, "r", "damage"));
  const card = world.messages.get("msg1");
  assert.ok(card);
  assert.deepEqual(card._source.whisper, ["gm"], "whispered: a left-out step is DET-8");
  assert.equal(cardAudience({ log: whole.log.slice(0, MAX_CARD_STEPS), mode: "public" }), "public", "the cut log alone says nothing");
});

test("the held reveals a cut log left out are read from its end and asked; a batch's log is read whole for its card", async (t) => {
  t.after(clearChatGlobals);
  const held = (/** @type {string} */ observer) => ({ rule: "DET-8", text: "held", data: { held: true, observer, target: "t9", shown: "approximate" }, key: "DET-8.held" });
  const round = { log: [...Array.from({ length: 100 }, (_, i) => step(i)), held("o1"), held("o2")], rolls: [] };
  const items = Array.from({ length: 20 }, (_, i) => [
    { rule: "BATCH", text: "item", data: { target: `actor${i}` }, key: "BATCH.item" },
    ...Array.from({ length: 4 }, (_, j) => ({ rule: "IWR-8", text: "x", data: { index: 0, amount: 10 - j, type: "fire", ...(j === 0 ? { grade: "L" } : {}) }, key: "IWR-8.instance" })),
  ]).flat();
  const batch = { log: items, rolls: [] };
  const { world, connection } = setUp({ round, batch }, "gm");
  await connection.emit("log", cutEvent(round, "round", "round"));
  assert.deepEqual(connection.queries, [{ kind: "ruling", action: "round", offset: 100, limit: 2 }]);
  const reveals = [...world.messages.values()].filter((m) => String(m._source.content).includes("VTTBRIDGE.Reveal.Accept"));
  assert.equal(reveals.length, 2, "a card per held reveal");
  await connection.emit("log", cutEvent(batch, "batch", "batch"));
  assert.deepEqual(connection.queries.at(-1), { kind: "ruling", action: "batch", offset: 0, limit: items.length });
  const batchCard = [...world.messages.values()].at(-1);
  assert.ok(batchCard);
  for (let i = 0; i < 20; i += 1) assert.ok(String(batchCard._source.content).includes(`actor${i}`), `item ${i} summed`);
});

test("the pure parts: a summary read strictly, the held range, pages read until the end", async () => {
  assert.equal(summaryOf(undefined), null);
  assert.equal(summaryOf({ steps: "3", rolls: 1, keys: {} }), null);
  assert.deepEqual(summaryOf({ steps: 3, rolls: 1, keys: { "A.b": 2, bad: "x" } }), { steps: 3, rolls: 1, keys: { "A.b": 2 } });
  assert.equal(heldRange([], { steps: 80, rolls: 0, keys: {} }), null);
  assert.deepEqual(heldRange([], { steps: 80, rolls: 0, keys: { "DET-8.held": 3 } }), { from: 77, to: 80 });
  const whole = { log: Array.from({ length: 1100 }, (_, i) => step(i)), rolls: [] };
  const { query } = fakeConnection({ x: whole });
  const read = await readRuling(query, "x", 0, 1100);
  assert.deepEqual(read.log, whole.log);
});
