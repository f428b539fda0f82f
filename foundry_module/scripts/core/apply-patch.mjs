/**
 * PURE: turns the sidecar's RFC 6902 patches into batched Foundry updates.
 *
 * The module keeps a mirror of the sidecar's state document. A patch is applied to the mirror;
 * then every part it touched is compared before/after and written to Foundry as flat dot-path
 * updates:
 * - `actors/<uuid>/<field>` → `flags.vtt-bridge.<field>` on that actor (all fields but `name`);
 *   objects are merged key by key, arrays are replaced whole, a removed key is deleted with the
 *   version-aware deletion helper;
 * - a changed condition whose status effect exists → a `toggleStatusEffect` call;
 * - `visibility/<observer>/<target>` → `flags.vtt-bridge.visibility.<observer>` on the TARGET token
 *   (so each token carries "who locates me"), deleted when the pair leaves the document;
 * - `areas/<target>` (the sidecar keys its areas by target, as the token flag is) → that TARGET
 *   token's `flags.vtt-bridge.areas`, the row being the flag's content: `<observer>` → `[x, y, r]`
 *   (DET-4 on the map: where an approximate target is known to be); a cell `areas/<target>/<observer>`
 *   touches that one key, a row or the whole part every key of the rows it holds, each changed key
 *   written whole and a key the row lost deleted; one token update per target whatever the ops;
 * - `tokens/<id>/{x,y,elevation}` → the token's own position (not on a full sync: Foundry already
 *   has it);
 * - `rev`, `scene`, `settings`: nothing to write (they come from Foundry);
 * - `contests` (the stage-three results): not mirrored at all, their ops skipped: nothing of them is
 *   written to Foundry, and a combat round replaces every kept result (a hundred thousand entries at
 *   1,000 tokens), which the mirror would apply to no purpose.
 * A `test` op that fails, or any op that does not apply, means the mirror is out of step: the plan
 * says `resync` and writes nothing.
 * @module apply-patch
 */

import {
  ACTOR_FIELDS,
  AREAS_FLAG,
  CONDITION_STATUS_ALIASES,
  MODULE_ID,
  ORIGIN_SIDECAR,
  SERVER_ACTOR_FIELDS,
  VISIBILITY_FLAG,
} from "./constants.mjs";
import { applyJsonPatch, deepEqual, isPlainObject, parsePointer, PatchError } from "./json-patch.mjs";

/** @typedef {import("./_types.mjs").PatchOp} PatchOp */
/** @typedef {(parent: string, key: string) => [string, unknown]} Deletion */
/** @typedef {Record<string, unknown>} FlatUpdate a Foundry update object with dot-path keys */

/**
 * @typedef {object} PatchPlan
 * @property {boolean} resync the patch did not fit the mirror: send `sync`
 * @property {string} [reason] why a resync is needed
 * @property {any} state the new mirror (the old one when `resync`)
 * @property {number|undefined} rev the new mirror's rev
 * @property {Map<string, FlatUpdate>} actorUpdates actor uuid → update
 * @property {Map<string, FlatUpdate>} tokenUpdates token id → update
 * @property {Array<{actor: string, status: string, active: boolean}>} statusToggles
 */

/**
 * @typedef {object} PlanOptions
 * @property {"sync"|"patch"} [mode] "sync": a full sync result, the patch builds the document from
 *   empty; "patch": a change on top of the mirror
 * @property {Set<string>} statusIds ids of the configured status effects
 * @property {Deletion} deletion from `deletionOperator`
 * @property {Record<string, Record<string, string>>} [foundryVisibility] for "sync": the
 *   visibility flags Foundry's tokens hold now, target → observer → state, so stale pairs are deleted
 * @property {Record<string, Record<string, unknown>>} [foundryAreas] for "sync": the areas flags
 *   Foundry's tokens hold now, target → observer → area (the document's own keying), so stale areas
 *   are deleted and areas Foundry already holds are not rewritten
 * @property {Record<string, Record<string, unknown>>} [foundryActors] for "sync": the rules flags
 *   Foundry's actors hold now, actor uuid → `flags.vtt-bridge`, so keys the result lacks are deleted
 *   (Foundry merges objects: a key not deleted stays) and values it already has are not rewritten
 */

