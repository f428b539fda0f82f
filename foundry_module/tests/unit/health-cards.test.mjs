// HEALTH-6 and "who sees Health boxes" in the chat (issue 31, F14): a public ruling card about an NPC
// goes whole (boxes, IWR, dice pools) only to the users the setting lets read its Health; everyone
// else reads a line with its name and, under "Owners and GM", the rulebook's Health status word.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installChatCards } from "../../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "../helpers/chat-globals.mjs";
import { FakeRoll, FakeWorld } from "../helpers/fake-foundry.mjs";

const MODULE = "vtt-bridge";
const g = /** @type {any} */ (globalThis);

/** @param {string} health the "who sees Health boxes" setting */
async function damageCard(health) {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("p1", "Owner");
  world.addUser("p2", "Other");
  const npc = world.addActor("npc", "Ogre", { status: "badly" }, { default: 0, p1: 3 });
  world.addToken("T1", npc, 0, 0);
  installChatGlobals(world, []);
  g.Roll = FakeRoll;
  g.game.i18n.has = (/** @type {string} */ key) => key.startsWith("VTTBRIDGE.HealthTrack.Status.");
  /** @type {Record<string, unknown>} */
  const settings = { rulingCards: "public", healthVisibility: health };
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => settings[key] });
  const listeners = /** @type {Function[]} */ ([]);
  world.hooks.callAll(`${MODULE}.connection`, { status: "open", on: (/** @type {string} */ n, /** @type {Function} */ fn) => n === "log" && listeners.push(fn), query: async () => ({}) });
  const event = {
    rev: 3,
    log: [{ rule: "IWR-1", key: "IWR-1.resist", text: "resistance 2", data: { target: "T1", amount: 2 } }, { rule: "HEALTH-2", key: "HEALTH-2.damage", text: "3 L", data: { target: "T1", amount: 3, grade: "L" } }],
    rolls: [{ pool: 3, again: 10, dice: [8, 2, 9], successes: 2 }],
    action: "a1",
    kind: "damage",
    request: { type: "action", id: "a1", payload: { kind: "damage", target: "T1" } },
  };
  for (const fn of listeners) await fn(event);
  const read = (/** @type {string} */ id) => world.visibleTo(/** @type {any} */ (world.users.get(id))).map((m) => ({ content: String(m._source.content), rolls: (m._source.rolls ?? []).length }));
  return { read, gmId: world.user.id };
}

const clear = () => {
  clearChatGlobals();
  delete g.Roll;
};

test("HEALTH-6 'Owners and GM': a player who does not own the NPC reads no boxes, IWR or pool, only a line with its Health word; its owner and the GM read the whole card", async (t) => {
  t.after(clear);
  const { read, gmId } = await damageCard("owner");
  const other = read("p2");
  assert.equal(other.length, 1);
  assert.doesNotMatch(other[0].content, /resistance|3 L|HEALTH-2|IWR-1/);
  assert.equal(other[0].rolls, 0, "no dice pool");
  assert.doesNotMatch(other[0].content, /vtt-bridge-roll|vtt-bridge-die/);
  assert.match(other[0].content, /Ogre/);
  assert.match(other[0].content, /VTTBRIDGE\.HealthTrack\.Status\.badly/);
  for (const id of ["p1", gmId]) {
    const whole = read(id).filter((m) => m.content.includes("resistance 2"));
    assert.equal(whole.length, 1, `${id} reads the whole card`);
    assert.equal(whole[0].rolls, 1);
  }
});

test("HEALTH-6 'Everyone': one public card, boxes, IWR and pool for every player", async (t) => {
  t.after(clear);
  const { read } = await damageCard("everyone");
  for (const id of ["p1", "p2"]) {
    const cards = read(id);
    assert.equal(cards.length, 1);
    assert.match(cards[0].content, /resistance 2/);
    assert.equal(cards[0].rolls, 1);
  }
});

test("HEALTH-6 'GM only': the owner too reads only the line, and no Health word", async (t) => {
  t.after(clear);
  const { read } = await damageCard("gm");
  for (const id of ["p1", "p2"]) {
    const cards = read(id);
    assert.equal(cards.length, 1);
    assert.doesNotMatch(cards[0].content, /resistance|HealthTrack\.Status/);
    assert.match(cards[0].content, /Ogre/);
  }
});
