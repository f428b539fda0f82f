/**
 * Names shared by every part of the module: the module id (also the flag scope, the settings
 * namespace and the socket channel), the flag layout and the tag put on the module's own writes.
 * @module constants
 */

/** The module id, as in module.json. */
export const MODULE_ID = "vtt-bridge";

/** The socket channel players use to reach the browser that runs the bridge. */
export const SOCKET_CHANNEL = `module.${MODULE_ID}`;

/**
 * The module hook fired (`{key, value}`, `key` namespaced as Foundry's Setting keys are) when a
 * "display" setting changed in this browser, from the setting registration's `onChange`: a client
 * setting is no Setting document, so `updateSetting` / `createSetting` never fire for it —
 * https://foundryvtt.com/api/v14/classes/foundry.helpers.ClientSettings.html.
 */
export const SETTING_CHANGED_HOOK = `${MODULE_ID}.settingChanged`;

/** The protocol version spoken (PROTOCOL.md "Envelope"). */
export const PROTOCOL_VERSION = 1;

/** The module version sent in `hello` (kept equal to module.json by a test). */
export const MODULE_VERSION = "0.8.0";

/**
 * The update option that marks a write as the module's own, so the hooks that forward Foundry
 * changes to the sidecar never echo a patch back: `options[MODULE_ID].origin === ORIGIN_SIDECAR`.
 */
export const ORIGIN_SIDECAR = "sidecar";

/**
 * The actor fields of the state document that live in actor flags, one flag each:
 * `flags.vtt-bridge.<field>` holds the state document's `actors[uuid].<field>` as is.
 * `name` is not among them: it is the Foundry actor's own name.
 */
export const ACTOR_FIELDS = Object.freeze([
  "humanoid",
  "speed",
  "attributes",
  "skills",
  "health",
  "secondHealth",
  "healing",
  "approximateRange",
  "sensoryRange",
  "unusualSmell",
  "willpower",
  "energyPools",
  "gauges",
  "cannotGainAgain",
  "immunities",
  "temporaryImmunities",
  "saveBonuses",
  "iwr",
  "detection",
  "antiDetection",
  "conditions",
  "conditionPoints",
  "emotionPoints",
  "lastTurn",
]);

/**
 * Actor fields only the sidecar writes (PROTOCOL.md "Derived fields"); also kept in flags. The
 * sidecar's schema marks them `readOnly` (tests/unit/schema.test.mjs holds the two equal).
 */
export const SERVER_ACTOR_FIELDS = Object.freeze(["status", "woundPenalty"]);

/**
 * Conditions the sidecar derives (HEALTH-3..5, WP-5); a client never sends them. Declared by the
 * sidecar (`rules/conditions.py` DERIVED, `readOnly` in its schema's `Actor.conditions`);
 * tests/unit/schema.test.mjs holds this copy equal to it.
 */
export const DERIVED_CONDITIONS = Object.freeze(["unconscious", "worsening", "dying", "dead"]);

/**
 * Actor fields whose edits made in Foundry (outside the module) are forwarded as `upsert`
 * (senses, anti-detection, immunities, IWR, conditions). The rules sheet sends every
 * field it edits itself.
 */
export const FORWARDED_ACTOR_FIELDS = Object.freeze([
  "detection",
  "antiDetection",
  "immunities",
  "iwr",
  "conditions",
]);

/** Token flag holding who locates this token: `{<observer token id>: locate state}`. */
export const VISIBILITY_FLAG = "visibility";

/**
 * Token flag holding the area each observer that locates this token approximately knows it to be
 * in (DET-4 on the map, the sidecar's `areas`): `{<observer token id>: [x, y, r]}`.
 */
export const AREAS_FLAG = "areas";

/** Scene flag: the scene is noisy (DET-9). */
export const NOISY_FLAG = "noisy";

/** The locate states (DET-4), best to worst. */
export const LOCATE_STATES = Object.freeze(["pinpointed", "approximate", "unlocated"]);

/**
 * A visibility pair's code on the wire and in the token flags (protocol 0.4.0): `a` approximate,
 * `u` unlocated; a pinpointed pair is absent.
 */
export const LOCATE_CODES = Object.freeze({ a: "approximate", u: "unlocated" });

/**
 * Condition ids of the state document whose Foundry status effect has another id in core
 * (`CONFIG.statusEffects`). A condition not listed here maps to the status effect of the same id,
 * when one exists.
 */
export const CONDITION_STATUS_ALIASES = Object.freeze({
  blinded: "blind",
  deafened: "deaf",
  asleep: "sleep",
  silenced: "silence",
  poisoned: "poison",
  diseased: "disease",
  cursed: "curse",
  frozen: "frozen",
  unconscious: "unconscious",
  dead: "dead",
});

/** The Attributes the rules sheet enters and the adapters read. */
export const ATTRIBUTES = Object.freeze(["STR", "DEX", "STA", "INT", "PER", "RES", "PRE", "MAN", "COM"]);

/** Skills the rules use (DET-8: Investigation for spotting, Stealth for hiding). */
export const RULE_SKILLS = Object.freeze(["investigation", "stealth"]);
