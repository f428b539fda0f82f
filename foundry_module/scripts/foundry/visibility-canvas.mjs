/**
 * Foundry wiring of who sees what (thin; every decision is in `visibility.mjs`):
 * - a Token class mixin installed at `init` on `CONFIG.Token.objectClass`: `isVisible` (unlocated →
 *   not drawn; approximate → drawn even out of sight), the approximate look (art, name plate, bars,
 *   effects, tooltip, target markers, turn marker hidden; the anonymous silhouette of `drawing.mjs`
 *   drawn instead, with its own neutral target marker while this user targets it (DET-10); neutral
 *   border), `_canHUD`/`_canHover`/`_canControl`/`_canView`/`_canDrag`, `setTarget` refusal of an
 *   unlocated token, `_isLightSource` (an unlocated token's light does not shine here);
 * - the combat tracker (v12/v13: `_isTokenVisible` on the configured class' prototype; v14: a
 *   subclass, as `CONFIG.ui.combat` is read when the UI is built; every version: rows removed in
 *   `renderCombatTracker` as a second line of defence);
 * - refresh on `updateToken` (our flag), `controlToken`, token create/delete, ownership changes;
 * - the GM overlay of who locates whom (keybinding + token tool, drawn on `canvas.controls`);
 * - chat: a message spoken as a token this player cannot pinpoint shows "Someone" and no portrait
 *   (render only, on this client; `speakerPresentation`).
 * Everything is read from the `env` passed in (usually `globalThis`), so tests drive it with fakes.
 * @module visibility-canvas
 */

import { AREAS_FLAG, MODULE_ID, SETTING_CHANGED_HOOK } from "../core/constants.mjs";
import { areaFor, areasFlagChanged } from "../core/areas.mjs";
import { PALETTE_SETTING, paletteOf } from "../core/palette.mjs";
import { chatRenderHook, namespacedClass } from "./compat.mjs";
import { composeOnce, TOKEN_MIXIN_TAGS } from "../systems/canvas.mjs";
import { createSilhouette, createSilhouetteTarget, createText, fillPolygon, setLabel, strokeSegments } from "../core/drawing.mjs";
import {
  locateStateFor,
  observersFor,
  OVERLAY_LABEL_LIMIT,
  overlayArrow,
  overlayLegend,
  overlayRelations,
  presentationFor,
  setOverlayToolActive,
  speakerPresentation,
  addOverlayTool,
  tokenChangeKinds,
  visibilityFlagChanged,
  visibilityFlagOf,
} from "../core/visibility.mjs";

/** The keybinding action and the token tool name of the GM overlay. */
export const OVERLAY_ACTION = "visibilityOverlay";
export const OVERLAY_TOOL = `${MODULE_ID}-visibility`;
/** The hook called (with the refreshed token placeables) after this client's presentation changed. */
export const VISIBILITY_HOOK = `${MODULE_ID}.visibility`;

/** The token property holding its silhouette (the container `createSilhouette` returns). */
const SILHOUETTE = "_vttBridgeSilhouette";
/** The token property mapping the children `muteForeignChildren` made unrenderable to their former `renderable`. */
const MUTED = Symbol("vtt-bridge muted children");

/**
 * @typedef {import("../core/visibility.mjs").Presentation} Presentation
 * @typedef {import("../core/visibility.mjs").Observers} Observers
 */

/** @type {VisibilityRuntime|null} the installed runtime (one per page) */
let runtime = null;

/**
 * True when this client draws the token as a silhouette or not at all (unlocated, or Foundry's own
 * test hides it), so another layer (Health boxes, counters) must not name it either. Accepts a token
 * placeable or a token document. False before `installVisibility` ran.
 * @param {any} token
 * @returns {boolean}
 */
export function isIdentityHidden(token) {
  if (!runtime || !token) return false;
  const placeable = token.document ? token : (token.object ?? { document: token, controlled: false });
  if (runtime.presentationOf(placeable).identityHidden) return true;
  return placeable.visible === false;
}

