// The module's own patch-to-update code (core/apply-patch.mjs) run on the sidecar's results: for
// each case, how many Foundry documents one result updates and how many bytes of update data are
// sent. Reads {cases: [{tokens, results: {sync, move, round, ...}}]} (each result a sidecar `result`
// payload: {rev, patch}, applied in that order) as JSON on stdin; prints one JSON line per case and
// step, with what of it writes DET-4's areas.
import { planPatch, toFoundryBatches } from "../foundry_module/scripts/core/apply-patch.mjs";
import { deletionOperator } from "../foundry_module/scripts/foundry/compat.mjs";

const statusIds = new Set(["blind", "deaf", "unconscious", "dead", "prone"]);
const deletion = deletionOperator({});

/** @param {NodeJS.ReadStream} stream */
async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The Foundry writes of one result on top of the mirror, measured as Foundry receives them.
 * @param {any} mirror
 * @param {{rev: number, patch: any[]}} result
 * @param {"sync"|"patch"} mode
 */
function planned(mirror, result, mode) {
  const start = performance.now();
  const plan = planPatch(mirror, result.patch, { mode, statusIds, deletion, foundryVisibility: {}, foundryActors: {} });
  if (plan.resync) throw new Error(`the ${mode} result did not fit the mirror: ${plan.reason}`);
  const batches = toFoundryBatches(plan);
  const ms = performance.now() - start;
  plan.state.rev = result.rev;
  const documents = batches.worldActors.length + batches.syntheticActors.length + batches.tokens.length;
  const bytes = JSON.stringify([batches.worldActors, batches.syntheticActors, batches.tokens]).length;
  const tokenBytes = JSON.stringify(batches.tokens).length;
  // DET-4's areas: the token documents whose update writes an area, those it writes nothing else
  // to, and the bytes of the area entries (key and value, as in the update's JSON)
  let areaDocuments = 0;
  let areaOnly = 0;
  let areaBytes = 0;
  for (const update of batches.tokens) {
    const keys = Object.keys(update).filter((key) => key !== "_id");
    const areas = keys.filter((key) => key.startsWith("flags.vtt-bridge.areas"));
    if (!areas.length) continue;
    areaDocuments++;
    if (areas.length === keys.length) areaOnly++;
    for (const key of areas) areaBytes += JSON.stringify({ [key]: update[key] }).length - 1;
  }
  return { state: plan.state, documents, bytes, tokenBytes, toggles: batches.statusToggles.length, ms, areaDocuments, areaOnly, areaBytes };
}

const input = JSON.parse(await readAll(process.stdin));
for (const { tokens, results } of input.cases) {
  let mirror = null;
  for (const step of Object.keys(results)) {
    const out = planned(mirror, results[step], step === "sync" ? "sync" : "patch");
    mirror = out.state;
    const { documents, bytes, tokenBytes, toggles, ms, areaDocuments, areaOnly, areaBytes } = out;
    console.log(JSON.stringify({ tokens, step, documents, bytes, tokenBytes, toggles, ms: Math.round(ms), areaDocuments, areaOnly, areaBytes }));
  }
}
