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
import { DEFAULT_DETECTION, LISTS, listEdited, listErrorText, listValue, parseLists, rulesFormHtml } from "../core/rules-form.mjs";

export { ATTRIBUTES, isUpdateKey, RULE_SKILLS, slugify };


export { DEFAULT_DETECTION };

/**
 * @typedef {object} SheetContext
 * @property {number} healthMax
 * @property {number} willpowerMax
 * @property {number} speed
 * @property {Array<{key: string, value: number}>} attributes
 * @property {Array<{key: string, value: number}>} skills
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
  return {
    healthMax: flags.health?.max ?? 7,
    willpowerMax: flags.willpower?.max ?? 2,
    speed: typeof flags.speed === "number" ? flags.speed : 0,
    attributes: ATTRIBUTES.map((key) => ({ key, value: typeof attributes[key] === "number" ? attributes[key] : 1 })),
    skills: RULE_SKILLS.map((key) => ({ key, value: typeof skills[key] === "number" ? skills[key] : 0 })),
    fromSystem: Object.fromEntries(system.fields.map((field) => [field, true])),
    systemName: system.name,
  };
}

/**
 * @typedef {object} SheetError
 * @property {string} field
 * @property {"integer"|"required"|"number"|"choice"|"key"|"duplicate"} problem
 * @property {import("../core/rules-form.mjs").ListError} [cell] a list's wrong cell
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
  const lists = parseLists(form, rendered ?? current);
  for (const cell of lists.errors) errors.push({ field: cell.name, problem: cell.problem, cell });
  for (const { list, path, keyed } of LISTS) {
    if (!(list in lists.values)) continue;
    const value = /** @type {any} */ (lists.values[list]);
    if (rendered !== undefined && !listEdited(rendered, list, value)) continue;
    const now = path.split(".").reduce((/** @type {any} */ node, part) => (isPlainObject(node) ? node[part] : undefined), current);
    if (!keyed || rendered === undefined) {
      diffInto(update, `${root}.${path}`, now, value, deletion);
      continue;
    }
    // a pool or Gauge: only the fields the GM changed, over what the actor holds now
    const shownItems = listValue(rendered, list);
    for (const id of new Set([...Object.keys(shownItems), ...Object.keys(value)])) {
      const [was, is] = [shownItems[id], value[id]];
      if (deepEqual(was, is)) continue;
      if (is === undefined || was === undefined || !isPlainObject(now?.[id])) {
        diffInto(update, `${root}.${path}.${id}`, now?.[id], is, deletion);
        continue;
      }
      for (const key of new Set([...Object.keys(was), ...Object.keys(is)])) {
        if (!deepEqual(was[key], is[key])) diffInto(update, `${root}.${path}.${id}.${key}`, now[id][key], is[key], deletion);
      }
    }
  }
  return errors.length ? { update: {}, errors } : { update, errors };
}

/** Text made safe for HTML. @param {unknown} text */
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The rules sheet's form (everything inside the window but its Save button): the trackers,
 * Attributes and Skills as number fields (those the game system holds disabled, with where they
 * come from), then the lists (`rulesFormHtml`).
 * @param {Record<string, any>|undefined} flags
 * @param {{fields: readonly string[], name: string}} system
 * @param {import("../core/rules-form.mjs").FormI18n} i18n
 * @returns {string}
 */
