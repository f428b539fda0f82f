/**
 * The module's settings, declared once as data (tested in Node) and registered in `init`.
 * - client scope (this browser only, never sent to other users): the sidecar URL, the token and
 *   "this browser runs the bridge";
 * - world scope: the optional rules, sent to the sidecar in the state document's `settings`.
 * The token is never a world setting and never a flag: every player receives those.
 * @module settings
 */

import { MODULE_ID, SETTING_CHANGED_HOOK } from "../core/constants.mjs";
import { PALETTE_NAMES, PALETTE_SETTING } from "../core/palette.mjs";
import { TRACK_PLACEMENT_SETTING, TRACK_PLACEMENTS } from "../core/health-track.mjs";
import { SYSTEM_BAR_CHOICES } from "../systems/canvas.mjs";
import { ADAPTER_CHOICES } from "../systems/index.mjs";

export const DEFAULT_SIDECAR_URL = "ws://127.0.0.1:30500/ws";

/**
 * @typedef {object} SettingDef
 * @property {string} key
 * @property {"client"|"world"} scope
 * @property {BooleanConstructor|StringConstructor|NumberConstructor} type
 * @property {boolean|string|number} default
 * @property {boolean} config shown in the settings window
 * @property {"connection"|"rules"|"display"} group what a change affects ("display": only this
 *   browser's drawing, told through `SETTING_CHANGED_HOOK`)
 * @property {Readonly<Record<string, string>>} [choices] value → localization key of its label
 * @property {string} [i18n] localization base of name/hint when not under `VTTBRIDGE.Settings`
 * @property {Readonly<{min: number, max: number, step: number}>} [range] a number's slider (ClientSettings
 *   `range`: https://foundryvtt.com/api/interfaces/foundry.types.SettingConfig.html)
 */

/** @type {readonly SettingDef[]} */
export const SETTINGS = Object.freeze([
  { key: "sidecarUrl", scope: "client", type: String, default: DEFAULT_SIDECAR_URL, config: true, group: "connection" },
  { key: "token", scope: "client", type: String, default: "", config: true, group: "connection" },
  { key: "runsBridge", scope: "client", type: Boolean, default: false, config: true, group: "connection" },
  { key: "woundPenalty", scope: "world", type: Boolean, default: false, config: true, group: "rules" },
  { key: "unconsciousAtZeroWillpower", scope: "world", type: Boolean, default: false, config: true, group: "rules" },
  { key: "approveReveals", scope: "world", type: Boolean, default: false, config: true, group: "rules" },
  // DET-4 on the map: the radius of an approximate target's area, in squares (1..100)
  { key: "approximateSquares", scope: "world", type: Number, default: 3, config: true, group: "rules", range: Object.freeze({ min: 1, max: 100, step: 1 }) },
  {
    key: "healthVisibility",
    scope: "world",
    type: String,
    default: "owner",
    config: true,
    group: "display",
    i18n: "VTTBRIDGE.HealthTrack.Setting",
    choices: Object.freeze({
      gm: "VTTBRIDGE.HealthTrack.Setting.Choices.gm",
      owner: "VTTBRIDGE.HealthTrack.Setting.Choices.owner",
      everyone: "VTTBRIDGE.HealthTrack.Setting.Choices.everyone",
    }),
  },
  // this browser only: the colour-blind palette of the Health boxes and the overlay (palette.mjs)
  {
    key: PALETTE_SETTING,
    scope: "client",
    type: String,
    default: PALETTE_NAMES[0],
    config: true,
    group: "display",
    i18n: "VTTBRIDGE.Palette.Setting",
    choices: Object.freeze(Object.fromEntries(PALETTE_NAMES.map((name) => [name, `VTTBRIDGE.Palette.Setting.Choices.${name}`]))),
  },
  // this browser only: where the Health track sits (health-track.mjs `trackPlacement`)
  {
    key: TRACK_PLACEMENT_SETTING,
    scope: "client",
    type: String,
    default: TRACK_PLACEMENTS[0],
    config: true,
    group: "display",
    i18n: "VTTBRIDGE.HealthTrack.Placement",
    choices: Object.freeze(Object.fromEntries(TRACK_PLACEMENTS.map((name) => [name, `VTTBRIDGE.HealthTrack.Placement.Choices.${name}`]))),
  },
  {
    key: "rulingCards",
    scope: "world",
    type: String,
    default: "public",
    config: true,
    group: "display",
    i18n: "VTTBRIDGE.Rules.Setting",
    choices: Object.freeze({
      off: "VTTBRIDGE.Rules.Setting.Choices.off",
      gm: "VTTBRIDGE.Rules.Setting.Choices.gm",
      public: "VTTBRIDGE.Rules.Setting.Choices.public",
    }),
  },
  // game-system adapters (scripts/systems/): which one reads the actors, the generic
  // mapping, and whether our Health boxes replace the system's own bar
  {
    key: "systemAdapter",
    scope: "world",
    type: String,
    default: "auto",
    config: true,
    group: "rules",
    i18n: "VTTBRIDGE.System.Setting.Adapter",
    choices: Object.freeze(Object.fromEntries(ADAPTER_CHOICES.map((c) => [c, `VTTBRIDGE.System.Setting.Adapter.Choices.${c}`]))),
  },
  { key: "systemMapping", scope: "world", type: String, default: "", config: true, group: "rules", i18n: "VTTBRIDGE.System.Setting.Mapping" },
  {
    key: "systemBar",
    scope: "world",
    type: String,
    default: "beside",
    config: true,
    group: "display",
    i18n: "VTTBRIDGE.System.Setting.Bar",
    choices: Object.freeze(Object.fromEntries(SYSTEM_BAR_CHOICES.map((c) => [c, `VTTBRIDGE.System.Setting.Bar.Choices.${c}`]))),
  },
]);

