/**
 * End to end, long messages in fragments (RFC 6455 section 5.4): two real sidecars with the same
 * seed, one sending every message longer than 256 bytes as fragments of 256 bytes
 * (`--fragment-bytes 256`: hundreds of fragments, cut between characters of up to four bytes), one
 * never (`--fragment-bytes 0`); the module's real connection code receives, in Node (the `ws`
 * package) and in headless Chromium (its own WebSocket), the very same text from both: the sync's
 * reply, the damage's, the state, and the patches pushed to a world-mate.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { WebSocket } from "ws";

import { pageReport } from "./helpers/chromium.mjs";
import { longName, recordedMessages } from "./helpers/fragments-scenario.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
import { bigScene } from "./helpers/big-scene.mjs";
import { frameChecker } from "./helpers/schema-check.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "fragments-token-" + Math.random().toString(36).slice(2);
const FRAGMENT = 256;
/** Every message these tests receive is checked against the sidecar's JSON Schema. */
const frames = frameChecker();

/** @type {Awaited<ReturnType<typeof startSidecar>>[]} */
const sidecars = [];
/** @type {Awaited<ReturnType<typeof serveModuleFiles>>|null} */
let http = null;

before(async () => {
  sidecars.push(await startSidecar({ token: TOKEN, seed: 7, extra: ["--fragment-bytes", String(FRAGMENT)] }));
  sidecars.push(await startSidecar({ token: TOKEN, seed: 7, extra: ["--fragment-bytes", "0"] }));
  http = await serveModuleFiles(moduleRoot);
});

after(async () => {
  for (const sidecar of sidecars) await sidecar.stop();
  await http?.close();
});

/**
 * The two runs received the same text, message for message, and among it long messages (of many
 * fragments) and characters beyond two bytes; each fits the sidecar's schema.
 * @param {{gm: string[], mate: string[], errors: string[], heldTokens: number}} fragmented
 * @param {{gm: string[], mate: string[], errors: string[], heldTokens: number}} whole
 */
function checkSame(fragmented, whole) {
  assert.deepEqual(fragmented.errors, []);
  assert.deepEqual(whole.errors, []);
  for (const text of [...fragmented.gm, ...fragmented.mate, ...whole.gm, ...whole.mate]) frames.check(text);
  assert.deepEqual(frames.report.problems, [], "every message received fits the sidecar's schema");
  assert.equal(fragmented.heldTokens, 60);
  const types = (/** @type {string[]} */ texts) => texts.map((text) => JSON.parse(text).type);
  assert.ok(types(fragmented.gm).filter((type) => type === "result").length >= 3, types(fragmented.gm).join(" "));
  assert.deepEqual(types(fragmented.mate), ["welcome", "patch", "patch"]);
  assert.deepEqual(fragmented.gm, whole.gm, "the GM's connection received the very same text");
  assert.deepEqual(fragmented.mate, whole.mate, "and the mate's the same pushed patches");
  const long = [...fragmented.gm, ...fragmented.mate].filter((text) => new TextEncoder().encode(text).length > 100 * FRAGMENT);
  assert.ok(long.length >= 3, `${long.length} messages of more than 100 fragments`);
  assert.ok(long.some((text) => text.includes("战士 🎲")), "names of three- and four-byte characters");
}

test("Node: the module's connection receives fragmented replies and pushed patches as the very text of unfragmented ones", async () => {
  const runs = [];
  for (const sidecar of sidecars) runs.push(await recordedMessages({ WebSocket, url: sidecar.url, token: TOKEN, world: "frag-node" }));
  checkSame(runs[0], runs[1]);
});

