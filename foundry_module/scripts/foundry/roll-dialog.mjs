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
import { targetLabel } from "../core/attack.mjs";
import {
  AGAIN_CHOICES,
  opposedFromDialog,
  parseRollCommand,
  poolTotal,
  requestFromDialog,
  ROLL_COMMAND,
  RollInputError,
  rollAction,
  traitOptions,
  vocabularyOf,
} from "../core/roll-command.mjs";
import { isIdentityHidden } from "./visibility-canvas.mjs";

/**
 * @typedef {object} RollDeps what the wiring needs from main.mjs
 * @property {(action: Record<string, unknown>) => unknown} sendAction
 * @property {(key: string, data?: Record<string, string>) => string} t localize (with data: format)
 * @property {(message: string) => void} notifyError
 * @property {(actor: any) => Record<string, any>} [stateOf] an actor's state with its game system's
 *   fields (main.mjs; default: the module's flags alone)
 * @property {(actor: any) => string|null} [systemOf] the id of the adapter that reads the actor
 *   (`mta`: Chronicles of Darkness names its Attributes its own way)
 * @property {any} [env] usually `globalThis`
 */

/** @param {RollDeps} [deps] @returns {any} */
const env = (deps) => deps?.env ?? globalThis;

/** @param {any} actor @param {RollDeps} deps */
const stateOfActor = (actor, deps) => (deps.stateOf ?? actorState)(actor);

/**
 * The actor of the user's one targeted token (for RANK-11 and opposed rolls), if exactly one.
 * @param {RollDeps} [deps]
 * @returns {string|null}
 */
