/**
 * PURE: the JSDoc types the game-system adapters share: the actor data an adapter reads, the
 * problems it reports, and the adapter itself. Types only; nothing to import at run time.
 * @module systems/_types
 */

/**
 * @typedef {object} ActorData what an adapter reads: a plain copy of one Foundry actor
 * @property {string} [type] the actor's type ("character", "ephemeral", ...)
 * @property {Record<string, any>} system the actor's PREPARED system data (derived values included)
 * @property {Record<string, any>} [flags]
 * @property {Array<{type?: string, name?: string}>} [items] the actor's items (type and name), for
 *   systems that keep conditions as Items
 * @property {string[]} [statusConditions] the conditions the actor's status effects hold now
 */

/**
 * @typedef {object} SystemProblem a system value the adapter could not use
 * @property {string} field the sidecar field it was for ("health", "attributes.STA", ...)
 * @property {string} path where it was read ("system.health.max")
 * @property {"missing"|"number"|"range"} problem
 */

/**
 * @typedef {Record<string, unknown>} SidecarFields fields of the sidecar's actor (PROTOCOL.md
 *   "State document"): `attributes`, `skills`, `health`, `willpower`, `speed`, `conditions`
 */

/**
 * @typedef {object} Adapter one game system (see systems/index.mjs)
 * @property {string} id
 * @property {(actorData: ActorData) => boolean} detect whether the data has this system's shape
 * @property {(actorData: ActorData, problems?: SystemProblem[]) => SidecarFields} read
 * @property {(actorData: ActorData, sidecarActor: Record<string, any>) => Record<string, unknown>} write
 *   update data (dot paths of the stored fields) that makes the system show the sidecar's Health
 *   and Willpower; `{}` when the system already does, or when it holds a value the adapter refused
 * @property {readonly string[]} fields the sidecar fields this adapter takes from the system
 *   ("health", "willpower", "attributes", "skills", "speed", "conditions"): read-only on the rules
 *   sheet; everything else stays in the module's flags
 * @property {string|null} [healthBar] the token bar attribute the system keeps Health in ("health")
 * @property {(item: {type?: string, name?: string}) => string|null} [conditionOfItem] the condition
 *   an Item of the actor stands for (systems that keep Conditions as Items), or null
 */

export {};