/**
 * Install everything. Call once, in the `init` hook (the Token class must be replaced before the
 * canvas is drawn; keybindings must be registered during `init`).
 * @param {{env?: any, localize?: (key: string, data?: Record<string, string>) => string}} [options]
 * @returns {VisibilityRuntime}
 */
export function installVisibility({ env = globalThis, localize } = {}) {
  runtime = new VisibilityRuntime(env, localize ?? ((key, data) => (data ? env.game.i18n.format(key, data) : env.game.i18n.localize(key))));
  runtime.install();
  return runtime;
}

/**
 * Show a rendered chat message's speaker anonymously: the sender name becomes `label` and every
 * portrait in the header goes (core's `.message-sender`; the avatar and `.name-stacked .title` that
 * systems such as dnd5e put in it; images other modules add to `.message-header`). The message's
 * content and document are left alone.
 * @param {any} root the message's element (`li.chat-message`)
 * @param {string} label
 * @returns {boolean} whether a header was found
 */
export function anonymizeSpeaker(root, label) {
  const header = root?.querySelector?.(".message-header");
  if (!header) return false;
  for (const media of header.querySelectorAll(".avatar, img, video")) media.remove();
  const sender = header.querySelector(".message-sender");
  if (sender) {
    const title = sender.querySelector(".name-stacked .title");
    if (title) title.textContent = label;
    else sender.textContent = label;
    for (const attribute of ["title", "data-tooltip", "aria-label"]) sender.removeAttribute?.(attribute);
  }
  return true;
}

/**
 * The Token mixin. `runtime` answers the decisions; everything else is Foundry's.
 * @param {VttBridgeTokenClass} Base the configured Token class
 * @param {VisibilityRuntime} rt
 * @returns {VttBridgeTokenClass}
 */
export function visibilityTokenMixin(Base, rt) {
  return class VttBridgeVisibilityToken extends Base {
    /** @override */
    get isVisible() {
      const p = rt.presentationOf(this);
      if (!p.drawn) return false;
      if (!p.coreVisibility) return true;
      return super.isVisible;
    }

    /** @override */
    _refreshVisibility() {
      super._refreshVisibility();
      rt.applyPresentation(this);
    }

    /**
     * Also the token's ruler (v13+, the path a user plans or drags it along, shown to other users):
     * core sets `ruler.visible` from the ruler's own `isVisible` here (BaseTokenRuler page); a token
     * this client may not drag because it does not locate it (approximate, unlocated) shows none.
     * @override
     */
    _refreshState() {
      super._refreshState();
      rt.applyPresentation(this);
      if (this.ruler && typeof this.ruler === "object" && !rt.presentationOf(this).drag) this.ruler.visible = false;
    }

    /**
     * Core sets the mesh's visibility in more than one refresh; clamp it here too.
     * @override
     */
    _refreshMesh() {
      if (typeof super._refreshMesh === "function") super._refreshMesh();
      rt.applyPresentation(this);
    }

    /** @override */
    _getBorderColor(/** @type {any[]} */ ...args) {
      if (rt.presentationOf(this).border === "neutral") return rt.neutralBorderColor();
      return super._getBorderColor(...args);
    }

    /** @override */
    _canHUD(/** @type {any} */ user, /** @type {any} */ event) {
      return rt.presentationOf(this).hud && super._canHUD(user, event);
    }

    /** @override */
    _canHover(/** @type {any} */ user, /** @type {any} */ event) {
      return rt.presentationOf(this).hover && super._canHover(user, event);
    }

    /** @override */
    _canControl(/** @type {any} */ user, /** @type {any} */ event) {
      return rt.presentationOf(this).control && super._canControl(user, event);
    }

    /** @override */
    _canView(/** @type {any} */ user, /** @type {any} */ event) {
      return rt.presentationOf(this).view && (typeof super._canView !== "function" || super._canView(user, event));
    }

    /** @override */
    _canDrag(/** @type {any} */ user, /** @type {any} */ event) {
      return rt.presentationOf(this).drag && (typeof super._canDrag !== "function" || super._canDrag(user, event));
    }

    /** @override */
    _isLightSource() {
      return (typeof super._isLightSource !== "function" || super._isLightSource()) && rt.presentationOf(this).emitsLight;
    }

    /**
     * Refuse to target a token this user may not target (untargeting is always allowed).
     * @override
     */
    setTarget(targeted = true, /** @type {any} */ options = {}) {
      const forThisUser = !options?.user || options.user === rt.env.game.user;
      if (targeted && forThisUser && !rt.presentationOf(this).targetable) return;
      return super.setTarget(targeted, options);
    }

    /**
     * While a silhouette, render only the silhouette and the border: whatever other child a module
     * adds to the token (or core adds in a later version) stays undrawn.
     * @override
     */
    render(/** @type {any} */ renderer) {
      const silhouette = this[SILHOUETTE];
      if (!silhouette || silhouette.destroyed || !silhouette.visible || !rt.presentationOf(this).silhouette) {
        super.render(renderer);
        return;
      }
      /** @type {any[]} */
      const children = this.children;
      this.children = [this.border, silhouette].filter((c) => c && !c.destroyed && c.parent === this);
      try {
        super.render(renderer);
      } finally {
        this.children = children;
      }
    }
  };
}

