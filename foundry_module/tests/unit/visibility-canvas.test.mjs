// The Foundry wiring of visibility-canvas.mjs, driven with Foundry-shaped fakes (written from the
// public API docs): a Token base class whose refresh methods behave like core's in outline, a
// combat tracker class, hooks, and a tiny PIXI stand-in (the real pixi.js needs a DOM).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/constants.mjs";
import { installVisibility, isIdentityHidden, OVERLAY_TOOL, VISIBILITY_HOOK } from "../../scripts/visibility-canvas.mjs";
import { FakeHooks } from "../helpers/fake-foundry.mjs";

class FakeDisplay {
  constructor() {
    /** @type {any[]} */
    this.children = [];
    /** @type {any} */
    this.parent = null;
    this.visible = true;
    this.destroyed = false;
    this.name = "";
    /** @type {any[]|null} */
    this.filters = null;
    this.position = { x: 0, y: 0, set: (/** @type {number} */ x, /** @type {number} */ y) => Object.assign(this.position, { x, y }) };
    this.anchor = { set: () => {} };
    /** @type {Array<[string, ...any[]]>} */
    this.calls = [];
  }
  /** @param {any} child */
  addChild(child) {
    child.parent = this;
    this.children.push(child);
    return child;
  }
  removeChildren() {
    const removed = this.children;
    this.children = [];
    for (const c of removed) c.parent = null;
    return removed;
  }
  destroy() {
    this.destroyed = true;
    if (this.parent) this.parent.children = this.parent.children.filter((/** @type {any} */ c) => c !== this);
    this.parent = null;
  }
}
const record = (/** @type {string} */ name) =>
  /** @this {any} @param {any[]} args */
  function (...args) {
    this.calls.push([name, ...args]);
    return this;
  };
class FakeGraphics extends FakeDisplay {}
for (const m of ["beginFill", "endFill", "drawCircle", "drawRoundedRect", "lineStyle", "moveTo", "lineTo", "drawPolygon"]) {
  // @ts-ignore
  FakeGraphics.prototype[m] = record(m);
}
const PIXI = {
  Container: FakeDisplay,
  Graphics: FakeGraphics,
  BlurFilter: class {},
  Text: class extends FakeDisplay {
    /** @param {string} text */
    constructor(text) {
      super();
      this.text = text;
    }
  },
};

/** A Token base with core's behaviour in outline. */
class BaseToken extends FakeDisplay {
  /** @param {any} document */
  constructor(document) {
    super();
    this.document = document;
    document.object = this;
    this.controlled = false;
    this.coreSees = true;
    this.w = 100;
    this.h = 100;
    this.center = { x: document.x + 50, y: document.y + 50 };
    this.mesh = new FakeDisplay();
    this.hasSight = true;
    this.actor = { testUserPermission: (/** @type {any} */ _user, /** @type {string} */ level) => level === "OBSERVER" && !!document.observable };
    for (const part of ["border", "nameplate", "bars", "effects", "tooltip", "targetArrows", "targetPips"]) {
      // @ts-ignore
      this[part] = this.addChild(new FakeDisplay());
    }
    /** @type {Set<any>} */
    this.targeted = new Set();
    /** @type {Record<string, boolean>[]} */
    this.flagsSet = [];
    this.renderFlags = { set: (/** @type {Record<string, boolean>} */ f) => this.flagsSet.push(f) };
    /** @type {any[][]} */
    this.rendered = [];
  }
  get isVisible() {
    return this.coreSees;
  }
  _refreshVisibility() {
    this.visible = this.isVisible;
    this.mesh.visible = this.visible;
  }
  _refreshState() {
    for (const part of ["nameplate", "bars", "effects", "tooltip", "targetArrows", "targetPips"]) {
      // @ts-ignore
      this[part].visible = true;
    }
    // @ts-ignore
    this.border.tint = this._getBorderColor();
  }
  refresh() {
    this._refreshVisibility();
    this._refreshState();
  }
  _getBorderColor() {
    return 0xff0000;
  }
  _canHUD() {
    return true;
  }
  _canHover() {
    return true;
  }
  _canControl() {
    return true;
  }
  _canView() {
    return true;
  }
  _canDrag() {
    return true;
  }
  _isLightSource() {
    return true;
  }
  /** @param {boolean} targeted @param {any} [options] */
  setTarget(targeted = true, options = {}) {
    const user = options.user ?? env.game.user;
    if (targeted) this.targeted.add(user);
    else this.targeted.delete(user);
  }
  /** @param {any} _renderer */
  render(_renderer) {
    this.rendered.push([...this.children]);
  }
}

