/**
 * Foundry wiring of the damage / heal dialog and of a chat card's Apply button (thin; the decisions
 * are in damage.mjs and attack.mjs): a damage goes to the tokens this user targets (a player's
 * attack) or, for a GM, those selected (`batchTargets`), else to the dialog's or the card's own
 * actor; several targets are one `batch` of one `damage` each (`damageSends`: one ruling, all or
 * nothing, one undo); a damage with no target at all is a localized notice and nothing is sent.
 *
 * Foundry API used (public pages): `User#targets` (a Set of Tokens) —
 * https://foundryvtt.com/api/classes/foundry.documents.User.html; `canvas.tokens.controlled` —
 * https://foundryvtt.com/api/v14/classes/foundry.canvas.layers.TokenLayer.html; `DialogV2.prompt`
 * (`ok.callback(event, button, dialog)`, `button.form`; `rejectClose: false` resolves null when
 * closed) — https://foundryvtt.com/api/interfaces/foundry.DialogV2WaitOptions.html,
 * https://foundryvtt.com/api/types/foundry.DialogV2ButtonCallback.html; the chat log's
 * renderChatMessageHTML (v13+, an HTMLElement) / renderChatMessage (v12, jQuery) hooks —
 * https://foundryvtt.com/api/functions/hookEvents.renderChatMessageHTML.html,
 * https://foundryvtt.com/api/functions/hookEvents.renderChatMessage.html.
 * Everything is read from the `env` passed in (usually `globalThis`), so tests drive it on the
 * strict stand-in.
 * @module damage-tools
 */

import { MODULE_ID } from "../core/constants.mjs";
import { actionFromButton, actionFromDialog, buttonRefusal, CARD_FLAG, DIALOG_CHOICES } from "../core/damage.mjs";
import { batchTargets, damageSends } from "../core/attack.mjs";
import { DAMAGE_TYPES, damageTypeOf, damageTypeOptions, OTHER_TYPE, previewRows, renderPreview } from "../core/damage-preview.mjs";
import { escapeHtml } from "../core/chat-cards.mjs";
import { chatRenderHook, namespacedClass } from "./compat.mjs";

/** The User flag that keeps a user's last damage type (the dialog opens with it). */
export const LAST_TYPE_FLAG = "lastDamageType";

/**
 * @typedef {object} DamageToolsOptions
 * @property {any} [env] usually `globalThis`
 * @property {(action: Record<string, unknown>) => unknown} sendAction sends an action (relayed for a player)
 * @property {(key: string, data?: Record<string, string>) => string} localize
 * @property {(action: Record<string, unknown>) => Promise<{log?: any[]}|null>} [preview] the sidecar's
 *   `preview` of an action (its `data`: the log it would give); null when this browser cannot ask
 *   (it does not run the bridge: a player's preview would show a target's Health)
 * @property {{get: () => unknown, set: (type: string) => unknown}} [lastType] this user's last
 *   damage type (a flag on their own User, main.mjs), the dialog's type when it opens
 */

/**
 * The tokens a damage goes to (`batchTargets`): this user's targets, or a GM's selection, else `fallback`.
 * @param {any} env
 * @param {import("../core/attack.mjs").AttackTarget|null} fallback
 */
export function damageTargets(env, fallback) {
  /** @param {any} token */
  const ref = (token) => ({ id: String(token?.document?.id ?? token?.id ?? ""), actor: token?.actor?.uuid });
  return batchTargets({
    isGM: !!env.game?.user?.isGM,
    targeted: [...(env.game?.user?.targets ?? [])].map(ref),
    controlled: (env.canvas?.tokens?.controlled ?? []).map(ref),
    fallback,
  });
}

/**
 * Send what `action` means for these targets, or say why nothing is sent.
 * @param {Record<string, any>} action
 * @param {import("../core/attack.mjs").AttackTarget[]} targets
 * @param {DamageToolsOptions} options
 */