/** Children of a token that name or describe it, with the presentation field that allows each. */
const TOKEN_PARTS = /** @type {const} */ ([
  ["nameplate", "name"],
  ["bars", "bars"],
  ["effects", "effects"],
  ["tooltip", "tooltip"],
  ["targetArrows", "targetMarkers"], // v13+
  ["targetPips", "targetMarkers"], // v13+
  ["target", "targetMarkers"], // v12
  ["turnMarker", "turnMarker"], // v13+
  ["levelIndicator", "name"], // v14 (elevation/level badge)
  ["voidMesh", "art"],
  ["detectionFilterMesh", "art"],
]);

export class VisibilityRuntime {
  /**
   * @param {any} env usually `globalThis`
   * @param {(key: string, data?: Record<string, string>) => string} localize
   */
  constructor(env, localize) {
    this.env = env;
    this.localize = localize;
    /** @type {Observers|null} cached until something that changes them happens */
    this.observers = null;
    /** @type {WeakMap<object, Presentation>} the last presentation applied per token */
    this.applied = new WeakMap();
    /** GM overlay on/off (this browser only) */
    this.overlayActive = false;
    /** @type {any} */
    this.overlay = null;
    /** @type {HTMLElement|null} */
    this.legend = null;
    /** @type {Set<any>|"all"|null} tokens waiting for a refresh */
    this.pending = null;
    this.overlayPending = false;
  }

  get canvas() {
    return this.env.canvas;
  }