/**
 * The localization keys of a setting's name and hint.
 * @param {string} key
 * @param {string} [base] the localization base when not `VTTBRIDGE.Settings.<Key>`
 */
export function settingLabels(key, base = `VTTBRIDGE.Settings.${key[0].toUpperCase()}${key.slice(1)}`) {
  return { name: `${base}.Name`, hint: `${base}.Hint` };
}

export { SETTING_CHANGED_HOOK };

/**
 * Register every setting (`game.settings`); `onChange(group, key, value)` is called after a change
 * (every group: "display" too, the caller fires `SETTING_CHANGED_HOOK`).
 * @param {{register: (namespace: string, key: string, config: Record<string, unknown>) => void}} registry
 * @param {(group: "connection"|"rules"|"display", key: string, value: unknown) => void} [onChange]
 */
export function registerSettings(registry, onChange) {
  for (const def of SETTINGS) {
    registry.register(MODULE_ID, def.key, {
      ...settingLabels(def.key, def.i18n),
      scope: def.scope,
      config: def.config,
      type: def.type,
      default: def.default,
      ...(def.choices ? { choices: def.choices } : {}),
      ...(def.range ? { range: def.range } : {}),
      onChange: (/** @type {unknown} */ value) => onChange?.(def.group, def.key, value),
    });
  }
}

/** @typedef {import("./_types.mjs").SettingGetter} SettingGetter */

/**
 * The optional rules as the state document's `settings`.
 * @param {SettingGetter} get
 * @returns {{woundPenalty: boolean, unconsciousAtZeroWillpower: boolean, approveReveals: boolean, approximateSquares: number}}
 */
export function readRuleSettings(get) {
  const squares = get("approximateSquares");
  return {
    woundPenalty: get("woundPenalty") === true,
    unconsciousAtZeroWillpower: get("unconsciousAtZeroWillpower") === true,
    approveReveals: get("approveReveals") === true,
    // a whole number of squares, 1..100 (the sidecar refuses anything else); else the default 3
    approximateSquares: Number.isInteger(squares) && /** @type {number} */ (squares) >= 1 && /** @type {number} */ (squares) <= 100 ? /** @type {number} */ (squares) : 3,
  };
}

/**
 * @param {SettingGetter} get
 * @returns {{url: string, token: string, runsBridge: boolean}}
 */
export function readConnectionSettings(get) {
  const url = get("sidecarUrl");
  const token = get("token");
  return {
    url: typeof url === "string" && url.trim() ? url.trim() : DEFAULT_SIDECAR_URL,
    token: typeof token === "string" ? token.trim() : "",
    runsBridge: get("runsBridge") === true,
  };
}

/**
 * Whether this browser opens the link: a GM whose own client setting says it runs the bridge
 * (a co-GM's 127.0.0.1 is another machine), with a token entered.
 * @param {{isGM: boolean, runsBridge: boolean, token: string}} args
 */
export function shouldRunBridge({ isGM, runsBridge, token }) {
  return isGM && runsBridge && token !== "";
}

/**
 * Check a sidecar URL: ws:// or wss://, ending in a path; `localhost` is refused in favour of
 * 127.0.0.1 (browsers may resolve it to ::1, where the sidecar does not listen).
 * @param {string} url
 * @returns {{ok: true} | {ok: false, reason: "scheme"|"localhost"|"malformed"}}
 */
export function checkSidecarUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") return { ok: false, reason: "scheme" };
  if (parsed.hostname === "localhost") return { ok: false, reason: "localhost" };
  return { ok: true };
}