async function sendFor(action, targets, { env = globalThis, sendAction, localize }) {
  let plan;
  try {
    plan = damageSends(action, targets);
  } catch (error) {
    env.ui.notifications.error(/** @type {Error} */ (error).message);
    return;
  }
  if ("error" in plan) {
    env.ui.notifications.warn(localize(`VTTBRIDGE.Dialog.${plan.error}`));
    return;
  }
  for (const each of plan.actions) await sendAction(each);
}

/**
 * Foundry's `game.i18n` as the cards read it (`localize`, `format`, `has`), from the env.
 * @param {any} env
 * @param {DamageToolsOptions["localize"]} localize
 * @returns {import("../core/chat-cards.mjs").I18n}
 */
function i18nOf(env, localize) {
  const i18n = env.game?.i18n;
  return {
    localize: (key) => localize(key),
    format: (key, data) => localize(key, data),
    has: (key) => (typeof i18n?.has === "function" ? i18n.has(key) : true),
    lang: i18n?.lang,
  };
}

/**
 * A target's name as this browser shows it: its token's name on the canvas, else its actor's.
 * @param {any} env
 * @param {import("../core/attack.mjs").AttackTarget} target
 */
function targetName(env, target) {
  const token = target.token ? env.canvas?.tokens?.get?.(target.token) : null;
  return String(token?.document?.name ?? token?.name ?? env.fromUuidSync?.(target.actor)?.name ?? target.actor);
}

/**
 * The preview of what `actions` would do, as the dialog's HTML: a row per target (the sidecar's
 * `preview`, nothing kept), or a line saying why there is none.
 * @param {Record<string, any>[]} actions
 * @param {DamageToolsOptions} options
 * @param {(id: string) => string|undefined} names
 * @returns {Promise<{html: string, shown: boolean}>}
 */
async function previewHtml(actions, options, names) {
  const env = options.env ?? globalThis;
  const loc = i18nOf(env, options.localize);
  const note = (/** @type {string} */ key) => ({ html: `<p class="${MODULE_ID}-preview-note">${escapeHtml(options.localize(key))}</p>`, shown: false });
  if (!options.preview) return note("VTTBRIDGE.Preview.None");
  /** @type {import("../core/damage-preview.mjs").PreviewRow[]} */
  const rows = [];
  for (const action of actions) {
    let data;
    try {
      data = await options.preview(action);
    } catch (error) {
      return { html: `<p class="${MODULE_ID}-preview-note">${escapeHtml(options.localize("VTTBRIDGE.Preview.Refused", { message: String(/** @type {Error} */ (error)?.message ?? error) }))}</p>`, shown: false };
    }
    if (!data) return note("VTTBRIDGE.Preview.None");
    rows.push(...previewRows(data.log ?? [], typeof action.target === "string" ? action.target : null));
  }
  return { html: renderPreview(rows, loc, names), shown: true };
}

/**
 * The tokens a damage's attack may come from (DET-10: the observer whose locating the sidecar
 * rules): for a GM every token on the canvas with an actor that is not a target, for a player only
 * the tokens they own (the bridge takes an attack from no other), each `{id, name}`.
 * @param {any} env
 * @param {import("../core/attack.mjs").AttackTarget[]} targets
 * @returns {{id: string, name: string}[]}
 */
export function attackerChoices(env, targets) {
  const hit = new Set(targets.map((target) => target.token));
  const isGM = !!env.game?.user?.isGM;
  return [...(env.canvas?.tokens?.placeables ?? [])]
    .filter((token) => token?.actor && !hit.has(String(token.document?.id ?? token.id)) && (isGM || token.actor?.isOwner))
    .map((token) => ({ id: String(token.document?.id ?? token.id), name: String(token.document?.name ?? token.name ?? "") }));
}

/**
 * The token a damage's attack comes from by default: the roll's or the sheet's actor's token on the
 * canvas when it may attack (`attackerChoices`), else the one token this user controls there, else none ("").
 * @param {any} env
 * @param {{id: string}[]} choices
 * @param {string|null|undefined} actor the roll's or sheet's actor uuid
 */
