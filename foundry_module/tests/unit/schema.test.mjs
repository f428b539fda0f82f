// The module's actor field list against the sidecar's own JSON Schema (`vtt-bridge schema`), so a
// field added on one side and not on the other fails here (issue 14, item 1).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { executeBatches, PatchApplier } from "../../scripts/foundry/bridge.mjs";
import { deletionOperator } from "../../scripts/foundry/compat.mjs";
import { ACTOR_FIELDS, FORWARDED_ACTOR_FIELDS, SERVER_ACTOR_FIELDS } from "../../scripts/core/constants.mjs";
import { actorState, buildState } from "../../scripts/core/messages.mjs";
import { FakeWorld } from "../helpers/fake-foundry.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The sidecar's JSON Schema, from the sidecar itself. */
function sidecarSchema() {
  const python = process.env.VTT_BRIDGE_PYTHON;
  const bin = join(repoRoot, ".venv", "bin", "vtt-bridge");
  const [cmd, args] = python ? [python, ["-m", "vtt_bridge", "schema"]] : [bin, ["schema"]];
  if (!python && !existsSync(bin)) throw new Error(`no sidecar: ${bin} does not exist (create the venv, or set VTT_BRIDGE_PYTHON)`);
  const run = spawnSync(cmd, args, { encoding: "utf8", cwd: repoRoot });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test("ACTOR_FIELDS + SERVER_ACTOR_FIELDS + name are exactly the sidecar's Actor fields", () => {
  const actor = sidecarSchema().$defs.Actor; // every type is in the one document's $defs
  const sidecar = Object.keys(actor.properties).sort();
  const module = ["name", ...ACTOR_FIELDS, ...SERVER_ACTOR_FIELDS].sort();
  assert.deepEqual(module, sidecar);
  assert.ok(FORWARDED_ACTOR_FIELDS.every((f) => ACTOR_FIELDS.includes(f)));
});

test("a field the sidecar writes comes back in the next sync (cannotGainAgain survives a resync)", async () => {
  const w = new FakeWorld();
  const ann = w.addActor("a", "Ann", { health: { max: 7 } });
  w.addToken("t1", ann, 0, 0);
  const applier = new PatchApplier({
    statusIds: () => new Set(),
    deletion: deletionOperator(w.env),
    execute: (batches) => executeBatches(batches, { Actor: w.Actor, scene: (id) => (id ? w.scenes.get(id) : null), fromUuid: (u) => w.fromUuid(u) }),
  });
  const bar = [{ class: "ki", until: 120 }];
  await applier.apply({
    mode: "sync",
    rev: 1,
    patch: [{ op: "replace", path: "/actors", value: { "Actor.a": { name: "Ann", cannotGainAgain: bar } } }],
    log: [],
    source: "result",
  });
  assert.deepEqual(ann.flags["vtt-bridge"].cannotGainAgain, bar);
  assert.deepEqual(actorState(ann).cannotGainAgain, bar);
  const state = buildState({ scene: /** @type {any} */ (w.scene), settings: { woundPenalty: false, unconsciousAtZeroWillpower: false } });
  assert.deepEqual(state.actors["Actor.a"].cannotGainAgain, bar);
});
