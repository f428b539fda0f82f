/**
 * End to end, a scene larger than one frame: the real sidecar (`vtt-bridge serve` with its default
 * 1 MiB `--max-frame`) and the module's real connection code in Node (WebSocket from the `ws`
 * package). The module's `sync` of 1,200 tokens with their actors goes in parts, and what it applies
 * is the sidecar's ruling on the whole: the document the sidecar holds afterwards.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { WebSocket } from "ws";

import { planPatch } from "../scripts/core/apply-patch.mjs";
import { BridgeConnection } from "../scripts/core/connection.mjs";
import { envelope, helloPayload } from "../scripts/core/messages.mjs";
import { SYNC_PART_BYTES } from "../scripts/core/sync-parts.mjs";
import { deletionOperator } from "../scripts/foundry/compat.mjs";
import { bigScene } from "./helpers/big-scene.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";

const TOKEN = "big-sync-token-" + Math.random().toString(36).slice(2);
const TOKENS = 1200;
/** The sidecar's default `--max-frame`. */
const DEFAULT_FRAME = 1 << 20;

/** @type {Awaited<ReturnType<typeof startSidecar>>|null} */
let sidecar = null;

before(async () => {
  sidecar = await startSidecar({ token: TOKEN, seed: 7 });
});

after(async () => {
  await sidecar?.stop();
});

/** The sizes of the frames a socket sends, by type. */
function recordingWebSocket() {
  /** @type {Array<{type: string, bytes: number, more: boolean}>} */
  const sent = [];
  class Recording extends WebSocket {
    /** @param {any} data @param {any[]} rest */
    send(data, ...rest) {
      const message = JSON.parse(String(data));
      sent.push({ type: message.type, bytes: Buffer.byteLength(String(data)), more: message.payload?.more === true });
      super.send(data, ...rest);
    }
  }
  return { Recording, sent };
}

test("the whole 1,200-token sync in one frame is over the default frame cap: the sidecar refuses it (too_large) and closes", async () => {
  const state = bigScene(TOKENS);
  const frame = JSON.stringify(envelope("sync", { state }, "one-frame"));
  assert.ok(Buffer.byteLength(frame) > DEFAULT_FRAME, `${Buffer.byteLength(frame)} bytes`);
  const ws = new WebSocket(/** @type {NonNullable<typeof sidecar>} */ (sidecar).url);
  /** @type {any[]} */
  const received = [];
  const closed = new Promise((resolve) => ws.once("close", (code) => resolve(code)));
  ws.on("message", (data) => {
    const message = JSON.parse(String(data));
    received.push(message);
    if (message.type === "welcome") ws.send(frame);
  });
  await new Promise((resolve) => ws.once("open", resolve));
  ws.send(JSON.stringify(envelope("hello", helloPayload({ token: TOKEN, world: "big-one-frame" }), "h1")));
  await closed;
  assert.deepEqual(received.map((m) => [m.type, m.payload.code]), [["welcome", undefined], ["error", "too_large"]]);
});

/**
 * Sync `state` through the module's real connection against `url`; what the module applied (the
 * mirror its own planning builds), the frames it sent and how long it took.
 * @param {string} url
 * @param {string} world
 * @param {Record<string, any>} state
 */