export function defaultAttacker(env, choices, actor) {
  const ids = new Set(choices.map((choice) => choice.id));
  const tokens = [...(env.canvas?.tokens?.placeables ?? [])];
  const own = tokens.find((token) => actor && token?.actor?.uuid === actor && ids.has(String(token.document?.id ?? token.id)));
  if (own) return String(own.document?.id ?? own.id);
  const controlled = (env.canvas?.tokens?.controlled ?? []).filter((/** @type {any} */ token) => ids.has(String(token.document?.id ?? token.id)));
  return controlled.length === 1 ? String(controlled[0].document?.id ?? controlled[0].id) : "";
}

/**
 * What a dialog's fields send for these targets: the damage (with the attack of `attacker`, DET-10,
 * its successes the amount, when one is chosen and each target has a token) as `damageSends` plans it.
 * @param {string} named the damage's own target
 * @param {Record<string, unknown>} form
 * @param {import("../core/attack.mjs").AttackTarget[]} targets
 * @returns {{actions: Record<string, unknown>[]}|{error: "NoTargets"}}
 * @throws {TypeError} a field that is not valid
 */
export function dialogSends(named, form, targets) {
  const action = actionFromDialog(named, { amount: form.amount, grade: form.grade, type: form.type, mode: "damage" });
  const attacker = typeof form.attacker === "string" ? form.attacker : "";
  const armed = attacker && targets.length && targets.every((target) => target.token && target.token !== attacker);
  const plan = damageSends(armed ? { ...action, attack: { attacker, successes: Number(form.amount) } } : action, targets);
  return plan;
}

/**
 * The form values a dialog shows and what they mean, compared as the form gives them (strings).
 * @param {Record<string, unknown>} a @param {Record<string, unknown>} b
 */
const sameValues = (a, b) =>
  String(a.amount) === String(b.amount) &&
  String(a.grade) === String(b.grade) &&
  damageTypeOf(a.type || "untyped") === damageTypeOf(b.type || "untyped") &&
  String(a.attacker ?? "") === String(b.attacker ?? "");

/**
 * The values of the dialog's fields as the user left them (each field carries `data-vtt-bridge-field`).
 * @param {any} root the dialog's element
 * @returns {Record<string, string>}
 */
function fieldValues(root) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const field of root?.querySelectorAll?.(`[data-${MODULE_ID}-field]`) ?? []) out[String(field.getAttribute("name"))] = String(field.value ?? "");
  return out;
}

/**
 * The damage dialog for `targets`: amount, grade, damage type (the known types plus "other", this
 * user's last one first) and the token the attack comes from (DET-10), and under them what the
 * damage would leave each target with (the sidecar's `preview`), asked again whenever a field
 * changes. Applying sends the one `batch` (or `damage`) whose preview is shown; when the fields
 * changed and the new preview is not shown yet, the dialog opens again with it, so nothing lands unseen.
 * @param {{targets: import("../core/attack.mjs").AttackTarget[], values: Record<string, unknown>, fallback: string, source?: string|null}} what
 *   `fallback`: the actor uuid a damage names when no target was chosen (none: ""); `source`: the
 *   roll's or sheet's actor (its token is the default attacker)
 * @param {DamageToolsOptions} options
 */
