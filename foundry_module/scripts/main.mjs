/**
 * Entry point (module.json `esmodules`): hooks wiring only. Every decision is made in the pure
 * modules beside this one; this file reads Foundry's globals and passes them in.
 * @module main
 */

import { isOwnWrite } from "./apply-patch.mjs";
import { executeBatches, PatchApplier } from "./bridge.mjs";
import { deletionOperator, namespacedClass, statusEffectIds } from "./compat.mjs";
import { BridgeConnection } from "./connection.mjs";
import { MODULE_ID, SOCKET_CHANNEL } from "./constants.mjs";
import { actionCardHtml, actionFromButton, actionFromDialog, DIALOG_CHOICES } from "./damage.mjs";
import {
  acceptRelay,
  moveFromTokenUpdate,
  relayMessage,
  roundFromCombatUpdate,
  upsertsFromActorUpdate,
  upsertsFromStatusChange,
  upsertsFromTokenLifecycle,
} from "./forward.mjs";
import { installChatCards } from "./chat-canvas.mjs";
import { installHealthTrack } from "./health-canvas.mjs";
import { buildState, tokenVisibilityFlags } from "./messages.mjs";
import { defineRulesSheet } from "./rules-sheet.mjs";
import { checkSidecarUrl, readConnectionSettings, readRuleSettings, registerSettings, shouldRunBridge } from "./settings.mjs";
import { installVisibility, isIdentityHidden } from "./visibility-canvas.mjs";

/** @type {BridgeConnection|null} */
let connection = null;
/** @type {PatchApplier|null} */
let applier = null;
/** @type {any} */
let RulesSheet = null;
/** @type {HTMLElement|null} */
let indicator = null;

/** @param {string} key @param {Record<string, string>} [data] */
const t = (key, data) => (data ? game.i18n.format(key, data) : game.i18n.localize(key));
/** @param {string} key */
const setting = (key) => game.settings.get(MODULE_ID, key);

function currentState() {
  const scene = canvas?.scene ?? game.scenes?.viewed ?? null;
  if (!scene) return null;
  const combat = game.combats?.active ?? game.combat ?? null;
  return buildState({ scene, round: combat?.round ?? 0, settings: readRuleSettings(setting) });
}

/** @param {string} status */
function setIndicator(status) {
  if (!indicator) {
    indicator = document.createElement("div");
    indicator.id = `${MODULE_ID}-indicator`;
    document.body.append(indicator);
  }
  indicator.dataset.status = status;
  indicator.textContent = `⬤ ${t(`VTTBRIDGE.Status.${status}`)}`;
  indicator.title = t("VTTBRIDGE.Status.Title");
}

function stopBridge() {
  connection?.stop();
  connection = null;
  applier = null;
}

function startBridge() {
  stopBridge();
  const conn = readConnectionSettings(setting);
  if (!shouldRunBridge({ isGM: game.user.isGM, runsBridge: conn.runsBridge, token: conn.token })) {
    if (game.user.isGM && conn.runsBridge) ui.notifications.warn(t("VTTBRIDGE.Notice.NoToken"));
    return;
  }
  const urlCheck = checkSidecarUrl(conn.url);
  if (!urlCheck.ok) {
    ui.notifications.error(t(`VTTBRIDGE.Notice.BadUrl.${urlCheck.reason}`));
    return;
  }
  applier = new PatchApplier({
    statusIds: () => statusEffectIds(CONFIG.statusEffects),
    deletion: deletionOperator(globalThis),
    foundryVisibility: () => (canvas?.scene ? tokenVisibilityFlags(canvas.scene) : {}),
    execute: (batches) =>
      executeBatches(batches, {
        Actor: /** @type {any} */ (CONFIG.Actor.documentClass),
        scene: () => canvas?.scene ?? null,
        fromUuid: (uuid) => fromUuid(uuid),
      }),
  });
  const active = applier;
  connection = new BridgeConnection({
    url: conn.url,
    token: conn.token,
    world: game.world.id,
    WebSocket: globalThis.WebSocket,
    getState: currentState,
    apply: (incoming) => active.apply(incoming),
  });
  connection.on("status", setIndicator);
  connection.on("notice", (/** @type {{kind: string, module?: string, sidecar?: string}} */ notice) => {
    const key = `VTTBRIDGE.Notice.${notice.kind}`;
    if (notice.kind === "restored") ui.notifications.info(t(key));
    else if (notice.kind === "version") ui.notifications.warn(t(key, { module: notice.module ?? "", sidecar: notice.sidecar ?? "" }));
    else ui.notifications.error(t(key, { url: conn.url }));
  });
  connection.on("error", (/** @type {Error} */ error) => {
    console.error(`${MODULE_ID} |`, error);
    ui.notifications.error(t("VTTBRIDGE.Notice.Error", { message: error.message }));
  });
  Hooks.callAll(`${MODULE_ID}.connection`, connection);
  connection.start();
}