async function syncThroughModule(url, world, state) {
  const { Recording, sent } = recordingWebSocket();
  /** @type {(value: any) => void} */
  let synced = () => {};
  /** @type {(error: Error) => void} */
  let failed = () => {};
  const applied = new Promise((resolve, reject) => ((synced = resolve), (failed = reject)));
  /** @type {Error[]} */
  const errors = [];
  const started = performance.now();
  const conn = new BridgeConnection({
    url,
    token: TOKEN,
    world,
    WebSocket: /** @type {any} */ (Recording),
    requestTimeout: 60_000,
    getState: () => state,
    apply: (incoming) => {
      // the module's own planning of a sync result: the mirror it builds
      const plan = planPatch(null, incoming.patch, { mode: "sync", statusIds: new Set(), deletion: deletionOperator({}) });
      assert.equal(plan.resync, false, plan.reason);
      synced({ incoming, mirror: plan.state, ms: performance.now() - started });
      return true;
    },
  });
  conn.on("error", (error) => {
    errors.push(error);
    failed(error);
  });
  conn.start();
  try {
    const { incoming, mirror, ms } = await applied;
    const held = await conn.query({ kind: "state" });
    return { incoming, mirror, ms, held, conn, errors, syncs: sent.filter((frame) => frame.type === "sync") };
  } finally {
    conn.stop();
  }
}

/**
 * The checks of a sync in parts: `more` on all but the last, the module's mirror the sidecar's
 * document.
 * @param {Awaited<ReturnType<typeof syncThroughModule>>} synced
 * @param {Record<string, any>} state
 */
function assertSyncedInParts({ incoming, mirror, held, conn, errors, syncs }, state) {
  assert.deepEqual(syncs.map((frame) => frame.more), [...syncs.slice(1).map(() => true), false], "more on all but the last");
  assert.equal(incoming.mode, "sync");
  assert.equal(conn.rev, incoming.rev);
  assert.equal(held.rev, incoming.rev, "the rev applied is the sidecar's");
  const tokens = Object.keys(state.tokens).length;
  assert.equal(Object.keys(held.state.tokens).length, tokens);
  assert.equal(Object.keys(held.state.actors).length, Object.keys(state.actors).length);
  assert.deepEqual(Object.keys(held.state.tokens), Object.keys(state.tokens));
  assert.deepEqual(mirror.tokens, held.state.tokens, "the applied patch gives the sidecar's tokens");
  assert.deepEqual(mirror.actors, held.state.actors, "and its actors");
  assert.deepEqual(mirror.visibility, held.state.visibility, "and who sees whom");
  assert.ok(Object.keys(held.state.visibility).length > 0, "the sidecar ruled on the whole scene");
  assert.deepEqual(errors, []);
}

test("Node: a 1,200-token scene syncs in parts through the module's connection with the default frame cap; the result applied is the sidecar's document", async (t) => {
  const state = bigScene(TOKENS);
  const synced = await syncThroughModule(/** @type {NonNullable<typeof sidecar>} */ (sidecar).url, "big-parts", state);
  t.diagnostic(`${TOKENS} tokens synced in ${Math.round(synced.ms)} ms (connect, parts, ruling, reply)`);
  const { syncs } = synced;
  assert.ok(syncs.length >= 3, `${syncs.length} parts`);
  for (const frame of syncs) assert.ok(frame.bytes <= SYNC_PART_BYTES, `a part of ${frame.bytes} bytes`);
  assert.ok(syncs.reduce((sum, frame) => sum + frame.bytes, 0) > DEFAULT_FRAME, "together over one frame");
  assertSyncedInParts(synced, state);
});

test("Node: with a sidecar started with a smaller --max-frame (128 KiB), the module's parts fit the frame cap its welcome names", async () => {
  const small = 128 << 10;
  const capped = await startSidecar({ token: TOKEN, seed: 7, extra: ["--max-frame", String(small)] });
  try {
    const state = bigScene(300);
    const synced = await syncThroughModule(capped.url, "small-frames", state);
    assert.equal(synced.conn.welcome?.maxFrame, small, "welcome names the cap");
    const { syncs } = synced;
    assert.ok(syncs.length >= 3, `${syncs.length} parts`);
    for (const frame of syncs) assert.ok(frame.bytes <= small, `a part of ${frame.bytes} bytes`);
    assert.ok(syncs.some((frame) => frame.bytes > small / 2), "parts as large as the cap allows");
    assertSyncedInParts(synced, state);
  } finally {
    await capped.stop();
  }
});