  install() {
    const { CONFIG, Hooks } = this.env;
    const Token = CONFIG.Token?.objectClass ?? namespacedClass(this.env, "foundry.canvas.placeables.Token", "Token");
    // extends the configured class (a game system's own, e.g. mta's), once: systems/canvas.mjs
    if (Token) CONFIG.Token.objectClass = composeOnce(Token, (Base) => visibilityTokenMixin(Base, this), TOKEN_MIXIN_TAGS.visibility);
    this.installCombatTracker();
    this.installChatSpeaker();
    this.registerKeybinding();

    Hooks.on("updateToken", (/** @type {any} */ doc, /** @type {any} */ changes) => {
      const kinds = tokenChangeKinds(changes);
      const flag = visibilityFlagChanged(changes) || areasFlagChanged(changes, MODULE_ID, AREAS_FLAG);
      if (kinds.observers) this.invalidateObservers();
      if (flag && doc.object) this.schedule([doc.object]);
      if (flag || kinds.position || kinds.observers) this.scheduleOverlay();
    });
    Hooks.on("controlToken", () => {
      this.invalidateObservers();
      this.scheduleOverlay();
    });
    Hooks.on("hoverToken", () => this.scheduleOverlay());
    // `targetToken(user, token, targeted)`: redraw the silhouette's own target marker
    Hooks.on("targetToken", (/** @type {any} */ _user, /** @type {any} */ token) => {
      if (token) this.schedule([token]);
    });
    for (const hook of ["createToken", "deleteToken"]) {
      Hooks.on(hook, () => {
        this.invalidateObservers();
        this.scheduleOverlay();
      });
    }
    Hooks.on("updateActor", (/** @type {any} */ _actor, /** @type {any} */ changes) => {
      if (changes && (Object.hasOwn(changes, "ownership") || Object.hasOwn(changes, "permission"))) this.invalidateObservers();
    });
    // F19: the viewed scene's token vision switched: who this browser looks through changes
    // (`tokenVision`, a Scene field — https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.SceneData.html)
    Hooks.on("updateScene", (/** @type {any} */ scene, /** @type {any} */ changes) => {
      if (changes && Object.hasOwn(changes, "tokenVision") && scene?.id === this.canvas?.scene?.id) {
        this.invalidateObservers();
        this.scheduleOverlay();
      }
    });
    Hooks.on("canvasReady", () => {
      // observers computed while the layer was still being drawn may be partial
      this.invalidateObservers();
      this.overlay = null;
      if (this.overlayActive) this.scheduleOverlay();
    });
    Hooks.on("canvasTearDown", () => {
      this.overlay = null;
    });
    // SETTING_CHANGED_HOOK: the registration's onChange (the palette is a client setting: L1)
    for (const hook of ["updateSetting", "createSetting", SETTING_CHANGED_HOOK]) {
      Hooks.on(hook, (/** @type {any} */ setting) => {
        if (setting?.key === `${MODULE_ID}.${PALETTE_SETTING}`) this.scheduleOverlay();
      });
    }
    Hooks.on("getSceneControlButtons", (/** @type {any} */ controls) => {
      if (!this.env.game.user?.isGM) return;
      addOverlayTool(controls, {
        name: OVERLAY_TOOL,
        title: "VTTBRIDGE.Visibility.Tool",
        icon: "fa-solid fa-eye-low-vision",
        active: this.overlayActive,
        onToggle: (/** @type {boolean} */ active) => this.setOverlay(active, false),
      });
    });
  }

  // -------------------------------------------------------------------------------------------
  // decisions for this client

  /** @returns {Observers} */
  clientObservers() {
    if (this.observers) return this.observers;
    const { game } = this.env;
    const layer = this.canvas?.tokens;
    if (!layer?.placeables || !game.user) return { source: game.user?.isGM ? "all" : "none", ids: [] };
    const user = game.user;
    const candidates = layer.placeables.map((/** @type {any} */ t) => ({
      id: t.document?.id,
      controlled: !!t.controlled,
      observable: !!(t.actor?.testUserPermission?.(user, "OBSERVER") ?? t.document?.isOwner),
      hasSight: !!(t.hasSight ?? t.document?.sight?.enabled),
      hidden: !!t.document?.hidden,
    }));
    const tokenVision = this.canvas?.visibility?.tokenVision ?? this.canvas?.scene?.tokenVision ?? true;
    this.observers = observersFor({ isGM: !!user.isGM, tokens: candidates, tokenVision: !!tokenVision });
    return this.observers;
  }

  /**
   * @param {any} token a placeable (or `{document, controlled}`)
   * @returns {Presentation}
   */
  presentationOf(token) {
    const { game } = this.env;
    const doc = token?.document;
    const observers = this.clientObservers();
    const flag = visibilityFlagOf(doc);
    const state = observers.ids.length ? locateStateFor(flag, observers.ids) : null;
    const area = state === "approximate" ? areaFor(doc?.flags?.[MODULE_ID]?.[AREAS_FLAG], flag, observers.ids) : null;
    return presentationFor({
      area,
      state,
      isGM: !!game.user?.isGM,
      isOwner: !!doc?.isOwner,
      isControlled: !!token?.controlled,
      isObserver: observers.ids.includes(doc?.id),
      hidden: !!doc?.hidden,
    });
  }

  neutralBorderColor() {
    const colors = this.env.CONFIG.Canvas?.dispositionColors;
    return colors?.INACTIVE ?? 0x555555;
  }

