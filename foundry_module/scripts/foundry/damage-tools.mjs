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
import { chatRenderHook, namespacedClass } from "./compat.mjs";

/**
 * @typedef {object} DamageToolsOptions
 * @property {any} [env] usually `globalThis`
 * @property {(action: Record<string, unknown>) => unknown} sendAction sends an action (relayed for a player)
 * @property {(key: string, data?: Record<string, string>) => string} localize
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
 * The damage or heal dialog of an actor (its sheet's header buttons); a damage goes to the targets.
 * @param {{uuid: string, name: string}} actor
 * @param {"damage"|"heal"} mode
 * @param {DamageToolsOptions} options
 */
export async function openDamageDialog(actor, mode, options) {
  const { env = globalThis, localize: t } = options;
  const DialogV2 = namespacedClass(env, "foundry.applications.api.DialogV2");
  const grades = DIALOG_CHOICES.grades.map((g) => `<option value="${g}">${t(`VTTBRIDGE.Grade.${g}`)}</option>`).join("");
  const sources = DIALOG_CHOICES.healSources.map((s) => `<option value="${s}">${t(`VTTBRIDGE.HealSource.${s}`)}</option>`).join("");
  const content =
    `<label>${t("VTTBRIDGE.Dialog.Amount")} <input type="number" name="amount" value="1" min="0" step="1"></label>` +
    `<label>${t("VTTBRIDGE.Dialog.Grade")} <select name="grade">${mode === "heal" ? '<option value="any">—</option>' : ""}${grades}</select></label>` +
    (mode === "heal"
      ? `<label>${t("VTTBRIDGE.Dialog.Source")} <select name="source">${sources}</select></label>`
      : `<label>${t("VTTBRIDGE.Dialog.Type")} <input type="text" name="type" placeholder="untyped"></label>`);
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
  // damage: to the targeted tokens (a player's attack) or the selected ones (a GM), one each
  await sendFor(action, mode === "damage" ? damageTargets(env, { actor: actor.uuid }) : [], options);
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
