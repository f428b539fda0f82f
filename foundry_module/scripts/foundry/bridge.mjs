/**
 * Glue between the connection and Foundry's documents: keeps the mirror of the state document,
 * plans each incoming patch (apply-patch.mjs) and carries the plan out as batched document updates.
 * Foundry's classes come in as arguments, so tests run it on Foundry-shaped plain objects.
 * @module bridge
 */

import { planPatch, toFoundryBatches } from "../core/apply-patch.mjs";

/** @typedef {import("../core/apply-patch.mjs").FoundryBatches} FoundryBatches */
/** @typedef {import("../core/connection.mjs").Incoming} Incoming */

/**
 * @typedef {object} DocumentLike
 * @property {(update: Record<string, unknown>, options?: Record<string, unknown>) => Promise<unknown>} update
 * @property {(status: string, options: {active: boolean}) => Promise<unknown>} [toggleStatusEffect]
 */

/**
 * @typedef {object} FoundryTarget where a plan is written
 * @property {{updateDocuments: (updates: Record<string, unknown>[], options?: Record<string, unknown>) => Promise<unknown>}} Actor
 * @property {(id: string|undefined) => ({tokens?: Iterable<{id: string|null}>, updateEmbeddedDocuments: (name: string, updates: Record<string, unknown>[], options?: Record<string, unknown>) => Promise<unknown>}|null|undefined)} scene
 *   the scene of that id (`game.scenes.get(id)`): the synced scene, whichever one is viewed now
 * @property {(uuid: string) => (DocumentLike|null|Promise<DocumentLike|null>)} fromUuid
 * @property {{has: (id: string) => boolean}} [actors] `game.actors`: a world actor deleted meanwhile is
 *   skipped (`Actor.updateDocuments` would fail the whole batch on its id)
 */

/**
 * Carry out one plan: one `Actor.updateDocuments` for world actors, one update per synthetic
 * actor, one `updateEmbeddedDocuments("Token")` for the scene's tokens, then the status toggles.
 * @param {FoundryBatches} batches
 * @param {FoundryTarget} target
 */
export async function executeBatches(batches, target) {
  const { options } = batches;
  // F5: only world actors that still exist (one deleted while its patch was in flight would fail
  // every update of the batch, and the ruling's token updates and statuses after it)
  const actors = target.actors ? batches.worldActors.filter((u) => target.actors?.has(String(u._id))) : batches.worldActors;
  if (actors.length) await target.Actor.updateDocuments(actors, options);
  for (const { uuid, update } of batches.syntheticActors) {
    const doc = await target.fromUuid(uuid);
    if (doc) await doc.update(update, options);
  }
  if (batches.tokens.length && batches.sceneId) {
    const scene = target.scene(batches.sceneId);
    // only tokens the scene still holds: one deleted meanwhile would fail the whole batch
    const present = scene?.tokens ? new Set(Array.from(scene.tokens, (t) => t.id)) : null;
    const tokens = present ? batches.tokens.filter((u) => present.has(/** @type {string} */ (u._id))) : batches.tokens;
    if (scene && tokens.length) await scene.updateEmbeddedDocuments("Token", tokens, options);
  }
  for (const { actor, status, active } of batches.statusToggles) {
    const doc = await target.fromUuid(actor);
    if (doc?.toggleStatusEffect) await doc.toggleStatusEffect(status, { active });
  }
}

/**
 * @typedef {object} ApplierOptions
 * @property {(batches: FoundryBatches, incoming: Incoming) => Promise<void>} execute
 * @property {() => Set<string>} statusIds the configured status effect ids
 * @property {(parent: string, key: string) => [string, unknown]} deletion
 * @property {(sceneId: string|undefined) => Record<string, Record<string, unknown>>} [foundryAreas] the areas flags, as `foundryVisibility`
 * @property {(sceneId: string|undefined) => Record<string, Record<string, string>>} [foundryVisibility]
 *   the visibility flags of that scene's tokens now (target → observer → state), read on a sync to
 *   clear stale pairs
 * @property {(sceneId: string|undefined) => Record<string, Record<string, unknown>>} [foundryActors]
 *   the rules flags of that scene's actors now (uuid → `flags.vtt-bridge`), read on a sync to delete
 *   keys the result lacks
 * @property {(plan: import("../core/apply-patch.mjs").PatchPlan, previous: any) => void} [amendPlan] adds to the plan's
 *   actor updates before they are written (the game system's own fields: systems/index.mjs);
 *   `previous`: the mirror before a patch, null for a sync
 */

/** Holds the mirror and applies incoming results/patches to it and to Foundry. */
export class PatchApplier {
  /** @param {ApplierOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {any} the mirror of the sidecar's state document */
    this.state = null;
  }

  /**
   * The `apply` of BridgeConnection: false when the patch does not fit (resync).
   * @param {Incoming} incoming
   * @returns {Promise<boolean>}
   */
  async apply(incoming) {
    if (incoming.mode === "patch" && this.state === null) return false;
    const sync = incoming.mode === "sync";
    const sceneId = sync ? syncedSceneId(incoming.patch) : this.state?.scene?.id;
    const plan = planPatch(this.state, incoming.patch, {
      mode: incoming.mode,
      statusIds: this.options.statusIds(),
      deletion: this.options.deletion,
      foundryVisibility: sync ? this.options.foundryVisibility?.(sceneId) : undefined,
      foundryAreas: sync ? this.options.foundryAreas?.(sceneId) : undefined,
      foundryActors: sync ? this.options.foundryActors?.(sceneId) : undefined,
    });
    if (plan.resync) return false;
    if (plan.state && typeof plan.state === "object") plan.state.rev = incoming.rev;
    // a patch: the mirror before it tells what changed (a sync aligns everything)
    const previous = sync ? null : this.state;
    this.state = plan.state;
    this.options.amendPlan?.(plan, previous);
    await this.options.execute(toFoundryBatches(plan), incoming);
    return true;
  }
}

/**
 * The scene id a sync result sets (its `/scene` op), or undefined.
 * @param {readonly import("../core/json-patch.mjs").PatchOp[]} patch
 * @returns {string|undefined}
 */
function syncedSceneId(patch) {
  for (const op of patch) {
    const value = /** @type {any} */ (op).value;
    if (op.path === "/scene" && typeof value?.id === "string") return value.id;
    if (op.path === "" && typeof value?.scene?.id === "string") return value.scene.id;
  }
  return undefined;
}
