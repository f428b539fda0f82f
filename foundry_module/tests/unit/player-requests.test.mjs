// Item 5 of issue 14: a player's click reaches the bridge and is answered, on the strict stand-in's
// network (v13+ queries, v12 socket + acknowledgement); the bridge refuses what the sender does not own.
import assert from "node:assert/strict";
import { test } from "node:test";

import { askBridge, listenAsBridge, ownedSubject, parseRequest, relayRequest } from "../../scripts/foundry/player-requests.mjs";
import { FakeNetwork, FakeWorld } from "../helpers/fake-foundry.mjs";

const damage = { kind: "damage", target: "Actor.b", instances: [{ amount: 1, grade: "B" }] };

/**
 * A world with a GM, an assistant GM and a player Pia who owns Ann (and Ann's token t1), not Bob.
 * @param {12|13|14} generation
 * @param {{bridgeOn?: "gm"|"assistant"|null, connected?: string[]}} [options]
 */
function table(generation, { bridgeOn = "gm", connected = ["gm", "assistant", "pia"] } = {}) {
  const w = new FakeWorld({ generation });
  w.addUser("assistant", "Assistant", { isGM: true });
  w.addUser("pia", "Pia");
  const ann = w.addActor("a", "Ann", {}, { default: 0, pia: 3 });
  const bob = w.addActor("b", "Bob", {}, { default: 2 });
  w.addToken("t1", ann, 0, 0);
  w.addToken("t2", bob, 100, 0);
  const net = new FakeNetwork(w);
  /** @type {Record<string, any[]>} actions each GM browser sent to its sidecar */
  const sent = {};
  for (const id of connected) {
    const client = net.connect(id);
    if (!w.users.get(id)?.isGM) continue;
    sent[id] = [];
    listenAsBridge(
      { generation, queries: client.queries, socket: client.socket },
      {
        runsBridge: () => bridgeOn === id,
        user: (uid) => w.users.get(uid),
        owns: async (subject, user) => {
          const doc = "actor" in subject ? await w.fromUuid(subject.actor) : w.scene.tokens.find((t) => t.id === subject.token)?.actor;
          return !!doc?.testUserPermission(user, "OWNER");
        },
        send: async (action) => {
          sent[id].push(action);
        },
      },
    );
  }
  const pia = net.clients.get("pia");
  let n = 0;
  /** @param {Record<string, any>} action @param {number} [timeout] */
  const click = (action, timeout = 200) =>
    askBridge(action, {
      generation,
      userId: "pia",
      gms: () => (pia ? pia.users().filter((u) => u.isGM && u.active) : []),
      socket: /** @type {any} */ (pia).socket,
      newId: () => `r${(n += 1)}`,
      timeout,
    });
  return { w, sent, click };
}

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`v${generation}: a player's damage on an enemy reaches the bridge and is answered "sent"`, async () => {
    const { sent, click } = table(generation);
    assert.deepEqual(await click(damage), { ok: true, code: "sent" });
    assert.deepEqual(sent.gm, [damage]);
    assert.deepEqual(sent.assistant, []);
  });

  test(`v${generation}: with no bridge browser the player is told, within the timeout`, async () => {
    const { sent, click } = table(generation, { bridgeOn: null });
    // answered by its 100 ms timer (the answer comes at all; how soon is no test's on a loaded machine)
    assert.deepEqual(await click(damage, 100), { ok: false, code: "noBridge" });
    assert.deepEqual(sent.gm, []);
  });

  test(`v${generation}: the bridge refuses a heal or Willpower spend on an actor the sender does not own`, async () => {
    const { sent, click } = table(generation);
    assert.deepEqual(await click({ kind: "heal", target: "Actor.b", amount: 1, source: "firstAid" }), { ok: false, code: "notOwner" });
    assert.deepEqual(await click({ kind: "spendWillpower", actor: "Actor.b", use: "defense" }), { ok: false, code: "notOwner" });
    assert.deepEqual(await click({ kind: "contest", observer: "t2", target: "t1" }), { ok: false, code: "notOwner" });
    const guess = { ...damage, attack: { attacker: "t2", token: "t1", successes: 3, guess: { x: 50, y: 50 } } };
    assert.deepEqual(await click(guess), { ok: false, code: "notOwner" }, "DET-10: an attack (a guess) by a token the player does not play");
    assert.deepEqual(sent.gm, []);
    assert.deepEqual(await click({ kind: "heal", target: "Actor.a", amount: 1, source: "firstAid" }), { ok: true, code: "sent" });
    assert.deepEqual(await click({ kind: "contest", observer: "t1", target: "t2" }), { ok: true, code: "sent" });
    assert.equal(sent.gm.length, 2);
  });
}

test("v13: the first active GM does not run the bridge, the next one does", async () => {
  const { sent, click } = table(13, { bridgeOn: "assistant" });
  assert.deepEqual(await click(damage), { ok: true, code: "sent" });
  assert.deepEqual(sent.assistant, [damage]);
});

test("v13: no GM connected at all: told at once", async () => {
  const { click } = table(13, { connected: ["pia"] });
  assert.deepEqual(await click(damage), { ok: false, code: "noBridge" });
});

test("v12: a browser without the bridge stays silent; only the bridge acknowledges", async () => {
  const { sent, click } = table(12, { bridgeOn: "assistant" });
  assert.deepEqual(await click(damage), { ok: true, code: "sent" });
  assert.deepEqual(sent.assistant, [damage]);
  assert.deepEqual(sent.gm, []);
});

test("requests: only the kinds a player may relay, well formed; ownership per kind", () => {
  assert.ok(parseRequest(relayRequest("u", damage, "r1")));
  assert.equal(parseRequest(relayRequest("u", { kind: "move", token: "t", x: 0, y: 0 }, "r1")), null);
  assert.equal(parseRequest({ ...relayRequest("u", damage, "r1"), id: "" }), null);
  assert.equal(parseRequest("junk"), null);
  assert.equal(ownedSubject(damage), null);
  assert.deepEqual(ownedSubject({ ...damage, attack: { attacker: "tokA", token: "tokB", successes: 2 } }), { token: "tokA" }, "DET-10: the attacker's token");
  assert.deepEqual(ownedSubject({ ...damage, attack: { token: "tokB" } }), { token: "" }, "an attack without an attacker is owned by nobody");
  assert.deepEqual(ownedSubject({ kind: "heal", target: "Actor.x" }), { actor: "Actor.x" });
  assert.deepEqual(ownedSubject({ kind: "spendWillpower", actor: "Actor.x" }), { actor: "Actor.x" });
  assert.deepEqual(ownedSubject({ kind: "contest", observer: "t1", target: "t2" }), { token: "t1" });
  assert.deepEqual(ownedSubject({ kind: "roll", actor: "Actor.x", opponent: "Actor.y", pool: {} }), { actor: "Actor.x" });
});

test("a batch a player relays: its items' one attacker must be theirs; mixed attackers or another kind inside: owned by nobody", () => {
  const attack = (/** @type {string} */ attacker, /** @type {string} */ token) => ({ ...damage, attack: { attacker, token, successes: 2 } });
  assert.ok(parseRequest(relayRequest("u", { kind: "batch", actions: [damage, damage] }, "r1")));
  assert.equal(ownedSubject({ kind: "batch", actions: [damage, damage] }), null, "no attack: as a damage");
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [attack("tokA", "t1"), attack("tokA", "t2")] }), { token: "tokA" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [attack("tokA", "t1"), attack("tokZ", "t2")] }), { token: "" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [damage, { kind: "heal", target: "Actor.x", amount: 1 }] }), { token: "" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: "junk" }), { token: "" });
});