function targetedActor(deps) {
  const targets = [...(env(deps).game?.user?.targets ?? [])];
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
 * A trait's name in the reader's language: under the Chronicles of Darkness adapter (`mta`) the
 * system's own (PER is read from Wits, and named so: `VTTBRIDGE.Roll.Cofd.PER`), else
 * `VTTBRIDGE.Attribute.*`; a Skill `VTTBRIDGE.Skill.*`; else as the sheet names it.
 * @param {import("../core/roll-command.mjs").TraitOption} option
 * @param {RollDeps["t"]} t
 * @param {string|null} [system] the adapter's id
 */
export function traitLabel(option, t, system = null) {
  const keys = option.group === "attribute"
    ? [...(system === "mta" ? [`VTTBRIDGE.Roll.Cofd.${option.trait}`] : []), `VTTBRIDGE.Attribute.${option.trait}`]
    : [`VTTBRIDGE.Skill.${option.trait}`];
  for (const key of keys) {
    const label = t(key);
    if (label !== key) return label;
  }
  return option.trait;
}

/**
 * The `<option>`s of a trait select: none, then each trait of the group by name (its dots shown
 * only when `dots`: the roller's own, never an opponent's the user does not own).
 * @param {import("../core/roll-command.mjs").TraitOption[]} options
 * @param {"attribute"|"skill"} group
 * @param {{t: RollDeps["t"], system: string|null, dots: boolean, selected?: string}} how
 */
function traitChoices(options, group, { t, system, dots, selected = "" }) {
  const labelled = options.filter((o) => o.group === group).map((o) => ({ o, label: traitLabel(o, t, system) }));
  if (group === "skill") labelled.sort((a, b) => a.label.localeCompare(b.label));
  return (
    `<option value="">—</option>` +
    labelled
      .map(({ o, label }) => `<option value="${escapeHtml(o.trait)}"${o.trait === selected ? " selected" : ""}>${escapeHtml(label)}${dots ? ` (${o.value})` : ""}</option>`)
      .join("")
  );
}

/**
 * @typedef {object} OpponentChoice a token the roll may be opposed by
 * @property {string} actor its actor's uuid
 * @property {string} label its name as this user may know it ("Someone" while hidden)
 * @property {import("../core/roll-command.mjs").TraitOption[]} options its traits (its sheet's)
 * @property {boolean} dots whether this user may see its dots (owner or GM)
 * @property {string|null} system its adapter's id
 */

/**
 * The tokens a roll may be opposed by: every token on this user's canvas with an actor other than
 * the roller's, not hidden from this user (a silhouette is "Someone").
 * @param {any} actor the roller
 * @param {RollDeps} deps
 * @returns {OpponentChoice[]}
 */
export function opponentChoices(actor, deps) {
  const e = env(deps);
  const isGM = !!e.game?.user?.isGM;
  const someone = deps.t("VTTBRIDGE.Visibility.Speaker.Someone");
  /** @type {Map<string, OpponentChoice>} */
  const out = new Map();
  for (const token of e.canvas?.tokens?.placeables ?? []) {
    const other = token?.actor;
    if (!other?.uuid || other.uuid === actor.uuid || out.has(other.uuid)) continue;
    if (!isGM && token.visible === false) continue;
    const name = String(token.document?.name ?? token.name ?? other.name ?? "");
    out.set(other.uuid, {
      actor: other.uuid,
      label: targetLabel({ name, identityHidden: isIdentityHidden(token), isGM, someone }),
      options: traitOptions(stateOfActor(other, deps)),
      dots: isGM || !!other.isOwner,
      system: deps.systemOf?.(other) ?? null,
    });
  }
  return [...out.values()];
}

/**
 * The dialog's form: the roller's Attribute and Skill (or a number of dice), dice added or taken,
 * modifiers in the command's words, n-again, Willpower, extra successes, the pool's total as it is
 * built, and the opponent of an opposed roll with its pool (its own traits).
 * @param {{options: import("../core/roll-command.mjs").TraitOption[], system: string|null, opponents: OpponentChoice[], opponent: string|null}} what
 * @param {RollDeps["t"]} t
 * @returns {string}
 */
export function rollDialogContent({ options, system, opponents, opponent }, t) {
  const field = `data-${MODULE_ID}-field`;
  const again = AGAIN_CHOICES.map((a) => `<option value="${a ?? "none"}">${escapeHtml(t(`VTTBRIDGE.Roll.Again.${a ?? "none"}`))}</option>`).join("");
  const chosen = opponents.find((o) => o.actor === opponent) ?? null;
  const opponentOptions = [`<option value="">—</option>`, ...opponents.map((o) => `<option value="${escapeHtml(o.actor)}"${o.actor === opponent ? " selected" : ""}>${escapeHtml(o.label)}</option>`)].join("");
  const label = (/** @type {string} */ key, /** @type {string} */ control) => `<label>${escapeHtml(t(key))} ${control}</label>`;
  return (
    `<div class="${MODULE_ID}-roll-form">` +
    label("VTTBRIDGE.Roll.Dialog.Attribute", `<select name="attribute" ${field}>${traitChoices(options, "attribute", { t, system, dots: true })}</select>`) +
    label("VTTBRIDGE.Roll.Dialog.Skill", `<select name="skill" ${field}>${traitChoices(options, "skill", { t, system, dots: true })}</select>`) +
    label("VTTBRIDGE.Roll.Dialog.Dice", `<input type="number" name="dice" ${field} value="0" min="0" step="1">`) +
    label("VTTBRIDGE.Roll.Dialog.Modifier", `<input type="number" name="modifier" ${field} value="0" step="1">`) +
    label("VTTBRIDGE.Roll.Dialog.Modifiers", `<input type="text" name="modifiers" ${field} placeholder="+2equipment +1aid!">`) +
    label("VTTBRIDGE.Roll.Dialog.Again", `<select name="again" ${field}>${again}</select>`) +
    `<label><input type="checkbox" name="willpower" ${field}> ${escapeHtml(t("VTTBRIDGE.Roll.Dialog.Willpower"))}</label>` +
    label("VTTBRIDGE.Roll.Dialog.Extra", `<input type="number" name="extra" ${field} value="0" min="0" step="1">`) +
    `<fieldset class="${MODULE_ID}-roll-opposed"><legend>${escapeHtml(t("VTTBRIDGE.Roll.Dialog.Opposed"))}</legend>` +
    label("VTTBRIDGE.Roll.Dialog.Opponent", `<select name="opponent" ${field}>${opponentOptions}</select>`) +
    `<span class="${MODULE_ID}-roll-opponent-pool">${opponentPool(chosen, t)}</span>` +
    `</fieldset>` +
    `<p class="${MODULE_ID}-roll-total">${poolLine(poolTotal(options, {}), t)}</p>` +
    `</div>`
  );
}

/**
 * The opponent's pool fields (its Attribute and Skill, or a number of dice), for the chosen opponent.
 * @param {OpponentChoice|null} opponent
 * @param {RollDeps["t"]} t
 */
function opponentPool(opponent, t) {
  if (!opponent) return "";
  const field = `data-${MODULE_ID}-field`;
  const how = { t, system: opponent.system, dots: opponent.dots };
  return (
    `<label>${escapeHtml(t("VTTBRIDGE.Roll.Dialog.Attribute"))} <select name="opposedAttribute" ${field}>${traitChoices(opponent.options, "attribute", how)}</select></label>` +
    `<label>${escapeHtml(t("VTTBRIDGE.Roll.Dialog.Skill"))} <select name="opposedSkill" ${field}>${traitChoices(opponent.options, "skill", how)}</select></label>` +
    `<label>${escapeHtml(t("VTTBRIDGE.Roll.Dialog.Dice"))} <input type="number" name="opposedDice" ${field} value="0" min="0" step="1"></label>`
  );
}

/**
 * The pool's total as the roller builds it ("Pool: 5 + 2 + 3 (Willpower) = 10 dice"), or why the
 * fields make no pool.
 * @param {ReturnType<typeof poolTotal>} total
 * @param {RollDeps["t"]} t
 */
export function poolLine(total, t) {
  if ("error" in total) return escapeHtml(t(`VTTBRIDGE.Roll.Error.${total.error}`, total.data));
  const parts = [String(total.base)];
  if (total.modifiers) parts.push(`${total.modifiers > 0 ? "+" : "−"} ${Math.abs(total.modifiers)}`);
  if (total.willpower) parts.push(`+ ${total.willpower} ${t("VTTBRIDGE.Roll.Dialog.WillpowerShort")}`);
  return escapeHtml(t("VTTBRIDGE.Roll.Dialog.Total", { parts: parts.join(" "), total: String(total.total) }));
}

/** The values of the dialog's fields (a checkbox "on" when checked). @param {any} root */
function fieldValues(root) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const field of root?.querySelectorAll?.(`[data-${MODULE_ID}-field]`) ?? []) {
    const name = String(field.getAttribute("name"));
    if (field.type === "checkbox" || field.getAttribute("type") === "checkbox") {
      if (field.checked) out[name] = "on";
    } else out[name] = String(field.value ?? "");
  }
  return out;
}

