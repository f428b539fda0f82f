import { MODULE_VERSION } from "../../scripts/core/constants.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

import { backoffDelay, BridgeConnection, BridgeError, CLOSE_UNAUTHORIZED } from "../../scripts/core/connection.mjs";
import { syncParts } from "../../scripts/core/sync-parts.mjs";
import { bigScene } from "../helpers/big-scene.mjs";
import { fakeSocketClass, flush, ManualClock } from "../helpers/fake-socket.mjs";

/** @param {Partial<import("../../scripts/core/connection.mjs").ConnectionOptions>} [overrides] */
function setup(overrides = {}) {
  const { FakeSocket, sockets } = fakeSocketClass();
  const clock = new ManualClock();
  /** @type {import("../../scripts/core/connection.mjs").Incoming[]} */
  const applied = [];
  let fits = true;
  let n = 0;
  const conn = new BridgeConnection({
    url: "ws://127.0.0.1:30500/ws",
    token: "tok",
    world: "w1",
    WebSocket: /** @type {any} */ (FakeSocket),
    clock,
    random: () => 0.5,
    newId: () => `id${++n}`,
    getState: () => ({ scene: { id: "s1" }, actors: {}, tokens: {} }),
    apply: (incoming) => {
      applied.push(incoming);
      return fits;
    },
    ...overrides,
  });
  /** @type {any[]} */
  const notices = [];
  conn.on("notice", (n) => notices.push(n));
  /** @type {string[]} */
  const statuses = [];
  conn.on("status", (s) => statuses.push(s));
  return { conn, sockets, clock, applied, notices, statuses, setFits: (/** @type {boolean} */ v) => (fits = v) };
}

/** Open the newest socket, welcome it and answer the sync with rev. */
async function connect(/** @type {any} */ sockets, rev = 1) {
  const ws = sockets.at(-1);
  ws.open();
  const hello = ws.lastOf("hello");
  ws.receive({ v: 1, id: "s-w", type: "welcome", re: hello.id, payload: { protocol: 1, world: "w1", rev: rev - 1 } });
  await flush();
  const sync = ws.lastOf("sync");
  ws.receive({ v: 1, id: `s-sync${rev}`, type: "result", re: sync.id, payload: { rev, patch: [], log: [] } });
  await flush();
  return ws;
}

test("backoff doubles from 500 ms with jitter in [ceiling/2, ceiling] and never exceeds 30 s", () => {
  assert.equal(backoffDelay(0, () => 0), 250);
  assert.equal(backoffDelay(0, () => 0.999999), 500);
  assert.equal(backoffDelay(3, () => 0), 2000);
  for (let attempt = 0; attempt < 60; attempt++) {
    for (const r of [0, 0.3, 0.999999]) {
      const d = backoffDelay(attempt, () => r);
      assert.ok(d <= 30_000 && d >= Math.min(30_000, 500 * 2 ** attempt) / 2 - 1, `${attempt} ${r} ${d}`);
    }
  }
  assert.equal(backoffDelay(20, () => 0.999999), 30_000);
});

test("hello carries the token; nothing else is sent before welcome; sync follows welcome", async () => {
  const { conn, sockets, statuses } = setup();
  conn.start();
  const ws = sockets[0];
  assert.equal(ws.url, "ws://127.0.0.1:30500/ws");
  ws.open();
  assert.deepEqual(ws.sent.map((m) => m.type), ["hello"]);
  assert.deepEqual(ws.sent[0].payload, { token: "tok", world: "w1", client: { name: "foundry-vtt-bridge", version: MODULE_VERSION } });
  assert.equal(ws.sent[0].v, 1);
  const early = conn.action({ kind: "round", round: 1 });
  assert.deepEqual(ws.sent.map((m) => m.type), ["hello"], "an action waits for welcome");
  ws.receive({ v: 1, id: "x", type: "welcome", re: ws.sent[0].id, payload: { rev: 0 } });
  await flush();
  assert.equal(conn.connected, true);
  assert.deepEqual(statuses, ["connecting", "connected"]);
  const sync = ws.lastOf("sync");
  assert.deepEqual(sync.payload, { state: { scene: { id: "s1" }, actors: {}, tokens: {} } });
  assert.ok(!JSON.stringify(sync).includes("tok\""), "the token is only in hello");
  ws.receive({ v: 1, id: "r0", type: "result", re: sync.id, payload: { rev: 1, patch: [], log: [] } });
  await flush();
  const queued = ws.lastOf("action");
  assert.deepEqual(queued.payload, { kind: "round", round: 1 }, "sent after the sync");
  ws.receive({ v: 1, id: "r1", type: "result", re: queued.id, payload: { rev: 2, patch: [], log: [] } });
  assert.equal((await early).rev, 2);
});

