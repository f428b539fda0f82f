/**
 * The rules sheet: one ApplicationV2 form per actor to enter what the sidecar rules on (Health max,
 * Willpower max, speed, Attributes, the Skills the rules use, senses, anti-detection, immunities,
 * IWR, Energy Pools). It writes `flags.vtt-bridge.*`; the updateActor forwarder sends each changed
 * field as `upsert`. The data shaping (`sheetContext`, `parseSheetForm`) is pure and tested; the
 * class is built from Foundry's API at `init` (`defineRulesSheet`).
 * @module rules-sheet
 */

import { MODULE_ID } from "./constants.mjs";
import { isPlainObject } from "./json-patch.mjs";

export const ATTRIBUTES = Object.freeze(["STR", "DEX", "STA", "INT", "PER", "RES", "PRE", "MAN", "COM"]);

/** Skills the rules use (DET-8: Investigation for spotting, Stealth for hiding). */
export const RULE_SKILLS = Object.freeze(["investigation", "stealth"]);

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
 * @property {"integer"|"json"|"shape"} problem
 */

/**
 * Turn the submitted form (FormDataExtended's flat object) into an actor update of
 * `flags.vtt-bridge.*`, or the list of fields that are wrong (nothing is written then).
 * @param {Record<string, unknown>} form
 * @param {Record<string, any>} [current] the flags now (to keep Willpower's current ≤ max)
 * @param {readonly string[]} [fromSystem] fields the game system holds: shown read-only, not
 *   submitted, never written here
 * @returns {{update: Record<string, unknown>, errors: SheetError[]}}
 */
export function parseSheetForm(form, current = {}, fromSystem = []) {
  const ours = (/** @type {string} */ field) => !fromSystem.includes(field);
  /** @type {SheetError[]} */
  const errors = [];
  /** @type {Record<string, unknown>} */
  const update = {};
  const root = `flags.${MODULE_ID}`;
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
  if (healthMax !== undefined) update[`${root}.health.max`] = healthMax;
  const willpowerMax = ours("willpower") ? int("willpowerMax", 0) : undefined;
  if (willpowerMax !== undefined) {
    update[`${root}.willpower.max`] = willpowerMax;
    const now = current.willpower?.current;
    update[`${root}.willpower.current`] = typeof now === "number" ? Math.min(now, willpowerMax) : willpowerMax;
  }
  const speed = ours("speed") ? int("speed", 0) : undefined;
  if (speed !== undefined) update[`${root}.speed`] = speed;
  if (ours("attributes")) {
    /** @type {Record<string, number>} */
    const attributes = {};
    for (const key of ATTRIBUTES) {
      const value = int(`attributes.${key}`, 0);
      if (value !== undefined) attributes[key] = value;
    }
    update[`${root}.attributes`] = attributes;
  }
  for (const key of ours("skills") ? RULE_SKILLS : []) {
    const value = int(`skills.${key}`, 0);
    if (value !== undefined) update[`${root}.skills.${key}`] = value;
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
    update[`${root}.${key}`] = value;
  }
  return errors.length ? { update: {}, errors } : { update, errors };
}

/**
 * Build the ApplicationV2 class from Foundry's API (v13: foundry.applications.api).
 * @param {{ApplicationV2: any, HandlebarsApplicationMixin: (base: any) => any}} api
 * @param {{localize: (key: string) => string, notifyError: (message: string) => void,
 *   systemFields?: (actor: any) => {fields: readonly string[], name: string}}} ui `systemFields`: what the
 *   actor's game-system adapter holds (read-only on the sheet)
 */
export function defineRulesSheet(api, ui) {
  const systemOf = (/** @type {any} */ actor) => ui.systemFields?.(actor) ?? { fields: [], name: "" };
  const Base = api.HandlebarsApplicationMixin(api.ApplicationV2);
  return class RulesSheet extends Base {
    /** @param {{actor: {uuid: string, name: string, flags: Record<string, any>, update: (u: Record<string, unknown>) => Promise<unknown>}}} options */
    constructor(options) {
      super({ id: `${MODULE_ID}-rules-${options.actor.uuid.replace(/\./g, "-")}` });
      this.actor = options.actor;
    }

    static DEFAULT_OPTIONS = {
      tag: "form",
      classes: [MODULE_ID, "rules-sheet"],
      window: { title: "VTTBRIDGE.Sheet.Title", resizable: true },
      position: { width: 520, height: "auto" },
      form: { handler: RulesSheet.#onSubmit, submitOnChange: false, closeOnSubmit: true },
    };

    static PARTS = { form: { template: `modules/${MODULE_ID}/templates/rules-sheet.hbs` } };

    /** @returns {Promise<Record<string, unknown>>} */
    async _prepareContext() {
      return { actorName: this.actor.name, ...sheetContext(this.actor.flags?.[MODULE_ID], systemOf(this.actor)) };
    }

    /**
     * @this {RulesSheet}
     * @param {Event} _event
     * @param {HTMLFormElement} _form
     * @param {{object: Record<string, unknown>}} formData
     */
    static async #onSubmit(_event, _form, formData) {
      const { update, errors } = parseSheetForm(formData.object, this.actor.flags?.[MODULE_ID], systemOf(this.actor).fields);
      if (errors.length) {
        for (const error of errors) ui.notifyError(`${ui.localize(`VTTBRIDGE.Sheet.Error.${error.problem}`)}: ${error.field}`);
        throw new Error("invalid rules sheet");
      }
      await this.actor.update(update);
    }
  };
}
