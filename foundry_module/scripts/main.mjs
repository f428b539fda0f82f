/**
 * Entry point (module.json `esmodules`): hooks wiring only. Every decision is made in the pure
 * modules beside this one; this file reads Foundry's globals and passes them in.
 * @module main
 */

import { isOwnWrite } from "./core/apply-patch.mjs";
import { executeBatches, PatchApplier } from "./foundry/bridge.mjs";
import { deletionOperator, statusEffectIds } from "./foundry/compat.mjs";
import { BridgeConnection } from "./core/connection.mjs";
import { MODULE_ID } from "./core/constants.mjs";
import { BRIDGE_FLAG } from "./core/bridge-election.mjs";
import { actionCardHtml, CARD_FLAG } from "./core/damage.mjs";
import { installDamageTools, LAST_TYPE_FLAG } from "./foundry/damage-tools.mjs";
import { locatesTarget, makeRelayQueue, makeSendAction, ownsSubject } from "./foundry/send-action.mjs";
import { BridgeHost, renderIndicator } from "./foundry/bridge-host.mjs";
import {
  moveFromTokenUpdate,
  oncePerTick,
  roundFromCombatUpdate,
  upsertsFromActorUpdate,
  upsertsFromEffectEvent,
  upsertsFromTokenLifecycle,
} from "./core/forward.mjs";
import { installChatCards } from "./foundry/ruling-messages.mjs";
import { installTableTools } from "./foundry/attack-tools.mjs";
import { installHealthTrack } from "./foundry/health-canvas.mjs";
import { actorFlags, buildState, tokenAreaFlags, tokenVisibilityFlags } from "./core/messages.mjs";
import { installAreaMarkers } from "./foundry/area-markers.mjs";
import { installGmBadges } from "./foundry/gm-badges.mjs";
import { installLocatePanel } from "./foundry/locate-panel.mjs";
import { hiddenForViewer, installStatusPrivacy, statusPrivacyMixin } from "./foundry/status-privacy.mjs";
import { listenAsBridge } from "./foundry/player-requests.mjs";
import { attackerAnswer } from "./core/attack-card.mjs";
import { installRoll, openRollDialog } from "./foundry/roll-dialog.mjs";
import { defineRulesSheet } from "./foundry/rules-sheet.mjs";
import { checkSidecarUrl, readConnectionSettings, readRuleSettings, registerSettings, SETTING_CHANGED_HOOK, shouldRunBridge } from "./foundry/settings.mjs";
import { composeOnce, replacesSystemBar, systemBarMixin, TOKEN_MIXIN_TAGS } from "./systems/canvas.mjs";
import {
  actorDataOf,
  actorStateWithSystem,
  adapterSelection,
  ProblemLog,
  problemMessage,
  systemPlanAmender,
  touchesSystemData,
  upsertsFromConditionItem,
  upsertsFromSystemChange,
} from "./systems/index.mjs";
import { installVisibility, isIdentityHidden, visibilityTokenMixin } from "./foundry/visibility-canvas.mjs";

/** @type {BridgeConnection|null} */
let connection = null;
/** @type {PatchApplier|null} */
let applier = null;
/** @type {any} */
let RulesSheet = null;

/** @param {string} key @param {Record<string, string>} [data] */
const t = (key, data) => (data ? game.i18n.format(key, data) : game.i18n.localize(key));
/** @param {string} key */
const setting = (key) => game.settings.get(MODULE_ID, key);

