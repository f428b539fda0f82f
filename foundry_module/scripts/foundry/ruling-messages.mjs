/**
 * Thin wiring of the ruling cards (chat-cards.mjs), the engine's dice as Foundry rolls (rolls.mjs),
 * the GM's "why can't X see Y?" and "pin how they locate it" (pins.mjs) buttons on the token HUD,
 * and the status effects core lacks
 * (status-effects.mjs). Every decision is in those pure modules; this file reads Foundry's globals.
 * Call `installChatCards({...})` once in `init`.
 * @module ruling-messages
 */

import {
  cardAudience,
  cardButton,
  escapeHtml,
  hasMoreSteps,
  heldRange,
  lastStandingRuling,
  MAX_CARD_ROLLS,
  namedIds,
  readRuling,
  renderCard,
  renderHealthLine,
  renderRoll,
  renderStepList,
  RULING_FLAG,
  RULING_PAGE,
  rulingFlag,
  rulingPage,
  shouldPostCard,
  summaryOf,
  undoAction,
  undoneBy,
} from "../core/chat-cards.mjs";
import { chatRenderHook, namespacedClass } from "./compat.mjs";
import { MODULE_ID } from "../core/constants.mjs";
import { CARD_FLAG } from "../core/damage.mjs";
import { applyAsDamageHtml, rollSuccesses } from "../core/damage-preview.mjs";
import { rollToFoundryData } from "../core/rolls.mjs";
import { addStatusEffects, missingStatusEffects } from "./status-effects.mjs";
import { parseLocateState, visibilityFlagOf } from "../core/visibility.mjs";
import { heldReveals, PIN_ENDS, pinAction, releaseAction, revealCardHtml } from "../core/pins.mjs";
import { batchKind, renderBatchSummary } from "../core/batch-card.mjs";
import { attackOutcomes, publicRoll, renderPublicAttackCard, renderPublicRollCard } from "../core/attack-card.mjs";
import { LOCATE_STATES } from "../core/constants.mjs";
import { healthAudience } from "../core/health-track.mjs";

/**
 * @typedef {object} ChatCardsOptions
 * @property {{on(hook: string, fn: (...args: any[]) => unknown): unknown, once?: (hook: string, fn: (...args: any[]) => unknown) => unknown}} hooks usually `Hooks`
 * @property {(key: string) => unknown} getSetting reads a setting of this module
 * @property {any} [config] usually `CONFIG` (for `statusEffects`)
 * @property {(action: Record<string, any>) => Promise<unknown>} [relay] a co-GM without the bridge:
 *   sends an undo / redo through the bridge's relay (player-requests.mjs, checked there as a GM)
 */

/** @returns {any} */
const env = () => globalThis;

/** The hook `(pair: {observer, target})` that opens the pin dialog of one pair (the overlay's right click). */
export const PIN_PAIR_HOOK = `${MODULE_ID}.pinPair`;

/** @returns {import("../core/chat-cards.mjs").I18n} */
function i18n() {
  const source = /** @type {any} */ (game.i18n);
  return {
    localize: (key) => source.localize(key),
    format: (key, data) => source.format(key, data),
    has: (key) => (typeof source.has === "function" ? source.has(key) : source.localize(key) !== key),
    lang: typeof source.lang === "string" ? source.lang : "en",
  };
}

/** @returns {any} the viewed scene */
const scene = () => env().canvas?.scene ?? game.scenes?.viewed ?? null;

/** @param {string} id a token id or an actor uuid @returns {any[]} token documents */
function tokensFor(id) {
  const tokens = [...(scene()?.tokens ?? [])];
  const byId = tokens.find((t) => t.id === id);
  return byId ? [byId] : tokens.filter((t) => t.actor?.uuid === id);
}