/**
 * Open the roll dialog for an actor and send its roll: one `roll` action (opposed: the opponent's
 * pool in it, DICE-5, the sidecar rolls both), whose one card carries the dice.
 * @param {any} actor a Foundry actor
 * @param {RollDeps} deps
 */
export async function openRollDialog(actor, deps) {
  const e = env(deps);
  const DialogV2 = namespacedClass(e, "foundry.applications.api.DialogV2");
  const FormData = e.FormData;
  const options = traitOptions(stateOfActor(actor, deps));
  const system = deps.systemOf?.(actor) ?? null;
  const opponents = opponentChoices(actor, deps);
  const targeted = targetedActor(deps);
  const opponent = opponents.some((o) => o.actor === targeted) ? targeted : null;
  const data = await DialogV2.prompt({
    rejectClose: false,
    window: { title: deps.t("VTTBRIDGE.Roll.Dialog.Title", { name: String(actor.name ?? "") }) },
    position: { width: 460 },
    content: rollDialogContent({ options, system, opponents, opponent }, deps.t),
    // the total follows the fields; another opponent brings its own traits
    render: (/** @type {Event} */ _event, /** @type {any} */ dialog) => {
      const root = dialog?.element;
      let shownOpponent = opponent ?? "";
      root?.addEventListener?.("change", () => {
        const values = fieldValues(root);
        if ((values.opponent ?? "") !== shownOpponent) {
          shownOpponent = values.opponent ?? "";
          const box = root.querySelector(`.${MODULE_ID}-roll-opponent-pool`);
          box?.replaceChildren();
          box?.insertAdjacentHTML("beforeend", opponentPool(opponents.find((o) => o.actor === shownOpponent) ?? null, deps.t));
        }
        const line = root.querySelector(`.${MODULE_ID}-roll-total`);
        line?.replaceChildren();
        line?.insertAdjacentHTML("beforeend", poolLine(poolTotal(options, values), deps.t));
      });
    },
    ok: {
      label: deps.t("VTTBRIDGE.Roll.Dialog.Button"),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) =>
        Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (button.form)).entries()),
    },
  });
  if (!data) return null;
  try {
    const against = typeof data.opponent === "string" && data.opponent ? opponents.find((o) => o.actor === data.opponent) : null;
    if (data.opponent && !against) throw new RollInputError("Unknown", { trait: String(data.opponent) });
    const opposed = against ? opposedFromDialog(against.options, data) : null;
    const action = rollAction(actor.uuid, requestFromDialog(options, data), { options, opponent: against?.actor ?? targeted, opposed });
    await deps.sendAction(action);
    return action;
  } catch (error) {
    refuse(error, deps);
    return null;
  }
}

