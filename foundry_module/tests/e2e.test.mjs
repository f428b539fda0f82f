/**
 * End to end: the real sidecar (`vtt-bridge serve`), the module's real connection/applier/forwarder
 * code, Foundry-shaped documents; once in Node (WebSocket from the `ws` package) and once in
 * headless Chromium (Debian's /usr/bin/chromium, the page served from a tiny local http server).
 *
 * The sidecar is started from the repository's virtualenv (`../.venv/bin/vtt-bridge`), or with
 * `$VTT_BRIDGE_PYTHON -m vtt_bridge serve` when that variable is set. The browser is
 * `$CHROMIUM_PATH` or /usr/bin/chromium. A missing sidecar or browser FAILS the test with a clear
 * message; nothing is skipped.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { WebSocket } from "ws";

import { launchChromium, pageReport } from "./helpers/chromium.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";
import { checkedWebSocket, frameChecker } from "./helpers/schema-check.mjs";
import { runScenario } from "./helpers/scenario.mjs";
import { runMtaScenario } from "./helpers/scenario-mta.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "e2e-token-" + Math.random().toString(36).slice(2);
/** Every frame these tests receive is checked against the sidecar's JSON Schema. */
const frames = frameChecker();
const CheckedWebSocket = checkedWebSocket(WebSocket, frames);

/** @param {number} before how many frames were checked before the scenario @param {string} where */
function checkFrames(before, where) {
  const { checked, problems } = frames.report;
  assert.deepEqual(problems, [], `${where}: every frame received fits the sidecar's schema`);
  assert.ok(checked > before, `${where}: frames were checked`);
}

/** @type {Awaited<ReturnType<typeof startSidecar>>|null} */
let sidecar = null;
/** @type {Awaited<ReturnType<typeof serveModuleFiles>>|null} */
let http = null;
let sidecarUrl = "";
let httpOrigin = "";
/** @type {Awaited<ReturnType<typeof launchChromium>>|null} the file's one Chromium (a page per test) */
let chromium = null;

before(async () => {
  sidecar = await startSidecar({ token: TOKEN, seed: 7 });
  sidecarUrl = sidecar.url;

  // the module's files over http, as Foundry would serve them
  http = await serveModuleFiles(moduleRoot);
  httpOrigin = http.origin;
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await sidecar?.stop();
  await http?.close();
});

/** @param {Record<string, any>} report @param {string} where */
function checkReport(report, where) {
  assert.deepEqual(report.errors, [], `${where}: no errors`);
  assert.equal(report.status, "connected");
  assert.equal(report.welcome.protocol, 1);
  assert.deepEqual(report.mirrorActors, ["Actor.ann0000000000001", "Actor.bob0000000000002"]);
  assert.deepEqual(report.mirrorTokens, ["tokAnn000000001", "tokBob000000002"]);
  assert.equal(report.annStatusFlag, "unharmed", "the derived status was written to the actor's flags on sync");
  // move
  assert.equal(report.forwardedMoves, 1);
  assert.equal(report.moveEchoes, 1, "the module's own token write was not echoed back as a move");
  assert.equal(report.moveRev, report.syncRev + 1);
  assert.deepEqual(report.mirrorAnnAt, { x: 200, y: 100 });
  assert.deepEqual(report.tokenAt, { x: 200, y: 100 });
  // damage
  assert.equal(report.damageRev, report.moveRev + 1);
  assert.ok(report.damageLog.length > 0, "the ruling is explained");
  assert.equal(report.bobHealthFlag.lethal, 3, "3 lethal landed in Bob's flags");
  assert.equal(report.bobHealthFlag.max, 7);
  assert.notEqual(report.bobStatusFlag, "unharmed");
  assert.equal(report.bobStatusFlag, report.bobStatusMirror);
  assert.ok(report.bobWrites.every((/** @type {string} */ o) => o === "sidecar"), "every write to Bob is tagged");
  // visibility
  assert.deepEqual(report.visibilityMismatches, []);
  // the other client, by pushed patches only
  assert.equal(report.otherRev, report.damageRev);
  assert.equal(report.otherBobLethal, 3);
  assert.equal(report.otherAnnTokenX, 200);
  assert.ok(report.mirrorsEqual, "both clients hold the same mirror");
  assert.equal(report.wrongToken, "unauthorized");
}

