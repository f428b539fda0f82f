/**
 * PURE: the JSDoc types the core's modules share: the wire's shapes (PROTOCOL.md) and the plain
 * views of Foundry documents the pure code reads. Types only; nothing to import at run time. A
 * module names one as `@typedef {import("./_types.mjs").PatchOp} PatchOp`.
 * @module core/_types
 */

/**
 * One RFC 6902 operation of a patch the sidecar sends.
 * @typedef {{op: "add"|"remove"|"replace"|"move"|"copy"|"test", path: string, value?: unknown,
 *   from?: string}} PatchOp
 */

/** DET-4: how an observer locates a target (the wire form of `LocateState`). @typedef {"pinpointed"|"approximate"|"unlocated"} LocateState */

/**
 * The connection's state, as the indicator shows it.
 * @typedef {"idle"|"connecting"|"connected"|"reconnecting"|"unauthorized"|"stopped"} Status
 */

/** An `upsert`'s target and value (PROTOCOL.md `upsert`). @typedef {{path: string, value: unknown}} Upsert */

/** A Foundry actor as the pure code reads it. @typedef {{uuid: string, name?: string|null, flags?: Record<string, any>}} ActorLike */

/** A Foundry token as the pure code reads it. @typedef {{id: string|null, x: number, y: number, elevation?: number, actor?: ActorLike|null, flags?: Record<string, any>}} TokenLike */

/**
 * A Foundry scene as the pure code reads it.
 * @typedef {object} SceneLike
 * @property {string|null} id
 * @property {{size?: number, distance?: number, units?: string}} [grid]
 * @property {{width?: number, height?: number}} [dimensions] the canvas it occupies, padding included (`Scene#dimensions`)
 * @property {Record<string, any>} [flags]
 * @property {Iterable<TokenLike>} tokens
 */

/** The world's optional rules (HEALTH-7, WP-5) and whether the GM approves reveals (DET-8), as `settings` on the wire. @typedef {{woundPenalty: boolean, unconsciousAtZeroWillpower: boolean, approveReveals?: boolean, approximateSquares?: number}} RuleSettings */

export {};
