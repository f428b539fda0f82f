/**
 * The JSDoc types the Foundry wiring's modules share (the module's own; Foundry's globals are
 * declared in types/foundry.d.ts). Types only; nothing to import at run time.
 * @module foundry/_types
 */

/**
 * @typedef {object} FoundryEnv the parts of `globalThis` the helpers read
 * @property {{data?: {operators?: {ForcedDeletion?: new () => unknown}}}} [foundry]
 * @property {unknown} [_del] v14: the shared ForcedDeletion instance
 * @property {{generation?: number}} [release]
 */

/** Reads one of the module's settings: `game.settings.get(MODULE_ID, key)`. @typedef {(key: string) => unknown} SettingGetter */

export {};