export function rulesSheetHtml(flags, system, i18n) {
  const ctx = sheetContext(flags, system);
  const held = (/** @type {string} */ field) => (ctx.fromSystem[field] ? ` disabled title="${esc(i18n.format("VTTBRIDGE.System.FromSystem", { system: ctx.systemName }))}"` : "");
  const number = (/** @type {string} */ label, /** @type {string} */ name, /** @type {number} */ value, /** @type {number} */ min, /** @type {string} */ field) =>
    `<label>${esc(label)} <input type="number" name="${name}" value="${value}" min="${min}" max="1000" step="1" required data-dtype="Number"${held(field)}></label>`;
  const hints = [`<p class="hint">${esc(i18n.localize("VTTBRIDGE.Sheet.Hint"))}</p>`];
  if (ctx.systemName) hints.push(`<p class="hint from-system">${esc(i18n.format("VTTBRIDGE.System.FromSystemHint", { system: ctx.systemName }))}</p>`);
  return (
    `<div class="vtt-bridge-rules">${hints.join("")}<p class="errors" role="alert" hidden></p>` +
    `<fieldset><legend>${esc(i18n.localize("VTTBRIDGE.Sheet.Trackers"))}</legend><div class="grid">` +
    number(i18n.localize("VTTBRIDGE.Sheet.HealthMax"), "healthMax", ctx.healthMax, 1, "health") +
    number(i18n.localize("VTTBRIDGE.Sheet.WillpowerMax"), "willpowerMax", ctx.willpowerMax, 0, "willpower") +
    number(i18n.localize("VTTBRIDGE.Sheet.Speed"), "speed", ctx.speed, 0, "speed") +
    `</div></fieldset><fieldset><legend>${esc(i18n.localize("VTTBRIDGE.Sheet.Attributes"))}</legend><div class="grid">` +
    ctx.attributes.map(({ key, value }) => number(i18n.localize(`VTTBRIDGE.Attribute.${key}`), `attributes.${key}`, value, 0, "attributes")).join("") +
    `</div></fieldset><fieldset><legend>${esc(i18n.localize("VTTBRIDGE.Sheet.Skills"))}</legend><div class="grid">` +
    ctx.skills.map(({ key, value }) => number(i18n.localize(`VTTBRIDGE.Skill.${key}`), `skills.${key}`, value, 0, "skills")).join("") +
    `</div></fieldset>${rulesFormHtml(flags, i18n)}</div>`
  );
}

/**
 * The sentence for a wrong field of the sheet.
 * @param {SheetError} error
 * @param {import("../core/rules-form.mjs").FormI18n} i18n
 */
export function sheetErrorText(error, i18n) {
  if (error.cell) return listErrorText(error.cell, i18n);
  const [group, key] = error.field.includes(".") ? error.field.split(".") : ["", error.field];
  const label = group === "attributes" ? `VTTBRIDGE.Attribute.${key}` : group === "skills" ? `VTTBRIDGE.Skill.${key}` : `VTTBRIDGE.Sheet.${key[0].toUpperCase()}${key.slice(1)}`;
  return i18n.format("VTTBRIDGE.Sheet.Error.Field", { field: i18n.localize(label), problem: i18n.format(`VTTBRIDGE.Sheet.Error.${error.problem}`, { suggestion: "" }) });
}

/**
 * Add an empty row to a list of the form: a copy of the list's row template, numbered after the
 * rows it has (numbers are never reused, so a removed row's fields never come back).
 * @param {Element} section the list's `<section data-list>`
 * @returns {Element|null} the new row
 */
export function addListRow(section) {
  const template = /** @type {HTMLTemplateElement|null} */ (section.querySelector("template.row-template"));
  const rows = section.querySelector("ol.rows");
  if (!template || !rows) return null;
  const next = Number(section.getAttribute("data-next") ?? rows.children.length);
  section.setAttribute("data-next", String(next + 1));
  const holder = section.ownerDocument.createElement("ol");
  holder.innerHTML = template.innerHTML.replaceAll("__ROW__", String(next));
  const row = holder.firstElementChild;
  if (row) rows.append(row);
  /** @type {HTMLElement|null|undefined} */ (row?.querySelector("input:not([type=hidden]),select"))?.focus?.();
  return row;
}

/**
 * Remove the row a button sits in.
 * @param {Element} button
 */
export function removeListRow(button) {
  const row = button.closest("li.row");
  const section = button.closest("section[data-list]");
  if (section && !section.hasAttribute("data-next")) section.setAttribute("data-next", String(section.querySelector("ol.rows")?.children.length ?? 0));
  row?.remove();
}