/**
 * Send an action from this browser: directly when it runs the bridge, else through the socket.
 * @param {Record<string, unknown>|null} action
 */
async function sendAction(action) {
  if (!action) return;
  if (connection) {
    try {
      await connection.action(action);
    } catch (error) {
      ui.notifications.error(t("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
    }
  } else {
    game.socket.emit(SOCKET_CHANNEL, relayMessage(game.user.id, action));
  }
}

/** @param {Array<{path: string, value: unknown}>} upserts */
function sendUpserts(upserts) {
  for (const { path, value } of upserts) connection?.upsert(path, value).catch((error) => console.error(`${MODULE_ID} |`, error));
}

/** @param {{uuid: string, name: string}} actor @param {"damage"|"heal"} mode */
async function openDamageDialog(actor, mode = "damage") {
  const DialogV2 = namespacedClass(globalThis, "foundry.applications.api.DialogV2");
  const grades = DIALOG_CHOICES.grades.map((g) => `<option value="${g}">${t(`VTTBRIDGE.Grade.${g}`)}</option>`).join("");
  const sources = DIALOG_CHOICES.healSources.map((s) => `<option value="${s}">${t(`VTTBRIDGE.HealSource.${s}`)}</option>`).join("");
  const content =
    `<label>${t("VTTBRIDGE.Dialog.Amount")} <input type="number" name="amount" value="1" min="0" step="1"></label>` +
    `<label>${t("VTTBRIDGE.Dialog.Grade")} <select name="grade">${mode === "heal" ? '<option value="any">—</option>' : ""}${grades}</select></label>` +
    (mode === "heal"
      ? `<label>${t("VTTBRIDGE.Dialog.Source")} <select name="source">${sources}</select></label>`
      : `<label>${t("VTTBRIDGE.Dialog.Type")} <input type="text" name="type" placeholder="untyped"></label>`);
  const data = await DialogV2.prompt({
    rejectClose: false, // v12 rejects when the dialog is closed; v13 resolves null
    window: { title: t(`VTTBRIDGE.Dialog.${mode}`, { name: actor.name }) },
    content,
    ok: {
      label: t(`VTTBRIDGE.Dialog.${mode}Button`),
      callback: (/** @type {Event} */ _event, /** @type {HTMLButtonElement} */ button) =>
        Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (button.form)).entries()),
    },
  });
  if (!data) return;
  let action;
  try {
    action = actionFromDialog(actor.uuid, { ...data, mode });
  } catch (error) {
    ui.notifications.error(/** @type {Error} */ (error).message);
    return;
  }
  await sendAction(action);
}

/**
 * Post a chat card whose button applies the action (e.g. damage a GM announces for players).
 * @param {Record<string, unknown>} action
 * @param {string} summary
 */
function postActionCard(action, summary) {
  return ChatMessage.create({ content: actionCardHtml(action, t("VTTBRIDGE.Chat.Apply"), summary) });
}