test("Chromium: the browser's WebSocket and the module's connection receive fragmented messages as the unfragmented text", async () => {
  /** @type {import("./helpers/chromium.mjs").Frame[]} */
  const received = [];
  const query = new URLSearchParams({ fragmented: sidecars[0].url, whole: sidecars[1].url, token: TOKEN, world: "frag-chromium" });
  const url = `${/** @type {NonNullable<typeof http>} */ (http).origin}/tests/browser/fragments.html?${query}`;
  const [fragmented, whole] = await pageReport(url, { onFrame: (frame) => received.push(frame), timeout: 120_000 });
  checkSame(fragmented, whole);
  // Chromium's network layer reports each message once, whole (a fragmented one too): the texts
  const all = [...fragmented.gm, ...fragmented.mate, ...whole.gm, ...whole.mate];
  const reported = received.filter((frame) => frame.opcode === 1).map((frame) => frame.payloadData);
  assert.deepEqual(reported.sort(), all.sort(), "the messages the DevTools protocol reports are the page's");
});

/**
 * A client frame, masked (RFC 6455 section 5.3), FIN set.
 * @param {number} opcode
 * @param {Buffer} data
 */
function clientFrame(opcode, data) {
  const mask = randomBytes(4);
  const length = data.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length]) : Buffer.alloc(4);
  if (length >= 126) {
    if (length >= 65536) throw new Error("a test frame under 64 KiB");
    head[0] = 0x80 | opcode;
    head[1] = 0x80 | 126;
    head.writeUInt16BE(length, 2);
  }
  const masked = Buffer.from(data.map((byte, i) => byte ^ mask[i % 4]));
  return Buffer.concat([head, mask, masked]);
}

/**
 * The frames of the first messages a raw socket to `port` receives after `hello` and `sync`: each
 * frame's FIN bit, opcode and length, read from the bytes as RFC 6455 section 5.2 lays them out.
 * @param {number} port
 * @param {Record<string, any>} state
 * @returns {Promise<Array<{fin: boolean, opcode: number, length: number}>>} the sync reply's frames
 */
function rawSyncFrames(port, state) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    /** @type {Array<{fin: boolean, opcode: number, length: number}>} */
    let message = [];
    let messages = 0;
    const send = (/** @type {Record<string, any>} */ envelope) => socket.write(clientFrame(1, Buffer.from(JSON.stringify(envelope))));
    socket.on("error", reject);
    socket.on("connect", () =>
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      ),
    );
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        assert.match(buffer.subarray(0, end).toString(), / 101 /);
        buffer = buffer.subarray(end + 4);
        upgraded = true;
        send({ v: 1, id: "h", type: "hello", payload: { token: TOKEN, world: "frag-raw", client: { name: "raw" } } });
      }
      for (;;) {
        if (buffer.length < 2) return;
        let length = buffer[1] & 0x7f;
        let at = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          at = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          at = 10;
        }
        if (buffer.length < at + length) return;
        const frame = { fin: (buffer[0] & 0x80) !== 0, opcode: buffer[0] & 0x0f, length };
        buffer = buffer.subarray(at + length);
        if (frame.opcode >= 0x8) continue; // a control frame
        message.push(frame);
        if (!frame.fin) continue;
        messages += 1;
        if (messages === 1) send({ v: 1, id: "s", type: "sync", payload: { state } });
        else {
          socket.destroy();
          resolve(message);
          return;
        }
        message = [];
      }
    });
  });
}

test("Node, raw: the sidecar these tests call fragmented does send its long messages in fragments of 256 bytes", async () => {
  const state = bigScene(20);
  for (const [i, actor] of Object.values(state.actors).entries()) actor.name = longName(i);
  const fragmented = await rawSyncFrames(sidecars[0].port, state);
  assert.ok(fragmented.length > 20, `${fragmented.length} frames`);
  assert.deepEqual([fragmented[0].opcode, fragmented[0].fin], [1, false], "text, no FIN");
  assert.ok(fragmented.slice(1).every((frame) => frame.opcode === 0), "then continuation frames");
  assert.equal(fragmented.at(-1)?.fin, true, "FIN on the last");
  assert.ok(fragmented.every((frame) => frame.length <= FRAGMENT));
  const whole = await rawSyncFrames(sidecars[1].port, state);
  assert.deepEqual(whole.map((frame) => [frame.opcode, frame.fin]), [[1, true]], "one frame from the other");
});
