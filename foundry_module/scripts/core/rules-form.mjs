/**
 * The rules sheet's lists as forms (pure): senses, anti-detection, immunities, IWR, Energy Pools and
 * Gauges as rows of selects, number and text fields. `listRows` gives the rows shown for an actor's
 * flags, `rulesFormHtml` the form's markup, `parseLists` reads a submitted form back into the flags'
 * values (or the rows and cells that are wrong, each with a sentence). The choices are the
 * sidecar's own enumerations (`vtt-bridge schema`); the words are in lang/ (`VTTBRIDGE.Sheet.*` and
 * the cards' `VTTBRIDGE.Rules.Card.*`).
 * @module rules-form
 */

import { ATTRIBUTES } from "./constants.mjs";
import { deepEqual, isPlainObject } from "./json-patch.mjs";
import { isUpdateKey, slugify } from "./messages.mjs";

/** DET-1/5: the sense a means of detection works through (the sidecar's `Sense`). */
export const SENSES = Object.freeze(["sight", "hearing", "smell", "touch", "other"]);
/** DET-1: the four Essences (`Essence`). */
export const ESSENCES = Object.freeze(["natural", "technological", "magical", "anomalous"]);
/** RANK-1: the six Ranks, lowest first (`Rank`). */
export const RANKS = Object.freeze(["unranked", "D", "C", "B", "A", "S"]);
/** DET-3: the best a means can do (`Capability`). */
export const CAPABILITIES = Object.freeze(["pinpoint", "approximate"]);
/** RANK-9/10: the immunity kinds (`ImmunityKindId`). */
export const IMMUNITY_KINDS = Object.freeze([
  "damage", "grapple", "trip", "bull-rush", "called-shots", "disarm", "armor-piercing", "spell-piercing", "falling-damage",
  "difficult-terrain", "environmental-effects", "environment", "8-again", "9-again", "cannot-be-revived", "emotion-points",
  "condition-points", "multiple-attack-penalty", "condition", "aging", "high-speed", "invisibility", "transformation", "possession",
  "energy-pool", "instant-death", "suffocation", "silence", "sealing", "imprisonment", "banishment", "disease", "poison",
  "mind-affecting", "hallucinations", "flat-footed", "touch-attacks", "curses", "time", "space", "causality", "must-attack",
  "cannot-be-attacked",
]);
/** EP-1: a pool's category and a general pool's region (`PoolCategory`, `Region`). */
export const POOL_CATEGORIES = Object.freeze(["general", "special"]);
export const REGIONS = Object.freeze(["eastern", "western", "both"]);
/** The damage types the sidecar knows (`DamageType`): offered for IWR rows, which also take groups. */
export const IWR_TYPES = Object.freeze([
  "bludgeoning", "piercing", "slashing", "bleed", "acid", "cold", "electricity", "fire", "sonic", "force", "vitality", "void",
  "spirit", "mental", "poison", "untyped", "ballistic", "pure-energy", "lightning", "radiant",
]);

/**
 * One column of a list: `text` (required unless `optional`), `select` of `options` (`blank`: an
 * empty first choice, stored as null), `int`/`number` (`min`; `blank`: empty allowed, stored as
 * null), `csv` (words separated by commas, stored as a list), `attrs` (a checkbox per Attribute),
 * `key` (the row's id in a keyed list: an update key, made from the name when left empty), `type` (a
 * damage type chosen from `options` in the reader's words, or "other…" typed: a group or substance).
 * @typedef {{key: string, kind: "text"|"select"|"int"|"number"|"csv"|"attrs"|"key"|"type", options?: readonly string[],
 *   labels?: string, min?: number, blank?: boolean, optional?: boolean, suggest?: "types", fallback?: unknown}} Column
 */

/**
 * The lists, in the order the sheet shows them. `path`: where the value lives under the module's
 * flags; `keyed`: an object keyed by id (Energy Pools, Gauges) rather than a list.
 * @type {ReadonlyArray<{list: string, path: string, keyed?: boolean, columns: Column[]}>}
 */
