// Item 5 of issue 14, issue 30: a player's click reaches the elected bridge and is answered, on the strict
// stand-in's network (v13+ queries, v12 socket); the bridge refuses what the sender (from Foundry) does
// not own; with no bridge up the request waits and goes out when one is.
import assert from "node:assert/strict";
import { test } from "node:test";

import { listenAsBridge, ownedSubject, parseRequest, plainDamageTargets, RelayQueue, relayRequest } from "../../scripts/foundry/player-requests.mjs";
import { worldReads } from "../helpers/bridge-side.mjs";
import { FakeNetwork, FakeWorld } from "../helpers/fake-foundry.mjs";

const damage = { kind: "damage", target: "Actor.b", instances: [{ amount: 1, grade: "B" }] };

/**
 * A world with a GM, an assistant GM and a player Pia who owns Ann (and Ann's token t1), not Bob.
 * The elected bridge (bridge-election.mjs) is `bridgeOn`'s browser; Pia's queue asks it.
 * @param {12|13|14} generation
 * @param {{bridgeOn?: "gm"|"assistant"|null, connected?: string[], bobSeen?: Record<string, string>}} [options]
 *   `bobSeen`: Bob's token's visibility flag (the sidecar's ruling as the module mirrors it)
 */
function table(generation, { bridgeOn = "gm", connected = ["gm", "assistant", "pia"], bobSeen } = {}) {
  const w = new FakeWorld({ generation });
  w.addUser("assistant", "Assistant", { isGM: true, assistant: true });
  w.addUser("pia", "Pia");
  const ann = w.addActor("a", "Ann", {}, { default: 0, pia: 3 });
  // with a ruling on Bob, Bob is no longer everyone's to observe (OBSERVER would show his token to all)
  const bob = w.addActor("b", "Bob", {}, { default: bobSeen ? 0 : 2 });
  w.addToken("t1", ann, 0, 0);
  w.addToken("t2", bob, 100, 0, w.scene, bobSeen ? { flags: { "vtt-bridge": { visibility: bobSeen } } } : {});
  const net = new FakeNetwork(w);
  /** @type {Record<string, any[]>} actions each GM browser sent to its sidecar */
  const sent = {};
  /** @type {Record<string, any[]>} the action ids each sent them with */
  const ids = {};
  let up = bridgeOn;
  for (const id of connected) {
    const client = net.connect(id);
    if (!w.users.get(id)?.isGM) continue;
    sent[id] = [];
    ids[id] = [];
    listenAsBridge(
      { generation, queries: client.queries, socket: client.socket },
      {
        runsBridge: () => up === id,
        selfId: id,
        user: (uid) => w.users.get(uid),
        owns: async (subject, user) => {
          const doc = "actor" in subject ? await w.fromUuid(subject.actor) : w.scene.tokens.find((t) => t.id === subject.token)?.actor;
          return !!doc?.testUserPermission(user, "OWNER");
        },
        locates: worldReads(w).locates,
        send: async (action, options) => {
          sent[id].push(action);
          ids[id].push(options?.id);
        },
      },
    );
  }
  const pia = /** @type {any} */ (net.clients.get("pia"));
  let n = 0;
  const queue = new RelayQueue({
    generation,
    userId: "pia",
    bridge: () => (up ? { id: up, up: true, key: null, query: pia.users().get(up)?.query } : null),
    socket: pia.socket,
    newId: () => `r${(n += 1)}`,
    timeout: 10_000, // a bound against a hang only: every answer here comes
    retry: 20,
  });
  /** @param {Record<string, any>} action */
  const click = (action) => queue.submit(action);
  /** @param {"gm"|"assistant"|null} who */
  const bridgeUp = (who) => {
    up = who;
    queue.wake();
  };
  return { w, sent, ids, click, queue, bridgeUp, net };
}