/** @type {any} */
let env;
/** @type {Function[]} */
let frames;

/** @param {{isGM?: boolean, generation?: number}} [options] */
function makeEnv({ isGM = false, generation = 13 } = {}) {
  frames = [];
  /** @type {any[]} */
  const keybindings = [];
  // a fresh class per test: v12/v13 patch its prototype
  class FakeTracker {
    /** @param {any} token */
    _isTokenVisible(token) {
      return !!token?.visible;
    }
  }
  env = {
    CONFIG: { Token: { objectClass: BaseToken }, Canvas: { dispositionColors: { INACTIVE: 0x555555 } }, ui: { combat: FakeTracker } },
    game: {
      user: { id: "u1", isGM },
      release: { generation },
      keybindings: { register: (/** @type {any[]} */ ...args) => keybindings.push(args) },
      i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k },
      combat: null,
    },
    ui: { combat: { renders: 0, render() { this.renders += 1; } }, controls: { controls: { tokens: { tools: {} } }, renders: 0, render() { this.renders += 1; } } },
    Hooks: new FakeHooks(),
    PIXI,
    requestAnimationFrame: (/** @type {Function} */ fn) => frames.push(fn),
    canvas: null,
    keybindings,
    FakeTracker,
  };
  return env;
}

function runFrames() {
  while (frames.length) /** @type {Function} */ (frames.shift())();
}

/**
 * A scene: the player's token O (observed; controlled if asked) and a target T whose flag says how
 * O locates it.
 * @param {{state?: unknown, controlled?: boolean, ownsTarget?: boolean}} [options]
 */
function makeScene({ state, controlled = true, ownsTarget = false } = {}) {
  const Token = env.CONFIG.Token.objectClass;
  const o = new Token({ id: "O", x: 0, y: 0, flags: {}, observable: true, isOwner: true });
  const t = new Token({ id: "T", x: 300, y: 0, flags: state === undefined ? {} : { [MODULE_ID]: { visibility: { O: state } } }, observable: ownsTarget, isOwner: ownsTarget });
  o.controlled = controlled;
  const placeables = [o, t];
  env.canvas = {
    tokens: { placeables, get controlled() { return placeables.filter((p) => p.controlled); }, hover: null },
    visibility: { tokenVision: true },
    grid: { size: 100 },
    controls: new FakeDisplay(),
  };
  return { o, t };
}

test("installVisibility: Token mixin on CONFIG.Token.objectClass, a restricted keybinding, tracker patched", () => {
  makeEnv();
  installVisibility({ env });
  assert.notEqual(env.CONFIG.Token.objectClass, BaseToken);
  assert.ok(env.CONFIG.Token.objectClass.prototype instanceof BaseToken);
  assert.equal(env.keybindings.length, 1);
  const [namespace, action, config] = env.keybindings[0];
  assert.equal(namespace, MODULE_ID);
  assert.equal(action, "visibilityOverlay");
  assert.equal(config.restricted, true);
  assert.equal(config.name, "VTTBRIDGE.Visibility.Keybinding.Name");
  assert.equal(env.CONFIG.ui.combat, env.FakeTracker, "v13: the class stays");
  assert.notEqual(env.FakeTracker.prototype._isTokenVisible.name, "_isTokenVisible", "v13: the prototype method is wrapped");
});

