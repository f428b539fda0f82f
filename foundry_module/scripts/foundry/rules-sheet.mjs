/**
 * The rules sheet: one DocumentSheetV2 form per actor to enter what the sidecar rules on (Health max,
 * Willpower max, speed, Attributes, the Skills the rules use, senses, anti-detection, immunities,
 * IWR, Energy Pools). It writes `flags.vtt-bridge.*`; the updateActor forwarder sends each changed
 * field as `upsert`. The data shaping (`sheetContext`, `parseSheetForm`) is pure and tested; the
 * class is built from Foundry's API at `init` (`defineRulesSheet`).
 * @module rules-sheet
 */

import { diffInto } from "../core/apply-patch.mjs";
import { deletionOperator } from "./compat.mjs";
import { ATTRIBUTES, MODULE_ID, RULE_SKILLS } from "../core/constants.mjs";
import { deepEqual, isPlainObject } from "../core/json-patch.mjs";
import { isUpdateKey, slugify } from "../core/messages.mjs";

export { ATTRIBUTES, isUpdateKey, RULE_SKILLS, slugify };


/** Fields entered as JSON (lists and tables of the state document), with the shape they must have. */
export const JSON_FIELDS = Object.freeze(
  /** @type {const} */ ({
    detection: "array",
    antiDetection: "array",
    immunities: "array",
    iwr: "object",
    energyPools: "object",
  }),
);

/** The default senses (an ordinary person: sight pinpoints, hearing approximates). */
export const DEFAULT_DETECTION = Object.freeze([
  { name: "sight", sense: "sight", essence: "natural", rank: "unranked", capability: "pinpoint", range: null },
  { name: "hearing", sense: "hearing", essence: "natural", rank: "unranked", capability: "approximate", range: null },
]);

/**
 * @typedef {object} SheetContext
 * @property {number} healthMax
 * @property {number} willpowerMax
 * @property {number} speed
 * @property {Array<{key: string, value: number}>} attributes
 * @property {Array<{key: string, value: number}>} skills
 * @property {Array<{key: string, text: string}>} json
 * @property {Record<string, boolean>} fromSystem the fields the game system holds (read-only here)
 * @property {string} systemName the game-system adapter's id ("" when none)
 */

/**
 * The form's view of an actor's flags, with defaults where nothing is stored.
 * @param {Record<string, any>|undefined} flags `actor.flags["vtt-bridge"]`
 * @param {{fields: readonly string[], name: string}} [system] what the actor's game-system adapter
 *   holds (systems/): those fields are shown read-only
 * @returns {SheetContext}
 */
export function sheetContext(flags = {}, system = { fields: [], name: "" }) {
  const attributes = isPlainObject(flags.attributes) ? flags.attributes : {};
  const skills = isPlainObject(flags.skills) ? flags.skills : {};
  /** @type {Record<string, unknown>} */
  const defaults = { detection: DEFAULT_DETECTION, antiDetection: [], immunities: [], iwr: { immunities: [], weaknesses: [], resistances: [] }, energyPools: {} };
  return {
    healthMax: flags.health?.max ?? 7,
    willpowerMax: flags.willpower?.max ?? 2,
    speed: typeof flags.speed === "number" ? flags.speed : 0,
    attributes: ATTRIBUTES.map((key) => ({ key, value: typeof attributes[key] === "number" ? attributes[key] : 1 })),
    skills: RULE_SKILLS.map((key) => ({ key, value: typeof skills[key] === "number" ? skills[key] : 0 })),
    json: Object.keys(JSON_FIELDS).map((key) => ({ key, text: JSON.stringify(flags[key] ?? defaults[key], null, 2) })),
    fromSystem: Object.fromEntries(system.fields.map((field) => [field, true])),
    systemName: system.name,
  };
}

/**
 * @typedef {object} SheetError
 * @property {string} field
 * @property {"integer"|"json"|"shape"|"key"} problem
 */

/**
 * The values the form shows for `flags` (what `sheetContext` renders), by form field name.
 * @param {Record<string, any>} flags
 * @returns {Record<string, unknown>}
 */
function shownValues(flags) {
  const ctx = sheetContext(flags);
  /** @type {Record<string, unknown>} */
  const shown = { healthMax: ctx.healthMax, willpowerMax: ctx.willpowerMax, speed: ctx.speed };
  for (const { key, value } of ctx.attributes) shown[`attributes.${key}`] = value;
  for (const { key, value } of ctx.skills) shown[`skills.${key}`] = value;
  for (const { key, text } of ctx.json) shown[`json.${key}`] = JSON.parse(text);
  return shown;
}