for (const generation of /** @type {const} */ ([12, 13, 14])) {
  test(`v${generation}: a player's damage on an enemy reaches the elected bridge and is answered "sent"`, async () => {
    const { sent, ids, click } = table(generation);
    assert.deepEqual(await click(damage), { ok: true, code: "sent" });
    assert.deepEqual(sent.gm, [damage]);
    assert.deepEqual(ids.gm, ["relay-pia-r1"], "the sidecar action id: the asker (from Foundry) and the request id");
    assert.deepEqual(sent.assistant, []);
  });

  test(`v${generation}: with no bridge the request waits (shown as waiting), then goes out once when one is up`, async () => {
    const { sent, click, queue, bridgeUp } = table(generation, { bridgeOn: null });
    let answered = null;
    const asked = click(damage).then((a) => (answered = a));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(answered, null, "no 5-second timeout: it waits");
    assert.equal(queue.waiting, 1);
    bridgeUp("assistant");
    assert.deepEqual(await asked, { ok: true, code: "sent" });
    assert.equal(queue.waiting, 0);
    assert.deepEqual(sent.assistant, [damage]);
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

  test(`v${generation}: DET-10: a player's plain damage (no attack) at a target their tokens do not pinpoint is refused mustAttack; an attack goes`, async () => {
    for (const state of ["approximate", "unlocated"]) {
      const { sent, click } = table(generation, { bobSeen: { t1: state } });
      assert.deepEqual(await click(damage), { ok: false, code: "mustAttack" }, `${state}: Ann's token does not pinpoint Bob`);
      const batch = { kind: "batch", actions: [{ ...damage, target: "Actor.a" }, damage] };
      assert.deepEqual(await click(batch), { ok: false, code: "mustAttack" }, `${state}: one plain item at Bob refuses the batch`);
      const attack = { ...damage, attack: { attacker: "t1", token: "t2", successes: 3 } };
      assert.deepEqual(await click(attack), { ok: true, code: "sent" }, `${state}: an attack from Ann's token is DET-10's to rule`);
      assert.deepEqual(await click({ ...damage, target: "Actor.a" }), { ok: true, code: "sent" }, "Pia owns Ann: plain damage on her own actor");
      assert.deepEqual(sent.gm, [attack, { ...damage, target: "Actor.a" }]);
    }
    // the sparse flag: an observer without an entry pinpoints (Ann's t1 here; only some other token is listed)
    const { sent, click, w } = table(generation, { bobSeen: { t9: "unlocated" } });
    assert.deepEqual(await click(damage), { ok: true, code: "sent" });
    assert.deepEqual(sent.gm, [damage]);
    // a hidden observer is none (Foundry does not let a player look through it)
    /** @type {any} */ (w.scene.tokens.find((t) => t.id === "t1")).hidden = true;
    assert.deepEqual(await click(damage), { ok: false, code: "mustAttack" });
  });
}

test("plainDamageTargets: the actors a damage or a batch's damages strike without an attack", () => {
  const attack = { ...damage, attack: { attacker: "t1", token: "t2", successes: 2 } };
  assert.deepEqual(plainDamageTargets(damage), ["Actor.b"]);
  assert.deepEqual(plainDamageTargets(attack), []);
  assert.deepEqual(plainDamageTargets({ kind: "batch", actions: [attack, damage, { ...damage, target: "Actor.c" }, damage, "junk"] }), ["Actor.b", "Actor.c"]);
  assert.deepEqual(plainDamageTargets({ kind: "heal", target: "Actor.b" }), []);
});

test("a query (attackCheck) finds no bridge: answered noBridge at once, not queued", async () => {
  const { click, queue } = table(13, { bridgeOn: null });
  assert.deepEqual(await click({ kind: "attackCheck", attacker: "t1", successes: 2 }), { ok: false, code: "noBridge" });
  assert.equal(queue.waiting, 0);
});

test("v12: a browser that is not the elected bridge stays silent; only the bridge answers", async () => {
  const { sent, click } = table(12, { bridgeOn: "assistant" });
  assert.deepEqual(await click(damage), { ok: true, code: "sent" });
  assert.deepEqual(sent.assistant, [damage]);
  assert.deepEqual(sent.gm, []);
});

test("requests: only the kinds a player may relay, well formed; ownership per kind", () => {
  const player = { isGM: false };
  assert.ok(parseRequest(relayRequest(damage, "r1"), player));
  assert.equal(parseRequest(relayRequest({ kind: "move", token: "t", x: 0, y: 0 }, "r1"), player), null);
  assert.equal(parseRequest({ ...relayRequest(damage, "r1"), id: "" }, player), null);
  assert.equal(parseRequest({ ...relayRequest(damage, "r1"), id: "a/b" }, player), null, "an id the sidecar id is made of: letters, digits, - and _");
  assert.equal(parseRequest("junk", player), null);
  // a co-GM's kinds: a held reveal's answer, undo / redo, from a GM only (Foundry's user)
  for (const action of [{ kind: "approveReveal", observer: "o", target: "t", accept: true }, { kind: "undo", action: "a1" }, { kind: "redo", action: "a1" }]) {
    assert.equal(parseRequest(relayRequest(action, "r1"), player), null, `${action.kind}: not from a player`);
    assert.ok(parseRequest(relayRequest(action, "r1"), { isGM: true }), `${action.kind}: from a GM`);
  }
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
  assert.ok(parseRequest(relayRequest({ kind: "batch", actions: [damage, damage] }, "r1"), { isGM: false }));
  assert.equal(ownedSubject({ kind: "batch", actions: [damage, damage] }), null, "no attack: as a damage");
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [attack("tokA", "t1"), attack("tokA", "t2")] }), { token: "tokA" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [attack("tokA", "t1"), attack("tokZ", "t2")] }), { token: "" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: [damage, { kind: "heal", target: "Actor.x", amount: 1 }] }), { token: "" });
  assert.deepEqual(ownedSubject({ kind: "batch", actions: "junk" }), { token: "" });
});
