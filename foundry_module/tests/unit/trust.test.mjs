// Issue 30 (audit F1, F2, F3): the bridge decides from what Foundry says, never from what a message
// says about itself. On the strict stand-in's network: a forged `from`, a player's own card with an
// action button, a third browser reading a v12 relay.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID, SOCKET_CHANNEL } from "../../scripts/core/constants.mjs";
import { actionCardHtml } from "../../scripts/core/damage.mjs";
import { bindChatButtons } from "../../scripts/foundry/damage-tools.mjs";
import { bridgeKeys, listenAsBridge, QUERY_NAME, RelayQueue } from "../../scripts/foundry/player-requests.mjs";
import { worldReads } from "../helpers/bridge-side.mjs";
import { FakeNetwork, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FakeElement } from "../helpers/fake-dom.mjs";

/**
 * A GM whose browser runs the bridge, a player Pia (owns Ann), a player Bob; Bob's actor is Bob's.
 * @param {12|13|14} generation
 */
async function table(generation) {
  const w = new FakeWorld({ generation });
  w.addUser("pia", "Pia");
  w.addUser("bob", "Bob");
  w.addToken("t1", w.addActor("a", "Ann", {}, { default: 0, pia: 3 }), 0, 0);
  w.addActor("b", "Bob", {}, { default: 0, bob: 3 });
  const net = new FakeNetwork(w);
  const gm = net.connect("gm");
  const pia = net.connect("pia");
  const bob = net.connect("bob");
  const keys = await bridgeKeys(globalThis.crypto.subtle);
  /** @type {any[]} */
  const sent = [];
  listenAsBridge(
    { generation, queries: gm.queries, socket: gm.socket },
    {
      runsBridge: () => true,
      selfId: "gm",
      user: (id) => w.users.get(id),
      owns: async (subject, user) => {
        const doc = "actor" in subject ? await w.fromUuid(subject.actor) : w.scene.tokens.find((t) => t.id === subject.token)?.actor;
        return !!doc?.testUserPermission(user, "OWNER");
      },
      locates: worldReads(w).locates,
      send: async (action) => void sent.push(action),
      query: async () => ({ data: { verdict: "guessed", successes: 1, halved: true, secret: "the square was right" } }),
      privateKey: () => keys.privateKey,
      subtle: globalThis.crypto.subtle,
    },
  );
  return { w, net, gm, pia, bob, sent, keys };
}

const heal = { kind: "heal", target: "Actor.b", amount: 3, source: "magic" };

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`v${generation} F1: a player who writes from: "gm" into a relayed request is still the player: the heal of an actor she does not own is refused`, async () => {
    const { pia, sent } = await table(generation);
    const forged = { type: "vtt-bridge.action", id: "f1", from: "gm", to: "gm", action: heal };
    /** @type {any} */
    let answer;
    if (generation >= 13) {
      answer = await /** @type {any} */ (pia.users().get("gm")).query(QUERY_NAME, forged, { timeout: 10_000 });
    } else {
      answer = await new Promise((resolve) => {
        pia.socket.on(SOCKET_CHANNEL, (data) => resolve(data));
        pia.socket.emit(SOCKET_CHANNEL, forged);
      });
    }
    assert.equal(answer.ok, false);
    assert.equal(answer.code, "notOwner");
    assert.deepEqual(sent, [], "nothing reached the sidecar");
  });
}

test("F1: a player may not relay a GM's kinds (undo, a held reveal's Accept), whatever `from` says; a GM may (a co-GM without the bridge)", async () => {
  const { pia, gm, net, w, sent } = await table(13);
  const undo = { type: "vtt-bridge.action", id: "u1", from: "gm", action: { kind: "undo", action: "ruling-42" } };
  const reveal = { type: "vtt-bridge.action", id: "u2", from: "gm", action: { kind: "approveReveal", observer: "t1", target: "t2", accept: true } };
  for (const request of [undo, reveal]) {
    const answer = await /** @type {any} */ (pia.users().get("gm")).query(QUERY_NAME, request, { timeout: 10_000 });
    assert.deepEqual(answer, { ok: false, code: "invalid" });
  }
  assert.deepEqual(sent, []);
  // a co-GM's browser (no bridge there) relays both, checked as a GM from Foundry's user
  w.addUser("cogm", "Cora", { isGM: true });
  const cogm = net.connect("cogm");
  void gm;
  for (const request of [undo, reveal]) {
    const answer = await /** @type {any} */ (cogm.users().get("gm")).query(QUERY_NAME, { ...request, from: "pia" }, { timeout: 10_000 });
    assert.deepEqual(answer, { ok: true, code: "sent" });
  }
  assert.deepEqual(sent.map((/** @type {any} */ a) => a.kind), ["undo", "approveReveal"]);
});

