/**
 * Foundry wiring of the table's attack tools (thin; every decision is in attack.mjs and pins.mjs):
 * - the token controls' "Attack" tool (every user): the attack dialog: one damage instance and the
 *   attack's successes (DET-10), and two buttons: "Attack the targets" (a `batch` of one `damage`
 *   per targeted token, each with the attack) and "Attack a square" (arms the square pick);
 * - the square pick: the next left click on the canvas picks the grid square it falls in and sends
 *   the attack's `damage` at that square (no target: the sidecar knows who stands there, and rules
 *   the guess); a click outside the scene is an error and the pick stays armed; Escape or a right
 *   click cancels;
 * - before an attack is sent, what DET-10 says of each target or the square (`attackCheck`, asked as
 *   the attacker's view: the verdict and the counts, never whether a square is right): when any
 *   verdict is not "counts in full", a dialog lists them (a silhouette named "Someone") and the
 *   attack is sent only on "Attack";
 * - the GM overlay's lines: a right click on a who-locates-whom line opens that pair's pin dialog
 *   (`PIN_PAIR_HOOK`, ruling-messages.mjs).
 *
 * Foundry API used (public pages): the `getSceneControlButtons` hook (v13+: `controls.tokens.tools`
 * a record, a `button: true` tool's `onChange`; v12: an array of controls whose `tools` is an array,
 * `onClick`) — https://foundryvtt.com/api/functions/hookEvents.getSceneControlButtons.html,
 * https://foundryvtt.com/api/v12/functions/hookEvents.getSceneControlButtons.html;
 * `canvas.stage` and `canvas.dimensions.sceneRect` / `size` —
 * https://foundryvtt.com/api/v14/classes/foundry.canvas.Canvas.html,
 * https://foundryvtt.com/api/interfaces/client.SceneDimensions.html; the stage's PixiJS pointer
 * events (`pointerdown`, a FederatedPointerEvent: `button` 0 left / 2 right, `getLocalPosition`) —
 * https://pixijs.download/release/docs/events.FederatedMouseEvent.html; `DialogV2.wait` (buttons,
 * each `callback(event, button, dialog)`; `rejectClose: false` resolves null when closed) —
 * https://foundryvtt.com/api/interfaces/foundry.DialogV2WaitOptions.html,
 * https://foundryvtt.com/api/types/foundry.DialogV2ButtonCallback.html; `User#targets` (a Set of
 * Tokens) — https://foundryvtt.com/api/classes/foundry.documents.User.html.
 * Everything is read from the `env` passed in (usually `globalThis`), so tests drive it on the
 * strict stand-in.
 * @module attack-tools
 */

import { MODULE_ID } from "../core/constants.mjs";
import { escapeHtml } from "../core/chat-cards.mjs";
import { actionFromDialog, DIALOG_CHOICES } from "../core/damage.mjs";
import { armPick, asBatches, attackerFor, attackFromForm, batchTargets, damageActions, PICK_IDLE, pickEvent, targetLabel } from "../core/attack.mjs";
import { lineAt } from "../core/pins.mjs";
import { checkLine } from "../core/attack-card.mjs";
import { isIdentityHidden } from "./visibility-canvas.mjs";
import { namespacedClass } from "./compat.mjs";
import { PIN_PAIR_HOOK } from "./ruling-messages.mjs";

/** The token controls' tool name. */
export const ATTACK_TOOL = `${MODULE_ID}-attack`;

/**
 * @typedef {object} TableToolsOptions
 * @property {any} [env] usually `globalThis`
 * @property {(action: Record<string, unknown>) => unknown} sendAction sends an action (relayed for a player)
 * @property {(key: string, data?: Record<string, string>) => string} localize
 * @property {{overlayActive: boolean, overlayLines: () => {relations: any[], grid: number}}|null} [overlay] the visibility runtime
 * @property {(query: Record<string, unknown>) => Promise<unknown>} [checkAttack] asks the sidecar's
 *   `attackCheck` (the attacker's view, relayed for a player); resolves its answer (null: none)
 */

