/**
 * End to end, long messages in fragments (RFC 6455 section 5.4): two real sidecars with the same
 * seed, one sending every message longer than 256 bytes as fragments of 256 bytes
 * (`--fragment-bytes 256`: hundreds of fragments, cut between characters of up to four bytes), one
 * never (`--fragment-bytes 0`); the module's real connection code receives, in Node (the `ws`
 * package) and in headless Chromium (its own WebSocket), the very same text from both: the sync's
 * reply, the damage's, the state, and the patches pushed to a world-mate.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { WebSocket } from "ws";

import { pageReport } from "./helpers/chromium.mjs";
import { recordedMessages } from "./helpers/fragments-scenario.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
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