/** The document a sync patch is applied to. */
export const EMPTY_STATE = Object.freeze({ rev: 0, scene: null, settings: {}, actors: {}, tokens: {}, visibility: {}, areas: {} });

const FLAG_ROOT = `flags.${MODULE_ID}`;

/**
 * Plan the Foundry writes of one patch.
 * @param {any} mirror the state document before (ignored in "sync" mode)
 * @param {readonly PatchOp[]} ops
 * @param {PlanOptions} options
 * @returns {PatchPlan}
 */
export function planPatch(mirror, ops, options) {
  const sync = options.mode === "sync";
  const before = sync ? structuredClone(EMPTY_STATE) : mirror;
  const mirrored = ops.filter((op) => !unmirrored(op));
  let after;
  try {
    after = applyJsonPatch(before, sync ? syncOps(mirrored) : mirrored);
  } catch (error) {
    if (error instanceof PatchError || error instanceof SyntaxError) {
      return emptyPlan(mirror, true, error.message);
    }
    throw error;
  }
  const touched = [];
  for (const op of mirrored) {
    if (op.op === "test") continue;
    touched.push(parsePointer(op.path));
    if (op.op === "move" && op.from !== undefined) touched.push(parsePointer(op.from));
  }
  return planChanges(before, after, touched, options);
}

/** The parts of the state document the mirror does not hold (see the module's header). */
const UNMIRRORED = ["/contests"];

/**
 * Whether an op reads or writes only a part the mirror does not hold.
 * @param {PatchOp} op
 * @returns {boolean}
 */
function unmirrored(op) {
  return UNMIRRORED.some(
    (part) =>
      (op.path === part || op.path.startsWith(part + "/")) &&
      (op.from === undefined || op.from === part || op.from.startsWith(part + "/")),
  );
}

/**
 * A sync result builds the document from empty: its `test` of the old rev says nothing about the
 * mirror, and a `replace` of a part the empty document lacks (a field newer than this module) is
 * an `add`.
 * @param {readonly PatchOp[]} ops
 * @returns {PatchOp[]}
 */
function syncOps(ops) {
  return ops.filter((op) => op.op !== "test").map((op) => (op.op === "replace" ? { ...op, op: "add" } : op));
}

/**
 * Plan the writes that take Foundry from `before` to `after`, looking only at the `touched` paths
 * (token lists; `[]` is the whole document).
 * @param {any} before
 * @param {any} after
 * @param {string[][]} touched
 * @param {PlanOptions} options
 * @returns {PatchPlan}
 */