/**
 * @typedef {object} CheckItem one line of the DET-10 check: the target as the player may name it
 *   (null: a square) and the `attackCheck` query
 * @property {string|null} target
 * @property {Record<string, unknown>} query
 */

export class TableTools {
  /** @param {TableToolsOptions} options */
  constructor({ env = globalThis, sendAction, localize, overlay = null, checkAttack }) {
    this.env = env;
    this.checkAttack = checkAttack ?? null;
    this.sendAction = sendAction;
    this.localize = localize;
    this.overlay = overlay;
    /** @type {import("../core/attack.mjs").PickState} */
    this.pick = PICK_IDLE;
    /** @type {WeakSet<object>} stages listened to */
    this.stages = new WeakSet();
    this.onKey = (/** @type {{key: string}} */ event) => this.handle({ type: "key", key: event.key });
  }

  /** Hooks: the scene control tool, and the stage listener on every drawn canvas. */
  install() {
    const { Hooks } = this.env;
    Hooks.on("getSceneControlButtons", (/** @type {unknown} */ controls) => this.addTool(controls));
    Hooks.on("canvasReady", () => this.listen());
    this.listen();
  }

  /** @param {unknown} controls */
  addTool(controls) {
    const base = { name: ATTACK_TOOL, title: "VTTBRIDGE.Attack.Tool", icon: "fa-solid fa-crosshairs", button: true, visible: true };
    const open = () => void this.openDialog();
    if (Array.isArray(controls)) {
      const token = controls.find((c) => c?.name === "token");
      if (token && Array.isArray(token.tools)) token.tools.push({ ...base, onClick: open });
      return;
    }
    const tools = /** @type {any} */ (controls)?.tokens?.tools;
    if (tools && typeof tools === "object") tools[ATTACK_TOOL] = { ...base, order: Object.keys(tools).length, onChange: open };
  }

  /** Listen to the stage's pointer events (once per stage object). */
  listen() {
    const stage = this.env.canvas?.stage;
    if (!stage || typeof stage.on !== "function" || this.stages.has(stage)) return;
    this.stages.add(stage);
    stage.on("pointerdown", (/** @type {any} */ event) => this.onPointer(event));
  }

  /** @param {any} event a PixiJS FederatedPointerEvent */
  onPointer(event) {
    const canvas = this.env.canvas;
    const point = event?.getLocalPosition?.(canvas.stage) ?? null;
    if (!point) return;
    if (this.pick.armed) {
      this.handle({ type: "pointer", button: Number(event.button), point: { x: point.x, y: point.y } });
      return;
    }
    const overlay = this.overlay;
    if (Number(event.button) !== 2 || !overlay?.overlayActive || !this.env.game.user?.isGM) return;
    const { relations, grid } = overlay.overlayLines();
    const pair = lineAt(point, relations, grid);
    if (pair) this.env.Hooks.callAll(PIN_PAIR_HOOK, pair);
  }

