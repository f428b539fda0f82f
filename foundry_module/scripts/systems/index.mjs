/**
 * PURE: the game-system adapters and what the module does with them. Each adapter (one module per
 * system) exports `detect(actorData)`, `read(actorData, problems?)` and `write(actorData,
 * sidecarActor)`; `ADAPTERS` lists them most specific first, and the first whose `detect` holds is
 * used, unless the world setting forces one or turns them off.
 *
 * - Reading: the actor state the module sends is its flags (`messages.actorState`) with the
 *   system's fields laid over them (`withSystemFields`): what the system holds wins, what it does
 *   not hold stays ours.
 * - A change on the system's sheet becomes the upserts it means (`upsertsFromSystemChange`).
 * - The sidecar's Health and Willpower patches become system updates in the same update as the
 *   module's flags (`addSystemWrites`), tagged like every write of the module, so never echoed.
 * @module systems
 */

import { conditionForStatus } from "../core/apply-patch.mjs";
import { deepEqual, isPlainObject, pointer } from "../core/json-patch.mjs";
import { actorState } from "../core/messages.mjs";
import { createGenericAdapter, parseMapping, worldbuilding } from "./generic.mjs";
import * as mta from "./mta.mjs";

/** @typedef {import("./_types.mjs").ActorData} ActorData */
/** @typedef {import("./_types.mjs").Adapter} Adapter */
/** @typedef {import("./_types.mjs").SystemProblem} SystemProblem */
/** @typedef {import("../core/_types.mjs").Upsert} Upsert */

/** @type {readonly Adapter[]} most specific first */
export const ADAPTERS = Object.freeze([/** @type {Adapter} */ (mta), worldbuilding]);

/** The values of the world setting "game-system adapter". */
export const ADAPTER_CHOICES = Object.freeze(["auto", "off", "mta", "generic", "worldbuilding"]);

/**
 * @typedef {object} AdapterSettings
 * @property {unknown} choice the setting "game-system adapter": "auto" (by the data's shape),
 *   "off", or an adapter id to force
 * @property {unknown} mapping the setting "generic mapping" (JSON, see systems/generic.mjs)
 */

/**
 * What the settings select: a function from actor data to its adapter (or null), and the problem
 * with the mapping setting when it cannot be used.
 * @param {AdapterSettings} settings
 * @returns {{pick: (actorData: ActorData) => Adapter|null, mappingError: string|null}}
 */
export function adapterSelection({ choice, mapping }) {
  const parsed = parseMapping(mapping);
  const custom = parsed.ok && Object.keys(parsed.mapping).length ? createGenericAdapter(parsed.mapping) : null;
  const mappingError = parsed.ok ? null : parsed.error;
  // "generic" without a usable mapping maps nothing: no adapter, as "off"
  if (choice === "off" || (choice === "generic" && !custom)) return { pick: () => null, mappingError };
  const forced = choice === "generic" ? custom : ADAPTERS.find((a) => a.id === choice);
  if (forced) return { pick: () => forced, mappingError };
  // "auto" (or a forced adapter this version does not have): by shape; the world's own mapping
  // comes after the known systems and before the presets they share shapes with
  const order = custom ? [ADAPTERS[0], custom, ...ADAPTERS.slice(1)] : ADAPTERS;
  return { pick: (actorData) => order.find((a) => a.detect(actorData)) ?? null, mappingError };
}

/**
 * What an adapter reads from a Foundry actor: its prepared system data (as it is: adapters only
 * read it), its flags, its Items' type and name, and the conditions its status effects hold.
 * @param {{type?: string, system?: unknown, flags?: unknown, items?: Iterable<{type?: string, name?: string}>, statuses?: Iterable<string>}} actor
 * @returns {ActorData}
 */
export function actorDataOf(actor) {
  return {
    type: actor.type,
    // a system's data may be a data model instance, not a plain object: read as it is
    system: actor.system && typeof actor.system === "object" ? /** @type {any} */ (actor.system) : {},
    flags: /** @type {any} */ (actor.flags ?? {}),
    items: actor.items ? [...actor.items].map((item) => ({ type: item?.type, name: item?.name })) : [],
    statusConditions: actor.statuses ? [...actor.statuses].map((status) => conditionForStatus(status)) : [],
  };
}

