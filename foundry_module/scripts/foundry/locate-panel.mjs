/**
 * Foundry wiring of the GM's panel of observers against targets (thin; the decisions are
 * `core/locate-panel.mjs`'s): an ApplicationV2 window listing every pair of the viewed scene's
 * tokens (only pairs with a selected token when the GM selects some), each pair's state and area
 * and the GM's pin; ticked pairs are pinned or released in one `batch` (one ruling, one card, one
 * undo). GM only: `open` refuses a player, and the tool and keybinding are a GM's.
 *
 * Foundry API used (public pages): `foundry.applications.api.ApplicationV2` — a subclass renders
 * by defining `_renderHTML` and `_replaceHTML`; `DEFAULT_OPTIONS.actions` maps a clicked
 * `[data-action]` to a handler called with the application as `this`; `_prepareContext`; `render`,
 * `close`, `element` — https://foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html,
 * https://foundryvtt.com/api/modules/foundry.applications.html. `canvas.tokens.placeables`,
 * `canvas.tokens.controlled` — https://foundryvtt.com/api/classes/foundry.canvas.layers.TokenLayer.html.
 * @module locate-panel
 */

import { MODULE_ID } from "../core/constants.mjs";
import { panelHtml, panelRows, pinBatches, releaseBatches, tickedPairs } from "../core/locate-panel.mjs";
import { visibilityFlagOf } from "../core/visibility.mjs";
import { AREAS_FLAG } from "../core/constants.mjs";
import { namespacedClass } from "./compat.mjs";
import { VISIBILITY_HOOK } from "./visibility-canvas.mjs";

export const PANEL_ACTION = "locatePanel";
export const PANEL_TOOL = `${MODULE_ID}-locate-panel`;

/**
 * @typedef {object} PanelDeps
 * @property {(key: string, data?: Record<string, string>) => string} localize
 * @property {() => ((query: Record<string, unknown>) => Promise<any>)|null} query the sidecar's query function now (null: not the bridge browser)
 * @property {(action: Record<string, unknown>) => Promise<unknown>} send sends an action (directly, or relayed for a co-GM)
 * @property {() => boolean} canSend whether an action can be sent now
 * @property {(message: string) => void} [notifyError]
 */

/**
 * Build the panel class on Foundry's ApplicationV2.
 * @param {any} ApplicationV2 `foundry.applications.api.ApplicationV2`
 * @param {any} env usually `globalThis`
 * @param {PanelDeps} deps
 */
export function defineLocatePanel(ApplicationV2, env, deps) {
  return class LocatePanel extends ApplicationV2 {
    /** @param {any} [options] */
    constructor(options = {}) {
      super(options);
      /** @type {string} */
      this.filter = "hidden";
      /** @type {unknown} the pins read when the panel last rendered (null: not read) */
      this.pins = null;
      /** @type {string[]|null} tokens the panel is focused on (null: the GM's selection) */
      this.focusIds = options.focus ?? null;
    }

    static DEFAULT_OPTIONS = {
      id: `${MODULE_ID}-locate-panel`,
      tag: "form",
      classes: [MODULE_ID, "locate-panel"],
      window: { title: "VTTBRIDGE.Panel.Title", resizable: true },
      position: { width: 620, height: "auto" },
      actions: {
        filter: LocatePanel.#onFilter,
        tickAll: LocatePanel.#onTickAll,
        pin: LocatePanel.#onPin,
        release: LocatePanel.#onRelease,
      },
    };

    /** @returns {Promise<Record<string, unknown>>} */
    async _prepareContext() {
      const placeables = env.canvas?.tokens?.placeables ?? [];
      const tokens = placeables.map((/** @type {any} */ t) => ({
        id: String(t.document?.id),
        name: String(t.document?.name ?? t.document?.id),
        visibility: visibilityFlagOf(t.document),
        areas: t.document?.flags?.[MODULE_ID]?.[AREAS_FLAG],
      }));
      const names = new Map(tokens.map((/** @type {any} */ t) => [t.id, t.name]));
      const focus = this.focusIds ?? (env.canvas?.tokens?.controlled ?? []).map((/** @type {any} */ t) => String(t.document?.id));
      const query = deps.query();
      this.pins = null;
      if (query) {
        try {
          this.pins = (await query({ kind: "pins" }))?.data?.pins ?? {};
        } catch (error) {
          console.warn(`${MODULE_ID} | the pins were not read`, error);
        }
      }
      const { rows, total } = panelRows({ tokens, focus, filter: this.filter, pins: this.pins });
      return {
        rows,
        total,
        filter: this.filter,
        focus: focus.map((/** @type {string} */ id) => names.get(id) ?? id),
        gridSize: Number(env.canvas?.scene?.grid?.size ?? env.canvas?.grid?.size ?? 100) || 100,
        nameOf: (/** @type {string} */ id) => names.get(id) ?? id,
        canSend: deps.canSend(),
        pinsKnown: this.pins !== null,
      };
    }

    /** @param {any} context @returns {Promise<string>} */
    async _renderHTML(context) {
      return panelHtml(context, deps.localize);
    }

    /** @param {string} result @param {HTMLElement} content */
    _replaceHTML(result, content) {
      content.innerHTML = result;
    }

    /** The ticked pairs. @returns {{observer: string, target: string}[]} */
    ticked() {
      const boxes = [...(this.element?.querySelectorAll?.(".vtt-bridge-pair") ?? [])];
      return tickedPairs(boxes.filter((/** @type {any} */ b) => b.checked).map((/** @type {any} */ b) => b.value));
    }

    /** @param {string} name @returns {string} */
    field(name) {
      const fields = [...(this.element?.querySelectorAll?.("[data-field]") ?? [])];
      return String(fields.find((/** @type {any} */ f) => f.dataset?.field === name)?.value ?? "");
    }

    /** @param {Record<string, unknown>[]} batches */
    async sendAll(batches) {
      try {
        for (const batch of batches) await deps.send(batch);
      } catch (error) {
        deps.notifyError?.(deps.localize("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error)?.message ?? String(error) }));
      }
      await this.render();
    }

    /** @this {LocatePanel} @param {Event} _event @param {HTMLElement} target */
    static async #onFilter(_event, target) {
      this.filter = target?.dataset?.filter === "all" ? "all" : "hidden";
      await this.render();
    }

    /** @this {LocatePanel} @param {Event} _event @param {HTMLInputElement} target */
    static #onTickAll(_event, target) {
      for (const box of this.element?.querySelectorAll?.(".vtt-bridge-pair") ?? []) /** @type {any} */ (box).checked = !!target?.checked;
    }

    /** @this {LocatePanel} */
    static async #onPin() {
      const pairs = this.ticked();
      if (!pairs.length) return;
      const round = Number(env.game?.combat?.round ?? 0) || 0;
      await this.sendAll(pinBatches(pairs, { state: this.field("state"), until: this.field("until"), round, by: String(env.game?.user?.name ?? "") }));
    }

    /** @this {LocatePanel} */
    static async #onRelease() {
      const pairs = this.ticked();
      if (!pairs.length || this.pins === null) return;
      await this.sendAll(releaseBatches(pairs, this.pins));
    }
  };
}