  /**
   * Enforce the presentation on a token after Foundry's own refresh set its parts.
   * @param {any} token
   */
  applyPresentation(token) {
    const p = this.presentationOf(token);
    const before = this.applied.get(token);
    this.applied.set(token, p);
    if (token.mesh && !p.art) token.mesh.visible = false;
    for (const [part, field] of TOKEN_PARTS) {
      const child = token[part];
      if (child && !p[field]) child.visible = false;
    }
    this.updateSilhouette(token, p);
    if (before && before.emitsLight !== p.emitsLight) {
      const init = token.initializeLightSource ?? token.initializeSources;
      if (typeof init === "function") init.call(token);
    }
  }

  /**
   * @param {any} token
   * @param {Presentation} p
   */
  updateSilhouette(token, p) {
    /** @type {any} */
    let silhouette = token[SILHOUETTE];
    const width = token.w ?? token.width ?? 0;
    const height = token.h ?? token.height ?? 0;
    if (!p.silhouette) {
      if (silhouette && !silhouette.destroyed) silhouette.visible = false;
      this.muteForeignChildren(token, null);
      return;
    }
    const stale = !silhouette || silhouette.destroyed || silhouette.parent !== token || silhouette.vttWidth !== width || silhouette.vttHeight !== height;
    if (stale) {
      if (silhouette && !silhouette.destroyed) silhouette.destroy({ children: true });
      silhouette = createSilhouette(this.env.PIXI, { width, height });
      silhouette.vttWidth = width;
      silhouette.vttHeight = height;
      silhouette.eventMode = "none";
      token.addChild(silhouette);
      token[SILHOUETTE] = silhouette;
    }
    silhouette.visible = true;
    this.updateSilhouetteTarget(token, silhouette);
    this.muteForeignChildren(token, silhouette);
  }

  /**
   * The target marker on the silhouette, while this user targets the token (the core target arrows
   * and pips stay hidden: they carry user colours). A child of the silhouette, so nothing else of
   * the token draws.
   * @param {any} token
   * @param {any} silhouette
   */
  updateSilhouetteTarget(token, silhouette) {
    const targeted = !!token.targeted?.has?.(this.env.game.user);
    /** @type {any} */
    let marker = silhouette.vttTarget;
    if (targeted && (!marker || marker.destroyed)) {
      marker = createSilhouetteTarget(this.env.PIXI, { width: silhouette.vttWidth, height: silhouette.vttHeight });
      marker.eventMode = "none";
      silhouette.addChild(marker);
      silhouette.vttTarget = marker;
    }
    if (marker && !marker.destroyed) marker.visible = targeted;
  }

  /**
   * The Token mixin's `render` override keeps every child but the border and the silhouette undrawn
   * where the scene graph calls `render(renderer)` on containers (PixiJS 7). PixiJS 8 renders through
   * its render pipes and never calls it (detected: `Container.prototype.render` is missing), so there
   * those children are made unrenderable while the silhouette shows, and given back after.
   * @param {any} token
   * @param {any} silhouette the shown silhouette, or null when the token is no silhouette
   */
  muteForeignChildren(token, silhouette) {
    /** @type {Map<any, boolean>} each muted child, and whether it was renderable before */
    const muted = token[MUTED] ?? new Map();
    const renderCalled = typeof this.env.PIXI?.Container?.prototype?.render === "function";
    const keep = new Set([token.border, silhouette]);
    const next = new Set(silhouette && !renderCalled ? (token.children ?? []).filter((/** @type {any} */ c) => !keep.has(c)) : []);
    for (const [child, was] of muted) {
      if (next.has(child)) continue;
      if (!child.destroyed) child.renderable = was; // given back as it was, not forced on
      muted.delete(child);
    }
    for (const child of next) {
      if (muted.has(child)) continue;
      muted.set(child, child.renderable !== false);
      child.renderable = false;
    }
    token[MUTED] = muted;
  }

  // -------------------------------------------------------------------------------------------
  // refresh

  invalidateObservers() {
    this.observers = null;
    this.schedule("all");
  }

  /** @param {any[]|"all"} tokens */
  schedule(tokens) {
    const first = this.pending === null;
    if (tokens === "all" || this.pending === "all") this.pending = "all";
    else {
      this.pending ??= new Set();
      for (const t of tokens) /** @type {Set<any>} */ (this.pending).add(t);
    }
    if (first) this.defer(() => this.flush());
  }