export const LISTS = Object.freeze([
  {
    list: "detection",
    path: "detection",
    columns: [
      { key: "name", kind: "text" },
      { key: "sense", kind: "select", options: SENSES, labels: "VTTBRIDGE.Sheet.Sense" },
      { key: "essence", kind: "select", options: ESSENCES, labels: "VTTBRIDGE.Rules.Card.Essence", fallback: "natural" },
      { key: "rank", kind: "select", options: RANKS, labels: "VTTBRIDGE.Rules.Card.Rank", fallback: "unranked" },
      { key: "capability", kind: "select", options: CAPABILITIES, labels: "VTTBRIDGE.Sheet.Capability", fallback: "pinpoint" },
      { key: "range", kind: "number", min: 0, blank: true, fallback: null },
    ],
  },
  {
    list: "antiDetection",
    path: "antiDetection",
    columns: [
      { key: "name", kind: "text" },
      { key: "essence", kind: "select", options: ESSENCES, labels: "VTTBRIDGE.Rules.Card.Essence", fallback: "natural" },
      { key: "rank", kind: "select", options: RANKS, labels: "VTTBRIDGE.Rules.Card.Rank", fallback: "unranked" },
    ],
  },
  {
    list: "immunities",
    path: "immunities",
    columns: [
      { key: "kind", kind: "select", options: IMMUNITY_KINDS, labels: "VTTBRIDGE.Rules.Card.Immunity" },
      { key: "subject", kind: "text", optional: true, suggest: "types" },
      { key: "rank", kind: "select", options: RANKS, labels: "VTTBRIDGE.Rules.Card.Rank", fallback: "unranked" },
    ],
  },
  { list: "iwrImmunities", path: "iwr.immunities", columns: [{ key: "type", kind: "type", options: IWR_TYPES, labels: "VTTBRIDGE.Rules.Card.DamageType" }, { key: "exceptions", kind: "csv" }] },
  { list: "iwrWeaknesses", path: "iwr.weaknesses", columns: [{ key: "type", kind: "type", options: IWR_TYPES, labels: "VTTBRIDGE.Rules.Card.DamageType" }, { key: "value", kind: "int", min: 1 }] },
  { list: "iwrResistances", path: "iwr.resistances", columns: [{ key: "type", kind: "type", options: IWR_TYPES, labels: "VTTBRIDGE.Rules.Card.DamageType" }, { key: "value", kind: "int", min: 1 }] },
  {
    list: "energyPools",
    path: "energyPools",
    keyed: true,
    columns: [
      { key: "id", kind: "key" },
      { key: "name", kind: "text" },
      { key: "category", kind: "select", options: POOL_CATEGORIES, labels: "VTTBRIDGE.Rules.Card.PoolClass" },
      { key: "region", kind: "select", options: REGIONS, labels: "VTTBRIDGE.Sheet.Region", blank: true, fallback: null },
      { key: "current", kind: "int", min: 0 },
      { key: "max", kind: "int", min: 0 },
      { key: "keyAttributes", kind: "attrs" },
    ],
  },
  {
    list: "gauges",
    path: "gauges",
    keyed: true,
    columns: [
      { key: "id", kind: "key" },
      { key: "name", kind: "text" },
      { key: "current", kind: "int", min: 0 },
      { key: "max", kind: "int", min: 0, blank: true },
      { key: "source", kind: "text" },
    ],
  },
]);

/** The default senses (an ordinary person: sight pinpoints, hearing approximates). */
export const DEFAULT_DETECTION = Object.freeze([
  { name: "sight", sense: "sight", essence: "natural", rank: "unranked", capability: "pinpoint", range: null },
  { name: "hearing", sense: "hearing", essence: "natural", rank: "unranked", capability: "approximate", range: null },
]);

/** Text made safe for HTML (text and attribute values). @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The value of a damage type select's last choice: "other…", typed in the field beside it. */
const OTHER = "__other";