export function planChanges(before, after, touched, options) {
  const sync = options.mode === "sync";
  const plan = emptyPlan(after, false);
  /** @type {Map<string, Set<string>|null>} actor uuid → fields (null: all) */
  const actorFields = new Map();
  /** @type {Cells} observer → targets whose visibility was touched */
  let visibilityCells = new Map();
  /** @type {Map<string, Set<string>|null>} */
  const tokenFields = new Map();
  /** @type {Cells} target → observers whose areas were touched */
  let areaCells = new Map();
  const allActors = () => unionKeys(before?.actors, after?.actors);

  for (const tokens of touched) {
    const [root, id, field] = tokens;
    if (root === undefined) {
      for (const uuid of allActors()) actorFields.set(uuid, null);
      visibilityCells = null;
      areaCells = null;
      for (const tid of unionKeys(before?.tokens, after?.tokens)) tokenFields.set(tid, null);
    } else if (root === "actors") {
      if (id === undefined) for (const uuid of allActors()) actorFields.set(uuid, null);
      else if (field === undefined) actorFields.set(id, null);
      else {
        const fields = actorFields.get(id);
        if (fields !== null) actorFields.set(id, (fields ?? new Set()).add(field));
      }
    } else if (root === "visibility") {
      visibilityCells = touchCell(visibilityCells, id, field);
    } else if (root === "areas") {
      areaCells = touchCell(areaCells, id, field);
    } else if (root === "tokens") {
      if (id === undefined) for (const tid of unionKeys(before?.tokens, after?.tokens)) tokenFields.set(tid, null);
      else if (field === undefined) tokenFields.set(id, null);
      else {
        const fields = tokenFields.get(id);
        if (fields !== null) tokenFields.set(id, (fields ?? new Set()).add(field));
      }
    }
  }

  for (const [uuid, fields] of actorFields) {
    const a = after?.actors?.[uuid];
    const b = sync ? knownFields(options.foundryActors?.[uuid]) : before?.actors?.[uuid];
    if (!isPlainObject(a)) continue; // an actor leaving the document keeps its Foundry flags
    const names = fields ?? unionKeys(b, a);
    /** @type {FlatUpdate} */
    const update = {};
    for (const name of names) {
      if (name === "name") continue;
      diffInto(update, `${FLAG_ROOT}.${name}`, b?.[name], a[name], options.deletion);
      if (name === "conditions") {
        plan.statusToggles.push(...conditionToggles(uuid, b?.conditions, a.conditions, sync, options.statusIds));
      }
    }
    if (Object.keys(update).length) plan.actorUpdates.set(uuid, update);
  }

  const beforeVisibility = sync ? invertVisibility(options.foundryVisibility ?? {}) : before?.visibility;
  for (const [observer, target, was, code] of rowCells(beforeVisibility, after?.visibility, visibilityCells)) {
    if (was === code) continue;
    const update = tokenUpdate(plan, target);
    if (code === undefined) {
      const [key, value] = options.deletion(`${FLAG_ROOT}.${VISIBILITY_FLAG}`, observer);
      update[key] = value;
    } else {
      update[`${FLAG_ROOT}.${VISIBILITY_FLAG}.${observer}`] = code;
    }
  }

  const beforeAreas = sync ? options.foundryAreas : before?.areas;
  for (const [target, observer, was, area] of rowCells(beforeAreas, after?.areas, areaCells)) {
    if (deepEqual(was, area)) continue;
    const update = tokenUpdate(plan, target);
    if (area === undefined) {
      const [key, value] = options.deletion(`${FLAG_ROOT}.${AREAS_FLAG}`, observer);
      update[key] = value;
    } else {
      update[`${FLAG_ROOT}.${AREAS_FLAG}.${observer}`] = structuredClone(area);
    }
  }

  if (!sync) {
    for (const [tid, fields] of tokenFields) {
      const a = after?.tokens?.[tid];
      if (!isPlainObject(a)) continue;
      const b = before?.tokens?.[tid] ?? {};
      for (const name of fields ?? ["x", "y", "elevation"]) {
        if (!["x", "y", "elevation"].includes(name)) continue;
        if (typeof a[name] === "number" && a[name] !== b[name]) tokenUpdate(plan, tid)[name] = a[name];
      }
    }
  }
  return plan;
}

/**
 * The state-document fields of an actor's flags (other keys of the scope are not ours to delete).
 * @param {unknown} flags
 * @returns {Record<string, unknown>|undefined}
 */
function knownFields(flags) {
  if (!isPlainObject(flags)) return undefined;
  return Object.fromEntries(Object.entries(flags).filter(([key]) => ACTOR_FIELDS.includes(key) || SERVER_ACTOR_FIELDS.includes(key)));
}

/**
 * @param {any} state
 * @param {boolean} resync
 * @param {string} [reason]
 * @returns {PatchPlan}
 */
function emptyPlan(state, resync, reason) {
  return {
    resync,
    ...(reason === undefined ? {} : { reason }),
    state,
    rev: typeof state?.rev === "number" ? state.rev : undefined,
    actorUpdates: new Map(),
    tokenUpdates: new Map(),
    statusToggles: [],
  };
}