  /** The scene's rectangle and grid size, as `pickEvent` reads them. */
  sceneRect() {
    const dims = this.env.canvas?.dimensions ?? {};
    const rect = dims.sceneRect ?? { x: dims.sceneX ?? 0, y: dims.sceneY ?? 0, width: dims.sceneWidth, height: dims.sceneHeight };
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height, size: dims.size ?? this.env.canvas?.grid?.size };
  }

  /** @param {import("../core/attack.mjs").PickEvent} event */
  handle(event) {
    const { state, outcome } = pickEvent(this.pick, event, this.sceneRect());
    this.setPick(state);
    if (!outcome) return;
    const notes = this.env.ui.notifications;
    if (outcome.kind === "cancel") notes.info(this.localize("VTTBRIDGE.Attack.Cancelled"));
    else if (outcome.kind === "outside") notes.error(this.localize("VTTBRIDGE.Attack.Outside"));
    else if (!this.checkAttack) void this.sendAction(outcome.action);
    else void this.sendChecked([outcome.action], [{ target: null, query: checkQuery(/** @type {any} */ (outcome.action).attack) }]);
  }

  /**
   * Ask `attackCheck` for each item; when every verdict counts in full send at once, else show the
   * verdicts and send only on "Attack". Resolves whether it was sent.
   * @param {Record<string, unknown>[]} actions
   * @param {CheckItem[]} items
   */
  async sendChecked(actions, items) {
    const check = this.checkAttack;
    const answers = check ? await Promise.all(items.map((item) => Promise.resolve(check(item.query)).catch(() => null))) : [];
    const plain = answers.every((a) => !!a && typeof a === "object" && /** @type {any} */ (a).verdict === "full");
    if (!plain && !(await this.confirm(items.map((item, i) => checkLine(item.target, answers[i], this.i18n()))))) {
      this.env.ui.notifications.info(this.localize("VTTBRIDGE.Attack.Check.Cancelled"));
      return false;
    }
    for (const action of actions) await this.sendAction(action);
    return true;
  }

  /** The localizer as the pure renderers read it. @returns {import("../core/chat-cards.mjs").I18n} */
  i18n() {
    return { localize: (key) => this.localize(key), format: (key, data) => this.localize(key, data), has: () => true, lang: "en" };
  }

  /**
   * The DET-10 dialog: the lines, "Attack" or "Cancel" (closed: cancel).
   * @param {string[]} lines
   */
  async confirm(lines) {
    const t = this.localize;
    const DialogV2 = namespacedClass(this.env, "foundry.applications.api.DialogV2");
    const list = lines.map((line) => `<li>${escapeHtml(line)}</li>`).join("");
    const answer = await DialogV2.wait({
      rejectClose: false,
      window: { title: t("VTTBRIDGE.Attack.Check.Heading") },
      content: `<ul class="vtt-bridge-attack-check">${list}</ul>`,
      buttons: [
        { action: "send", label: t("VTTBRIDGE.Attack.Check.Send"), default: true },
        { action: "cancel", label: t("VTTBRIDGE.Attack.Check.Cancel") },
      ],
    });
    return answer === "send";
  }

  /** @param {import("../core/attack.mjs").PickState} state */
  setPick(state) {
    const doc = this.env.document;
    if (state.armed && !this.pick.armed) doc?.addEventListener?.("keydown", this.onKey);
    if (!state.armed && this.pick.armed) doc?.removeEventListener?.("keydown", this.onKey);
    this.pick = state;
  }

  /** The dialog's form. */
  dialogContent() {
    const t = this.localize;
    const grades = DIALOG_CHOICES.grades.map((g) => `<option value="${g}">${escapeHtml(t(`VTTBRIDGE.Grade.${g}`))}</option>`).join("");
    const number = (/** @type {string} */ name, /** @type {string} */ label, /** @type {number} */ value) =>
      `<label>${escapeHtml(t(label))} <input type="number" name="${name}" value="${value}" min="0" step="1"></label>`;
    return (
      number("amount", "VTTBRIDGE.Dialog.Amount", 1) +
      `<label>${escapeHtml(t("VTTBRIDGE.Dialog.Grade"))} <select name="grade">${grades}</select></label>` +
      `<label>${escapeHtml(t("VTTBRIDGE.Dialog.Type"))} <input type="text" name="type" placeholder="untyped"></label>` +
      number("successes", "VTTBRIDGE.Attack.Successes", 1) +
      number("extraSuccesses", "VTTBRIDGE.Attack.ExtraSuccesses", 0) +
      number("effectPoints", "VTTBRIDGE.Attack.EffectPoints", 0)
    );
  }

  /**
   * The attack dialog: resolves what was sent (the actions, or the armed pick), null when closed or
   * refused (the reason notified).
   */
  async openDialog() {
    const { env } = this;
    const t = this.localize;
    const DialogV2 = namespacedClass(env, "foundry.applications.api.DialogV2");
    const read = (/** @type {string} */ mode) => (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) => ({
      mode,
      form: Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (button.form)).entries()),
    });
    const answer = await DialogV2.wait({
      rejectClose: false,
      window: { title: t("VTTBRIDGE.Attack.Title") },
      content: this.dialogContent(),
      buttons: [
        { action: "targets", label: t("VTTBRIDGE.Attack.Targets"), default: true, callback: read("targets") },
        { action: "square", label: t("VTTBRIDGE.Attack.Square"), callback: read("square") },
      ],
    });
    if (!answer || typeof answer !== "object") return null;
    return this.attack(/** @type {{mode: string, form: Record<string, unknown>}} */ (answer));
  }

  /**
   * Send (or arm) the dialog's attack.
   * @param {{mode: string, form: Record<string, unknown>}} answer
   */
  async attack({ mode, form }) {
    const { game, canvas, ui } = this.env;
    const user = game.user;
    const controlled = (canvas?.tokens?.controlled ?? []).map((/** @type {any} */ token) => ({
      id: String(token.document?.id ?? token.id ?? ""),
      owned: !!token.actor?.testUserPermission?.(user, "OWNER"),
    }));
    const who = attackerFor({ controlled, isGM: !!user?.isGM });
    if ("error" in who) {
      ui.notifications.error(this.localize(`VTTBRIDGE.Attack.${who.error}`));
      return null;
    }
    let instances;
    let attack;
    try {
      instances = /** @type {any} */ (actionFromDialog("attack", { ...form, mode: "damage" })).instances;
      attack = attackFromForm({ ...form, successes: form.successes ?? "0" }, who.token) ?? { attacker: who.token, successes: 0 };
    } catch (error) {
      ui.notifications.error(/** @type {Error} */ (error).message);
      return null;
    }
    if (mode === "square") {
      this.setPick(armPick(attack, instances));
      ui.notifications.info(this.localize("VTTBRIDGE.Attack.Armed"));
      return this.pick;
    }
    /** @param {any} token */
    const ref = (token) => ({ id: String(token?.document?.id ?? token?.id ?? ""), actor: token?.actor?.uuid });
    const targeted = [...(user?.targets ?? [])];
    const targets = batchTargets({ isGM: false, targeted: targeted.map(ref), controlled: [], fallback: null });
    if (!targets.length) {
      ui.notifications.error(this.localize("VTTBRIDGE.Attack.NoTargets"));
      return null;
    }
    const actions = asBatches(damageActions(targets, instances, attack));
    if (!this.checkAttack) {
      for (const action of actions) await this.sendAction(action);
      return actions;
    }
    const someone = this.localize("VTTBRIDGE.Visibility.Speaker.Someone");
    const items = targets.map((target) => {
      const token = targeted.find((t) => ref(t).id === target.token);
      const name = targetLabel({ name: String(token?.document?.name ?? token?.name ?? someone), identityHidden: isIdentityHidden(token), isGM: !!user?.isGM, someone });
      return { target: name, query: checkQuery(attack, String(target.token)) };
    });
    return (await this.sendChecked(actions, items)) ? actions : null;
  }
}

/**
 * The `attackCheck` query of an attack, as the attacker asks it: at a target token, or (no token)
 * at the attack's guessed square.
 * @param {Record<string, any>} attack the `damage.attack` (or the dialog's attack)
 * @param {string} [target] the target's token id
 * @returns {Record<string, unknown>}
 */
export function checkQuery(attack, target) {
  /** @type {Record<string, unknown>} */
  const query = { kind: "attackCheck", attacker: attack.attacker, successes: attack.successes, view: "attacker" };
  if (attack.extraSuccesses) query.extraSuccesses = attack.extraSuccesses;
  if (attack.effectPoints) query.effectPoints = attack.effectPoints;
  if (target) query.target = target;
  else if (attack.guess) query.guess = { x: attack.guess.x, y: attack.guess.y };
  return query;
}

/**
 * Install the tools (call once, in `init`).
 * @param {TableToolsOptions} options
 * @returns {TableTools}
 */
export function installTableTools(options) {
  const tools = new TableTools(options);
  tools.install();
  return tools;
}