test("Node: sync a scene, move a token, damage an actor against the real sidecar", async () => {
  const before = frames.report.checked;
  const report = await runScenario({ WebSocket: CheckedWebSocket, url: sidecarUrl, token: TOKEN, world: "e2e-node" });
  checkReport(report, "node");
  checkFrames(before, "node");
});

/**
 * Run a scenario page in headless Chromium and return its report.
 * @param {string} pagePath e.g. "tests/browser/e2e.html"
 * @param {string} world
 * @returns {Promise<Record<string, any>>}
 */
async function inChromium(pagePath, world) {
  // the browser's own WebSocket: the text messages it received, checked
  const before = frames.report.checked;
  const query = new URLSearchParams({ url: sidecarUrl, token: TOKEN, world });
  const report = await pageReport(`${httpOrigin}/${pagePath}?${query}`, {
    browser: chromium?.browser,
    onFrame: (frame) => {
      if (frame.opcode === 1) frames.check(frame.payloadData);
    },
  });
  checkFrames(before, `chromium ${world}`);
  return report;
}

test("headless Chromium: the same scenario with the browser's own WebSocket", async () => {
  checkReport(await inChromium("tests/browser/e2e.html", "e2e-chromium"), "chromium");
});

/** @param {Record<string, any>} r the report of `runMtaScenario` */
function checkMtaReport(r) {
  assert.deepEqual(r.errors, []);
  // sync: every field the rules need came from the system's data
  assert.deepEqual(r.syncedAnn.attributes, { STR: 2, DEX: 3, STA: 2, INT: 2, PER: 3, RES: 2, PRE: 1, MAN: 1, COM: 2 });
  // every Skill of the sheet (a roll may name any), the rules' two among them
  assert.deepEqual(r.syncedAnn.skills, { investigation: 2, stealth: 1, occult: 0, athletics: 1, brawl: 0, empathy: 0, persuasion: 1 });
  assert.equal(r.syncedAnn.health.max, 7, "Stamina 2 + Size 5");
  assert.deepEqual([r.syncedAnn.health.bashing, r.syncedAnn.health.lethal, r.syncedAnn.health.aggravated], [0, 0, 0]);
  assert.deepEqual([r.syncedAnn.willpower.max, r.syncedAnn.willpower.current], [4, 4]);
  assert.equal(r.syncedAnn.speed, 10);
  assert.deepEqual(r.syncedSpirit.attributes, { STR: 3, INT: 3, PRE: 3, DEX: 4, PER: 4, MAN: 4, STA: 3, RES: 3, COM: 3 });
  assert.equal(r.syncedSpirit.health.max, 8);
  assert.deepEqual(r.annSystemWritesOnSync, [], "the sync writes nothing to the system: it already shows the state");
  // damage: 2B + 1L on the 7-box track → the thresholds
  assert.ok(r.damageLog.length > 0);
  assert.deepEqual([r.annFlagsHealth.bashing, r.annFlagsHealth.lethal], [2, 1]);
  assert.deepEqual(r.annSystemHealth, { max: 7, value: 4, lethal: 6, aggravated: 7 });
  assert.ok(Object.keys(r.annLastWrite.changes).some((k) => k.startsWith("flags.vtt-bridge.")), "flags and system in one update");
  assert.equal(r.annLastWrite.options["vtt-bridge"].origin, "sidecar", "tagged as the module's own");
  assert.deepEqual(r.spiritSystemHealth, { max: 8, value: 7, lethal: 7, aggravated: 7 }, "1 aggravated");
  // bad system data: reported, the field left out, nothing written back over it
  assert.deepEqual(r.warnings, [{ uuid: "Actor.bad0000000000003", field: "health", problem: "range" }]);
  assert.equal(r.brokenMirrorHealthMax, 7, "the sidecar's default track");
  assert.equal(r.brokenMirrorLethal, 1);
  assert.deepEqual(r.brokenSystemHealthAfter, r.brokenSystemHealth);
  assert.equal(r.brokenSystemHealthAfter.max, -2);
  // damage marked by hand on the system's sheet → one upsert; the ruling's write-back is not echoed
  assert.equal(r.handUpserts, 1);
  assert.deepEqual([r.mirrorAfterHand.bashing, r.mirrorAfterHand.lethal, r.mirrorAfterHand.aggravated], [2, 2, 0]);
  assert.deepEqual(r.echoSystemKeys, [], "the system already shows it: nothing written to it again");
  assert.ok(r.echoTagged);
  assert.equal(r.upsertsAfterHand, 1, "the module's own write did not come back as an upsert");
}