/**
 * Welcome the newest socket of a connection whose state is `bigScene(1000)`: its sync goes in parts.
 * @param {ReturnType<typeof setup>} setupResult
 */
async function welcomeBig({ conn, sockets }) {
  conn.start();
  const ws = /** @type {any} */ (sockets.at(-1));
  ws.open();
  ws.receive({ v: 1, id: "s-w", type: "welcome", re: ws.lastOf("hello").id, payload: { protocol: 1, world: "w1", rev: 4 } });
  await flush();
  return ws;
}

/** @param {any} ws the syncs it was sent */
const syncsOf = (ws) => ws.sent.filter((/** @type {any} */ m) => m.type === "sync");
const buffered = { rev: 4, patch: [], log: [], rolls: [], data: { buffered: true } };

test("a state larger than a frame is synced in parts, one at a time: more on all but the last, only the last result applied", async () => {
  const state = bigScene(1000);
  const expected = syncParts(state);
  assert.ok(expected.length >= 3);
  const setupResult = setup({ getState: () => state });
  const { conn, applied } = setupResult;
  const ws = await welcomeBig(setupResult);
  for (let i = 0; i < expected.length; i++) {
    const syncs = syncsOf(ws);
    assert.equal(syncs.length, i + 1, "the next part waits for the answer to the one before");
    const last = i === expected.length - 1;
    assert.deepEqual(syncs[i].payload, last ? { state: expected[i] } : { state: expected[i], more: true });
    const payload = last ? { rev: 5, patch: [{ op: "test", path: "/rev", value: 4 }], log: [] } : buffered;
    ws.receive({ v: 1, id: `r${i}`, type: "result", re: syncs[i].id, payload });
    await flush();
    assert.equal(applied.length, last ? 1 : 0, "a buffered part is not applied");
  }
  assert.equal(syncsOf(ws).length, expected.length);
  assert.deepEqual(applied.map((a) => [a.mode, a.rev, a.patch.length]), [["sync", 5, 1]]);
  assert.equal(conn.rev, 5);
  assert.equal(conn.stats.syncs, 1);
});

test("the parts of a sync fit the frame cap the sidecar's welcome names (maxFrame), smaller than 512 KiB", async () => {
  const state = bigScene(1000);
  const cap = 200 << 10;
  const setupResult = setup({ getState: () => state });
  const { conn, applied } = setupResult;
  conn.start();
  const ws = /** @type {any} */ (setupResult.sockets.at(-1));
  ws.open();
  ws.receive({ v: 1, id: "s-w", type: "welcome", re: ws.lastOf("hello").id, payload: { protocol: 1, world: "w1", rev: 4, maxFrame: cap } });
  await flush();
  const expected = syncParts(state, cap);
  assert.ok(expected.length > syncParts(state).length, "more parts than with 512 KiB ones");
  for (let i = 0; i < expected.length; i++) {
    const sync = syncsOf(ws)[i];
    assert.ok(Buffer.byteLength(JSON.stringify(sync)) <= cap, `part ${i} fits the cap`);
    assert.deepEqual(sync.payload.state, expected[i]);
    const last = i === expected.length - 1;
    ws.receive({ v: 1, id: `r${i}`, type: "result", re: sync.id, payload: last ? { rev: 5, patch: [], log: [] } : buffered });
    await flush();
  }
  assert.equal(applied.length, 1);
});