/** Largest number a count field takes (the sheet's own bound, as for Health and Attributes). */
const MAX_INT = 1000;

/** @param {Record<string, any>} flags @param {string} path */
function at(flags, path) {
  return path.split(".").reduce((/** @type {any} */ node, part) => (isPlainObject(node) ? node[part] : undefined), flags);
}

/**
 * The stored value of a list (its default when nothing is stored), each item with the columns'
 * defaults filled in: what the form shows, and what an untouched form reads back as.
 * @param {Record<string, any>|undefined} flags
 * @param {string} list
 * @returns {any}
 */
export function listValue(flags, list) {
  const spec = specOf(list);
  const stored = at(flags ?? {}, spec.path);
  if (spec.keyed) {
    const entries = isPlainObject(stored) ? Object.entries(stored).filter(([, v]) => isPlainObject(v)) : [];
    return Object.fromEntries(entries.map(([id, item]) => [id, withDefaults(spec.columns, /** @type {Record<string, any>} */ (item))]));
  }
  const items = Array.isArray(stored) ? stored : list === "detection" && stored === undefined ? DEFAULT_DETECTION : [];
  return items.filter(isPlainObject).map((item) => withDefaults(spec.columns, item));
}

/** @param {string} list */
function specOf(list) {
  const spec = LISTS.find((l) => l.list === list);
  if (!spec) throw new Error(`no list ${list}`);
  return spec;
}

/** @param {Column[]} columns @param {Record<string, any>} item */
function withDefaults(columns, item) {
  const out = { ...item };
  for (const c of columns) if (!(c.key in out) && c.fallback !== undefined) out[c.key] = c.fallback;
  return out;
}

/**
 * The rows the sheet shows for one list: each with its cells' current values (as strings and
 * flags for the markup).
 * @param {Record<string, any>|undefined} flags
 * @param {string} list
 * @returns {Array<{from: string, cells: Record<string, unknown>}>}
 */
export function listRows(flags, list) {
  const spec = specOf(list);
  const value = listValue(flags, list);
  const items = spec.keyed ? Object.entries(value).map(([id, item]) => ({ ...item, id })) : value;
  return items.map((/** @type {Record<string, any>} */ item, /** @type {number} */ i) => ({ from: spec.keyed ? item.id : String(i), cells: item }));
}

/**
 * @typedef {object} ListError
 * @property {string} list
 * @property {number} row 1-based, as the sheet shows it
 * @property {string} column
 * @property {"required"|"integer"|"number"|"choice"|"key"|"duplicate"} problem
 * @property {string} [suggestion] a valid id, for `key`
 * @property {string} name the form field that is wrong
 */

/**
 * Read the submitted lists (FormDataExtended's flat object, `list.<list>.<row>.<column>`) back into
 * the values they stand for. Rows keep what the form does not show of the item they came from
 * (`list.<list>.<row>._from`: its index or id in `rendered`), so a price or a pool's sources
 * survive an edit. Rows are read in the order of their numbers (added rows come last).
 * @param {Record<string, unknown>} form
 * @param {Record<string, any>|undefined} rendered the flags the form was rendered from
 * @returns {{values: Record<string, unknown>, errors: ListError[]}}
 */