/**
 * @param {PatchPlan} plan
 * @param {string} id
 * @returns {FlatUpdate}
 */
function tokenUpdate(plan, id) {
  let update = plan.tokenUpdates.get(id);
  if (!update) plan.tokenUpdates.set(id, (update = {}));
  return update;
}

/**
 * Rows → the cells of them a patch touched, for a part of the document keyed row → cell
 * (`visibility`: observer → target; `areas`: target → observer); a row mapped to null was touched
 * whole, and the map itself is null when the whole part was.
 * @typedef {Map<string, Set<string>|null>|null} Cells
 */

/**
 * Note one touched path of such a part: no row (the part itself) touches every row, a row without
 * a cell that row whole, anything deeper its cell (the cell's value is written whole).
 * @param {Cells} cells
 * @param {string|undefined} row
 * @param {string|undefined} cell
 * @returns {Cells}
 */
function touchCell(cells, row, cell) {
  if (cells === null || row === undefined) return null;
  if (cell === undefined) return cells.set(row, null);
  const known = cells.get(row);
  if (known !== null) cells.set(row, (known ?? new Set()).add(cell));
  return cells;
}

/**
 * The cells of a part kept as rows (`visibility`: observer -> target, `areas`: target -> observer)
 * that may differ between before and after: those `cells` names per row (null: the row's every
 * key), or every cell of every row when `cells` is null. Each as [row, key, before's value, after's
 * value], an own value or undefined (a row that is no object reads as empty).
 * @param {unknown} before
 * @param {unknown} after
 * @param {Map<string, Set<string> | null> | null} cells
 * @returns {Generator<[string, string, unknown, unknown]>}
 */
function* rowCells(before, after, cells) {
  for (const [row, keys] of cells ?? allRows(before, after)) {
    const b = /** @type {Record<string, unknown> | undefined} */ (before)?.[row];
    const a = /** @type {Record<string, unknown> | undefined} */ (after)?.[row];
    const rowB = isPlainObject(b) ? b : {};
    const rowA = isPlainObject(a) ? a : {};
    for (const key of keys ?? unionKeys(rowB, rowA)) yield [row, key, ownValue(rowB, key), ownValue(rowA, key)];
  }
}

/**
 * Every row of a part before or after, each touched whole.
 * @param {unknown} before
 * @param {unknown} after
 * @returns {Map<string, null>}
 */
function allRows(before, after) {
  return new Map(unionKeys(before, after).map((row) => [row, null]));
}

/**
 * A key's own value (never one inherited from `Object.prototype`), or undefined.
 * @param {Record<string, unknown>} object
 * @param {string} key
 * @returns {unknown}
 */
function ownValue(object, key) {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * @param {unknown} a
 * @param {unknown} b
 * @returns {string[]}
 */
function unionKeys(a, b) {
  return [...new Set([...(isPlainObject(a) ? Object.keys(a) : []), ...(isPlainObject(b) ? Object.keys(b) : [])])];
}

/**
 * Write into `out` the dot-path updates that take `before` to `after` at `path`: objects key by
 * key, anything else (arrays included) whole.
 * @param {FlatUpdate} out
 * @param {string} path
 * @param {unknown} before
 * @param {unknown} after
 * @param {Deletion} deletion
 */
export function diffInto(out, path, before, after, deletion) {
  if (deepEqual(before, after)) return;
  if (after === undefined) {
    const cut = path.lastIndexOf(".");
    const [key, value] = deletion(path.slice(0, cut), path.slice(cut + 1));
    out[key] = value;
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of unionKeys(before, after)) diffInto(out, `${path}.${key}`, before[key], after[key], deletion);
    return;
  }
  out[path] = structuredClone(after);
}

/**
 * The Foundry status effect id of a condition, or null when none is configured.
 * @param {string} condition
 * @param {Set<string>} statusIds
 * @returns {string|null}
 */