test("an error answering any part of a sync fails it as a one-frame sync fails: no more parts, nothing applied, the error emitted", async () => {
  const setupResult = setup({ getState: () => bigScene(1000) });
  const { conn, applied } = setupResult;
  /** @type {any[]} */
  const errors = [];
  conn.on("error", (e) => errors.push(e));
  const ws = await welcomeBig(setupResult);
  ws.receive({ v: 1, id: "r0", type: "result", re: syncsOf(ws)[0].id, payload: buffered });
  await flush();
  const second = syncsOf(ws)[1];
  assert.equal(second.payload.more, true);
  ws.receive({ v: 1, id: "e1", type: "error", re: second.id, payload: { code: "too_large", message: "a sync is at most 33554432 bytes" } });
  await flush();
  assert.equal(syncsOf(ws).length, 2, "no part after the refused one");
  assert.deepEqual(applied, []);
  assert.equal(conn.rev, null);
  assert.deepEqual(errors.map((e) => [e.name, e.code]), [["BridgeError", "too_large"]]);
  // a later sync starts again from the first part
  conn.resync("scene");
  await flush();
  assert.equal(syncsOf(ws)[2].payload.more, true);
  assert.deepEqual(Object.keys(syncsOf(ws)[2].payload.state).slice(0, 2), ["scene", "settings"]);
});

test("replies are matched by re; an error reply rejects with its code", async () => {
  const { conn, sockets, applied } = setup();
  conn.start();
  const ws = await connect(sockets);
  assert.equal(conn.rev, 1);
  assert.equal(applied[0].mode, "sync");
  const pending = conn.query({ kind: "state" });
  const q = ws.lastOf("query");
  const failing = conn.action({ kind: "damage", target: "Actor.x", instances: [] });
  const a = ws.lastOf("action");
  ws.receive({ v: 1, id: "e", type: "error", re: a.id, payload: { code: "not_found", message: "no actor" } });
  ws.receive({ v: 1, id: "r", type: "result", re: q.id, payload: { rev: 1, state: { rev: 1 } } });
  assert.deepEqual(await pending, { rev: 1, state: { rev: 1 } });
  await assert.rejects(failing, (e) => e instanceof BridgeError && e.code === "not_found");
});

test("results and pushed patches are applied in rev order; duplicates are ignored", async () => {
  const { conn, sockets, applied } = setup();
  conn.start();
  const ws = await connect(sockets, 5);
  const p = conn.action({ kind: "round", round: 2 });
  const a = ws.lastOf("action");
  ws.receive({ v: 1, id: "r", type: "result", re: a.id, payload: { rev: 6, patch: [{ op: "test", path: "/rev", value: 5 }], log: [{ rule: "R", text: "t" }] } });
  ws.receive({ v: 1, id: "p", type: "patch", payload: { rev: 7, patch: [], log: [] } });
  ws.receive({ v: 1, id: "p2", type: "patch", payload: { rev: 7, patch: [], log: [] } });
  await p;
  await conn.idle();
  assert.deepEqual(applied.map((i) => [i.mode, i.rev, i.source]), [["sync", 5, "result"], ["patch", 6, "result"], ["patch", 7, "patch"]]);
  assert.equal(conn.rev, 7);
});

test("a rev gap triggers sync instead of applying", async () => {
  const { conn, sockets, applied } = setup();
  conn.start();
  const ws = await connect(sockets, 3);
  ws.receive({ v: 1, id: "p", type: "patch", payload: { rev: 5, patch: [], log: [] } });
  await flush();
  const syncs = ws.sent.filter((/** @type {any} */ m) => m.type === "sync");
  assert.equal(syncs.length, 2);
  ws.receive({ v: 1, id: "r", type: "result", re: syncs[1].id, payload: { rev: 6, patch: [], log: [] } });
  await conn.idle();
  assert.deepEqual(applied.map((i) => [i.mode, i.rev]), [["sync", 3], ["sync", 6]]);
  assert.equal(conn.stats.gaps, 1);
  assert.equal(conn.rev, 6);
});

