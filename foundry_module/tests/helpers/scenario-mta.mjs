/**
 * The end-to-end scenario of a Chronicles of Darkness 2e world (issue 17): actors shaped as the
 * `mta` system publishes them (tests/helpers/mta-actors.mjs), with NO rules-sheet entry at all
 * (no vtt-bridge flags), connect to the real sidecar through the module's own connection, applier
 * and the adapters' composition (`actorStateWithSystem`, `systemPlanAmender`,
 * `upsertsFromSystemChange`, as main.mjs wires them). It syncs, damages, marks damage by hand on
 * the system's "sheet" (an untagged update, as the sheet makes it), and reports what landed.
 */

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { BridgeConnection } from "../../scripts/core/connection.mjs";
import { actorFlags, buildState, damageAction, tokenAreaFlags, tokenVisibilityFlags } from "../../scripts/core/messages.mjs";
import { isOwnWrite } from "../../scripts/core/apply-patch.mjs";
import {
  actorDataOf,
  actorStateWithSystem,
  adapterSelection,
  systemPlanAmender,
  touchesSystemData,
  upsertsFromSystemChange,
} from "../../scripts/systems/index.mjs";
import { FakeWorld } from "./fake-foundry.mjs";
import { mtaCharacter, mtaEphemeral } from "./mta-actors.mjs";

/**
 * @param {() => boolean} predicate
 * @param {string} what
 * @param {string[]} errors
 */