// ---- game-system adapters: every decision is in scripts/systems/ ----
/** @type {{key: string, value: ReturnType<typeof adapterSelection>}|null} */
let selection = null;
const problemLog = new ProblemLog();
/** The adapter choice of the world settings (recomputed when they change). */
function adapters() {
  const choice = setting("systemAdapter");
  const mapping = setting("systemMapping");
  const key = JSON.stringify([choice, mapping]);
  if (selection?.key !== key) {
    selection = { key, value: adapterSelection({ choice, mapping }) };
    const error = selection.value.mappingError;
    if (error) ui.notifications.warn(t("VTTBRIDGE.System.MappingError", { error }));
  }
  return selection.value;
}
/** @param {any} actor */
function systemOf(actor) {
  const actorData = actorDataOf(actor);
  return { adapter: adapters().pick(actorData), actorData };
}
/** One actor's state for the sidecar: our flags with the game system's fields over them. @param {any} actor */
function stateOf(actor) {
  const { state, problems } = actorStateWithSystem(actor, (data) => adapters().pick(data));
  for (const problem of problemLog.fresh(actor.uuid, problems)) {
    const { key, data } = problemMessage(actor.name ?? actor.uuid, problem);
    ui.notifications.warn(t(key, data));
  }
  return state;
}
/** The sidecar's new state written to the system's own fields too, in the same updates. */
const amendPlan = systemPlanAmender(
  (data) => adapters().pick(data),
  (uuid) => {
    const fromUuidSync = /** @type {any} */ (globalThis).fromUuidSync;
    return typeof fromUuidSync === "function" ? fromUuidSync(uuid) : null;
  },
);
/** A change outside the module to an actor's system data → the upserts it means. @param {any} actor */
function forwardSystemChange(actor) {
  if (!connection || !actor?.uuid) return;
  forwardOnce(actor.uuid, actor);
}
/** F22: an unlinked token's edit arrives as updateActor and as updateToken's delta: forwarded once. */
const forwardOnce = oncePerTick((/** @type {any} */ actor) => {
  if (!connection) return;
  const { adapter, actorData } = systemOf(actor);
  sendUpserts(upsertsFromSystemChange(adapter, actorData, actor.uuid, applier?.state));
});
/** Our Token mixins over the configured class (a system's own), once each. */
function composeTokenClasses() {
  const config = /** @type {any} */ (CONFIG);
  const Token = config.Token?.objectClass;
  if (!Token || !visibilityRuntime) return;
  const runtime = visibilityRuntime;
  const withVisibility = composeOnce(Token, (Base) => visibilityTokenMixin(Base, runtime), TOKEN_MIXIN_TAGS.visibility);
  /** @param {any} token @param {any} data */
  const replaces = (token, data) =>
    replacesSystemBar({
      setting: setting("systemBar"),
      attribute: data?.attribute,
      healthBar: token.actor ? systemOf(token.actor).adapter?.healthBar : null,
      hasTrack: !!token.actor?.flags?.[MODULE_ID]?.health,
    });
  const withBar = composeOnce(withVisibility, (Base) => systemBarMixin(Base, replaces), TOKEN_MIXIN_TAGS.systemBar);
  // F13: the derived Health status icons per viewer ("Who sees Health boxes")
  config.Token.objectClass = composeOnce(withBar, (Base) => statusPrivacyMixin(Base, hiddenForViewer(globalThis)), TOKEN_MIXIN_TAGS.statusPrivacy);
}
/** @type {any} */
let visibilityRuntime = null;
// ---- end of the game-system adapters ----

function currentState() {
  const scene = canvas?.scene ?? game.scenes?.viewed ?? null;
  if (!scene) return null;
  const combat = game.combats?.active ?? game.combat ?? null;
  return buildState({ scene, round: combat?.round ?? 0, settings: readRuleSettings(setting), stateOf });
}

/**
 * Every user's indicator (bridge-host.mjs `renderIndicator`).
 * @param {{state: "up"|"down"|"none", name: string, waiting: number}} shown
 */
function setIndicator(shown) {
  renderIndicator(document, shown, t);
}

/** @type {BridgeHost|null} this browser's part in the bridge election (set in `ready`) */
let host = null;
/** @type {ReturnType<typeof makeRelayQueue>|null} this browser's requests to the bridge (set in `ready`) */
let relay = null;

function stopBridge() {
  connection?.stop();
  connection = null;
  applier = null;
}