/**
 * Turn the submitted form (FormDataExtended's flat object) into an actor update of
 * `flags.vtt-bridge.*`, or the list of fields that are wrong (nothing is written then).
 *
 * Only what the GM changed is written: a field whose value is what the form showed when it was
 * rendered (`rendered`, the flags then) is left alone, so a value the sidecar changed meanwhile is
 * not saved back stale. What is written is diffed against the flags now (`current`): objects key by
 * key, and a key removed from a JSON object is deleted with the version's operator (Foundry merges
 * objects, so a key left out of a whole value would stay).
 * @param {Record<string, unknown>} form
 * @param {Record<string, any>} [current] the flags now
 * @param {readonly string[]|{deletion?: (parent: string, key: string) => [string, unknown], rendered?: Record<string, any>, fromSystem?: readonly string[]}} [options]
 *   deletion: from `deletionOperator` (default: the v12/v13 `-=` syntax); fromSystem (or `options`
 *   itself when it is a list): fields the game system holds, shown read-only, not submitted, never
 *   written here
 * @returns {{update: Record<string, unknown>, errors: SheetError[]}}
 */
export function parseSheetForm(form, current = {}, options = {}) {
  const { deletion = deletionOperator({}), rendered, fromSystem = [] } = Array.isArray(options) ? { fromSystem: options } : /** @type {any} */ (options);
  const ours = (/** @type {string} */ field) => !fromSystem.includes(field);
  /** @type {SheetError[]} */
  const errors = [];
  /** @type {Record<string, unknown>} */
  const update = {};
  const root = `flags.${MODULE_ID}`;
  const shown = rendered === undefined ? null : shownValues(rendered);
  /** @param {string} field @param {unknown} value */
  const edited = (field, value) => shown === null || !deepEqual(shown[field], value);
  /** @param {string} field @param {number} min */
  const int = (field, min) => {
    const raw = form[field];
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min || n > 1000) {
      errors.push({ field, problem: "integer" });
      return undefined;
    }
    return n;
  };
  const healthMax = ours("health") ? int("healthMax", 1) : undefined;
  if (healthMax !== undefined && edited("healthMax", healthMax)) diffInto(update, `${root}.health.max`, current.health?.max, healthMax, deletion);
  const willpowerMax = ours("willpower") ? int("willpowerMax", 0) : undefined;
  if (willpowerMax !== undefined && edited("willpowerMax", willpowerMax)) {
    diffInto(update, `${root}.willpower.max`, current.willpower?.max, willpowerMax, deletion);
    const now = current.willpower?.current;
    diffInto(update, `${root}.willpower.current`, now, typeof now === "number" ? Math.min(now, willpowerMax) : willpowerMax, deletion);
  }
  const speed = ours("speed") ? int("speed", 0) : undefined;
  if (speed !== undefined && edited("speed", speed)) diffInto(update, `${root}.speed`, current.speed, speed, deletion);
  /** @type {Record<string, number>} */
  const attributes = {};
  /** @type {Record<string, number>} */
  const editedAttributes = {};
  for (const key of ours("attributes") ? ATTRIBUTES : []) {
    const value = int(`attributes.${key}`, 0);
    if (value === undefined) continue;
    attributes[key] = value;
    if (edited(`attributes.${key}`, value)) editedAttributes[key] = value;
  }
  if (Object.keys(editedAttributes).length) {
    const before = isPlainObject(current.attributes) ? current.attributes : undefined;
    diffInto(update, `${root}.attributes`, before, before ? { ...before, ...editedAttributes } : attributes, deletion);
  }
  for (const key of ours("skills") ? RULE_SKILLS : []) {
    const value = int(`skills.${key}`, 0);
    if (value !== undefined && edited(`skills.${key}`, value)) diffInto(update, `${root}.skills.${key}`, current.skills?.[key], value, deletion);
  }
  for (const [key, shape] of Object.entries(JSON_FIELDS)) {
    const raw = form[`json.${key}`];
    if (typeof raw !== "string") continue;
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      errors.push({ field: `json.${key}`, problem: "json" });
      continue;
    }
    if (shape === "array" ? !Array.isArray(value) : !isPlainObject(value)) {
      errors.push({ field: `json.${key}`, problem: "shape" });
      continue;
    }
    if (key === "energyPools") {
      const bad = Object.keys(value).filter((id) => !isUpdateKey(id));
      if (bad.length) {
        for (const id of bad) errors.push({ field: `json.${key}: "${id}" → "${slugify(id)}"`, problem: "key" });
        continue;
      }
    }
    if (edited(`json.${key}`, value)) diffInto(update, `${root}.${key}`, current[key], value, deletion);
  }
  return errors.length ? { update: {}, errors } : { update, errors };
}