export async function damageDialog({ targets, values, fallback, source = null }, options) {
  const { env = globalThis, localize: t } = options;
  const DialogV2 = namespacedClass(env, "foundry.applications.api.DialogV2");
  const FormData = env.FormData;
  const loc = i18nOf(env, t);
  const names = new Map(targets.map((target) => [target.actor, targetName(env, target)]));
  if (!targets.length && !fallback) {
    env.ui.notifications.warn(t("VTTBRIDGE.Dialog.NoTargets"));
    return;
  }
  const named = fallback || targets[0].actor; // the damage's own target, replaced by each target's
  const choices = attackerChoices(env, targets);
  const remembered = options.lastType?.get();
  const lastType = typeof remembered === "string" && (remembered === OTHER_TYPE || DAMAGE_TYPES.includes(remembered)) ? remembered : "untyped";
  // no target chosen (the sheet's own actor is damaged): no attack, nobody to attack from
  /** @type {Record<string, unknown>} */
  let form = { amount: "1", grade: "B", type: lastType, attacker: targets.length ? defaultAttacker(env, choices, source ?? fallback) : "", ...values };
  // an actor by its uuid, a token (a DET-10 step's attacker and target) by its id, as this browser names them
  const nameOf = (/** @type {string} */ id) => {
    const token = env.canvas?.tokens?.get?.(id);
    return names.get(id) ?? (token ? String(token.document?.name ?? token.name) : env.fromUuidSync?.(id)?.name);
  };
  /** The preview of these values: its HTML, and whether it shows what they send. @param {Record<string, unknown>} shown */
  const previewOf = async (shown) => {
    let plan;
    try {
      plan = dialogSends(named, shown, targets);
    } catch (error) {
      return { html: `<p class="${MODULE_ID}-preview-note">${escapeHtml(String(/** @type {Error} */ (error)?.message ?? error))}</p>`, shown: false };
    }
    if ("error" in plan) return { html: `<p class="${MODULE_ID}-preview-note">${escapeHtml(t(`VTTBRIDGE.Dialog.${plan.error}`))}</p>`, shown: false };
    return previewHtml(plan.actions, options, nameOf);
  };
  for (;;) {
    let first;
    try {
      first = dialogSends(named, form, targets);
    } catch (error) {
      env.ui.notifications.error(/** @type {Error} */ (error).message);
      return;
    }
    if ("error" in first) {
      env.ui.notifications.warn(t(`VTTBRIDGE.Dialog.${first.error}`));
      return;
    }
    let preview = await previewHtml(first.actions, options, nameOf);
    let shown = { ...form };
    const field = `data-${MODULE_ID}-field`;
    const grades = DIALOG_CHOICES.grades.map((g) => `<option value="${g}"${g === form.grade ? " selected" : ""}>${escapeHtml(t(`VTTBRIDGE.Grade.${g}`))}</option>`).join("");
    const attackers = [{ id: "", name: t("VTTBRIDGE.Preview.NoAttacker") }, ...choices]
      .map(({ id, name }) => `<option value="${escapeHtml(id)}"${id === form.attacker ? " selected" : ""}>${escapeHtml(name)}</option>`)
      .join("");
    const content =
      `<div class="${MODULE_ID}-damage-form">` +
      `<label>${escapeHtml(t("VTTBRIDGE.Dialog.Amount"))} <input type="number" name="amount" ${field} value="${escapeHtml(String(form.amount))}" min="0" step="1"></label>` +
      `<label>${escapeHtml(t("VTTBRIDGE.Dialog.Grade"))} <select name="grade" ${field}>${grades}</select></label>` +
      `<label>${escapeHtml(t("VTTBRIDGE.Dialog.Type"))} <select name="type" ${field}>${damageTypeOptions(loc, String(form.type || "untyped"))}</select></label>` +
      `<label>${escapeHtml(t("VTTBRIDGE.Preview.Attacker"))} <select name="attacker" ${field}>${attackers}</select></label>` +
      `</div><div class="${MODULE_ID}-damage-preview">${preview.html}</div>`;
    const title = targets.length
      ? t("VTTBRIDGE.Dialog.damageTargets", { names: targets.map((target) => names.get(target.actor) ?? target.actor).join(", ") })
      : t("VTTBRIDGE.Dialog.damage", { name: env.fromUuidSync?.(fallback)?.name ?? fallback });
    let asked = 0;
    const data = await DialogV2.prompt({
      rejectClose: false, // v12 rejects when the dialog is closed; v13 resolves null
      window: { title },
      position: { width: 600 },
      content,
      // a field changed: the preview of the new values replaces the old one (the latest asked wins)
      render: (/** @type {Event} */ _event, /** @type {any} */ dialog) => {
        const root = dialog?.element;
        root?.addEventListener?.("change", async () => {
          const now = fieldValues(root);
          const mine = ++asked;
          const next = await previewOf(now);
          if (mine !== asked) return;
          const box = root.querySelector(`.${MODULE_ID}-damage-preview`);
          if (!box) return;
          box.replaceChildren();
          box.insertAdjacentHTML("beforeend", next.html);
          preview = next;
          shown = now;
        });
      },
      ok: {
        label: t("VTTBRIDGE.Dialog.damageButton"),
        callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) => Object.fromEntries(new FormData(button.form).entries()),
      },
    });
    if (!data) return;
    if (preview.shown && !sameValues(data, shown)) {
      form = { ...form, ...data }; // changed and its preview not shown yet: show it before anything lands
      continue;
    }
    let sent;
    try {
      sent = dialogSends(named, data, targets);
    } catch (error) {
      env.ui.notifications.error(/** @type {Error} */ (error).message);
      return;
    }
    if ("error" in sent) {
      env.ui.notifications.warn(t(`VTTBRIDGE.Dialog.${sent.error}`));
      return;
    }
    options.lastType?.set(String(data.type || "untyped"));
    for (const each of sent.actions) await options.sendAction(each);
    return;
  }
}