test("approximate for a player: drawn out of sight as a silhouette, nothing that names it, no interaction", () => {
  makeEnv();
  installVisibility({ env });
  const { t } = makeScene({ state: "approximate" });
  t.coreSees = false;
  t.refresh();
  assert.equal(t.isVisible, true);
  assert.equal(t.visible, true);
  assert.equal(t.mesh.visible, false, "the art is hidden");
  for (const part of ["nameplate", "bars", "effects", "tooltip", "targetArrows", "targetPips"]) assert.equal(t[part].visible, false, part);
  const silhouette = t.children.find((/** @type {any} */ c) => c.name === "vtt-bridge-silhouette");
  assert.ok(silhouette?.visible, "the silhouette of drawing.mjs is a child of the token");
  assert.equal(t.border.tint, 0x555555, "no disposition colour");
  const user = env.game.user;
  for (const m of ["_canHUD", "_canHover", "_canControl", "_canView", "_canDrag"]) assert.equal(t[m](user, {}), false, m);
  t.setTarget(true);
  assert.equal(t.targeted.size, 0, "targeting refused");
  t.render({});
  assert.deepEqual(t.rendered.at(-1), [t.border, silhouette], "only the border and the silhouette are rendered");
  assert.equal(isIdentityHidden(t), true);
  assert.equal(isIdentityHidden(t.document), true, "a document works too");
  assert.equal(env.FakeTracker.prototype._isTokenVisible(t), false, "not in the combat tracker");
});

test("unlocated: not drawn, no light on this client; pinpointed: Foundry decides", () => {
  makeEnv();
  installVisibility({ env });
  const { o, t } = makeScene({ state: "unlocated" });
  t.refresh();
  assert.equal(t.isVisible, false);
  assert.equal(t.visible, false);
  assert.equal(t._isLightSource(), false);
  assert.equal(isIdentityHidden(t), true);
  assert.equal(isIdentityHidden(o), false, "the player's own token");
  t.document.flags[MODULE_ID].visibility.O = "pinpointed";
  t.coreSees = false;
  assert.equal(t.isVisible, false, "pinpointed but behind a wall: Foundry's test still applies");
  t.coreSees = true;
  t.refresh();
  assert.equal(t.isVisible, true);
  assert.equal(t.mesh.visible, true);
  assert.equal(t._isLightSource(), true);
  assert.equal(t._canHUD(env.game.user, {}), true);
  assert.equal(isIdentityHidden(t), false);
});

test("updateToken with our flag refreshes that token on the next frame; back to normal restores every part", () => {
  makeEnv();
  installVisibility({ env });
  const { t } = makeScene({ state: "approximate" });
  t.refresh();
  t.targeted.add(env.game.user); // targeted before the ruling arrived
  /** @type {any[]} */
  const announced = [];
  env.Hooks.on(VISIBILITY_HOOK, (/** @type {any[]} */ tokens) => announced.push(...tokens));
  env.Hooks.callAll("updateToken", t.document, { flags: { [MODULE_ID]: { visibility: { O: "approximate" } } } }, {});
  assert.equal(t.flagsSet.length, 0, "deferred");
  runFrames();
  assert.deepEqual(t.flagsSet, [{ refreshVisibility: true, refreshState: true }]);
  assert.equal(t.targeted.size, 0, "a target the user may no longer target is released");
  assert.deepEqual(announced, [t]);

  t.document.flags[MODULE_ID].visibility = {};
  env.Hooks.callAll("updateToken", t.document, { flags: { [MODULE_ID]: { visibility: { "-=O": null } } } }, {});
  runFrames();
  t.refresh();
  const silhouette = t.children.find((/** @type {any} */ c) => c.name === "vtt-bridge-silhouette");
  assert.equal(silhouette.visible, false);
  for (const part of ["nameplate", "bars", "effects", "tooltip"]) assert.equal(t[part].visible, true, part);
  assert.equal(t.border.tint, 0xff0000);
  t.setTarget(true);
  assert.equal(t.targeted.size, 1);
});

test("controlToken: releasing the observer falls back to observed tokens; owning the target draws it normally", () => {
  makeEnv();
  installVisibility({ env });
  const { o, t } = makeScene({ state: "unlocated" });
  assert.equal(t.isVisible, false);
  o.controlled = false;
  env.Hooks.callAll("controlToken", o, false);
  assert.equal(t.isVisible, false, "O is still an observer: the player observes it");
  runFrames();
  assert.ok(t.flagsSet.length > 0, "every token is refreshed");

  makeEnv();
  installVisibility({ env });
  const scene = makeScene({ state: "unlocated", ownsTarget: true });
  assert.equal(scene.t.isVisible, true, "a token the player owns is always drawn");
});