/** @param {string} id @returns {string|undefined} */
function nameOf(id) {
  const token = tokensFor(id)[0];
  if (token?.name) return token.name;
  try {
    return env().fromUuidSync?.(id)?.name ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether players may not locate a token (or any token of an actor): hidden, or some observer does
 * not pinpoint it.
 * @param {string} id
 */
function isSecret(id) {
  return tokensFor(id).some((token) => {
    if (token.hidden) return true;
    const seen = visibilityFlagOf(token);
    if (seen === undefined || seen === null) return false;
    if (typeof seen !== "object") return true; // unreadable: the safe side
    return Object.values(seen).some((state) => parseLocateState(state).state !== "pinpointed");
  });
}

/** @returns {string[]} */
const gmIds = () => [...(/** @type {any} */ (game).users ?? [])].filter((u) => u.isGM).map((u) => u.id);

/**
 * The engine's rolls as Foundry Rolls (at most `MAX_CARD_ROLLS`; a malformed one is left out).
 * @param {any[]} rolls
 * @returns {any[]}
 */
function foundryRolls(rolls) {
  const Roll = namespacedClass(env(), "foundry.dice.Roll", "Roll");
  /** @type {any[]} */
  const out = [];
  for (const roll of rolls.slice(0, MAX_CARD_ROLLS)) {
    try {
      out.push(Roll.fromData(rollToFoundryData(roll)));
    } catch (error) {
      console.warn(`${MODULE_ID} | a roll of the sidecar was not shown`, error);
    }
  }
  return out;
}

/**
 * Post one card.
 * @param {{log: any[], rolls?: any[], kind?: string, subject?: string, named?: string[], forceGm?: boolean, ruling?: import("../core/chat-cards.mjs").RulingFlag|null, summary?: import("../core/chat-cards.mjs").Summary|null, throws?: boolean}} card
 *   `throws`: the card carries the rolls as Foundry rolls (false: the players' card of the same roll does, so Dice So Nice throws once)
 * @param {string} mode the "ruling cards" setting
 * @param {unknown} [healthSetting] the "who sees Health boxes" setting
 */
async function postCard({ log, rolls = [], kind, subject, named = [], forceGm = false, ruling = null, summary = null, throws = true }, mode, healthSetting = "owner") {
  const audience = forceGm ? "gm" : cardAudience({ log, mode, named: namedIds(log, named), isSecret, summary });
  if (audience === "none") return;
  const loc = i18n();
  // a batch (damage to several targets): each target's own totals and what changed them, first
  const batch = renderBatchSummary(log, loc, nameOf);
  const card = renderCard({ log, rolls, kind: kind === "batch" ? batchKind(log) : kind, subject, names: nameOf, summary }, loc);
  // a roll's card: "Apply as damage" with its successes (a card type of its own: damage-tools.mjs)
  const applyRow = kind === "roll" ? applyAsDamageHtml(rollSuccesses(log), loc, named[0] ?? null) : "";
  const content = (batch ? card.replace("</header>", `</header>${batch}`) : card) + applyRow;
  const rollObjects = foundryRolls(rolls);
  /** @type {Record<string, unknown>} */
  const data = { content, speaker: { alias: "vtt-bridge" } };
  if (rollObjects.length && throws) data.rolls = rollObjects;
  if (audience === "gm") data.whisper = gmIds();
  /** @type {Record<string, unknown>} */
  const flags = {};
  if (ruling) flags[RULING_FLAG] = ruling;
  if (applyRow) flags[CARD_FLAG] = "roll";
  if (Object.keys(flags).length) data.flags = { [MODULE_ID]: flags };
  // HEALTH-6, "who sees Health boxes": a public card about a token some user may not read the
  // Health of goes whole to those who may, and as a line without boxes, IWR and dice to everyone
  const namedOnes = audience === "public" ? namedIds(log, named) : [];
  const users = [...(/** @type {any} */ (game).users ?? [])].map((u) => ({ id: String(u.id), isGM: !!u.isGM, user: u }));
  const split = audience === "public" ? healthAudience({ named: namedOnes, users, setting: healthSetting, isOwner: (id, u) => isOwnerOf(id, /** @type {any} */ (u).user) }) : null;
  if (split?.split) {
    data.whisper = split.detailTo;
    await ChatMessage.create(data);
    const entries = namedOnes.map((id) => ({ name: nameOf(id) ?? id, status: split.words ? healthStatusOf(id) : null }));
    await ChatMessage.create({ content: renderHealthLine({ kind: kind === "batch" ? batchKind(log) : kind, entries }, loc), speaker: { alias: "vtt-bridge" } });
    return;
  }
  await ChatMessage.create(data);
}

/** @param {string} id a token id or an actor uuid @returns {any} its actor */
function actorOf(id) {
  const actor = tokensFor(id)[0]?.actor;
  if (actor) return actor;
  try {
    return env().fromUuidSync?.(id) ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether a user owns the actor of a token or actor uuid (Document#testUserPermission:
 * https://foundryvtt.com/api/classes/foundry.abstract.Document.html#testuserpermission).
 * @param {string} id @param {any} user
 */
function isOwnerOf(id, user) {
  return !!actorOf(id)?.testUserPermission?.(user, "OWNER");
}

/** @param {string} id @returns {string|null} the HEALTH-6 status the sidecar wrote on its actor */
function healthStatusOf(id) {
  const status = actorOf(id)?.flags?.[MODULE_ID]?.status;
  return typeof status === "string" ? status : null;
}

/**
 * The players' card of an attack ruling (DET-10, attack-card.mjs): each target named as the players
 * may know it ("Someone" for one they cannot pinpoint, and for whoever stood at a guessed square),
 * hit or missed and the successes; the GM's card (`postCard`) keeps the breakdown. Setting "gm": the
 * GMs and the attacker's owners only; "off": none.
 * A roll against an opponent they cannot pinpoint gets the same: the roller's own dice (never the
 * opponent's), its successes, won or failed, the opponent "Someone".
 * @param {any[]} log
 * @param {any[]} rolls the ruling's engine rolls
 * @param {Record<string, any>|undefined} action
 * @param {string} mode the "ruling cards" setting
 */
async function postPublicAttack(log, rolls, action, mode) {
  if (mode === "off") return;
  const outcomes = attackOutcomes(log, action);
  const roll = publicRoll(log, rolls, action);
  // a roll against an opponent the players can pinpoint already has its public card
  if (!outcomes.length && !(roll && isSecret(roll.opponent))) return;
  await postPlayersCard(log, roll, outcomes, action, mode);
}

/**
 * Whether a ruling gets a players' roll card (a roll against an opponent they cannot pinpoint):
 * that card then carries the roll's dice, and the GM's card none (one message throws them).
 * @param {any[]} log @param {any[]} rolls @param {Record<string, any>|undefined} action @param {string} mode
 */
function playersRollCard(log, rolls, action, mode) {
  if (mode === "off" || attackOutcomes(log, action).length) return false;
  const roll = publicRoll(log, rolls, action);
  return !!(roll && roll.rolls.length && isSecret(roll.opponent));
}

/**
 * @param {any[]} log @param {ReturnType<typeof publicRoll>} roll @param {ReturnType<typeof attackOutcomes>} outcomes
 * @param {Record<string, any>|undefined} action @param {string} mode
 */
async function postPlayersCard(log, roll, outcomes, action, mode) {
  const loc = i18n();
  const someone = loc.localize("VTTBRIDGE.Visibility.Speaker.Someone");
  const label = (/** @type {string} */ id) => (isSecret(id) ? someone : (nameOf(id) ?? someone));
  const first = action?.kind === "batch" ? action.actions?.[0] : action;
  const attackerId = roll ? roll.actor : String(first?.attack?.attacker ?? "");
  const content = roll
    ? renderPublicRollCard({ actor: label(roll.actor), target: label(roll.opponent), successes: roll.successes, wins: roll.wins }, loc)
    : renderPublicAttackCard({ attacker: label(attackerId), outcomes }, loc, label);
  /** @type {Record<string, unknown>} */
  const data = { content, speaker: { alias: "vtt-bridge" } };
  if (roll?.rolls.length) data.rolls = foundryRolls(roll.rolls);
  if (mode !== "public") {
    const actor = tokensFor(attackerId)[0]?.actor ?? (roll ? env().fromUuidSync?.(roll.actor) : null);
    const owners = [...(/** @type {any} */ (game).users ?? [])].filter((u) => !u.isGM && actor?.testUserPermission?.(u, "OWNER")).map((u) => u.id);
    data.whisper = [...gmIds(), ...owners];
  }
  await ChatMessage.create(data);
}

/**
 * The subject of an action: the actor or token it is about.
 * @param {Record<string, any>|undefined} action
 * @returns {string|undefined}
 */
function actionSubject(action) {
  for (const key of ["target", "actor", "token", "observer"]) if (typeof action?.[key] === "string") return action[key];
  return undefined;
}

/**
 * For each reveal a ruling holds (world setting "approve reveals"), a card whispered to the GMs with
 * Accept and Refuse buttons; players see nothing until the GM accepts.
 * @param {any[]} log
 */
export async function askReveals(log) {
  const loc = i18n();
  for (const reveal of heldReveals(log)) {
    const names = { observer: nameOf(reveal.observer) ?? reveal.observer, target: nameOf(reveal.target) ?? reveal.target };
    const content = revealCardHtml(
      reveal,
      { line: loc.format("VTTBRIDGE.Reveal.Line", names), accept: loc.localize("VTTBRIDGE.Reveal.Accept"), refuse: loc.localize("VTTBRIDGE.Reveal.Refuse") },
      MODULE_ID,
    );
    // the card flag: its buttons act (damage-tools.mjs `buttonRefusal`), for the reveal's kind only
    await ChatMessage.create({ content, speaker: { alias: "vtt-bridge" }, whisper: gmIds(), flags: { [MODULE_ID]: { [CARD_FLAG]: "reveal" } } });
  }
}

/**
 * Post a card for each ruling of a connection, this browser's or another client's (a pushed patch
 * names its action id and kind, so its card has an Undo too); the request a ruling answers (when
 * this browser sent it) names the card's kind and subject.
 * @param {any} connection a BridgeConnection
 * @param {(key: string) => unknown} getSetting
 */
function followConnection(connection, getSetting) {
  connection.on("log", async (/** @type {{rev: number, log: any[], rolls: any[], request?: {type: string, payload: Record<string, any>, id?: string}, action?: string, kind?: string, summary?: unknown}} */ event) => {
    if (!game.user.isGM) return;
    const undone = undoneBy(event.log);
    if (undone) await markCard(undone.action, undone.undone);
    const summary = summaryOf(event.summary);
    const action = event.request?.type === "action" ? event.request.payload : undefined;
    const kind = typeof action?.kind === "string" ? action.kind : event.kind;
    const actionId = typeof event.action === "string" ? event.action : event.request?.type === "action" ? event.request.id : undefined;
    const read = (/** @type {Record<string, unknown>} */ query) => connection.query(query);
    let { log, rolls = [] } = event;
    try {
      // what the message left out that this client acts on: the held reveals (they come last), and a
      // batch's log whole (its card sums each target's part)
      const held = actionId ? heldRange(log, summary) : null;
      if (held && actionId) await askReveals((await readRuling(read, actionId, held.from, held.to)).log);
      if (summary && kind === "batch" && actionId) ({ log, rolls } = await readRuling(read, actionId, 0, summary.steps));
    } catch (error) {
      console.error(`${MODULE_ID} | could not read a ruling's steps`, error);
    }
    await askReveals(log ?? []);
    if (!shouldPostCard(log)) return;
    const subjectId = actionSubject(action);
    try {
      await postCard(
        {
          log,
          rolls,
          kind,
          subject: subjectId ? nameOf(subjectId) : undefined,
          named: subjectId ? [subjectId] : [],
          ruling: rulingFlag(event, scene()?.id ?? null),
          summary,
          throws: !playersRollCard(log ?? [], rolls ?? [], action, String(getSetting("rulingCards") ?? "public")),
        },
        String(getSetting("rulingCards") ?? "public"),
        getSetting("healthVisibility"),
      );
      await postPublicAttack(log, rolls ?? [], action, String(getSetting("rulingCards") ?? "public"));
    } catch (error) {
      console.error(`${MODULE_ID} |`, error);
    }
  });
}

/** @param {any} message whether a Game Master created it (Foundry's author) */
const byGM = (message) => {
  const author = typeof message?.author === "object" ? message.author : game.users?.get?.(message?.author ?? message?._source?.author);
  return !!author?.isGM;
};

/** @param {any} message @returns {import("../core/chat-cards.mjs").RulingFlag|null} */
const flagOf = (message) => message?.getFlag?.(MODULE_ID, RULING_FLAG) ?? null;

/**
 * Mark the card of a ruling undone (struck through, with Redo) or standing again (with Undo).
 * @param {string} action the ruling's action id
 * @param {boolean} undone
 */
async function markCard(action, undone) {
  for (const message of /** @type {any} */ (game).messages ?? []) {
    const flag = flagOf(message);
    if (flag?.id === action && !!flag.undone !== undone) {
      await message.update({ [`flags.${MODULE_ID}.${RULING_FLAG}.undone`]: undone });
    }
  }
}

/**
 * Send an undo or redo; a refusal (a conflict, say) is shown to the GM.
 * @param {any} connection
 * @param {Record<string, any>} action
 * @param {((action: Record<string, any>) => Promise<unknown>)|null} [relay]
 */
async function sendUndo(connection, action, relay = null) {
  const loc = i18n();
  if (!connection || connection.status === "stopped") {
    // a co-GM without the bridge: relayed to the bridge, which checks that the sender is a GM
    if (relay) await relay(action);
    else ui.notifications.warn(loc.localize("VTTBRIDGE.Rules.Card.NoBridge"));
    return;
  }
  try {
    await connection.action(action);
  } catch (error) {
    ui.notifications.error(loc.format("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
  }
}

/**
 * A card's "all steps" button, where this browser runs the bridge and the ruling made more steps or
 * rolls than the card shows: each click reads the next page of them through the `ruling` query
 * (`RULING_PAGE`) and lists them under the card, until all are listed. Nothing is read before.
 * @param {Element} card
 * @param {import("../core/chat-cards.mjs").RulingFlag} flag
 * @param {(query: Record<string, unknown>) => Promise<any>} read a connection's `query`
 */
function addAllSteps(card, flag, read) {
  const loc = i18n();
  const steps = flag.steps ?? 0;
  const total = Math.max(steps, flag.rolls ?? 0);
  const box = document.createElement("div");
  box.className = `${MODULE_ID}-all-steps`;
  const button = document.createElement("button");
  button.type = "button";
  button.className = `${MODULE_ID}-read-steps`;
  let next = 0;
  const label = () => {
    const to = Math.min(next + RULING_PAGE, steps);
    button.textContent = loc.format("VTTBRIDGE.Rules.Card.ReadSteps", { from: String(Math.min(next + 1, to)), to: String(to), count: String(steps) });
  };
  label();
  button.addEventListener("click", async (/** @type {Event} */ event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const page = await read(rulingPage(flag.id, next));
      const dice = Array.isArray(page?.rolls) ? page.rolls : [];
      const log = Array.isArray(page?.log) ? page.log : [];
      const rollsHtml = dice.length ? `<div class="vtt-bridge-rolls">${dice.map((/** @type {any} */ r) => renderRoll(r, loc, nameOf)).join("")}</div>` : "";
      box.insertAdjacentHTML("beforeend", (log.length ? renderStepList(log, loc, nameOf, next + 1) : "") + rollsHtml);
      next += RULING_PAGE;
      if (next >= total || (!log.length && !dice.length)) button.remove();
      else label();
    } catch (error) {
      ui.notifications.error(loc.format("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
    } finally {
      button.disabled = false;
    }
  });
  box.append(button);
  card.append(box);
}

/**
 * The ruling card's Undo or Redo button (GM only), the struck-through look of an undone one, and
 * (with `read`, where this browser runs the bridge) its "all steps" (`addAllSteps`).
 * @param {any} message a ChatMessage
 * @param {HTMLElement} root its rendered HTML
 * @param {(action: Record<string, any>) => unknown} send
 * @param {((query: Record<string, unknown>) => Promise<any>)|null} [read] a connection's `query`
 */
export function decorateRulingCard(message, root, send, read = null) {
  const flag = flagOf(message);
  if (!flag || !root) return;
  // a ruling flag on a message a player created is not the bridge's card: no Undo there
  const author = typeof message?.author === "object" ? message.author : game.users?.get?.(message?.author ?? message?._source?.author);
  if (!author?.isGM) return;
  const card = root.querySelector(".vtt-bridge-ruling") ?? root;
  if (flag.undone) card.classList.add(`${MODULE_ID}-undone`);
  if (read && hasMoreSteps(flag)) addAllSteps(card, flag, read);
  const button = cardButton(flag, !!game.user?.isGM);
  if (!button) return;
  const element = document.createElement("button");
  element.type = "button";
  element.className = `${MODULE_ID}-${button.mode}`;
  element.textContent = i18n().localize(button.label);
  element.addEventListener("click", (event) => {
    event.preventDefault();
    send(undoAction(button.mode, flag));
  });
  card.append(element);
}

/** The keybinding action of "undo the last ruling of this scene". */
export const UNDO_LAST_ACTION = "undoLastRuling";

/**
 * Undo the newest ruling card of the viewed scene that stands.
 * @param {any} connection
 * @param {((action: Record<string, any>) => Promise<unknown>)|null} [relay] a co-GM's relay
 */
export async function undoLastRuling(connection, relay = null) {
  const flags = [.../** @type {any} */ (game).messages ?? []].filter(byGM).map(flagOf);
  const last = lastStandingRuling(flags, scene()?.id ?? null);
  if (!last) {
    ui.notifications.info(i18n().localize("VTTBRIDGE.Rules.Card.NothingToUndo"));
    return;
  }
  await sendUndo(connection, undoAction("undo", last), relay);
}

/**
 * Ask the GM which token looks at `target`; null when the dialog is closed without a choice
 * (`rejectClose: false`: v12's DialogV2 rejects by default, v13's resolves null).
 * @param {any} target token document
 * @returns {Promise<any|null>}
 */
export async function pickObserver(target) {
  const candidates = [...(scene()?.tokens ?? [])].filter((t) => t.id !== target.id);
  const loc = i18n();
  if (!candidates.length) {
    ui.notifications.warn(loc.localize("VTTBRIDGE.Rules.Card.NoObserver"));
    return null;
  }
  const DialogV2 = namespacedClass(env(), "foundry.applications.api.DialogV2");
  const options = candidates.map((t) => `<option value="${escapeHtml(t.id)}">${escapeHtml(t.name)}</option>`).join("");
  const id = await DialogV2.prompt({
    rejectClose: false,
    window: { title: loc.localize("VTTBRIDGE.Rules.Card.PickObserver") },
    content: `<label>${escapeHtml(loc.localize("VTTBRIDGE.Rules.Card.Observer"))} <select name="observer">${options}</select></label>`,
    ok: {
      label: loc.localize("VTTBRIDGE.Rules.Card.Ask"),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) =>
        new FormData(/** @type {HTMLFormElement} */ (button.form)).get("observer"),
    },
  });
  return candidates.find((t) => t.id === id) ?? null;
}

/**
 * The button's action: explain how each observer locates `target`, as whispered cards.
 * @param {any} target token document
 * @param {any} connection
 */
async function explainFor(target, connection) {
  const loc = i18n();
  if (!connection || connection.status === "stopped") {
    ui.notifications.warn(loc.localize("VTTBRIDGE.Rules.Card.NoBridge"));
    return;
  }
  const controlled = (env().canvas?.tokens?.controlled ?? []).map((/** @type {any} */ t) => t.document).filter((/** @type {any} */ d) => d && d.id !== target.id);
  const observers = controlled.length ? controlled : [await pickObserver(target)].filter(Boolean);
  for (const observer of observers) {
    try {
      const answer = await connection.query({ kind: "explain", observer: observer.id, target: target.id });
      await postCard({ log: answer.log ?? [], kind: "explain", subject: `${observer.name} → ${target.name}`, forceGm: true }, "gm");
    } catch (error) {
      ui.notifications.error(loc.format("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
    }
  }
}

/**
 * The pin dialog's content: the observer (every observer, or one token; only `observer` when the
 * dialog is for one pair), the state (or release), how long.
 * @param {any} target token document
 * @param {any} [observer] token document: the pair's observer (the overlay's line)
 * @returns {string}
 */
function pinDialogContent(target, observer = null) {
  const loc = i18n();
  const observers = observer ? [observer] : [...(scene()?.tokens ?? [])].filter((t) => t.id !== target.id);
  const option = (/** @type {string} */ value, /** @type {string} */ label) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;
  const every = observer ? "" : option("", loc.localize("VTTBRIDGE.Pin.Every"));
  const who = every + observers.map((t) => option(t.id, String(t.name ?? t.id))).join("");
  const states = [...LOCATE_STATES.map((s) => option(s, loc.localize(`VTTBRIDGE.Visibility.State.${s}`))), option("release", loc.localize("VTTBRIDGE.Pin.Release"))].join("");
  const ends = PIN_ENDS.map((e) => option(e, loc.localize(`VTTBRIDGE.Pin.Until.${e}`))).join("");
  return (
    `<label>${escapeHtml(loc.localize("VTTBRIDGE.Pin.Observer"))} <select name="observer">${who}</select></label>` +
    `<label>${escapeHtml(loc.localize("VTTBRIDGE.Pin.State"))} <select name="state">${states}</select></label>` +
    `<label>${escapeHtml(loc.localize("VTTBRIDGE.Pin.End"))} <select name="until">${ends}</select></label>`
  );
}

/**
 * The HUD button's action: the GM pins (or releases) how observers locate `target` (`pinLocate`);
 * with `observer` (a right click on the overlay's line of that pair) for that pair only.
 * @param {any} target token document
 * @param {any} connection
 * @param {any} [observer] token document
 */
export async function pinFor(target, connection, observer = null) {
  const loc = i18n();
  if (!connection || connection.status === "stopped") {
    ui.notifications.warn(loc.localize("VTTBRIDGE.Rules.Card.NoBridge"));
    return;
  }
  const DialogV2 = namespacedClass(env(), "foundry.applications.api.DialogV2");
  const title = observer
    ? loc.format("VTTBRIDGE.Pin.PairTitle", { observer: String(observer.name ?? observer.id), target: String(target.name ?? target.id) })
    : loc.format("VTTBRIDGE.Pin.Title", { name: String(target.name ?? target.id) });
  const form = await DialogV2.prompt({
    rejectClose: false,
    window: { title },
    content: pinDialogContent(target, observer),
    ok: {
      label: loc.localize("VTTBRIDGE.Pin.Apply"),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) =>
        Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (button.form)).entries()),
    },
  });
  if (!form) return;
  try {
    const observer = typeof form.observer === "string" && form.observer ? form.observer : null;
    const round = Number(game.combat?.round ?? 0) || 0;
    const action = form.state === "release" ? releaseAction(target.id, observer) : pinAction(target.id, form, { round, by: String(game.user.name ?? "") });
    await connection.action(action);
  } catch (error) {
    ui.notifications.error(loc.format("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
  }
}

/**
 * A GM's token HUD button.
 * @param {HTMLElement} root
 * @param {string} name
 * @param {string} icon
 * @param {string} label
 * @param {() => unknown} onClick
 */
function hudButton(root, name, icon, label, onClick) {
  const column = root.querySelector(".col.right") ?? root;
  const button = document.createElement("button");
  button.type = "button";
  button.className = `control-icon ${MODULE_ID}-${name}`;
  button.dataset.tooltip = label;
  button.setAttribute("aria-label", label);
  button.innerHTML = `<i class="${icon}"></i>`;
  button.addEventListener("click", (event) => {
    event.preventDefault();
    onClick();
  });
  column.append(button);
}

/**
 * Install everything: status effects now (call in `init`), then the hooks.
 * @param {ChatCardsOptions} options
 */
export function installChatCards({ hooks, getSetting, config, relay }) {
  // F10: added now, and again at setup and ready: a system that replaces CONFIG.statusEffects after
  // the module's init would otherwise drop them (and the conditions would be skipped silently)
  const addMissing = () => {
    const statusEffects = config?.statusEffects;
    if (statusEffects) addStatusEffects(statusEffects, missingStatusEffects(statusEffects));
  };
  addMissing();
  for (const later of ["setup", "ready"]) (hooks.once ?? hooks.on).call(hooks, later, addMissing);
  /** @type {any} */
  let connection = null;
  hooks.on(`${MODULE_ID}.connection`, (/** @type {any} */ conn) => {
    connection = conn;
    followConnection(conn, getSetting);
  });
  // the overlay's right click on a line (attack-tools.mjs): that pair's pins
  hooks.on(PIN_PAIR_HOOK, (/** @type {{observer: string, target: string}} */ pair) => {
    const tokens = [...(scene()?.tokens ?? [])];
    const observer = tokens.find((t) => t.id === pair?.observer);
    const target = tokens.find((t) => t.id === pair?.target);
    if (game.user?.isGM && observer && target) void pinFor(target, connection, observer);
  });
  const hook = chatRenderHook(/** @type {any} */ (game).release?.generation);
  hooks.on(hook, (/** @type {any} */ message, /** @type {any} */ html) => {
    const root = html instanceof HTMLElement ? html : html?.[0];
    const read = connection ? (/** @type {Record<string, unknown>} */ query) => connection.query(query) : null;
    decorateRulingCard(message, root, (action) => sendUndo(connection, action, relay ?? null), read);
  });
  // registered in `init`, as keybindings must be; `restricted`: only a GM may run it
  /** @type {any} */ (game).keybindings?.register?.(MODULE_ID, UNDO_LAST_ACTION, {
    name: "VTTBRIDGE.Undo.Keybinding.Name",
    hint: "VTTBRIDGE.Undo.Keybinding.Hint",
    editable: [{ key: "KeyZ", modifiers: ["Alt"] }],
    restricted: true,
    onDown: () => {
      if (!game.user?.isGM) return false;
      void undoLastRuling(connection, relay ?? null);
      return true;
    },
  });
  hooks.on("renderTokenHUD", (/** @type {any} */ hud, /** @type {any} */ html) => {
    if (!game.user.isGM) return;
    const root = html instanceof HTMLElement ? html : html?.[0];
    const target = hud?.object?.document ?? hud?.document;
    if (!root || !target) return;
    hudButton(root, "explain", "fa-solid fa-eye-low-vision", i18n().localize("VTTBRIDGE.Rules.Card.Explain"), () => explainFor(target, connection));
    hudButton(root, "pin", "fa-solid fa-thumbtack", i18n().localize("VTTBRIDGE.Pin.Button"), () => pinFor(target, connection));
  });
}