test("F2: a card a player created, with an action button (even with the module's card flag), does nothing when the GM clicks it, and says why", async () => {
  const { w } = await table(13);
  /** @type {any[]} */
  const sentByGM = [];
  /** @type {string[]} */
  const notes = [];
  const env = {
    game: { user: w.users.get("gm"), users: { get: (/** @type {string} */ id) => w.users.get(id) } },
    canvas: { tokens: { controlled: [] } },
    ui: { notifications: { warn: (/** @type {string} */ m) => notes.push(m), error: (/** @type {string} */ m) => notes.push(m), info: () => {} } },
  };
  const options = { env, sendAction: async (/** @type {any} */ a) => void sentByGM.push(a), localize: (/** @type {string} */ k) => k };
  // Pia posts "Apply / Heal 1 bashing" whose button is an undo of the GM's ruling, flag and all
  w.loginAs("pia");
  const undo = { kind: "undo", action: "ruling-42" };
  const forged = await w.ChatMessage.create({ content: actionCardHtml(undo, "Apply", "Heal 1 bashing"), flags: { [MODULE_ID]: { card: "apply" } } });
  // the GM's chat log renders it and the GM clicks
  w.loginAs("gm");
  const root = w.renderMessage(forged, FakeElement);
  bindChatButtons(/** @type {any} */ (root), options, forged);
  root.querySelector(`[data-${MODULE_ID}-action]`).click();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(sentByGM, [], "nothing sent");
  assert.deepEqual(notes, ["VTTBRIDGE.Notice.ForeignButton"]);
  // the GM's own Apply card carrying an undo (not a kind an Apply card has): nothing either
  const odd = await w.ChatMessage.create({ content: actionCardHtml(undo, "Apply", "x"), flags: { [MODULE_ID]: { card: "apply" } } });
  const oddRoot = w.renderMessage(odd, FakeElement);
  bindChatButtons(/** @type {any} */ (oddRoot), options, odd);
  oddRoot.querySelector(`[data-${MODULE_ID}-action]`).click();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(sentByGM, []);
  assert.deepEqual(notes.at(-1), "VTTBRIDGE.Notice.KindNotOnCard");
  // the GM's Apply card with a heal: sent
  const good = await w.ChatMessage.create({ content: actionCardHtml(heal, "Apply", "heal"), flags: { [MODULE_ID]: { card: "apply" } } });
  const goodRoot = w.renderMessage(good, FakeElement);
  bindChatButtons(/** @type {any} */ (goodRoot), options, good);
  goodRoot.querySelector(`[data-${MODULE_ID}-action]`).click();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(sentByGM, [heal]);
});

test("v12 F3: a relayed request and its answer (an attackCheck verdict) are not readable by a third player's browser", async () => {
  const { pia, bob, keys, sent } = await table(12);
  /** @type {string[]} everything Bob's browser receives on the module socket */
  const overheard = [];
  bob.socket.on(SOCKET_CHANNEL, (data) => void overheard.push(JSON.stringify(data)));
  let n = 0;
  const queue = new RelayQueue({
    generation: 12,
    userId: "pia",
    bridge: () => ({ id: "gm", up: true, key: keys.publicJwk }),
    socket: pia.socket,
    newId: () => `p${(n += 1)}`,
    subtle: globalThis.crypto.subtle,
    timeout: 10_000, // a bound against a hang only: the answer comes
  });
  const verdict = await queue.submit({ kind: "attackCheck", attacker: "t1", successes: 3, guess: { x: 50, y: 50 } });
  assert.deepEqual(verdict, { ok: true, code: "sent", data: { verdict: "guessed", successes: 1, halved: true } }, "Pia reads her answer, cut to the attacker's view");
  assert.deepEqual(await queue.submit({ kind: "damage", target: "Actor.b", instances: [{ amount: 2, grade: "L" }] }), { ok: true, code: "sent" });
  assert.equal(sent.length, 1);
  assert.ok(overheard.length >= 4, "Bob's browser did receive the traffic (the socket reaches everyone)");
  for (const word of ["attackCheck", "guessed", "halved", "verdict", "Actor.b", "damage", "\"x\":50"]) {
    assert.ok(!overheard.some((m) => m.includes(word)), `Bob cannot read "${word}"`);
  }
});
