/**
 * Thin wiring of the `roll` action (roll-command.mjs holds every decision): the roll dialog opened
 * from the actor sheet header and the token HUD, and the chat command `/vroll`. The result comes
 * back as a ruling whose chat card (foundry/ruling-messages.mjs) carries the engine's dice as Foundry rolls, so
 * Dice So Nice animates them.
 *
 * Foundry API used (public pages, v12-v14): `foundry.applications.api.DialogV2.prompt` (resolves the
 * ok callback's value; `rejectClose: false` resolves null when closed), the `chatMessage` hook
 * (`(chatLog, message, chatData)`, fired by `ChatLog#processMessage`; a listener returning `false`
 * stops the message from being created), the `renderTokenHUD` hook (`(hud, html)`; v13 passes an
 * HTMLElement, v12 jQuery), `ChatMessage.getSpeakerActor(speaker)`, `game.user.targets`,
 * `canvas.tokens.controlled` and `game.user.character`.
 * @module roll-dialog
 */

import { escapeHtml } from "../core/chat-cards.mjs";
import { namespacedClass } from "./compat.mjs";
import { MODULE_ID } from "../core/constants.mjs";
import { actorState } from "../core/messages.mjs";
import { AGAIN_CHOICES, parseRollCommand, requestFromDialog, RollInputError, rollAction, traitOptions } from "../core/roll-command.mjs";

/**
 * @typedef {object} RollDeps what the wiring needs from main.mjs
 * @property {(action: Record<string, unknown>) => unknown} sendAction
 * @property {(key: string, data?: Record<string, string>) => string} t localize (with data: format)
 * @property {(message: string) => void} notifyError
 */

/** @returns {any} */
const env = () => globalThis;

/**
 * The actor of the user's one targeted token (for RANK-11 and opposed rolls), if exactly one.
 * @returns {string|null}
 */
function targetedActor() {
  const targets = [...(env().game?.user?.targets ?? [])];
  return targets.length === 1 ? (targets[0]?.actor?.uuid ?? null) : null;
}

/**
 * A refused roll as a short localized notification and a technical console line.
 * @param {unknown} error
 * @param {RollDeps} deps
 */
function refuse(error, deps) {
  if (error instanceof RollInputError) {
    deps.notifyError(deps.t(`VTTBRIDGE.Roll.Error.${error.code}`, error.data));
  } else {
    deps.notifyError(deps.t("VTTBRIDGE.Notice.Error", { message: String(/** @type {Error} */ (error)?.message ?? error) }));
  }
  console.warn(`${MODULE_ID} | roll refused`, error);
}

/**
 * A trait's name in the reader's language (`VTTBRIDGE.Attribute.*`, `VTTBRIDGE.Skill.*`), else as
 * the sheet names it.
 * @param {import("../core/roll-command.mjs").TraitOption} option
 * @param {RollDeps["t"]} t
 */
function traitLabel(option, t) {
  const key = `VTTBRIDGE.${option.group === "attribute" ? "Attribute" : "Skill"}.${option.trait}`;
  const label = t(key);
  return label === key ? option.trait : label;
}

/**
 * The dialog's form: two trait selects (an Attribute, a Skill) or a number of dice, again,
 * Willpower, modifiers in the command's words, extra successes.
 * @param {import("../core/roll-command.mjs").TraitOption[]} options
 * @param {RollDeps["t"]} t
 * @returns {string}
 */
export function rollDialogContent(options, t) {
  const select = (/** @type {"attribute"|"skill"} */ group) =>
    `<option value="">—</option>` +
    options
      .filter((o) => o.group === group)
      .map((o) => `<option value="${escapeHtml(o.trait)}">${escapeHtml(traitLabel(o, t))} (${o.value})</option>`)
      .join("");
  const again = AGAIN_CHOICES.map((a) => `<option value="${a ?? "none"}">${t(`VTTBRIDGE.Roll.Again.${a ?? "none"}`)}</option>`).join("");
  return (
    `<label>${t("VTTBRIDGE.Roll.Dialog.Attribute")} <select name="attribute">${select("attribute")}</select></label>` +
    `<label>${t("VTTBRIDGE.Roll.Dialog.Skill")} <select name="skill">${select("skill")}</select></label>` +
    `<label>${t("VTTBRIDGE.Roll.Dialog.Dice")} <input type="number" name="dice" value="0" min="0" step="1"></label>` +
    `<label>${t("VTTBRIDGE.Roll.Dialog.Again")} <select name="again">${again}</select></label>` +
    `<label><input type="checkbox" name="willpower"> ${t("VTTBRIDGE.Roll.Dialog.Willpower")}</label>` +
    `<label>${t("VTTBRIDGE.Roll.Dialog.Modifiers")} <input type="text" name="modifiers" placeholder="+2equipment +1aid!"></label>` +
    `<label>${t("VTTBRIDGE.Roll.Dialog.Extra")} <input type="number" name="extra" value="0" min="0" step="1"></label>`
  );
}