/**
 * Show the wrong fields in the form: each marked `aria-invalid`, the sentences listed on top.
 * @param {Element} root
 * @param {SheetError[]} errors
 * @param {import("../core/rules-form.mjs").FormI18n} i18n
 */
export function showSheetErrors(root, errors, i18n) {
  for (const el of root.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  for (const error of errors) root.querySelector(`[name="${CSS.escape(error.field)}"]`)?.setAttribute("aria-invalid", "true");
  const box = /** @type {HTMLElement|null} */ (root.querySelector(".errors"));
  if (!box) return;
  box.hidden = errors.length === 0;
  box.replaceChildren(...errors.map((e) => Object.assign(root.ownerDocument.createElement("span"), { textContent: sheetErrorText(e, i18n) })));
}

/**
 * Build the rules sheet class from Foundry's API (`foundry.applications.api`): a DocumentSheetV2
 * of the actor, so Foundry re-renders it whenever the actor changes (the sidecar's writes
 * included) and it submits through `document.update`.
 * @param {{DocumentSheetV2: any, HandlebarsApplicationMixin: (base: any) => any}} api
 * @param {{localize: (key: string) => string, format?: (key: string, data: Record<string, string>) => string, notifyError: (message: string) => void,
 *   deletion?: (parent: string, key: string) => [string, unknown],
 *   systemFields?: (actor: any) => {fields: readonly string[], name: string}}} ui `systemFields`: what the
 *   actor's game-system adapter holds (read-only on the sheet)
 */
export function defineRulesSheet(api, ui) {
  const systemOf = (/** @type {any} */ actor) => ui.systemFields?.(actor) ?? { fields: [], name: "" };
  /** @type {import("../core/rules-form.mjs").FormI18n} */
  const i18n = { localize: ui.localize, format: ui.format ?? ((key, data) => Object.entries(data).reduce((text, [k, v]) => text.replaceAll(`{${k}}`, v), ui.localize(key))) };
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
      position: { width: 640, height: "auto" },
      sheetConfig: false,
      form: { handler: RulesSheet.#onSubmit, submitOnChange: false, closeOnSubmit: true },
      // ApplicationV2's `actions`: a click on an element with `data-action` calls the handler
      // with `this` the application — https://foundryvtt.com/api/interfaces/foundry.applications.types.ApplicationConfiguration.html
      actions: { addRow: RulesSheet.#onAddRow, removeRow: RulesSheet.#onRemoveRow },
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
      return { actorName: this.document.name, body: rulesSheetHtml(flags, systemOf(this.document), i18n) };
    }

    /**
     * @this {RulesSheet}
     * @param {Event} _event
     * @param {{closest: (selector: string) => Element|null}} target the Add button (in its list's section)
     */
    static #onAddRow(_event, target) {
      const section = target.closest("section[data-list]");
      if (section) addListRow(section);
      this.edited = true;
    }

    /**
     * @this {RulesSheet}
     * @param {Event} _event
     * @param {Element} target the row's remove button
     */
    static #onRemoveRow(_event, target) {
      removeListRow(target);
      this.edited = true;
    }

    /**
     * @this {RulesSheet}
     * @param {Event} _event
     * @param {HTMLFormElement} form
     * @param {{object: Record<string, unknown>}} formData
     */
    static async #onSubmit(_event, form, formData) {
      const { update, errors } = parseSheetForm(formData.object, this.document.flags?.[MODULE_ID], {
        deletion: ui.deletion,
        rendered: this.shown,
        fromSystem: systemOf(this.document).fields,
      });
      if (typeof form?.querySelector === "function") showSheetErrors(form, errors, i18n);
      if (errors.length) {
        for (const error of errors) ui.notifyError(sheetErrorText(error, i18n));
        throw new Error("invalid rules sheet");
      }
      if (Object.keys(update).length) await this.document.update(update);
    }
  };
}