Hooks.once("init", () => {
  registerSettings(game.settings, (group) => {
    if (group === "connection") startBridge();
    else connection?.resync("settings");
  });
  installVisibility({ localize: t });
  // a new locate ruling re-renders the token (refreshToken), which redraws or hides its boxes
  installHealthTrack({ hooks: Hooks, getSetting: setting, PIXI: globalThis.PIXI, isIdentityHidden });
  installChatCards({ hooks: Hooks, getSetting: setting, config: CONFIG });
  RulesSheet = defineRulesSheet(foundry.applications.api, {
    localize: (key) => t(key),
    notifyError: (message) => ui.notifications.error(message),
  });
  const module = game.modules.get(MODULE_ID);
  if (module) {
    module.api = {
      get connection() {
        return connection;
      },
      get state() {
        return applier?.state ?? null;
      },
      sendAction,
      openDamageDialog,
      postActionCard,
      openRulesSheet: (/** @type {any} */ actor) => new RulesSheet({ actor }).render({ force: true }),
    };
  }
});

Hooks.once("ready", () => {
  game.socket.on(SOCKET_CHANNEL, (/** @type {unknown} */ message) => {
    const action = connection ? acceptRelay(message) : null;
    if (action) sendAction(action);
  });
  startBridge();
});

Hooks.on("canvasReady", () => connection?.resync("scene"));

Hooks.on("updateToken", (/** @type {any} */ token, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendAction(moveFromTokenUpdate(token, changes, options, applier?.state));
});

Hooks.on("createToken", (/** @type {any} */ token, /** @type {any} */ options) => {
  if (connection && !isOwnWrite(options)) sendUpserts(upsertsFromTokenLifecycle(token, true, applier?.state));
});

Hooks.on("deleteToken", (/** @type {any} */ token, /** @type {any} */ options) => {
  if (connection && !isOwnWrite(options)) sendUpserts(upsertsFromTokenLifecycle(token, false, applier?.state));
});

Hooks.on("updateCombat", (/** @type {any} */ _combat, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendAction(roundFromCombatUpdate(changes, options, applier?.state));
});

Hooks.on("updateActor", (/** @type {any} */ actor, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendUpserts(upsertsFromActorUpdate(actor, changes, options, applier?.state));
});

for (const hook of ["createActiveEffect", "deleteActiveEffect"]) {
  Hooks.on(hook, (/** @type {any} */ effect) => {
    const actor = effect.parent;
    if (!connection || !actor?.uuid || !effect.statuses?.size) return;
    sendUpserts(upsertsFromStatusChange(actor, effect.statuses, (status) => !!actor.statuses?.has(status), applier?.state));
  });
}

/** @param {any} actor */
function rulesControls(actor) {
  return [
    { action: `${MODULE_ID}-rules`, icon: "fa-solid fa-scale-balanced", label: "VTTBRIDGE.Sheet.Open", onClick: () => new RulesSheet({ actor }).render({ force: true }) },
    { action: `${MODULE_ID}-damage`, icon: "fa-solid fa-heart-crack", label: "VTTBRIDGE.Dialog.damageButton", onClick: () => openDamageDialog(actor, "damage") },
    { action: `${MODULE_ID}-heal`, icon: "fa-solid fa-heart-pulse", label: "VTTBRIDGE.Dialog.healButton", onClick: () => openDamageDialog(actor, "heal") },
  ];
}

// v13+: ApplicationV2 actor sheets
Hooks.on("getHeaderControlsActorSheetV2", (/** @type {any} */ app, /** @type {any[]} */ controls) => {
  if (app.document?.isOwner) controls.push(...rulesControls(app.document));
});

// v12: Application (v1) actor sheets
Hooks.on("getActorSheetHeaderButtons", (/** @type {any} */ app, /** @type {any[]} */ buttons) => {
  if (!app.actor?.isOwner) return;
  for (const c of rulesControls(app.actor)) buttons.unshift({ label: t(c.label), class: c.action, icon: c.icon, onclick: c.onClick });
});

/** @param {HTMLElement} html */
function bindChatButtons(html) {
  for (const button of html.querySelectorAll(`[data-${MODULE_ID}-action]`)) {
    button.addEventListener("click", () => sendAction(actionFromButton(button)));
  }
}
// v13: HTMLElement; v12: jQuery
Hooks.on("renderChatMessageHTML", (/** @type {any} */ _message, /** @type {HTMLElement} */ html) => bindChatButtons(html));
Hooks.on("renderChatMessage", (/** @type {any} */ _message, /** @type {any} */ html) => {
  if (game.release?.generation && game.release.generation >= 13) return;
  bindChatButtons(html[0] ?? html);
});