  /** @param {() => void} fn */
  defer(fn) {
    const raf = this.env.requestAnimationFrame;
    if (typeof raf === "function") raf.call(this.env, fn);
    else setTimeout(fn, 0);
  }

  flush() {
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    // a hook may have run before Foundry finished changing who is controlled: read it again now
    if (pending === "all") this.observers = null;
    const tokens = pending === "all" ? [...(this.canvas?.tokens?.placeables ?? [])] : [...pending].filter((t) => !t.destroyed);
    const { game, ui } = this.env;
    for (const token of tokens) {
      token.renderFlags?.set({ refreshVisibility: true, refreshState: true });
      const p = this.presentationOf(token);
      if (!p.targetable && token.targeted?.has?.(game.user)) token.setTarget(false, { releaseOthers: false });
    }
    if (game.combat) ui?.combat?.render?.();
    this.env.Hooks.callAll(VISIBILITY_HOOK, tokens);
  }

  // -------------------------------------------------------------------------------------------
  // combat tracker

  installCombatTracker() {
    const { CONFIG, Hooks, game } = this.env;
    const rt = this;
    /** @param {any} token placeable or document */
    const shows = (token) => {
      const placeable = token?.document ? token : token?.object;
      return !placeable || rt.presentationOf(placeable).inCombatTracker;
    };
    const Tracker = CONFIG.ui?.combat;
    if (Tracker?.prototype) {
      if ((game.release?.generation ?? 0) >= 14) {
        CONFIG.ui.combat = class extends Tracker {
          /** @param {any} token */
          _isTokenVisible(token) {
            return shows(token) && (typeof super._isTokenVisible === "function" ? super._isTokenVisible(token) : true);
          }
        };
      } else if (typeof Tracker.prototype._isTokenVisible === "function") {
        const original = Tracker.prototype._isTokenVisible;
        Tracker.prototype._isTokenVisible = function (/** @type {any} */ token) {
          return shows(token) && original.call(this, token);
        };
      }
    }
    // every version (v12 has no `_isTokenVisible`): drop the rows of combatants this user may not see
    Hooks.on("renderCombatTracker", (/** @type {any} */ app, /** @type {any} */ html) => {
      const root = html?.[0] ?? html;
      const combat = app?.viewed ?? game.combat;
      if (!root?.querySelectorAll || !combat?.combatants) return;
      for (const row of root.querySelectorAll("[data-combatant-id]")) {
        const combatant = combat.combatants.get(row.dataset.combatantId);
        const token = combatant?.token?.object ?? combatant?.token;
        if (token && !shows(token)) row.remove();
      }
    });
  }

  // -------------------------------------------------------------------------------------------
  // chat speaker (docs/visibility-leaks.md row 16)

  installChatSpeaker() {
    const { Hooks, game } = this.env;
    // one hook per version (v13 warns about any renderChatMessage listener): v13+ HTMLElement, v12 jQuery
    const hook = chatRenderHook(game.release?.generation);
    Hooks.on(hook, (/** @type {any} */ message, /** @type {any} */ html) =>
      this.presentSpeaker(message, hook === "renderChatMessage" ? (html?.[0] ?? html) : html),
    );
    // messages rendered before the canvas was drawn were decided without it: decide them again
    Hooks.on("canvasReady", () => this.rerenderSpeakers());
  }

  /**
   * @param {any} message a ChatMessage
   * @param {any} root its rendered element
   */
  presentSpeaker(message, root) {
    if (this.speakerAnonymous(message)) anonymizeSpeaker(root, this.localize("VTTBRIDGE.Visibility.Speaker.Someone"));
  }