/** Whether this browser may run the bridge: a GM with the client setting, a token and a valid URL. */
function eligible() {
  const conn = readConnectionSettings(setting);
  return shouldRunBridge({ isGM: game.user.isGM, runsBridge: conn.runsBridge, token: conn.token }) && checkSidecarUrl(conn.url).ok;
}

/** A GM who ticked "this browser runs the bridge" is told what keeps it from being able to. */
function warnConnectionSettings() {
  const conn = readConnectionSettings(setting);
  if (!game.user.isGM || !conn.runsBridge) return;
  if (!conn.token) ui.notifications.warn(t("VTTBRIDGE.Notice.NoToken"));
  const urlCheck = checkSidecarUrl(conn.url);
  if (!urlCheck.ok) ui.notifications.error(t(`VTTBRIDGE.Notice.BadUrl.${urlCheck.reason}`));
}

/** The connection settings changed: withdraw or renew this browser's claim (a running link restarts). */
function reclaim() {
  warnConnectionSettings();
  if (!host) return;
  if (host.running) {
    host.running = false;
    stopBridge();
  }
  void host.publish();
}

/** Open the link to the sidecar (the election chose this browser: bridge-host.mjs). */
function startBridge() {
  stopBridge();
  const conn = readConnectionSettings(setting);
  applier = new PatchApplier({
    statusIds: () => statusEffectIds(CONFIG.statusEffects),
    deletion: deletionOperator(globalThis),
    foundryVisibility: (sceneId) => {
      const scene = sceneId ? game.scenes.get(sceneId) : null;
      return scene ? tokenVisibilityFlags(scene) : {};
    },
    foundryAreas: (sceneId) => {
      const scene = sceneId ? game.scenes.get(sceneId) : null;
      return scene ? tokenAreaFlags(scene) : {};
    },
    foundryActors: (sceneId) => {
      const scene = sceneId ? game.scenes.get(sceneId) : null;
      return scene ? actorFlags(scene) : {};
    },
    amendPlan,
    execute: (batches) =>
      executeBatches(batches, {
        Actor: /** @type {any} */ (CONFIG.Actor.documentClass),
        scene: (id) => (id ? game.scenes.get(id) : null),
        fromUuid: (uuid) => fromUuid(uuid),
        actors: /** @type {any} */ (game).actors,
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
  // every user's indicator reads this browser's claim: up while the link is connected
  connection.on("status", (/** @type {string} */ status) => void host?.setUp(status === "connected"));
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

/** Send an action from this browser: directly when it runs the bridge, else through the relay queue. */
const sendAction = makeSendAction({ connection: () => connection, localize: t, relay: () => /** @type {any} */ (relay) });

/**
 * The attack dialog's DET-10 check (`attackCheck`, the attacker's view): asked directly when this
 * browser runs the bridge, else relayed; null when nobody answered (the attack is ruled when sent).
 * @param {Record<string, unknown>} query
 * @returns {Promise<Record<string, unknown>|null>}
 */
async function checkAttack(query) {
  if (connection) return attackerAnswer((await connection.query(query))?.data);
  if (!relay) return null;
  const answer = await relay.submit(query);
  return answer.ok ? (answer.data ?? null) : null;
}

/**
 * The damage dialog's preview (the sidecar's `preview` query: nothing kept): asked only by the
 * browser that runs the bridge, a GM's (a preview shows each target's Health); null elsewhere.
 * @param {Record<string, unknown>} action
 * @returns {Promise<{log?: any[]}|null>}
 */
async function previewDamage(action) {
  if (!connection || !game.user?.isGM) return null;
  return (await connection.query({ kind: "preview", action }))?.data ?? null;
}

/** What the roll dialog and `/vroll` need (roll-dialog.mjs). */
const rollDeps = {
  sendAction: (/** @type {Record<string, unknown>} */ action) => sendAction(action),
  t,
  notifyError: (/** @type {string} */ message) => ui.notifications.error(message),
  // the traits the game system holds (every CofD Skill), and whose names they carry
  stateOf: (/** @type {any} */ actor) => stateOf(actor),
  systemOf: (/** @type {any} */ actor) => systemOf(actor).adapter?.id ?? null,
};

/** @param {Array<{path: string, value: unknown}>} upserts */
function sendUpserts(upserts) {
  for (const { path, value } of upserts) connection?.upsert(path, value).catch((error) => console.error(`${MODULE_ID} |`, error));
}

/** The damage / heal dialog and the chat cards' Apply buttons (damage-tools.mjs), installed in `init`. */
/** @type {ReturnType<typeof installDamageTools>|null} */
let damageTools = null;
/** @param {{uuid: string, name: string}} actor @param {"damage"|"heal"} [mode] */
const openDamageDialog = (actor, mode = "damage") => damageTools?.openDamageDialog(actor, mode);

/**
 * Post a chat card whose button applies the action (e.g. damage a GM announces for players).
 * @param {Record<string, unknown>} action
 * @param {string} summary
 */
function postActionCard(action, summary) {
  // the card flag makes its button act (damage-tools.mjs), for a damage or a heal only, on a GM's card
  if (!game.user.isGM) throw new Error(`${MODULE_ID} | postActionCard is for Game Masters`);
  return ChatMessage.create({ content: actionCardHtml(action, t("VTTBRIDGE.Chat.Apply"), summary), flags: { [MODULE_ID]: { [CARD_FLAG]: "apply" } } });
}

Hooks.once("init", () => {
  registerSettings(game.settings, (group, key, value) => {
    if (group === "connection") reclaim();
    else if (group === "rules") connection?.resync("settings");
    // L1, F4: a client setting fires no Setting hook, and a world setting's first change is a create
    else Hooks.callAll(SETTING_CHANGED_HOOK, { key: `${MODULE_ID}.${key}`, value });
  });
  visibilityRuntime = installVisibility({ localize: t });
  installAreaMarkers({ runtime: visibilityRuntime });
  const bridgeQuery = () => (connection ? (/** @type {Record<string, unknown>} */ query) => /** @type {BridgeConnection} */ (connection).query(query) : null);
  // the GM's panel of observers against targets (a badge's click opens it on that token)
  const panel = installLocatePanel({
    localize: t,
    query: bridgeQuery,
    send: (action) => sendAction(action),
    canSend: () => !!connection || !!relay,
    notifyError: (message) => ui.notifications.error(message),
  });
  installGmBadges({ localize: t, explainer: bridgeQuery, onOpen: (focus) => panel.open(focus) });
  composeTokenClasses();
  installStatusPrivacy();
  // a new locate ruling re-renders the token (refreshToken), which redraws or hides its boxes
  installHealthTrack({ hooks: Hooks, getSetting: setting, PIXI: globalThis.PIXI, isIdentityHidden });
  installChatCards({ hooks: Hooks, getSetting: setting, config: CONFIG, relay: (action) => sendAction(action) });
  installRoll({ hooks: Hooks, ...rollDeps });
  // the attack dialog and square pick (DET-10), the overlay's right click on a line (pins)
  installTableTools({ sendAction: (action) => sendAction(action), localize: t, overlay: visibilityRuntime, checkAttack });
  RulesSheet = defineRulesSheet(foundry.applications.api, {
    localize: (key) => t(key),
    format: (key, data) => t(key, data),
    notifyError: (message) => ui.notifications.error(message),
    deletion: deletionOperator(globalThis),
    systemFields: (actor) => {
      const { adapter } = systemOf(actor);
      return adapter ? { fields: adapter.fields, name: adapter.id } : { fields: [], name: "" };
    },
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
      openRollDialog: (/** @type {any} */ actor) => openRollDialog(actor, rollDeps),
      // handed to Game Masters only (read when asked: `game.user` is not known at init)
      get postActionCard() {
        return game.user?.isGM ? postActionCard : undefined;
      },
      openRulesSheet: (/** @type {any} */ actor) => new RulesSheet({ document: actor }).render({ force: true }),
    };
  }
});

// a system that configures its Token class after the module's `init` still gets our mixins
Hooks.once("setup", () => composeTokenClasses());

// "the game system's Health bar" changed: redraw the bars (Token render flag `refreshBars`); told by
// the registration's onChange, as the first change of a world setting is a createSetting (F4)
Hooks.on(SETTING_CHANGED_HOOK, (/** @type {any} */ changed) => {
  if (changed?.key !== `${MODULE_ID}.systemBar`) return;
  for (const token of /** @type {any} */ (canvas)?.tokens?.placeables ?? []) token.renderFlags?.set({ refreshBars: true });
});

Hooks.once("ready", () => {
  relay = makeRelayQueue(globalThis, { onWaiting: () => host?.refreshIndicator() });
  host = new BridgeHost({
    hooks: Hooks,
    self: () => game.user,
    users: () => game.users,
    writeClaim: (claim) => (claim ? game.user.setFlag(MODULE_ID, BRIDGE_FLAG, claim) : game.user.unsetFlag(MODULE_ID, BRIDGE_FLAG)),
    eligible,
    start: startBridge,
    stop: stopBridge,
    subtle: globalThis.crypto?.subtle,
    onIndicator: setIndicator,
    onBridgeChange: () => relay?.wake(),
    onStandby: (name) => ui.notifications.info(t("VTTBRIDGE.Notice.Standby", { name })),
    waiting: () => relay?.waiting ?? 0,
  });
  const bridgeHost = host;
  // only the elected browser answers: v13 a query to its user, v12 requests addressed and sealed to it
  listenAsBridge(
    { generation: game.release?.generation ?? 12, queries: CONFIG.queries, socket: game.socket },
    {
      runsBridge: () => !!connection?.connected,
      user: (id) => game.users.get(id),
      owns: ownsSubject(globalThis, () => applier?.state?.scene?.id),
      locates: locatesTarget(globalThis, () => applier?.state?.scene?.id),
      send: (action, options) => /** @type {BridgeConnection} */ (connection).action(action, options),
      query: (query) => /** @type {BridgeConnection} */ (connection).query(query),
      selfId: game.user.id,
      privateKey: () => bridgeHost.privateKey,
      subtle: globalThis.crypto?.subtle,
    },
  );
  warnConnectionSettings();
  void host.publish();
});

Hooks.on("canvasReady", () => connection?.resync("scene"));

Hooks.on("updateToken", (/** @type {any} */ token, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendAction(moveFromTokenUpdate(token, changes, options, applier?.state));
});

Hooks.on("createToken", (/** @type {any} */ token, /** @type {any} */ options) => {
  if (connection && !isOwnWrite(options)) sendUpserts(upsertsFromTokenLifecycle(token, true, applier?.state, stateOf));
});

Hooks.on("deleteToken", (/** @type {any} */ token, /** @type {any} */ options) => {
  if (connection && !isOwnWrite(options)) sendUpserts(upsertsFromTokenLifecycle(token, false, applier?.state));
});

Hooks.on("updateCombat", (/** @type {any} */ combat, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendAction(roundFromCombatUpdate(combat, changes, options, applier?.state));
});

Hooks.on("updateActor", (/** @type {any} */ actor, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (connection) sendUpserts(upsertsFromActorUpdate(actor, changes, options, applier?.state));
  if (touchesSystemData(changes) && !isOwnWrite(options)) forwardSystemChange(actor);
});

// an unlinked token's own actor: its system changes arrive in updateToken (`delta`), and (v11+) as
// updateActor of the synthetic actor too; forwardSystemChange sends them once (F22)
Hooks.on("updateToken", (/** @type {any} */ token, /** @type {any} */ changes, /** @type {any} */ options) => {
  if (touchesSystemData(changes?.delta) && !isOwnWrite(options)) forwardSystemChange(token.actor);
});

// the system's Conditions and Tilts are Items
for (const [hook, created] of /** @type {const} */ ([["createItem", true], ["deleteItem", false]])) {
  Hooks.on(hook, (/** @type {any} */ item, /** @type {any} */ options) => {
    const actor = item?.parent;
    if (!connection || !actor?.uuid || isOwnWrite(options)) return;
    const { adapter, actorData } = systemOf(actor);
    sendUpserts(upsertsFromConditionItem(adapter, actorData, { type: item.type, name: item.name }, created, actor.uuid, applier?.state));
  });
}

for (const hook of ["createActiveEffect", "deleteActiveEffect"]) {
  Hooks.on(hook, (/** @type {any} */ effect, /** @type {any} */ options) => {
    if (connection && !isOwnWrite(options)) sendUpserts(upsertsFromEffectEvent(effect, hook === "createActiveEffect", applier?.state));
  });
}

/** @param {any} actor */
function rulesControls(actor) {
  return [
    { action: `${MODULE_ID}-roll`, icon: "fa-solid fa-dice-d10", label: "VTTBRIDGE.Roll.Dialog.Open", onClick: () => openRollDialog(actor, rollDeps) },
    { action: `${MODULE_ID}-rules`, icon: "fa-solid fa-scale-balanced", label: "VTTBRIDGE.Sheet.Open", onClick: () => new RulesSheet({ document: actor }).render({ force: true }) },
    { action: `${MODULE_ID}-damage`, icon: "fa-solid fa-heart-crack", label: "VTTBRIDGE.Dialog.damageButton", onClick: () => openDamageDialog(actor, "damage") },
    { action: `${MODULE_ID}-heal`, icon: "fa-solid fa-heart-pulse", label: "VTTBRIDGE.Dialog.healButton", onClick: () => openDamageDialog(actor, "heal") },
  ];
}

// ApplicationV2 actor sheets. v13+: an entry's `onClick` runs it —
// https://foundryvtt.com/api/interfaces/foundry.applications.types.ApplicationHeaderControlsEntry.html;
// v12's entry has no onClick (icon, label, action, visible, ownership —
// https://foundryvtt.com/api/v12/interfaces/foundry.applications.types.ApplicationHeaderControlsEntry.html):
// its `action` is dispatched to the application's `options.actions` (F6)
Hooks.on("getHeaderControlsActorSheetV2", (/** @type {any} */ app, /** @type {any[]} */ controls) => {
  if (!app.document?.isOwner) return;
  for (const control of rulesControls(app.document)) {
    if ((game.release?.generation ?? 12) >= 13) {
      controls.push(control);
      continue;
    }
    const { onClick, ...entry } = control;
    if (app.options) app.options.actions = { ...(app.options.actions ?? {}), [control.action]: () => onClick() };
    controls.push(entry);
  }
});

// v12: Application (v1) actor sheets
Hooks.on("getActorSheetHeaderButtons", (/** @type {any} */ app, /** @type {any[]} */ buttons) => {
  if (!app.actor?.isOwner) return;
  for (const c of rulesControls(app.actor)) buttons.unshift({ label: t(c.label), class: c.action, icon: c.icon, onclick: c.onClick });
});

// the damage dialog and the cards' Apply buttons: to the targets or the selection, one batch; its
// own init handler, so the chat hook (one per version) does not wait on the rest of the set-up
Hooks.once("init", () => {
  // the damage dialog opens with this user's last damage type (a flag of their own User)
  const lastType = {
    get: () => game.user?.getFlag?.(MODULE_ID, LAST_TYPE_FLAG),
    set: (/** @type {string} */ type) => Promise.resolve(game.user?.setFlag?.(MODULE_ID, LAST_TYPE_FLAG, type)).catch((/** @type {unknown} */ error) => console.warn(`${MODULE_ID} |`, error)),
  };
  damageTools = installDamageTools({ sendAction, localize: t, preview: previewDamage, lastType });
});