export function parseLists(form, rendered) {
  /** @type {Record<string, unknown>} */
  const values = {};
  /** @type {ListError[]} */
  const errors = [];
  for (const spec of LISTS) {
    /** @type {Map<number, Record<string, unknown>>} */
    const rows = new Map();
    const prefix = `list.${spec.list}.`;
    let seen = false;
    for (const [name, raw] of Object.entries(form)) {
      if (name === `list.${spec.list}._present`) seen = true;
      if (!name.startsWith(prefix)) continue;
      const match = /^(\d+)\.([A-Za-z_]+)(?:\.([A-Za-z]+))?$/.exec(name.slice(prefix.length));
      if (!match) continue;
      seen = true;
      const row = rows.get(Number(match[1])) ?? {};
      if (match[3] !== undefined) row[`${match[2]}.${match[3]}`] = raw;
      else row[match[2]] = raw;
      rows.set(Number(match[1]), row);
    }
    if (!seen) continue;
    const before = listValue(rendered, spec.list);
    /** @type {any[]} */
    const items = [];
    /** @type {Record<string, any>} */
    const keyed = {};
    const numbers = [...rows.keys()].sort((a, b) => a - b);
    numbers.forEach((n, index) => {
      const cells = /** @type {Record<string, unknown>} */ (rows.get(n));
      const from = typeof cells._from === "string" ? cells._from : "";
      const origin = spec.keyed ? (from && isPlainObject(before[from]) ? before[from] : {}) : (from !== "" && isPlainObject(before[Number(from)]) ? before[Number(from)] : {});
      /** @type {Record<string, unknown>} */
      const item = { ...origin };
      let id = "";
      /** @param {string} column @param {ListError["problem"]} problem @param {string} [suggestion] */
      const fail = (column, problem, suggestion) =>
        errors.push({ list: spec.list, row: index + 1, column, problem, name: `${prefix}${n}.${column}`, ...(suggestion === undefined ? {} : { suggestion }) });
      for (const column of spec.columns) {
        const raw = cells[column.key];
        if (raw === undefined && column.kind !== "attrs" && column.kind !== "key") {
          // a field the form did not send: what the row came from, else the column's default
          if (column.key in origin) continue;
          if (column.fallback !== undefined) {
            item[column.key] = column.fallback;
            continue;
          }
        }
        const text = typeof raw === "string" ? raw.trim() : raw === null || raw === undefined ? "" : String(raw);
        switch (column.kind) {
          case "text":
            if (text) item[column.key] = text;
            else if (column.optional) delete item[column.key];
            else fail(column.key, "required");
            break;
          case "select":
            if (text === "" && column.blank) item[column.key] = null;
            else if (column.options?.includes(text)) item[column.key] = text;
            else fail(column.key, text === "" ? "required" : "choice");
            break;
          case "int":
          case "number": {
            if (text === "" && column.blank) {
              item[column.key] = null;
              break;
            }
            const value = Number(text);
            const ok = text !== "" && Number.isFinite(value) && value >= (column.min ?? 0) && value <= (column.kind === "int" ? MAX_INT : Number.MAX_SAFE_INTEGER);
            if (ok && (column.kind === "number" || Number.isSafeInteger(value))) item[column.key] = value;
            else fail(column.key, text === "" ? "required" : column.kind === "int" ? "integer" : "number");
            break;
          }
          case "type": {
            // a known type from the list, or the one typed beside "other…"
            const chosen = text === OTHER ? String(cells[`${column.key}.other`] ?? "").trim() : text;
            if (chosen) item[column.key] = chosen;
            else fail(column.key, "required");
            break;
          }
          case "csv": {
            const words = text.split(/[,，、]/).map((w) => w.trim()).filter(Boolean);
            if (words.length || column.key in item) item[column.key] = words;
            break;
          }
          case "attrs":
            item[column.key] = ATTRIBUTES.filter((a) => {
              const v = cells[`${column.key}.${a}`];
              return v === true || v === "on" || v === "true";
            });
            break;
          case "key":
            id = text || slugify(typeof cells.name === "string" ? cells.name : "");
            if (!id) break; // the name is missing: reported there
            if (!isUpdateKey(id) || id !== id.trim()) fail(column.key, "key", slugify(id));
            else if (id in keyed) fail(column.key, "duplicate");
            break;
        }
      }
      if (spec.keyed) {
        if (id) keyed[id] = item;
      } else items.push(item);
    });
    values[spec.list] = spec.keyed ? keyed : items;
  }
  return { values, errors };
}

/**
 * The sentence for a wrong cell: "Senses, row 2, Range: not a number of 0 or more".
 * @param {ListError} error
 * @param {{localize: (key: string) => string, format: (key: string, data: Record<string, string>) => string}} i18n
 */