  /**
   * Whether this client shows the message's speaker anonymously. Cheap for GMs and for messages not
   * spoken as a token of the viewed scene.
   * @param {any} message
   * @returns {boolean}
   */
  speakerAnonymous(message) {
    const user = this.env.game.user;
    const speaker = message?.speaker;
    if (!user || user.isGM || !speaker?.token) return false;
    const author = message.author ?? message.user; // v13 `author`, v12 `user`
    const isAuthor = typeof message.isAuthor === "boolean" ? message.isAuthor : (author?.id ?? author) === user.id;
    if (isAuthor) return false;
    const canvas = this.canvas;
    const scene = canvas?.scene ?? this.env.game.scenes?.viewed;
    if (!scene || speaker.scene !== scene.id) return false;
    if (!canvas?.ready) {
      // not drawn yet: who observes is unknown; a ruled token not the user's own stays anonymous
      // until `canvasReady` renders the message again
      const doc = scene.tokens?.get?.(speaker.token);
      const unresolved = !!doc && !doc.isOwner && (visibilityFlagOf(doc) ?? null) !== null;
      return speakerPresentation({ presentation: unresolved ? { identityHidden: true } : null, isGM: false, isAuthor }).anonymous;
    }
    const layer = canvas.tokens;
    const token = layer?.get?.(speaker.token) ?? layer?.placeables?.find((/** @type {any} */ t) => t.document?.id === speaker.token);
    return speakerPresentation({ presentation: token ? this.presentationOf(token) : null, isGM: false, isAuthor }).anonymous;
  }

  /** Render again the chat log's messages spoken as a token of the viewed scene (players only). */
  rerenderSpeakers() {
    const { game, ui } = this.env;
    const sceneId = this.canvas?.scene?.id;
    const log = ui?.chat;
    const root = log?.element?.[0] ?? log?.element;
    if (game.user?.isGM || !sceneId || typeof log?.updateMessage !== "function" || !root?.querySelectorAll) return;
    this.observers = null; // may have been read while the layer was drawn
    for (const li of root.querySelectorAll("[data-message-id]")) {
      const message = game.messages?.get?.(li.dataset?.messageId);
      if (message?.speaker?.token && message.speaker.scene === sceneId && !message.isAuthor) log.updateMessage(message);
    }
  }

  // -------------------------------------------------------------------------------------------
  // GM overlay

  registerKeybinding() {
    const { game } = this.env;
    game.keybindings?.register?.(MODULE_ID, OVERLAY_ACTION, {
      name: "VTTBRIDGE.Visibility.Keybinding.Name",
      hint: "VTTBRIDGE.Visibility.Keybinding.Hint",
      editable: [{ key: "KeyV", modifiers: ["Shift"] }],
      restricted: true,
      onDown: () => {
        if (!game.user?.isGM) return false;
        this.setOverlay(!this.overlayActive, true);
        return true;
      },
    });
  }

  /**
   * @param {boolean} active
   * @param {boolean} syncTool update the token tool's pressed state (when toggled by the key)
   */
  setOverlay(active, syncTool) {
    if (!this.env.game.user?.isGM) active = false;
    this.overlayActive = active;
    if (syncTool) {
      const controls = this.env.ui?.controls;
      if (controls && setOverlayToolActive(controls.controls, OVERLAY_TOOL, active)) controls.render?.();
    }
    if (active) this.scheduleOverlay();
    else this.clearOverlay();
  }

  scheduleOverlay() {
    if (!this.overlayActive || this.overlayPending) return;
    this.overlayPending = true;
    this.defer(() => {
      this.overlayPending = false;
      this.drawOverlay();
    });
  }

  clearOverlay() {
    if (this.overlay && !this.overlay.destroyed) this.overlay.destroy({ children: true });
    this.overlay = null;
    this.legend?.remove();
    this.legend = null;
  }