/**
 * Build the rules sheet class from Foundry's API (`foundry.applications.api`): a DocumentSheetV2
 * of the actor, so Foundry re-renders it whenever the actor changes (the sidecar's writes
 * included) and it submits through `document.update`.
 * @param {{DocumentSheetV2: any, HandlebarsApplicationMixin: (base: any) => any}} api
 * @param {{localize: (key: string) => string, notifyError: (message: string) => void,
 *   deletion?: (parent: string, key: string) => [string, unknown],
 *   systemFields?: (actor: any) => {fields: readonly string[], name: string}}} ui `systemFields`: what the
 *   actor's game-system adapter holds (read-only on the sheet)
 */
export function defineRulesSheet(api, ui) {
  const systemOf = (/** @type {any} */ actor) => ui.systemFields?.(actor) ?? { fields: [], name: "" };
  const Base = api.HandlebarsApplicationMixin(api.DocumentSheetV2);
  return class RulesSheet extends Base {
    /** @param {{document: {uuid: string, name: string, flags: Record<string, any>, update: (u: Record<string, unknown>) => Promise<unknown>}}} options */
    constructor(options) {
      super(options);
      /** @type {Record<string, any>|undefined} the flags the form was last rendered from */
      this.shown = undefined;
      /** the GM typed into the form since it was last rendered */
      this.edited = false;
    }

    static DEFAULT_OPTIONS = {
      tag: "form",
      classes: [MODULE_ID, "rules-sheet"],
      window: { title: "VTTBRIDGE.Sheet.Title", resizable: true },
      position: { width: 520, height: "auto" },
      sheetConfig: false,
      form: { handler: RulesSheet.#onSubmit, submitOnChange: false, closeOnSubmit: true },
    };

    static PARTS = { form: { template: `modules/${MODULE_ID}/templates/rules-sheet.hbs` } };

    /**
     * ApplicationV2#render re-renders the sheet, rebuilding the form, whenever the actor changes
     * (the sidecar's writes included) — https://foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html.
     * F17: while the GM has typed into the form since it was rendered, a render that is not forced
     * is left out, so the unsaved edits stay; the submit then writes only the fields changed since
     * that render (`parseSheetForm`'s `rendered`), never a value the sidecar wrote meanwhile.
     * @param {any} [options]
     * @param {...any} rest
     */
    async render(options = {}, ...rest) {
      const force = options === true || options?.force === true;
      if (this.edited && !force && this.rendered) return this;
      return super.render(options, ...rest);
    }

    /**
     * After each render: the form is as rendered; the first edit marks it edited.
     * @param {...any} args
     */
    _onRender(...args) {
      const result = super._onRender?.(...args);
      this.edited = false;
      this.element?.addEventListener?.("input", () => {
        this.edited = true;
      });
      return result;
    }

    /** @returns {Promise<Record<string, unknown>>} */
    async _prepareContext() {
      const flags = this.document.flags?.[MODULE_ID];
      this.shown = structuredClone(flags ?? {});
      return { actorName: this.document.name, ...sheetContext(flags, systemOf(this.document)) };
    }

    /**
     * @this {RulesSheet}
     * @param {Event} _event
     * @param {HTMLFormElement} _form
     * @param {{object: Record<string, unknown>}} formData
     */
    static async #onSubmit(_event, _form, formData) {
      const { update, errors } = parseSheetForm(formData.object, this.document.flags?.[MODULE_ID], {
        deletion: ui.deletion,
        rendered: this.shown,
        fromSystem: systemOf(this.document).fields,
      });
      if (errors.length) {
        for (const error of errors) ui.notifyError(`${ui.localize(`VTTBRIDGE.Sheet.Error.${error.problem}`)}: ${error.field}`);
        throw new Error("invalid rules sheet");
      }
      if (Object.keys(update).length) await this.document.update(update);
    }
  };
}