async function until(predicate, what, errors) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${what}; errors: ${errors.join(" | ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** @param {any} doc */
const healthOf = (doc) => {
  const { max, value, lethal, aggravated } = doc.system.health;
  return { max, value, lethal, aggravated };
};

/**
 * @param {{WebSocket: any, url: string, token: string, world: string}} args
 */
export async function runMtaScenario({ WebSocket, url, token, world }) {
  /** @type {string[]} */
  const errors = [];
  /** @type {Record<string, any>} */
  const report = {};
  const w = new FakeWorld();
  /** @param {string} id @param {string} name @param {any} shaped */
  const systemActor = (id, name, shaped) => {
    const doc = /** @type {any} */ (w.addActor(id, name, {}));
    doc.flags = {}; // no rules-sheet entry at all
    doc.type = shaped.type;
    doc.system = shaped.system;
    doc.items = shaped.items;
    return doc;
  };
  const ann = systemActor("ann0000000000001", "Ann", mtaCharacter("0.16", { sta: 2, dex: 3, wits: 3, investigation: 2, stealth: 1 }));
  const spirit = systemActor("spi0000000000002", "Spirit", mtaEphemeral("0.11", { rank: 2, resistance: 3 }));
  const broken = systemActor("bad0000000000003", "Broken", mtaCharacter("v14-fork"));
  broken.system.health.max = -2;
  w.addToken("tokAnn000000001", ann, 0, 0);
  w.addToken("tokSpi000000002", spirit, 300, 0);
  w.addToken("tokBad000000003", broken, 600, 0);

  const { pick } = adapterSelection({ choice: "auto", mapping: "" });
  /** @type {Array<{uuid: string, field: string, problem: string}>} */
  const warnings = [];
  const applier = new PatchApplier({
    statusIds: () => new Set(["blind", "deaf", "unconscious", "dead", "prone"]),
    deletion: deletionOperator(w.env),
    // as main.mjs wires it: Foundry's flags of the synced scene, read on each sync; writes by scene id
    foundryVisibility: (id) => (id ? tokenVisibilityFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryAreas: (id) => (id ? tokenAreaFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    foundryActors: (id) => (id ? actorFlags(/** @type {any} */ (w.scenes.get(id))) : {}),
    amendPlan: systemPlanAmender(pick, (uuid) => w.byUuid.get(uuid) ?? null),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
  const connection = new BridgeConnection({
    url,
    token,
    world,
    WebSocket,
    getState: () =>
      buildState({
        scene: /** @type {any} */ (w.scene),
        round: 0,
        settings: { woundPenalty: false, unconsciousAtZeroWillpower: false },
        stateOf: (actor) => {
          const { state, problems } = actorStateWithSystem(actor, pick);
          for (const p of problems) warnings.push({ uuid: actor.uuid, field: p.field, problem: p.problem });
          return state;
        },
      }),
    apply: (incoming) => applier.apply(incoming),
  });
  connection.on("error", (/** @type {any} */ e) => errors.push(`${e?.message ?? e} ${JSON.stringify(e?.details ?? "")}`));
  /** @type {Promise<unknown>[]} */
  const upserts = [];
  // what main.mjs wires: a change to an actor's system data outside the module → its upserts
  w.hooks.on("updateActor", (actor, changes, options) => {
    if (!touchesSystemData(changes) || isOwnWrite(options)) return;
    const actorData = actorDataOf(actor);
    for (const { path, value } of upsertsFromSystemChange(pick(actorData), actorData, actor.uuid, applier.state)) {
      upserts.push(connection.upsert(path, value));
    }
  });
  try {
    connection.start();
    await until(() => connection.rev !== null && applier.state !== null, "the sync", errors);
    await connection.idle();
    const mirrorAnn = applier.state.actors[ann.uuid];
    report.syncedAnn = { attributes: mirrorAnn.attributes, skills: mirrorAnn.skills, health: mirrorAnn.health, willpower: mirrorAnn.willpower, speed: mirrorAnn.speed };
    report.syncedSpirit = { attributes: applier.state.actors[spirit.uuid].attributes, health: applier.state.actors[spirit.uuid].health };
    report.warnings = warnings;
    report.brokenMirrorHealthMax = applier.state.actors[broken.uuid].health.max;
    report.brokenSystemHealth = healthOf(broken);
    report.annSystemWritesOnSync = ann.updates.flatMap((/** @type {any} */ u) => Object.keys(u.changes).filter((k) => k.startsWith("system.")));

    // damage Ann: 2 bashing + 1 lethal on her 7-box track
    const damage = /** @type {any} */ (await connection.action(damageAction(ann.uuid, [{ amount: 2, grade: "B" }, { amount: 1, grade: "L" }])));
    await connection.idle();
    report.damageLog = damage.log.map((/** @type {any} */ s) => s.rule);
    report.annFlagsHealth = structuredClone(ann.flags["vtt-bridge"].health);
    report.annSystemHealth = healthOf(ann);
    report.annLastWrite = ann.updates.at(-1);

    // the spirit takes 1 aggravated
    await connection.action(damageAction(spirit.uuid, [{ amount: 1, grade: "A" }]));
    await connection.idle();
    report.spiritSystemHealth = healthOf(spirit);

    // the broken actor takes damage: the sidecar rules on its own default track; the system's
    // refused Health is not written over
    await connection.action(damageAction(broken.uuid, [{ amount: 1, grade: "L" }]));
    await connection.idle();
    report.brokenMirrorLethal = applier.state.actors[broken.uuid].health.lethal;
    report.brokenSystemHealthAfter = healthOf(broken);

    // the GM marks one more lethal box on the system's sheet (an untagged update of the thresholds)
    const writesBefore = ann.updates.length;
    await ann.update({ "system.health.value": 3, "system.health.lethal": 5 });
    report.handUpserts = upserts.length;
    await Promise.all(upserts);
    await connection.idle();
    report.mirrorAfterHand = structuredClone(applier.state.actors[ann.uuid].health);
    const after = ann.updates.slice(writesBefore + 1);
    report.echoSystemKeys = after.flatMap((/** @type {any} */ u) => Object.keys(u.changes).filter((k) => k.startsWith("system.")));
    report.echoTagged = after.every((/** @type {any} */ u) => isOwnWrite(u.options));
    report.upsertsAfterHand = upserts.length;
  } finally {
    connection.stop();
  }
  report.errors = errors;
  return report;
}