/**
 * The command's words in the reader's language (`VTTBRIDGE.Roll.Words`) and the actor's traits by
 * their names in it (English's are always taken too).
 * @param {import("../core/roll-command.mjs").TraitOption[]} options
 * @param {string|null} system
 * @param {RollDeps["t"]} t
 */
export function commandVocabulary(options, system, t) {
  /** @type {Record<string, string>} */
  const words = {};
  for (const word of ["again", "none", "willpower", "extra"]) {
    const key = `VTTBRIDGE.Roll.Words.${word}`;
    const said = t(key);
    if (said !== key) words[word] = said;
  }
  return vocabularyOf(options, (option) => traitLabel(option, t, system), words);
}

/**
 * The actor a chat command rolls for: the message's speaker, else the one controlled token's,
 * else the user's character.
 * @param {any} chatData
 * @param {RollDeps} [deps]
 * @returns {any}
 */
function speakerActor(chatData, deps) {
  const e = env(deps);
  const fromSpeaker = chatData?.speaker ? e.ChatMessage?.getSpeakerActor?.(chatData.speaker) : null;
  if (fromSpeaker) return fromSpeaker;
  const controlled = e.canvas?.tokens?.controlled ?? [];
  if (controlled.length === 1 && controlled[0]?.actor) return controlled[0].actor;
  return e.game?.user?.character ?? null;
}

/**
 * The `chatMessage` listener: `/vroll ...` is taken over (false: Foundry creates no message of
 * it) and sent as a `roll` action; any other message passes (undefined).
 * @param {RollDeps} deps
 * @returns {(chatLog: unknown, message: string, chatData: any) => false|undefined}
 */
export function chatMessageListener(deps) {
  return (_chatLog, message, chatData) => {
    if (String(message ?? "").trim().split(/\s+/)[0]?.toLowerCase() !== ROLL_COMMAND) return undefined;
    const actor = speakerActor(chatData, deps);
    // the pool in the reader's language: the speaker's traits by their names in it
    const options = actor?.uuid ? traitOptions(stateOfActor(actor, deps)) : [];
    let request;
    try {
      request = parseRollCommand(message, commandVocabulary(options, actor ? (deps.systemOf?.(actor) ?? null) : null, deps.t));
    } catch (error) {
      refuse(error, deps);
      return false;
    }
    if (!request) return undefined;
    if (!actor?.uuid) {
      refuse(new RollInputError("NoActor"), deps);
      return false;
    }
    try {
      deps.sendAction(rollAction(actor.uuid, request, { options, opponent: targetedActor(deps) }));
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