/**
 * The damage or heal dialog of an actor (its sheet's header buttons); a damage goes to the targets
 * (`damageDialog`, with its preview).
 * @param {{uuid: string, name: string}} actor
 * @param {"damage"|"heal"} mode
 * @param {DamageToolsOptions} options
 */
export async function openDamageDialog(actor, mode, options) {
  const { env = globalThis, localize: t } = options;
  if (mode === "damage") {
    const targets = damageTargets(env, null);
    await damageDialog({ targets, values: {}, fallback: actor.uuid, source: actor.uuid }, options);
    return;
  }
  const DialogV2 = namespacedClass(env, "foundry.applications.api.DialogV2");
  const grades = DIALOG_CHOICES.grades.map((g) => `<option value="${g}">${t(`VTTBRIDGE.Grade.${g}`)}</option>`).join("");
  const sources = DIALOG_CHOICES.healSources.map((s) => `<option value="${s}">${t(`VTTBRIDGE.HealSource.${s}`)}</option>`).join("");
  const content =
    `<label>${t("VTTBRIDGE.Dialog.Amount")} <input type="number" name="amount" value="1" min="0" step="1"></label>` +
    `<label>${t("VTTBRIDGE.Dialog.Grade")} <select name="grade"><option value="any">—</option>${grades}</select></label>` +
    `<label>${t("VTTBRIDGE.Dialog.Source")} <select name="source">${sources}</select></label>`;
  const FormData = env.FormData;
  const data = await DialogV2.prompt({
    rejectClose: false, // v12 rejects when the dialog is closed; v13 resolves null
    window: { title: t(`VTTBRIDGE.Dialog.${mode}`, { name: actor.name }) },
    content,
    ok: {
      label: t(`VTTBRIDGE.Dialog.${mode}Button`),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) => Object.fromEntries(new FormData(button.form).entries()),
    },
  });
  if (!data) return;
  let action;
  try {
    action = actionFromDialog(actor.uuid, { ...data, mode });
  } catch (error) {
    env.ui.notifications.error(/** @type {Error} */ (error).message);
    return;
  }
  await sendFor(action, [], options);
}

/**
 * The user who created a chat message, as Foundry says (v12+ `ChatMessage#author`, a User; its
 * source holds the id) — https://foundryvtt.com/api/classes/foundry.documents.ChatMessage.html.
 * @param {any} message
 * @param {any} env
 */
export function messageAuthor(message, env) {
  const author = message?.author;
  if (author && typeof author === "object") return author;
  const id = typeof author === "string" ? author : message?._source?.author;
  return typeof id === "string" ? env.game?.users?.get?.(id) ?? null : null;
}