test("a patch that does not fit (failed test op) triggers sync", async () => {
  const { conn, sockets, setFits } = setup();
  conn.start();
  const ws = await connect(sockets, 1);
  setFits(false);
  ws.receive({ v: 1, id: "p", type: "patch", payload: { rev: 2, patch: [{ op: "test", path: "/rev", value: 0 }], log: [] } });
  await flush();
  assert.equal(ws.sent.filter((/** @type {any} */ m) => m.type === "sync").length, 2);
  assert.equal(conn.stats.misfits, 1);
  assert.equal(conn.rev, 1);
});

test("resync on scene change; several requests collapse into one sync", async () => {
  const { conn, sockets } = setup();
  conn.start();
  const ws = await connect(sockets, 1);
  conn.resync("scene");
  conn.resync("scene");
  await flush();
  assert.equal(ws.sent.filter((/** @type {any} */ m) => m.type === "sync").length, 2);
});

test("outage: one notice, jittered backoff capped at 30 s, restored notice, sync again, actions resent with the same id", async () => {
  const { conn, sockets, clock, notices, statuses } = setup();
  conn.start();
  const ws = await connect(sockets, 1);
  const pending = conn.action({ kind: "round", round: 2 });
  const sentId = ws.lastOf("action").id;
  ws.drop();
  assert.deepEqual(clock.pending(), [375]);
  for (let i = 0; i < 12; i++) {
    clock.advance(60_000);
    sockets.at(-1)?.drop();
  }
  assert.deepEqual(notices, [{ kind: "lost", wasConnected: true }]);
  assert.ok(clock.pending()[0] <= 30_000 && clock.pending()[0] >= 15_000);
  assert.equal(statuses.at(-1), "reconnecting");
  clock.advance(30_000);
  const ws2 = await connect(sockets, 2);
  assert.deepEqual(notices.at(-1), { kind: "restored" });
  await conn.idle();
  const resent = ws2.lastOf("action");
  assert.equal(resent.id, sentId, "the sidecar dedupes a retried action by its id");
  ws2.receive({ v: 1, id: "r", type: "result", re: sentId, payload: { rev: 3, patch: [], log: [] } });
  assert.equal((await pending).rev, 3);
  // the next outage gives one new notice, and backoff starts small again
  ws2.drop();
  assert.equal(notices.filter((n) => n.kind === "lost").length, 2);
  assert.deepEqual(clock.pending(), [375]);
});

test("queries and syncs in flight fail on disconnect; requests while offline are refused", async () => {
  const { conn, sockets } = setup();
  conn.start();
  const ws = await connect(sockets, 1);
  const q = conn.query({ kind: "state" });
  ws.drop();
  await assert.rejects(q, (e) => e instanceof BridgeError && e.code === "disconnected");
  await assert.rejects(conn.query({ kind: "state" }), (e) => e instanceof BridgeError && e.code === "offline");
});

test("requests time out", async () => {
  const { conn, sockets, clock } = setup({ requestTimeout: 1000 });
  conn.start();
  await connect(sockets, 1);
  const q = conn.query({ kind: "state" });
  clock.advance(1001);
  await assert.rejects(q, (e) => e instanceof BridgeError && e.code === "timeout");
});

test("a refused token stops reconnecting and says so once", async () => {
  const { conn, sockets, clock, notices, statuses } = setup();
  conn.start();
  const ws = sockets[0];
  ws.open();
  ws.receive({ v: 1, id: "e", type: "error", re: ws.sent[0].id, payload: { code: "unauthorized", message: "bad token" } });
  ws.drop(CLOSE_UNAUTHORIZED);
  clock.advance(120_000);
  assert.equal(sockets.length, 1);
  assert.deepEqual(notices, [{ kind: "unauthorized" }]);
  assert.equal(statuses.at(-1), "unauthorized");
});