test("Node: a Chronicles of Darkness (mta) world with no rules-sheet entry: sync, damage, the system's Health fields", async () => {
  const before = frames.report.checked;
  checkMtaReport(await runMtaScenario({ WebSocket: CheckedWebSocket, url: sidecarUrl, token: TOKEN, world: "e2e-mta" }));
  checkFrames(before, "node, mta");
});

test("headless Chromium: the same mta world with the browser's own WebSocket", async () => {
  checkMtaReport(await inChromium("tests/browser/e2e-mta.html", "e2e-mta-chromium"));
});

/**
 * A plain protocol client over `ws`: one request at a time, each answered in order.
 * @param {string} url
 */
async function rawClient(url) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let n = 0;
  /** @param {string} type @param {any} payload @returns {Promise<any>} */
  const request = (type, payload) =>
    new Promise((resolve) => {
      const id = `a${++n}`;
      ws.once("message", (data) => resolve(JSON.parse(String(data))));
      ws.send(JSON.stringify({ v: 1, id, type, payload }));
    });
  return { request, close: () => ws.close() };
}

test("Node: DET-10 against the real sidecar: the module's damage batch at a wrong square misses, a right one counts half", async () => {
  const { damageActions, attackMissed, iwrChanges } = await import("../scripts/core/attack.mjs");
  const peer = await rawClient(sidecarUrl);
  try {
    assert.equal((await peer.request("hello", { token: TOKEN, world: "e2e-det10", client: { name: "e2e" } })).type, "welcome");
    const actor = (/** @type {string} */ name) => ({ name, health: { max: 7 } });
    const state = {
      scene: { id: "s1", round: 1, width: 2000, height: 2000 },
      actors: { "Actor.ann": actor("Ann"), "Actor.ghost": actor("Ghost") },
      tokens: { tokAnn: { actor: "Actor.ann", x: 0, y: 0 }, tokGhost: { actor: "Actor.ghost", x: 500, y: 500 } },
    };
    assert.equal((await peer.request("sync", { state })).type, "result");
    const pinned = await peer.request("action", { kind: "pinLocate", observer: "tokAnn", target: "tokGhost", state: "unlocated", until: "scene", by: "GM" });
    assert.equal(pinned.type, "result", JSON.stringify(pinned));
    const attack = { attacker: "tokAnn", successes: 4 };
    const [wrong] = damageActions([{ actor: "Actor.ghost", token: "tokGhost", guess: { x: 150, y: 150 } }], [{ amount: 4, grade: "L" }], attack);
    const missed = await peer.request("action", wrong);
    assert.equal(missed.type, "result", JSON.stringify(missed));
    assert.equal(attackMissed(missed.payload.log), true, "a wrong square misses");
    const afterMiss = await peer.request("query", { kind: "state" });
    assert.equal(afterMiss.payload.state.actors["Actor.ghost"].health.lethal, 0, "nothing dealt");
    const [right] = damageActions([{ actor: "Actor.ghost", token: "tokGhost", guess: { x: 550, y: 550 } }], [{ amount: 4, grade: "L" }], attack);
    const hit = await peer.request("action", right);
    assert.equal(attackMissed(hit.payload.log), false);
    assert.ok(iwrChanges(hit.payload.log).some((s) => s.rule === "DET-10" && JSON.stringify(s.data?.after) === "[2]"), "halved: 4 → 2");
    const afterHit = await peer.request("query", { kind: "state" });
    assert.equal(afterHit.payload.state.actors["Actor.ghost"].health.lethal, 2);
  } finally {
    peer.close();
  }
});