/** Fields merged key by key (the system's keys win); any other field is the system's whole. */
const MERGED = new Set(["attributes", "skills", "health", "willpower", "conditions"]);

/**
 * The actor state to send: `state` (from the module's flags) with the system's fields over it.
 * @param {Record<string, any>} state
 * @param {Record<string, any>} systemFields what the adapter read
 * @returns {Record<string, any>}
 */
export function withSystemFields(state, systemFields) {
  const out = { ...state };
  for (const [field, value] of Object.entries(systemFields)) {
    out[field] = MERGED.has(field) && isPlainObject(value) ? { ...(isPlainObject(state[field]) ? state[field] : {}), ...value } : value;
  }
  return out;
}

/**
 * Read one actor through its adapter: the fields, and the problems met.
 * @param {Adapter|null} adapter
 * @param {ActorData} actorData
 * @returns {{fields: Record<string, any>, problems: SystemProblem[]}}
 */
export function readSystem(adapter, actorData) {
  /** @type {SystemProblem[]} */
  const problems = [];
  if (!adapter) return { fields: {}, problems };
  return { fields: adapter.read(actorData, problems), problems };
}

/** @typedef {(actorData: ActorData) => Adapter|null} Pick from `adapterSelection` */

/**
 * One actor's state for the sidecar: its flags (`messages.actorState`) with the fields its
 * system's adapter read laid over them, and the problems met reading them.
 * @param {any} actor a Foundry actor (`uuid`, `name`, `flags`, `type`, `system`, `items`, `statuses`)
 * @param {Pick} pick
 * @returns {{state: Record<string, any>, problems: SystemProblem[]}}
 */
export function actorStateWithSystem(actor, pick) {
  const actorData = actorDataOf(actor);
  const { fields, problems } = readSystem(pick(actorData), actorData);
  return { state: withSystemFields(actorState(actor), fields), problems };
}

/**
 * The `amendPlan` of the PatchApplier (bridge.mjs): each planned actor update also carries the
 * system fields that show the sidecar's new state (`addSystemWrites`).
 * @param {Pick} pick
 * @param {(uuid: string) => any} docOf the Foundry actor of a uuid, or null
 * @returns {(plan: {actorUpdates: Map<string, Record<string, unknown>>, state: any}, previous?: any) => void}
 */
export function systemPlanAmender(pick, docOf) {
  return (plan, previous = null) =>
    addSystemWrites(
      plan.actorUpdates,
      plan.state,
      (uuid) => {
        const doc = docOf(uuid);
        if (!doc) return null;
        const actorData = actorDataOf(doc);
        return { adapter: pick(actorData), actorData };
      },
      previous,
    );
}

/**
 * Whether an update's changes (as a hook receives them: expanded, or with dot paths) touch the
 * actor's system data.
 * @param {unknown} changes
 * @returns {boolean}
 */
export function touchesSystemData(changes) {
  if (!isPlainObject(changes)) return false;
  return Object.keys(changes).some((key) => key === "system" || key.startsWith("system."));
}

/**
 * A change made outside the module (the system's sheet: Stamina up, damage marked by hand, an
 * ...) → the upserts it means: each field the adapter takes from the system that now differs from
 * the mirror. Attributes and Skills one key at a time; Health and Willpower whole (the sidecar
 * checks a track as one). Conditions held as Items: `upsertsFromConditionItem`.
 * @param {Adapter|null} adapter
 * @param {ActorData} actorData after the change
 * @param {string} uuid
 * @param {any} mirror
 * @returns {Upsert[]}
 */
export function upsertsFromSystemChange(adapter, actorData, uuid, mirror) {
  /** @type {Record<string, any>|undefined} */
  const known = mirror?.actors?.[uuid];
  if (!adapter || !known || !isPlainObject(known)) return [];
  const { fields } = readSystem(adapter, actorData);
  /** @type {Upsert[]} */
  const upserts = [];
  for (const field of adapter.fields) {
    const now = fields[field];
    if (now === undefined) continue; // unusable now: nothing is sent (the problem is reported on sync)
    if (field === "attributes" || field === "skills") {
      /** @type {Record<string, unknown>} */
      const before = isPlainObject(known[field]) ? known[field] : {};
      for (const [key, value] of Object.entries(now)) {
        if (before[key] !== value) upserts.push({ path: pointer("actors", uuid, field, key), value });
      }
    } else if (MERGED.has(field)) {
      const merged = { ...(isPlainObject(known[field]) ? known[field] : {}), ...now };
      if (!deepEqual(merged, known[field])) upserts.push({ path: pointer("actors", uuid, field), value: merged });
    } else if (!deepEqual(now, known[field])) {
      upserts.push({ path: pointer("actors", uuid, field), value: now });
    }
  }
  return upserts;
}