export function statusForCondition(condition, statusIds) {
  const alias = /** @type {Record<string, string>} */ (CONDITION_STATUS_ALIASES)[condition];
  if (alias && statusIds.has(alias)) return alias;
  return statusIds.has(condition) ? condition : null;
}

/**
 * The condition a status effect id stands for (the inverse of `statusForCondition`).
 * @param {string} status
 * @returns {string}
 */
export function conditionForStatus(status) {
  for (const [condition, alias] of Object.entries(CONDITION_STATUS_ALIASES)) {
    if (alias === status) return condition;
  }
  return status;
}

/**
 * @param {string} actor
 * @param {any} before
 * @param {any} after
 * @param {boolean} sync every condition present is asserted, changed or not
 * @param {Set<string>} statusIds
 * @returns {Array<{actor: string, status: string, active: boolean}>}
 */
function conditionToggles(actor, before, after, sync, statusIds) {
  const toggles = [];
  for (const condition of unionKeys(before, after)) {
    const was = before?.[condition] === true;
    const is = after?.[condition] === true;
    if (was === is && !(sync && after && condition in after)) continue;
    const status = statusForCondition(condition, statusIds);
    if (status) toggles.push({ actor, status, active: is });
  }
  return toggles;
}

/**
 * target → observer → state (token flags) into observer → target → state (state document).
 * @param {Record<string, Record<string, string>>} byTarget
 * @returns {Record<string, Record<string, string>>}
 */
export function invertVisibility(byTarget) {
  /** @type {Record<string, Record<string, string>>} */
  const byObserver = {};
  for (const [target, observers] of Object.entries(byTarget)) {
    for (const [observer, state] of Object.entries(observers ?? {})) {
      (byObserver[observer] ??= {})[target] = state;
    }
  }
  return byObserver;
}

/**
 * @typedef {object} FoundryBatches
 * @property {FlatUpdate[]} worldActors for `Actor.updateDocuments(worldActors, options)`
 * @property {Array<{uuid: string, update: FlatUpdate}>} syntheticActors unlinked tokens' actors
 * @property {FlatUpdate[]} tokens for `scene.updateEmbeddedDocuments("Token", tokens, options)`
 * @property {string|undefined} sceneId the scene those tokens are on: the mirror's scene (never
 *   "whatever scene is viewed now": a patch in flight during a scene change must not land there)
 * @property {Array<{actor: string, status: string, active: boolean}>} statusToggles
 * @property {Record<string, unknown>} options the update options tagging the writes as ours
 */

/**
 * Group a plan's updates into as few Foundry calls as possible.
 * @param {PatchPlan} plan
 * @returns {FoundryBatches}
 */
export function toFoundryBatches(plan) {
  /** @type {FoundryBatches} */
  const batches = {
    worldActors: [],
    syntheticActors: [],
    tokens: [],
    sceneId: typeof plan.state?.scene?.id === "string" ? plan.state.scene.id : undefined,
    statusToggles: plan.statusToggles,
    options: updateOptions(),
  };
  for (const [uuid, update] of plan.actorUpdates) {
    const world = /^Actor\.([^.]+)$/.exec(uuid);
    if (world) batches.worldActors.push({ _id: world[1], ...update });
    else batches.syntheticActors.push({ uuid, update });
  }
  for (const [id, update] of plan.tokenUpdates) batches.tokens.push({ _id: id, ...update });
  return batches;
}

/**
 * The update options of every write the module makes, so its hooks recognise (and never forward)
 * them; token moves are not animated.
 * @returns {Record<string, unknown>}
 */
export function updateOptions() {
  return { [MODULE_ID]: { origin: ORIGIN_SIDECAR }, animate: false };
}

/**
 * Whether update options mark a write as the module's own.
 * @param {unknown} options
 * @returns {boolean}
 */
export function isOwnWrite(options) {
  return isPlainObject(options) && isPlainObject(options[MODULE_ID]) && options[MODULE_ID].origin === ORIGIN_SIDECAR;
}