/**
 * A roll card's "Apply as damage" row worded in this client's language: the message's content holds
 * the poster's words, the amount and the grades come from the buttons' own actions. Text only: the
 * elements (and any listener already on them) stay.
 * @param {HTMLElement|null|undefined} html
 * @param {DamageToolsOptions["localize"]} localize
 */
export function relabelApplyRow(html, localize) {
  for (const row of html?.querySelectorAll?.(`.${MODULE_ID}-apply-damage`) ?? []) {
    /** @type {number|null} */
    let amount = null;
    for (const button of row.querySelectorAll(`[data-${MODULE_ID}-action]`)) {
      const instance = /** @type {any} */ (actionFromButton(/** @type {HTMLElement} */ (button)))?.instances?.[0];
      if (!instance || typeof instance.grade !== "string" || typeof instance.amount !== "number") continue;
      amount = instance.amount;
      button.textContent = localize(`VTTBRIDGE.Grade.${instance.grade}`);
    }
    const label = row.querySelector(`.${MODULE_ID}-apply-label`);
    if (label && amount !== null) label.textContent = localize("VTTBRIDGE.Preview.ApplyAsDamage", { amount: String(amount) });
  }
}

/**
 * Bind the action buttons of a rendered chat card (`data-vtt-bridge-action`): only on a card a Game
 * Master created with the module's card flag, and only the kinds that card type carries
 * (`buttonRefusal`); any other button says why and sends nothing. A damage goes to the targets (or
 * the card's own target), any other action (a reveal's Accept, a heal) is sent as it is.
 * @param {HTMLElement|null|undefined} html
 * @param {DamageToolsOptions} options
 * @param {any} [message] the ChatMessage rendered
 */
export function bindChatButtons(html, options, message) {
  const env = options.env ?? globalThis;
  if (message?.getFlag?.(MODULE_ID, CARD_FLAG) === "roll") relabelApplyRow(html, options.localize);
  for (const button of html?.querySelectorAll?.(`[data-${MODULE_ID}-action]`) ?? []) {
    button.addEventListener("click", async () => {
      const action = actionFromButton(button);
      if (!action) return;
      const refusal = buttonRefusal({
        authorIsGM: !!messageAuthor(message, env)?.isGM,
        cardType: message?.getFlag?.(MODULE_ID, CARD_FLAG),
        kind: action.kind,
      });
      if (refusal) {
        env.ui.notifications.warn(options.localize(refusal === "foreign" ? "VTTBRIDGE.Notice.ForeignButton" : "VTTBRIDGE.Notice.KindNotOnCard"));
        return;
      }
      if (message?.getFlag?.(MODULE_ID, CARD_FLAG) === "roll") {
        // a roll card's "Apply as damage": its successes in the damage dialog, with the preview
        const [instance] = /** @type {any[]} */ (action.instances ?? []);
        const source = button.getAttribute?.(`data-${MODULE_ID}-source`) || null;
        await damageDialog({ targets: damageTargets(env, null), values: { amount: String(instance?.amount ?? 1), grade: String(instance?.grade ?? "L") }, fallback: "", source }, options);
        return;
      }
      const fallback = typeof action.target === "string" ? { actor: action.target } : null;
      await sendFor(action, action.kind === "damage" ? damageTargets(env, fallback) : [], options);
    });
  }
}

/**
 * Listen to the chat log's render hook of this version (v13 warns about any renderChatMessage
 * listener): call in `init`, once `game.release` is known.
 * @param {DamageToolsOptions} options
 * @returns {{openDamageDialog: (actor: {uuid: string, name: string}, mode?: "damage"|"heal") => Promise<void>}}
 */
export function installDamageTools(options) {
  const env = options.env ?? globalThis;
  const generation = env.game?.release?.generation;
  // v13+: the HTMLElement itself; v12: jQuery, whose [0] is the element
  env.Hooks.on(chatRenderHook(generation), (/** @type {any} */ message, /** @type {any} */ html) => bindChatButtons(generation >= 13 ? html : html?.[0], options, message));
  return { openDamageDialog: (actor, mode = "damage") => openDamageDialog(actor, mode, options) };
}