/**
 * An Item created or deleted on an actor (`createItem` / `deleteItem`) that is one of the
 * system's Conditions the rules know → the condition's upsert: set when created; cleared when the
 * last Item of it goes, unless a status effect of the actor still holds it.
 * @param {Adapter|null} adapter
 * @param {ActorData} actorData the actor after the change (its items, its statuses)
 * @param {{type?: string, name?: string}} item
 * @param {boolean} created
 * @param {string} uuid
 * @param {any} mirror
 * @returns {Upsert[]}
 */
export function upsertsFromConditionItem(adapter, actorData, item, created, uuid, mirror) {
  /** @type {Record<string, any>|undefined} */
  const known = mirror?.actors?.[uuid];
  const condition = adapter?.conditionOfItem?.(item) ?? null;
  if (!known || !isPlainObject(known) || !condition) return [];
  const stillHeld =
    (actorData.items ?? []).some((other) => adapter?.conditionOfItem?.(other) === condition) ||
    (actorData.statusConditions ?? []).includes(condition);
  const active = created || stillHeld;
  /** @type {Record<string, unknown>} */
  const before = isPlainObject(known.conditions) ? known.conditions : {};
  if ((before[condition] ?? false) === active) return [];
  return [{ path: pointer("actors", uuid, "conditions", condition), value: active }];
}

/**
 * Add to each actor's planned update the system fields that show the sidecar's new state, so the
 * flags and the system change in one update (tagged as the module's own). With `previous` (the
 * mirror before a patch) only the parts the patch changed are written: Health when the track
 * changed, Willpower when it changed (F11: a condition tick must not write a stale Willpower over a
 * hand edit whose upsert is still on its way; F12: nor zero a Willpower the sidecar never changed).
 * Without it (a sync) every part is written.
 * @param {Map<string, Record<string, unknown>>} actorUpdates uuid → update (changed in place)
 * @param {any} state the new mirror
 * @param {(uuid: string) => {adapter: Adapter|null, actorData: ActorData}|null} lookup
 * @param {any} [previous] the mirror before the patch
 */
export function addSystemWrites(actorUpdates, state, lookup, previous = null) {
  for (const [uuid, update] of actorUpdates) {
    const sidecarActor = state?.actors?.[uuid];
    if (!isPlainObject(sidecarActor)) continue;
    const found = lookup(uuid);
    if (!found?.adapter) continue;
    const before = previous?.actors?.[uuid];
    /** @type {Record<string, any>} */
    let changed = sidecarActor;
    if (isPlainObject(before)) {
      changed = { ...sidecarActor };
      for (const part of ["health", "willpower"]) {
        if (JSON.stringify(before[part] ?? null) === JSON.stringify(sidecarActor[part] ?? null)) delete changed[part];
      }
    }
    Object.assign(update, found.adapter.write(found.actorData, changed));
  }
}

/**
 * Remembers which problems were reported, so each is reported once per actor and field.
 */
export class ProblemLog {
  constructor() {
    /** @type {Set<string>} */
    this.seen = new Set();
  }

  /**
   * The problems not reported before for this actor (and remember them).
   * @param {string} uuid
   * @param {SystemProblem[]} problems
   * @returns {SystemProblem[]}
   */
  fresh(uuid, problems) {
    const out = [];
    for (const problem of problems) {
      const key = `${uuid}\u0000${problem.field}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      out.push(problem);
    }
    return out;
  }
}

/**
 * The localization key and data of a problem's warning.
 * @param {string} actorName
 * @param {SystemProblem} problem
 * @returns {{key: string, data: Record<string, string>}}
 */
export function problemMessage(actorName, problem) {
  return { key: `VTTBRIDGE.System.Problem.${problem.problem}`, data: { actor: actorName, field: problem.field, path: problem.path } };
}

export { mta, worldbuilding, createGenericAdapter };