/**
 * Install the panel: its class (once `foundry.applications.api` exists), a GM's keybinding (in
 * `init`), a button among the token controls for a GM; an open panel renders again after each
 * ruling that changes who locates whom.
 * @param {PanelDeps & {env?: any}} deps
 * @returns {{open: (focus?: string[]|null) => any}}
 */
export function installLocatePanel({ env = globalThis, ...deps }) {
  /** @type {any} */
  let Panel = null;
  /** @type {any} */
  let panel = null;
  const open = (/** @type {string[]|null|undefined} */ focus = null) => {
    if (!env.game?.user?.isGM) return null;
    Panel ??= defineLocatePanel(namespacedClass(env, "foundry.applications.api.ApplicationV2"), env, deps);
    if (!panel) panel = new Panel({ focus });
    else panel.focusIds = focus;
    void panel.render({ force: true });
    return panel;
  };
  env.Hooks.on(VISIBILITY_HOOK, () => {
    if (panel?.rendered) void panel.render();
  });
  env.game?.keybindings?.register?.(MODULE_ID, PANEL_ACTION, {
    name: "VTTBRIDGE.Panel.Keybinding.Name",
    hint: "VTTBRIDGE.Panel.Keybinding.Hint",
    editable: [{ key: "KeyL", modifiers: ["Shift"] }],
    restricted: true,
    onDown: () => !!open(),
  });
  env.Hooks.on("getSceneControlButtons", (/** @type {any} */ controls) => {
    if (env.game?.user?.isGM) addPanelTool(controls, { name: PANEL_TOOL, title: "VTTBRIDGE.Panel.Title", icon: "fa-solid fa-table-cells", onClick: () => open() });
  });
  return { open };
}

/**
 * Add the panel's button to the token controls, in the `getSceneControlButtons` hook's shape:
 * v13+ controls keyed by name, `tools` keyed by tool name, a `button` tool runs `onChange`; v12 an
 * array of controls whose `tools` is an array, a `button` tool runs `onClick`.
 * @param {unknown} controls
 * @param {{name: string, title: string, icon: string, onClick: () => void}} spec
 * @returns {boolean} whether the token controls were found
 */
export function addPanelTool(controls, { name, title, icon, onClick }) {
  const base = { name, title, icon, button: true, visible: true };
  if (Array.isArray(controls)) {
    const token = controls.find((c) => c?.name === "token");
    if (!token || !Array.isArray(token.tools)) return false;
    token.tools.push({ ...base, onClick });
    return true;
  }
  const tools = /** @type {any} */ (controls)?.tokens?.tools;
  if (!tools || typeof tools !== "object") return false;
  tools[name] = { ...base, order: Object.keys(tools).length, onChange: () => onClick() };
  return true;
}