export function listErrorText(error, i18n) {
  return i18n.format("VTTBRIDGE.Sheet.Error.Cell", {
    list: i18n.localize(`VTTBRIDGE.Sheet.List.${error.list}`),
    row: String(error.row),
    column: i18n.localize(`VTTBRIDGE.Sheet.Column.${error.column}`),
    problem: i18n.format(`VTTBRIDGE.Sheet.Error.${error.problem}`, { suggestion: error.suggestion ?? "" }),
  });
}

/**
 * Whether the submitted value of a list differs from what the form showed (only then is it written).
 * @param {Record<string, any>|undefined} rendered
 * @param {string} list
 * @param {unknown} value
 */
export function listEdited(rendered, list, value) {
  return !deepEqual(listValue(rendered, list), value);
}

/** @typedef {{localize: (key: string) => string, format: (key: string, data: Record<string, string>) => string}} FormI18n */

/**
 * One cell's input. `n`: the row number in the field names (`__ROW__` in a row template).
 * @param {string} list @param {string|number} n @param {Column} column @param {Record<string, any>} item @param {FormI18n} i18n
 */
function cellHtml(list, n, column, item, i18n) {
  const name = `list.${list}.${n}.${column.key}`;
  const label = escapeHtml(i18n.localize(`VTTBRIDGE.Sheet.Column.${column.key}`));
  const value = item[column.key];
  const attr = (/** @type {unknown} */ v) => escapeHtml(v === null || v === undefined ? "" : String(v));
  switch (column.kind) {
    case "select": {
      const options = (column.options ?? []).map((o) => {
        const text = column.labels ? i18n.format(`${column.labels}.${o}`, { subject: "…" }) : o;
        return `<option value="${attr(o)}"${value === o ? " selected" : ""}>${escapeHtml(text)}</option>`;
      });
      if (column.blank) options.unshift(`<option value=""${value === null || value === undefined ? " selected" : ""}>—</option>`);
      return `<select name="${name}" aria-label="${label}" title="${label}">${options.join("")}</select>`;
    }
    case "type": {
      const known = column.options ?? [];
      const current = typeof value === "string" ? value : "";
      const options = known.map((o) => `<option value="${attr(o)}"${current === o ? " selected" : ""}>${escapeHtml(i18n.localize(`${column.labels}.${o}`))}</option>`);
      if (current && !known.includes(current)) options.push(`<option value="${attr(current)}" selected>${escapeHtml(current)}</option>`);
      options.push(`<option value="${OTHER}">${escapeHtml(i18n.localize("VTTBRIDGE.Sheet.OtherType"))}</option>`);
      const other = escapeHtml(i18n.localize("VTTBRIDGE.Sheet.OtherTypeHint"));
      return `<select name="${name}" aria-label="${label}" title="${label}">${options.join("")}</select><input type="text" class="other" name="${name}.other" value="" placeholder="${other}" aria-label="${other}" title="${other}">`;
    }
    case "int":
    case "number":
      return `<input type="number" name="${name}" value="${attr(value)}" min="${column.min ?? 0}" step="${column.kind === "int" ? 1 : "any"}"${column.blank ? ` placeholder="∞"` : " required"} aria-label="${label}" title="${column.blank ? `${label} (${escapeHtml(i18n.localize("VTTBRIDGE.Sheet.Unlimited"))})` : label}">`;
    case "csv":
      return `<input type="text" name="${name}" value="${attr(Array.isArray(value) ? value.join(", ") : "")}" placeholder="${label}" aria-label="${label}" title="${label}">`;
    case "attrs":
      return `<span class="attrs" title="${label}">${ATTRIBUTES.map(
        (a) => `<label><input type="checkbox" name="${name}.${a}"${Array.isArray(value) && value.includes(a) ? " checked" : ""}>${escapeHtml(i18n.localize(`VTTBRIDGE.Attribute.${a}`).slice(0, 3))}</label>`,
      ).join("")}</span>`;
    case "key":
      return `<input type="text" name="${name}" value="${attr(value)}" placeholder="${escapeHtml(i18n.localize("VTTBRIDGE.Sheet.IdFromName"))}" pattern="[^.]+" aria-label="${label}" title="${label}">`;
    default:
      return `<input type="text" name="${name}" value="${attr(value)}"${column.optional ? "" : " required"}${column.suggest ? ' list="vtt-bridge-iwr-types"' : ""} placeholder="${label}" aria-label="${label}" title="${label}">`;
  }
}

