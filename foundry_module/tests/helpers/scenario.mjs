/**
 * The end-to-end scenario, runnable in Node (with the `ws` package's WebSocket) and in a browser
 * page (with the native one): a Foundry-shaped world connects to the real sidecar through the
 * module's own connection, applier and forwarders, syncs its scene, moves a token (through the
 * updateToken hook, as Foundry would fire it), damages an actor, and reports what landed in the
 * documents. It returns facts; the test asserts on them.
 */

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { BridgeConnection } from "../../scripts/core/connection.mjs";
import { moveFromTokenUpdate } from "../../scripts/core/forward.mjs";
import { actorFlags, buildState, damageAction, tokenAreaFlags, tokenVisibilityFlags } from "../../scripts/core/messages.mjs";
import { FakeWorld } from "./fake-foundry.mjs";

/** @type {string[]} errors the connections reported */
const errors = [];

/**
 * @param {() => boolean} predicate
 * @param {string} what
 * @param {number} [ms]
 */
export async function until(predicate, what, ms = 10_000) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}; errors: ${errors.join(" | ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One GM browser: a world, an applier writing into it, a connection; with `foundry` (another
 * client's parts) the same Foundry world, seen from a second GM browser.
 * @param {{WebSocket: any, url: string, token: string, world: string, foundry?: {w: FakeWorld, ann: any, bob: any, t1: any, t2: any}|null}} args
 */
export function client({ WebSocket, url, token, world, foundry = null }) {
  if (foundry) return link(foundry, { WebSocket, url, token, world });
  const w = new FakeWorld();
  const ann = w.addActor("ann0000000000001", "Ann", {
    health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 },
    attributes: { STR: 2, DEX: 3, STA: 2, INT: 2, PER: 3, RES: 2, PRE: 1, MAN: 1, COM: 2 },
    skills: { investigation: 2, stealth: 1 },
    conditions: { blinded: false },
  });
  const bob = w.addActor("bob0000000000002", "Bob", {
    health: { max: 7, bashing: 0, lethal: 0, aggravated: 0 },
    skills: { stealth: 3 },
    conditions: {},
  });
  const t1 = w.addToken("tokAnn000000001", ann, 0, 0);
  const t2 = w.addToken("tokBob000000002", bob, 300, 0);
  return link({ w, ann, bob, t1, t2 }, { WebSocket, url, token, world });
}

/**
 * A bridge's link (applier, connection) over a Foundry world: a new one, or (`foundry`) the world of
 * another client's link, as a second GM browser of the same world sees it.
 * @param {{w: FakeWorld, ann: import("./fake-foundry.mjs").FakeDocument, bob: import("./fake-foundry.mjs").FakeDocument, t1: import("./fake-foundry.mjs").FakeDocument, t2: import("./fake-foundry.mjs").FakeDocument}} foundry
 * @param {{WebSocket: any, url: string, token: string, world: string}} options
 */
function link({ w, ann, bob, t1, t2 }, { WebSocket, url, token, world }) {
  const applier = new PatchApplier({
    statusIds: () => new Set(["blind", "deaf", "unconscious", "dead", "prone"]),
    deletion: deletionOperator(w.env),
    // as main.mjs wires it: Foundry's flags of the synced scene, read on each sync
    foundryVisibility: (id) => (id ? tokenVisibilityFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryAreas: (id) => (id ? tokenAreaFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryActors: (id) => (id ? actorFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
  const connection = new BridgeConnection({
    url,
    token,
    world,
    WebSocket,
    getState: () => buildState({ scene: /** @type {any} */ (w.scene), round: 0, settings: { woundPenalty: false, unconsciousAtZeroWillpower: false } }),
    apply: (incoming) => applier.apply(incoming),
  });
  /** @type {Promise<unknown>[]} */
  const forwarded = [];
  // what main.mjs wires: a token moved in Foundry becomes a `move` action
  w.hooks.on("updateToken", (token, changes, options) => {
    const action = moveFromTokenUpdate(token, changes, options, applier.state);
    if (action) forwarded.push(connection.action(action));
  });
  return { w, ann, bob, t1, t2, applier, connection, forwarded };
}

/**
 * @param {{WebSocket: any, url: string, token: string, world: string}} args
 */
export async function runScenario(args) {
  /** @type {Record<string, any>} */
  const report = {};
  const gm = client(args);
  const other = client(args); // a second client of the same world sees pushed patches
  errors.length = 0;
  for (const c of [gm.connection, other.connection]) {
    c.on("error", (e) => errors.push(`${e?.message ?? e} ${JSON.stringify(e?.details ?? "")}`));
  }
  try {
    gm.connection.start();
    await until(() => gm.connection.rev !== null && gm.applier.state !== null, "the first sync");
    other.connection.start();
    await until(() => other.connection.rev !== null && other.applier.state !== null, "the second client's sync");
    await until(() => gm.connection.rev === other.connection.rev, "the first client to see the second's sync");
    await gm.connection.idle();
    report.status = gm.connection.status;
    report.welcome = gm.connection.welcome;
    report.syncRev = gm.connection.rev;
    report.mirrorActors = Object.keys(gm.applier.state.actors).sort();
    report.mirrorTokens = Object.keys(gm.applier.state.tokens).sort();
    report.annStatusFlag = gm.ann.flags["vtt-bridge"].status;

    // move Ann's token in "Foundry": the hook forwards it, the result patch lands
    await gm.t1.update({ x: 200, y: 100 });
    report.forwardedMoves = gm.forwarded.length;
    const moveResult = /** @type {any} */ (await gm.forwarded[0]);
    await gm.connection.idle();
    report.moveRev = moveResult.rev;
    report.moveLog = moveResult.log.map((/** @type {any} */ s) => s.rule);
    report.mirrorAnnAt = { x: gm.applier.state.tokens.tokAnn000000001.x, y: gm.applier.state.tokens.tokAnn000000001.y };
    report.tokenAt = { x: gm.t1.x, y: gm.t1.y };
    report.moveEchoes = gm.forwarded.length; // the module's own writes must not produce more moves

    // damage Bob: 3 lethal
    const damage = /** @type {any} */ (await gm.connection.action(damageAction(gm.bob.uuid, [{ amount: 3, grade: "L" }])));
    await gm.connection.idle();
    report.damageRev = damage.rev;
    report.damageLog = damage.log.map((/** @type {any} */ s) => s.rule);
    report.bobHealthFlag = gm.bob.flags["vtt-bridge"].health;
    report.bobStatusFlag = gm.bob.flags["vtt-bridge"].status;
    report.bobStatusMirror = gm.applier.state.actors[gm.bob.uuid].status;
    report.bobWrites = gm.bob.updates.map((u) => /** @type {any} */ (u.options)["vtt-bridge"]?.origin ?? "untagged");

    // visibility flags on every target token agree with the mirror
    /** @type {string[]} */
    const mismatches = [];
    for (const [observer, row] of Object.entries(gm.applier.state.visibility ?? {})) {
      for (const [target, state] of Object.entries(/** @type {Record<string, string>} */ (row))) {
        const token = gm.w.tokens.find((t) => t.id === target);
        if (token?.flags["vtt-bridge"]?.visibility?.[observer] !== state) mismatches.push(`${observer}->${target}`);
      }
    }
    report.visibilityPairs = Object.values(gm.applier.state.visibility ?? {}).reduce((n, row) => n + Object.keys(/** @type {object} */ (row)).length, 0);
    report.visibilityMismatches = mismatches;

    // the other client got both rulings as pushed patches, in order
    await until(() => other.connection.rev === gm.connection.rev, "the pushed patches");
    await other.connection.idle();
    report.otherRev = other.connection.rev;
    report.otherBobLethal = other.bob.flags["vtt-bridge"].health.lethal;
    report.otherAnnTokenX = other.t1.x;
    report.mirrorsEqual = JSON.stringify(other.applier.state) === JSON.stringify(gm.applier.state);

    // a wrong token is refused and not retried
    const intruder = new BridgeConnection({ ...args, token: "wrong", getState: () => null, apply: () => true });
    intruder.start();
    await until(() => intruder.status === "unauthorized", "the refusal");
    report.wrongToken = intruder.status;
    intruder.stop();
  } finally {
    gm.connection.stop();
    other.connection.stop();
  }
  report.errors = [...errors];
  return report;
}