/**
 * Open the roll dialog for an actor and send its roll.
 * @param {any} actor a Foundry actor
 * @param {RollDeps} deps
 */
export async function openRollDialog(actor, deps) {
  const DialogV2 = namespacedClass(env(), "foundry.applications.api.DialogV2");
  const options = traitOptions(actorState(actor));
  const data = await DialogV2.prompt({
    rejectClose: false,
    window: { title: deps.t("VTTBRIDGE.Roll.Dialog.Title", { name: String(actor.name ?? "") }) },
    content: rollDialogContent(options, deps.t),
    ok: {
      label: deps.t("VTTBRIDGE.Roll.Dialog.Button"),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) =>
        Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (button.form)).entries()),
    },
  });
  if (!data) return null;
  try {
    const action = rollAction(actor.uuid, requestFromDialog(options, data), { options, opponent: targetedActor() });
    await deps.sendAction(action);
    return action;
  } catch (error) {
    refuse(error, deps);
    return null;
  }
}

/**
 * The actor a chat command rolls for: the message's speaker, else the one controlled token's,
 * else the user's character.
 * @param {any} chatData
 * @returns {any}
 */
function speakerActor(chatData) {
  const fromSpeaker = chatData?.speaker ? env().ChatMessage?.getSpeakerActor?.(chatData.speaker) : null;
  if (fromSpeaker) return fromSpeaker;
  const controlled = env().canvas?.tokens?.controlled ?? [];
  if (controlled.length === 1 && controlled[0]?.actor) return controlled[0].actor;
  return env().game?.user?.character ?? null;
}

/**
 * The `chatMessage` listener: `/vroll ...` is taken over (false: Foundry creates no message of
 * it) and sent as a `roll` action; any other message passes (undefined).
 * @param {RollDeps} deps
 * @returns {(chatLog: unknown, message: string, chatData: any) => false|undefined}
 */
export function chatMessageListener(deps) {
  return (_chatLog, message, chatData) => {
    let request;
    try {
      request = parseRollCommand(message);
    } catch (error) {
      refuse(error, deps);
      return false;
    }
    if (!request) return undefined;
    const actor = speakerActor(chatData);
    if (!actor?.uuid) {
      refuse(new RollInputError("NoActor"), deps);
      return false;
    }
    try {
      deps.sendAction(rollAction(actor.uuid, request, { options: traitOptions(actorState(actor)), opponent: targetedActor() }));
    } catch (error) {
      refuse(error, deps);
    }
    return false;
  };
}

/**
 * Install the chat command and the token HUD button (call once in `init`).
 * @param {{hooks: {on(hook: string, fn: (...args: any[]) => unknown): number|void}} & RollDeps} options
 */
export function installRoll({ hooks, ...deps }) {
  hooks.on("chatMessage", chatMessageListener(deps));
  hooks.on("renderTokenHUD", (/** @type {any} */ hud, /** @type {any} */ html) => {
    const root = html instanceof HTMLElement ? html : html?.[0];
    const actor = hud?.object?.actor ?? hud?.actor;
    if (!root || !actor?.isOwner) return;
    const column = root.querySelector(".col.left") ?? root;
    const button = document.createElement("button");
    button.type = "button";
    button.className = `control-icon ${MODULE_ID}-roll`;
    const label = deps.t("VTTBRIDGE.Roll.Dialog.Open");
    button.dataset.tooltip = label;
    button.setAttribute("aria-label", label);
    button.innerHTML = '<i class="fa-solid fa-dice-d10"></i>';
    button.addEventListener("click", (event) => {
      event.preventDefault();
      openRollDialog(actor, deps);
    });
    column.append(button);
  });
}