/** @param {string} list @param {string|number} n @param {string} from @param {Record<string, any>} item @param {FormI18n} i18n */
function rowHtml(list, n, from, item, i18n) {
  const spec = specOf(list);
  const cells = spec.columns.map((c) => `<span class="cell cell-${c.key}">${cellHtml(list, n, c, item, i18n)}</span>`).join("");
  const remove = escapeHtml(i18n.localize("VTTBRIDGE.Sheet.Remove"));
  return `<li class="row" data-row="${n}"><input type="hidden" name="list.${list}.${n}._from" value="${escapeHtml(from)}">${cells}<button type="button" class="remove" data-action="removeRow" title="${remove}" aria-label="${remove}">✕</button></li>`;
}

/**
 * The lists' part of the rules sheet: a fieldset per list with its column heads, its rows, an
 * "Add" button and a `<template>` of an empty row (the sheet's `addRow` copies it).
 * @param {Record<string, any>|undefined} flags
 * @param {FormI18n} i18n
 * @returns {string}
 */
export function rulesFormHtml(flags, i18n) {
  const types = IWR_TYPES.map((t) => `<option value="${t}">${escapeHtml(i18n.localize(`VTTBRIDGE.Rules.Card.DamageType.${t}`))}</option>`).join("");
  const groups = [
    { legend: "Senses", lists: ["detection", "antiDetection"] },
    { legend: "Immunities", lists: ["immunities"] },
    { legend: "Iwr", lists: ["iwrImmunities", "iwrWeaknesses", "iwrResistances"] },
    { legend: "Energy", lists: ["energyPools", "gauges"] },
  ];
  const listHtml = (/** @type {string} */ list) => {
    const spec = specOf(list);
    const heads = spec.columns.map((c) => `<span class="cell cell-${c.key}">${escapeHtml(i18n.localize(`VTTBRIDGE.Sheet.Column.${c.key}`))}</span>`).join("");
    const rows = listRows(flags, list).map((r, i) => rowHtml(list, i, r.from, r.cells, i18n)).join("");
    const blank = Object.fromEntries(spec.columns.map((c) => [c.key, c.fallback ?? ((c.kind === "select" || c.kind === "type") && !c.blank ? c.options?.[0] : c.kind === "int" ? 0 : "")]));
    return (
      `<section class="list list-${list}" data-list="${list}"><h4>${escapeHtml(i18n.localize(`VTTBRIDGE.Sheet.List.${list}`))}</h4>` +
      `<input type="hidden" name="list.${list}._present" value="1">` +
      `<div class="heads">${heads}<span class="remove"></span></div><ol class="rows">${rows}</ol>` +
      `<p class="empty">${escapeHtml(i18n.localize("VTTBRIDGE.Sheet.None"))}</p>` +
      `<template class="row-template">${rowHtml(list, "__ROW__", "", blank, i18n)}</template>` +
      `<button type="button" class="add" data-action="addRow" data-list="${list}">＋ ${escapeHtml(i18n.localize(`VTTBRIDGE.Sheet.Add.${list}`))}</button></section>`
    );
  };
  return (
    `<datalist id="vtt-bridge-iwr-types">${types}</datalist>` +
    groups.map((g) => `<fieldset class="lists"><legend>${escapeHtml(i18n.localize(`VTTBRIDGE.Sheet.Group.${g.legend}`))}</legend>${g.lists.map(listHtml).join("")}</fieldset>`).join("")
  );
}