  drawOverlay() {
    const { PIXI } = this.env;
    const canvas = this.canvas;
    const layer = canvas?.tokens;
    const parent = canvas?.controls ?? canvas?.interface;
    if (!this.overlayActive || !layer?.placeables || !parent || !PIXI) return;
    if (!this.overlay || this.overlay.destroyed || this.overlay.parent !== parent) {
      this.overlay = new PIXI.Container();
      setLabel(this.overlay, `${MODULE_ID}-visibility-overlay`);
      this.overlay.eventMode = "none";
      parent.addChild(this.overlay);
    }
    const overlay = this.overlay;
    for (const child of overlay.removeChildren()) child.destroy({ children: true });

    const { relations, total, counts, malformed, truncated, focus, grid } = this.overlayLines();
    const g = new PIXI.Graphics();
    overlay.addChild(g);
    const labels = relations.length <= OVERLAY_LABEL_LIMIT;
    const palette = this.palette();
    for (const relation of relations) {
      const arrow = overlayArrow(relation, grid, palette);
      if (!arrow) continue;
      const line = { width: arrow.style.width, color: arrow.style.color, alpha: 0.9 };
      strokeSegments(g, arrow.pieces, line);
      if (arrow.head) fillPolygon(g, arrow.head, arrow.style.color, 0.9);
      strokeSegments(g, arrow.marks, line);
      if (labels) {
        const text = createText(PIXI, this.stateLabel(relation), { fontSize: 14, fill: arrow.style.color, stroke: 0x000000, strokeWidth: 3 });
        text.anchor.set(0.5, 0.5);
        text.position.set(arrow.label.x, arrow.label.y);
        overlay.addChild(text);
      }
    }
    this.drawLegend({ shown: relations.length, total, counts, malformed, truncated, focused: focus.length > 0 });
  }

  /**
   * The who-locates-whom lines the overlay draws now (the hovered token's, else the controlled
   * tokens', else all, `overlayRelations`), with the focus and the grid size they are drawn at; the
   * overlay's right click (attack-tools.mjs) finds its line among the same ones.
   */
  overlayLines() {
    const canvas = this.canvas;
    const layer = canvas?.tokens;
    const placeables = layer?.placeables ?? [];
    const hovered = layer?.hover ?? null;
    const focus = hovered ? [hovered.document.id] : (layer?.controlled ?? []).map((/** @type {any} */ t) => t.document.id);
    const lines = overlayRelations(
      placeables.map((/** @type {any} */ t) => ({ id: t.document.id, center: t.center, visibility: visibilityFlagOf(t.document) })),
      focus,
    );
    const grid = canvas?.grid?.size ?? canvas?.dimensions?.size ?? 100;
    return { ...lines, focus, grid };
  }

  /** The palette of this browser's client setting (`palette.mjs`; the standard one when unset). */
  palette() {
    try {
      return paletteOf(this.env.game?.settings?.get?.(MODULE_ID, PALETTE_SETTING));
    } catch {
      return paletteOf(null); // not registered (yet)
    }
  }

  /** @param {{state: string, malformed: boolean}} relation */
  stateLabel(relation) {
    return relation.malformed ? this.localize("VTTBRIDGE.Visibility.Legend.Malformed") : this.localize(`VTTBRIDGE.Visibility.State.${relation.state}`);
  }

  /**
   * The legend (HTML, bottom left): colours, counts, "N of M shown".
   * @param {{shown: number, total: number, counts: Record<string, number>, malformed: number, truncated: boolean, focused: boolean}} data
   */
  drawLegend({ shown, total, counts, malformed, truncated, focused }) {
    const doc = this.env.document;
    if (!doc) return;
    /** @type {HTMLElement} */
    const legend = this.legend ?? doc.createElement("div");
    if (!this.legend) {
      legend.id = `${MODULE_ID}-visibility-legend`;
      doc.body.append(legend);
      this.legend = legend;
    }
    const data = overlayLegend({ shown, total, counts, malformed, truncated, focused, palette: this.palette() });
    const rows = data.rows.map(({ label, count, swatch, marker }) => {
      const line = doc.createElement("div");
      const sample = doc.createElement("span");
      sample.className = "swatch";
      sample.style.borderTop = swatch;
      line.append(sample, doc.createTextNode(`${marker} ${this.localize(label)}: ${count}`));
      return line;
    });
    const title = doc.createElement("strong");
    title.textContent = this.localize(data.title);
    const summary = doc.createElement("div");
    summary.textContent = this.localize(data.summary.key, data.summary.data);
    const hint = doc.createElement("div");
    hint.className = "hint";
    hint.textContent = this.localize(data.hint);
    legend.replaceChildren(title, ...rows, summary, hint);
  }
}
