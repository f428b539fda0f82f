/**
 * Issue 30, end to end: two GM browsers with "this browser runs the bridge" on one world (each its
 * own copy of the election, bridge-host.mjs, on the strict stand-in's network), the real sidecar,
 * real connections, a player's relay queue (player-requests.mjs). One bridge runs; one card (one
 * `log` event) per ruling; the bridge GM leaves while a player's damage is under way: the next GM
 * browser takes over and the damage is ruled exactly once.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { WebSocket } from "ws";

import { BridgeHost } from "../scripts/foundry/bridge-host.mjs";
import { listenAsBridge, RelayQueue } from "../scripts/foundry/player-requests.mjs";
import { bridgeTarget } from "../scripts/foundry/send-action.mjs";
import { FakeNetwork, FakeWorld } from "./helpers/fake-foundry.mjs";
import { client, until } from "./helpers/scenario.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";
import { worldReads } from "./helpers/bridge-side.mjs";

const MODULE = "vtt-bridge";
const TOKEN = "election-e2e-" + Math.random().toString(36).slice(2);
const BOB = "Actor.bob0000000000002";

for (const generation of /** @type {const} */ ([12, 13])) {
  test(`v${generation}: two GM browsers with the setting: one bridge, one card per ruling; the bridge GM leaves mid-request: the next one takes over and the damage is ruled once`, async (t) => {
    const sidecar = await startSidecar({ token: TOKEN });
    const args = { WebSocket, url: sidecar.url, token: TOKEN, world: `election-${generation}` };
    const world = new FakeWorld({ generation });
    world.addUser("gm2", "Gwen", { isGM: true });
    world.addUser("pia", "Pia");
    const net = new FakeNetwork(world);
    /** @type {Record<string, ReturnType<typeof client>|null>} each GM browser's link, while it runs */
    const links = { gm: null, gm2: null };
    /** @type {string[]} */
    const starts = [];
    /** @type {string[]} each standing-by browser says whose browser runs it */
    const standby = [];
    /** @type {Array<{browser: string, action?: string}>} every ruling's log event, per browser (a card each) */
    const cards = [];
    /** @type {Record<string, BridgeHost>} */
    const hosts = {};
    /** @type {any} the Foundry world's documents (made by the first link) */
    let foundry = null;
    /** @type {Record<string, (action: any, options: any) => Promise<unknown>>} */
    const sendVia = {};
    for (const id of ["gm", "gm2"]) {
      const browser = net.connect(id);
      const host = new BridgeHost({
        hooks: browser.hooks,
        self: () => browser.user,
        users: () => browser.users(),
        writeClaim: (claim) => net.setUserFlag(browser.user, id, MODULE, "bridge", claim),
        eligible: () => true,
        start: () => {
          starts.push(id);
          // one Foundry world: the second GM browser sees what the first one's patches wrote
          const link = client({ ...args, foundry });
          foundry ??= link;
          links[id] = link;
          link.connection.on("status", (/** @type {string} */ s) => void host.setUp(s === "connected"));
          link.connection.on("log", (/** @type {any} */ event) => cards.push({ browser: id, action: event.action }));
          link.connection.start();
        },
        stop: () => {
          links[id]?.connection.stop();
          links[id] = null;
        },
        subtle: globalThis.crypto.subtle,
        settleMs: 150,
        onStandby: (name) => void standby.push(`${id}: ${name}`),
      });
      hosts[id] = host;
      sendVia[id] = (action, options) => /** @type {any} */ (links[id]).connection.action(action, options);
      listenAsBridge(
        { generation, queries: browser.queries, socket: browser.socket },
        {
          runsBridge: () => !!links[id]?.connection.connected,
          selfId: id,
          user: (uid) => world.users.get(uid),
          owns: async () => false,
          locates: worldReads(world).locates,
          send: (action, options) => sendVia[id](action, options),
          privateKey: () => host.privateKey,
          subtle: globalThis.crypto.subtle,
        },
      );
    }
    const pia = net.connect("pia");
    let n = 0;
    const queue = new RelayQueue({
      generation,
      userId: "pia",
      bridge: () => bridgeTarget({ game: { users: pia.users() } }),
      socket: pia.socket,
      newId: () => `pia${(n += 1)}`,
      subtle: globalThis.crypto.subtle,
      timeout: 3_000, // room for a loaded machine's round trip to the sidecar; the takeover below waits it out once
      retry: 50,
    });
    // every browser's userConnected / updateUser retries the queue, as main.mjs wires it
    for (const fn of ["updateUser", "userConnected"]) pia.hooks.on(fn, () => queue.wake());
    t.after(async () => {
      for (const link of Object.values(links)) link?.connection.stop();
      await sidecar.stop();
    });

    // both GM browsers claim at the same moment: one bridge
    await Promise.all([hosts.gm.publish(), hosts.gm2.publish()]);
    await until(() => Object.values(links).some((l) => l?.applier.state), "a bridge synced");
    await until(() => bridgeTarget({ game: { users: pia.users() } })?.up === true, "its claim says it is up");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(starts.length, 1, `one browser opened the link, not ${starts.join(", ")}`);
    const [first] = starts;
    const second = first === "gm" ? "gm2" : "gm";
    assert.equal(hosts[second].elected()?.id, first);
    assert.deepEqual(standby, [`${second}: ${first === "gm" ? "Gamemaster" : "Gwen"}`], "the other browser says whose browser runs it");

    // a player's damage: one ruling, one card
    const damage = (/** @type {number} */ amount) => ({ kind: "damage", target: BOB, instances: [{ amount, grade: "B" }] });
    assert.deepEqual(await queue.submit(damage(1)), { ok: true, code: "sent" });
    await until(() => cards.length === 1, "the ruling's card");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(cards.length, 1, "one card per ruling");

    // the bridge GM's browser closes while Pia's next damage is under way: the sidecar has ruled it,
    // the answer never reaches her
    sendVia[first] = async (action, options) => {
      await /** @type {any} */ (links[first]).connection.action(action, options);
      hosts[first].parts.stop();
      net.disconnect(first);
      return new Promise(() => {});
    };
    const answered = queue.submit(damage(2));
    await until(() => links[first] === null, "the bridge GM left");
    await until(() => starts.length === 2, "the next GM browser takes over");
    assert.equal(starts[1], second);
    assert.deepEqual(await answered, { ok: true, code: "sent" }, "retried with the same id through the new bridge");
    const link = /** @type {any} */ (links[second]);
    await link.connection.idle();
    const held = /** @type {any} */ (await link.connection.query({ kind: "state" }));
    const state = held.state ?? held.data?.state ?? held.data ?? link.applier.state;
    assert.equal(state.actors[BOB].health.bashing, 3, "1 + 2 bashing: the second damage ruled exactly once");
    const rulings = cards.filter((c) => c.action === `relay-pia-pia2`);
    assert.equal(rulings.length, 1, "its one card, from the browser that ruled it");
  });
}