test("stop closes the socket and cancels the reconnect timer", async () => {
  const { conn, sockets, clock } = setup();
  conn.start();
  sockets[0].drop();
  assert.equal(clock.pending().length, 1);
  conn.stop();
  assert.equal(clock.pending().length, 0);
  clock.advance(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(conn.status, "stopped");
});

test("a ruling's log event names the request it answers and its action id and kind; a pushed change names its own (none for an upsert or an earlier sidecar)", async () => {
  const { conn, sockets } = setup();
  /** @type {any[]} */
  const logs = [];
  conn.on("log", (event) => logs.push(event));
  conn.start();
  const ws = await connect(sockets, 1);
  const action = { kind: "damage", target: "hero", instances: [{ amount: 2, grade: "L" }] };
  const pending = conn.action(action);
  const sent = ws.lastOf("action");
  const step = { rule: "HEALTH-2", text: "2 L damage" };
  ws.receive({ v: 1, id: "r1", type: "result", re: sent.id, payload: { rev: 2, patch: [], log: [step], rolls: [] } });
  await pending;
  await conn.idle();
  ws.receive({ v: 1, id: "p1", type: "patch", payload: { rev: 3, patch: [], log: [{ rule: "ROUND", text: "round 2" }], rolls: [], kind: "round", action: "their-round" } });
  await flush();
  await conn.idle();
  ws.receive({ v: 1, id: "p2", type: "patch", payload: { rev: 4, patch: [], log: [{ rule: "UPSERT", text: "set" }], rolls: [], kind: "upsert" } });
  ws.receive({ v: 1, id: "p3", type: "patch", payload: { rev: 5, patch: [], log: [{ rule: "ROUND", text: "round 3" }] } }); // an earlier sidecar's
  await flush();
  await conn.idle();
  assert.equal(logs.length, 4);
  assert.deepEqual(logs[0].request, { type: "action", payload: action, id: sent.id }, "its message id: the action id an undo names");
  assert.deepEqual(logs[0].log, [step]);
  assert.equal(logs[0].source, "result");
  assert.deepEqual([logs[0].action, logs[0].kind], [sent.id, "damage"]);
  assert.equal(logs[1].request, undefined);
  assert.equal(logs[1].source, "patch");
  assert.deepEqual([logs[1].action, logs[1].kind], ["their-round", "round"], "the pushed patch names the ruling");
  assert.deepEqual([logs[2].action, logs[2].kind], [undefined, "upsert"]);
  assert.deepEqual([logs[3].action, logs[3].kind], [undefined, undefined]);
});

test("a sidecar of another version: one version notice naming both, once however often it reconnects", async () => {
  const { conn, sockets, clock, notices } = setup({ version: "0.1.0" });
  conn.start();
  const welcomeAs = async (/** @type {string} */ version) => {
    const ws = /** @type {any} */ (sockets.at(-1));
    ws.open();
    const hello = ws.lastOf("hello");
    assert.equal(hello.payload.client.version, "0.1.0", "hello carries the module's version");
    const server = { name: "vtt-bridge", version };
    ws.receive({ v: 1, id: "s-w", type: "welcome", re: hello.id, payload: { protocol: 1, server, world: "w1", rev: 0 } });
    await flush();
    return ws;
  };
  const first = await welcomeAs("0.2.0");
  assert.deepEqual(notices, [{ kind: "version", module: "0.1.0", sidecar: "0.2.0" }]);
  first.drop(1006);
  clock.advance(30_000);
  assert.equal(sockets.length, 2, "reconnected");
  await welcomeAs("0.2.0");
  assert.equal(notices.filter((n) => n.kind === "version").length, 1, "one notice per session");
});

test("a sidecar of the same version, or one that does not say, gives no version notice", async () => {
  for (const server of [{ name: "vtt-bridge", version: "0.1.0" }, undefined]) {
    const { conn, sockets, notices } = setup({ version: "0.1.0" });
    conn.start();
    const ws = /** @type {any} */ (sockets.at(-1));
    ws.open();
    ws.receive({ v: 1, id: "s-w", type: "welcome", re: ws.lastOf("hello").id, payload: { protocol: 1, server, world: "w1", rev: 0 } });
    await flush();
    assert.equal(conn.connected, true);
    assert.deepEqual(notices, [], JSON.stringify(server));
  }
});
