// The module's patch planner (core/apply-patch.mjs, or the one named by --planner) on the sidecar's
// own results of bench_foundry's scene: for the first sync (a Foundry without flags), a reconnect's
// sync (Foundry holding every flag the first one wrote) and the far move of t0, how many token
// documents are written, the bytes of their updates and of their area entries, and the CPU time
// of planning (best of n runs: a loaded machine stretches the others, not the best).
//
//   python -c "import json, sys; from benchmarks.bench_foundry import results; r = results(500); \
//     json.dump({'tokens': 500, 'sync': r['sync'], 'move': r['move']}, sys.stdout)" > cases.json
//   node benchmarks/module_plan.mjs cases.json [--planner path/to/apply-patch.mjs]
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const at = args.indexOf("--planner");
const planner = at >= 0 ? resolve(args[at + 1]) : new URL("../foundry_module/scripts/core/apply-patch.mjs", import.meta.url).pathname;
const casesPath = args.find((arg, i) => !arg.startsWith("--") && (at < 0 || i !== at + 1));
if (!casesPath) throw new Error("usage: node benchmarks/module_plan.mjs cases.json [--planner apply-patch.mjs]");
const { planPatch, toFoundryBatches } = await import(pathToFileURL(planner).href);
const { deletionOperator } = await import(new URL("../foundry_module/scripts/foundry/compat.mjs", import.meta.url).href);

const deletion = deletionOperator({});
const statusIds = new Set(["blind", "deaf", "unconscious", "dead", "prone"]);
const { tokens, sync, move } = JSON.parse(readFileSync(casesPath, "utf8"));
const options = { statusIds, deletion, foundryVisibility: {}, foundryActors: {} };

/** @param {() => unknown} fn @param {number} n @returns {number} the least CPU milliseconds */
function best(fn, n) {
  let least = Infinity;
  for (let i = 0; i < n; i++) {
    const start = process.cpuUsage();
    fn();
    const spent = process.cpuUsage(start);
    least = Math.min(least, (spent.user + spent.system) / 1000);
  }
  return least;
}

/** @param {any} plan */
function writes(plan) {
  const batches = toFoundryBatches(plan);
  let areaDocuments = 0;
  let areaKeys = 0;
  let areaBytes = 0;
  for (const update of batches.tokens) {
    const keys = Object.keys(update).filter((key) => key.startsWith("flags.vtt-bridge.areas"));
    if (keys.length) areaDocuments++;
    areaKeys += keys.length;
    for (const key of keys) areaBytes += JSON.stringify({ [key]: update[key] }).length - 1;
  }
  return { tokenDocuments: batches.tokens.length, tokenBytes: JSON.stringify(batches.tokens).length, areaDocuments, areaKeys, areaBytes };
}

/** The flags of one part as the first sync wrote them, target → observer → value. @param {any} plan @param {string} flag */
function held(plan, flag) {
  /** @type {Record<string, Record<string, unknown>>} */
  const out = {};
  const prefix = `flags.vtt-bridge.${flag}.`;
  for (const [id, update] of plan.tokenUpdates) {
    for (const [key, value] of Object.entries(update)) if (key.startsWith(prefix)) (out[id] ??= {})[key.slice(prefix.length)] = value;
  }
  return out;
}

const first = () => planPatch(null, sync.patch, { ...options, mode: "sync" });
const synced = first();
synced.state.rev = sync.rev;
const foundry = { foundryAreas: held(synced, "areas"), foundryVisibility: held(synced, "visibility") };
const reconnect = () => planPatch(null, sync.patch, { ...options, ...foundry, mode: "sync" });
const moved = () => planPatch(synced.state, move.patch, options);
const areaOps = move.patch.filter((/** @type {any} */ op) => op.path.startsWith("/areas"));
console.log(JSON.stringify({
  tokens,
  sync: { ...writes(synced), ms: best(first, 10) },
  reconnect: { ...writes(reconnect()), ms: best(reconnect, 10) },
  move: { ops: move.patch.length, areaOps: areaOps.length, areaOpBytes: JSON.stringify(areaOps).length, ...writes(moved()), ms: best(moved, 200) },
}));