test("a GM controlling nothing sees everything; controlling the observer previews it, keeping interactions", () => {
  makeEnv({ isGM: true });
  installVisibility({ env });
  const { o, t } = makeScene({ state: "approximate", controlled: false });
  t.refresh();
  assert.equal(isIdentityHidden(t), false);
  o.controlled = true;
  env.Hooks.callAll("controlToken", o, true);
  t.refresh();
  assert.equal(isIdentityHidden(t), true, "the GM sees what the player would");
  assert.equal(t._canHUD(env.game.user, {}), true);
  assert.equal(env.FakeTracker.prototype._isTokenVisible.call({}, t), true, "nothing is hidden from the GM's tracker");
});

test("v14: the combat tracker is a subclass; every version drops rows in renderCombatTracker", () => {
  makeEnv({ generation: 14 });
  const before = env.FakeTracker.prototype._isTokenVisible;
  installVisibility({ env });
  assert.notEqual(env.CONFIG.ui.combat, env.FakeTracker);
  assert.equal(env.FakeTracker.prototype._isTokenVisible, before, "the core class is left alone");
  const { t } = makeScene({ state: "approximate" });
  const tracker = new env.CONFIG.ui.combat();
  assert.equal(tracker._isTokenVisible(t), false);

  /** @type {string[]} */
  const removed = [];
  const row = (/** @type {string} */ id) => ({ dataset: { combatantId: id }, remove: () => removed.push(id) });
  const html = { querySelectorAll: () => [row("cT"), row("cO")] };
  const combatants = new Map([
    ["cT", { token: t.document }],
    ["cO", { token: env.canvas.tokens.placeables[0].document }],
  ]);
  env.Hooks.callAll("renderCombatTracker", { viewed: { combatants } }, [html]);
  assert.deepEqual(removed, ["cT"]);
});

test("GM overlay: the token tool (GM only), the keybinding toggles it, lines drawn on canvas.controls", () => {
  makeEnv({ isGM: true });
  const rt = installVisibility({ env });
  makeScene({ state: "approximate", controlled: false });
  const controls = { tokens: { tools: {} } };
  env.Hooks.callAll("getSceneControlButtons", controls);
  assert.ok(OVERLAY_TOOL in controls.tokens.tools);
  env.ui.controls.controls = controls;

  env.keybindings[0][2].onDown();
  assert.equal(rt.overlayActive, true);
  assert.equal(/** @type {any} */ (controls.tokens.tools)[OVERLAY_TOOL].active, true, "the tool shows it pressed");
  runFrames();
  const overlay = env.canvas.controls.children[0];
  assert.equal(overlay.name, `${MODULE_ID}-visibility-overlay`);
  const g = overlay.children[0];
  const amber = g.calls.filter((/** @type {any[]} */ c) => c[0] === "lineStyle" && c[1]?.color === 0xffb300);
  assert.equal(amber.length, 1, "one approximate line");
  assert.ok(g.calls.filter((/** @type {any[]} */ c) => c[0] === "moveTo").length > 1, "dashed: several pieces");
  const label = overlay.children.find((/** @type {any} */ c) => c.text);
  assert.equal(label.text, "VTTBRIDGE.Visibility.State.approximate");

  env.keybindings[0][2].onDown();
  assert.equal(rt.overlayActive, false);
  assert.equal(overlay.destroyed, true);

  makeEnv({ isGM: false });
  installVisibility({ env });
  const playerControls = { tokens: { tools: {} } };
  env.Hooks.callAll("getSceneControlButtons", playerControls);
  assert.deepEqual(playerControls.tokens.tools, {}, "no tool for a player");
  assert.equal(env.keybindings[0][2].onDown(), false);
});

test("where PixiJS never calls Container#render (v8), a silhouette mutes the token's other children and gives each back its own renderable", () => {
  makeEnv();
  const runtime = installVisibility({ env: { ...env, PIXI: { ...env.PIXI, Container: class {} } } });
  const border = { renderable: true };
  const art = { renderable: true };
  const asleep = { renderable: false }; // something else had made it unrenderable
  const silhouette = { renderable: true };
  const token = { border, children: [border, art, asleep, silhouette] };
  runtime.muteForeignChildren(token, silhouette);
  assert.deepEqual([border, art, asleep, silhouette].map((c) => c.renderable), [true, false, false, true]);
  runtime.muteForeignChildren(token, null);
  assert.deepEqual([border, art, asleep, silhouette].map((c) => c.renderable), [true, true, false, true]);
});
