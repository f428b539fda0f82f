// The Foundry wiring of visibility-canvas.mjs, driven with Foundry-shaped fakes (written from the
// public API docs): a Token base class whose refresh methods behave like core's in outline, a
// combat tracker class, hooks, and a tiny PIXI stand-in (the real pixi.js needs a DOM).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { installVisibility, isIdentityHidden, OVERLAY_TOOL, VISIBILITY_HOOK } from "../../scripts/foundry/visibility-canvas.mjs";
import { FakeHooks } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI, FakeDisplay } from "../helpers/fake-pixi.mjs";

const PIXI = FAKE_PIXI;

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
  assert.equal(t.targeted.size, 1, "DET-10: a silhouette may be targeted (an attack on it counts half)");
  env.Hooks.callAll("targetToken", env.game.user, t, true);
  runFrames();
  t.refresh();
  for (const part of ["targetArrows", "targetPips"]) assert.equal(t[part].visible, false, `${part}: core's markers carry user colours`);
  const marker = silhouette.children.find((/** @type {any} */ c) => c.name === "vtt-bridge-silhouette-target");
  assert.ok(marker?.visible, "the target marker is drawn on the silhouette");
  t.render({});
  assert.deepEqual(t.rendered.at(-1), [t.border, silhouette], "only the border and the silhouette are rendered");
  t.setTarget(false);
  t.refresh();
  assert.equal(marker.visible, false, "untargeted: no marker");
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
  const { t } = makeScene({ state: "unlocated" });
  t.refresh();
  t.targeted.add(env.game.user); // targeted before the ruling arrived
  /** @type {any[]} */
  const announced = [];
  env.Hooks.on(VISIBILITY_HOOK, (/** @type {any[]} */ tokens) => announced.push(...tokens));
  env.Hooks.callAll("updateToken", t.document, { flags: { [MODULE_ID]: { visibility: { O: "unlocated" } } } }, {});
  assert.equal(t.flagsSet.length, 0, "deferred");
  runFrames();
  assert.deepEqual(t.flagsSet, [{ refreshVisibility: true, refreshState: true }]);
  assert.equal(t.targeted.size, 0, "a target the user may no longer target is released");
  assert.deepEqual(announced, [t]);

  t.document.flags[MODULE_ID].visibility = {};
  env.Hooks.callAll("updateToken", t.document, { flags: { [MODULE_ID]: { visibility: { "-=O": null } } } }, {});
  runFrames();
  t.refresh();
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
  assert.equal(amber.length, 2, "one approximate line: its dashes, then the ring at its end");
  assert.equal(g.calls.filter((/** @type {any[]} */ c) => c[0] === "beginFill").length, 0, "a ring, no filled arrowhead");
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

/** A small DOM stand-in: elements with classes, attributes, text, and `querySelector(All)` for
 * comma lists of descendant selectors made of `tag`, `.class` and `[attribute]`. */
class FakeElement {
  /** @param {string} tag @param {string} [classes] @param {Array<FakeElement|string>} [children] @param {Record<string, string>} [attributes] */
  constructor(tag, classes = "", children = [], attributes = {}) {
    this.tagName = tag.toUpperCase();
    this.classList = new Set(classes.split(" ").filter(Boolean));
    /** @type {Record<string, string>} */
    this.attributes = { ...attributes };
    /** @type {Record<string, string>} */
    this.dataset = {};
    /** @type {FakeElement|null} */
    this.parent = null;
    /** @type {Array<FakeElement|string>} */
    this.children = [];
    for (const c of children) this.append(c);
  }
  /** @param {FakeElement|string} child */
  append(child) {
    if (typeof child !== "string") child.parent = this;
    this.children.push(child);
  }
  remove() {
    if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this);
    this.parent = null;
  }
  /** @param {string} name */
  removeAttribute(name) {
    delete this.attributes[name];
  }
  /** @returns {string} */
  get textContent() {
    return this.children.map((/** @type {FakeElement|string} */ c) => (typeof c === "string" ? c : c.textContent)).join("");
  }
  set textContent(text) {
    this.children = [text];
  }
  /** @returns {FakeElement[]} */
  descendants() {
    return this.children.flatMap((c) => (typeof c === "string" ? [] : [c, ...c.descendants()]));
  }
  /** @param {string} compound */
  matchesOne(compound) {
    const [, tag] = /^([a-z0-9]*)/i.exec(compound) ?? [];
    if (tag && tag.toUpperCase() !== this.tagName) return false;
    for (const [, cls] of compound.matchAll(/\.([\w-]+)/g)) if (!this.classList.has(cls)) return false;
    for (const [, attr] of compound.matchAll(/\[([\w-]+)\]/g)) if (!(attr in this.attributes)) return false;
    return true;
  }
  /** @param {string} selector one descendant chain */
  matches(selector) {
    const parts = selector.trim().split(/\s+/);
    if (!this.matchesOne(/** @type {string} */ (parts.pop()))) return false;
    /** @type {FakeElement|null} */
    let node = this.parent;
    while (parts.length && node) {
      if (node.matchesOne(/** @type {string} */ (parts.at(-1)))) parts.pop();
      node = node.parent;
    }
    return parts.length === 0;
  }
  /** @param {string} selectors */
  querySelectorAll(selectors) {
    const list = selectors.split(",");
    return this.descendants().filter((el) => list.some((s) => el.matches(s)));
  }
  /** @param {string} selectors */
  querySelector(selectors) {
    return this.querySelectorAll(selectors)[0] ?? null;
  }
}

/** A rendered chat message: core's header (v12/v13: `h4.message-sender` holds the alias), or the
 * richer one of systems like dnd5e (an avatar and `.name-stacked`), plus an image another module adds. */
function chatEntry({ rich = false } = {}) {
  const sender = rich
    ? new FakeElement("h4", "message-sender", [
        new FakeElement("a", "avatar", [new FakeElement("img", "", [], { src: "goblin.webp", alt: "Goblin" })], { "data-uuid": "Actor.goblin" }),
        new FakeElement("span", "name-stacked", [new FakeElement("span", "title", ["Goblin"]), new FakeElement("span", "subtitle", ["Gamemaster"])]),
      ])
    : new FakeElement("h4", "message-sender", ["Goblin"], { title: "Goblin" });
  const header = new FakeElement("header", "message-header flexrow", [
    sender,
    new FakeElement("span", "message-metadata", ["12:00"]),
    new FakeElement("img", "chat-portrait", [], { src: "goblin.webp" }),
  ]);
  const content = new FakeElement("div", "message-content", ["Grr, ", new FakeElement("img", "", [], { src: "inline.webp" })]);
  return new FakeElement("li", "chat-message message", [header, content], { "data-message-id": "" });
}

/** @param {FakeElement} li */
const shownSender = (li) => (li.querySelector(".name-stacked .title") ?? li.querySelector(".message-sender"))?.textContent;
/** @param {FakeElement} li */
const headerImages = (li) => li.querySelectorAll(".message-header img").length;

/** The player's scene of `makeScene`, on a drawn canvas of scene S; a message by the GM spoken as T. */
function chatScene(/** @type {Parameters<typeof makeScene>[0]} */ options) {
  const scene = makeScene(options);
  env.canvas.ready = true;
  env.canvas.scene = { id: "S", tokens: new Map(env.canvas.tokens.placeables.map((/** @type {any} */ p) => [p.document.id, p.document])) };
  const message = { id: "m1", speaker: { scene: "S", token: "T", actor: "goblin", alias: "Goblin" }, author: { id: "gm" }, isAuthor: false };
  return { ...scene, message };
}

const SOMEONE = "VTTBRIDGE.Visibility.Speaker.Someone";

test("chat (v13): a message spoken as a token this player locates only approximately or not at all shows Someone, no portrait", () => {
  for (const state of ["approximate", "unlocated"]) {
    for (const rich of [false, true]) {
      makeEnv();
      installVisibility({ env });
      const { message } = chatScene({ state });
      const li = chatEntry({ rich });
      env.Hooks.callAll("renderChatMessageHTML", message, li, {});
      assert.equal(shownSender(li), SOMEONE, `${state}, rich ${rich}`);
      assert.equal(headerImages(li), 0, "no portrait in the header");
      assert.equal(li.querySelector(".message-sender .avatar"), null, "nor the avatar link to the actor");
      assert.ok(!li.descendants().some((el) => Object.values(el.attributes).some((v) => v.includes("Goblin"))), "no attribute names it");
      if (rich) assert.equal(li.querySelector(".name-stacked .subtitle")?.textContent, "Gamemaster", "the author's name stays");
      assert.equal(li.querySelector(".message-content")?.textContent, "Grr, ", "the content is left alone");
      assert.equal(li.querySelectorAll(".message-content img").length, 1);
      assert.deepEqual(message.speaker, { scene: "S", token: "T", actor: "goblin", alias: "Goblin" }, "the document is not touched");
    }
  }
});

test("chat: the speaker shows for pinpointed or unruled tokens, the author, a GM, and speakers that are no token of this scene", () => {
  /** @param {(message: any) => void} [change] @param {{state?: unknown, isGM?: boolean, controlled?: boolean}} [options] */
  const render = (change, { state = "unlocated", isGM = false, controlled = true } = {}) => {
    makeEnv({ isGM });
    installVisibility({ env });
    const { message } = chatScene({ state: state === "none" ? undefined : state, controlled });
    change?.(message);
    const li = chatEntry();
    env.Hooks.callAll("renderChatMessageHTML", message, li, {});
    return li;
  };
  assert.equal(shownSender(render(undefined, { state: "pinpointed" })), "Goblin");
  assert.equal(shownSender(render(undefined, { state: "none" })), "Goblin", "no ruling");
  assert.equal(shownSender(render((m) => (m.isAuthor = true))), "Goblin", "the author");
  assert.equal(shownSender(render((m) => {
    delete m.isAuthor;
    m.user = { id: "u1" }; // v12 names the author `user`
    delete m.author;
  })), "Goblin", "the author (v12 shape)");
  assert.equal(shownSender(render(undefined, { isGM: true, controlled: true })), "Goblin", "a GM previewing through a token");
  assert.equal(shownSender(render((m) => (m.speaker = { scene: "S", token: null, actor: "goblin", alias: "Goblin" }))), "Goblin", "an actor, not a token");
  assert.equal(shownSender(render((m) => (m.speaker = { scene: null, token: null, actor: null, alias: "Narrator" }))), "Goblin", "an alias");
  assert.equal(shownSender(render((m) => (m.speaker.scene = "elsewhere"))), "Goblin", "a token of another scene");
  assert.equal(shownSender(render((m) => (m.speaker.token = "gone"))), "Goblin", "a token no longer on the canvas");
  const li = render();
  assert.equal(shownSender(li), SOMEONE, "(control: the same scene hides it)");
  assert.equal(headerImages(li), 0);
});

test("chat (v12): the jQuery hook anonymizes; on v13+ it is left to renderChatMessageHTML", () => {
  makeEnv({ generation: 12 });
  installVisibility({ env });
  const { message } = chatScene({ state: "approximate" });
  const li = chatEntry();
  env.Hooks.callAll("renderChatMessage", message, [li], {});
  assert.equal(shownSender(li), SOMEONE);

  makeEnv({ generation: 13 });
  installVisibility({ env });
  const v13 = chatScene({ state: "approximate" });
  const untouched = chatEntry();
  env.Hooks.callAll("renderChatMessage", v13.message, [untouched], {});
  assert.equal(shownSender(untouched), "Goblin", "v13 also calls the deprecated hook: handled once, by the HTML hook");
  assert.equal((env.Hooks.handlers.get("renderChatMessage") ?? []).length, 0, "v13 warns about any renderChatMessage listener: none is registered");
});

test("chat before the canvas is drawn: a ruled token not the player's own stays anonymous; canvasReady renders those messages again", () => {
  makeEnv();
  installVisibility({ env });
  const { o, message } = chatScene({ state: "pinpointed" });
  env.canvas.ready = false;
  const li = chatEntry();
  env.Hooks.callAll("renderChatMessageHTML", message, li, {});
  assert.equal(shownSender(li), SOMEONE, "observers unknown yet: a leak cannot be taken back");
  const byOwnToken = { ...message, id: "m2", speaker: { ...message.speaker, token: "O" } };
  const own = chatEntry();
  env.Hooks.callAll("renderChatMessageHTML", byOwnToken, own, {});
  assert.equal(shownSender(own), "Goblin", "the player's own token");
  assert.equal(o.document.isOwner, true);

  /** @type {any[]} */
  const updated = [];
  const entry = (/** @type {string} */ id) => Object.assign(new FakeElement("li", "chat-message", [], { "data-message-id": id }), { dataset: { messageId: id } });
  const byPlayer = { ...message, id: "m3", isAuthor: true };
  const byNarrator = { ...message, id: "m4", speaker: { scene: null, token: null, actor: null, alias: "Narrator" } };
  const messages = new Map([message, byOwnToken, byPlayer, byNarrator].map((m) => [m.id, m]));
  env.game.messages = messages;
  env.ui.chat = { element: [new FakeElement("ol", "chat-log", ["m1", "m2", "m3", "m4"].map(entry))], updateMessage: (/** @type {any} */ m) => updated.push(m.id) };
  env.canvas.ready = true;
  env.Hooks.callAll("canvasReady", env.canvas);
  assert.deepEqual(updated, ["m1", "m2"], "token speakers of this scene, not the player's own messages");
  const again = chatEntry();
  env.Hooks.callAll("renderChatMessageHTML", message, again, {});
  assert.equal(shownSender(again), "Goblin", "drawn: pinpointed, so named");
});

test("F19: the scene's token vision switched off: the observers are read again (a token without sight now looks), without waiting for another change", () => {
  makeEnv();
  installVisibility({ env });
  const { o, t } = makeScene({ state: "unlocated" });
  o.hasSight = false;
  env.canvas.scene = { id: "s1" };
  t.refresh();
  assert.equal(t.visible, true, "token vision on, the observer has no sight: no ruling applies");
  env.canvas.visibility.tokenVision = false;
  env.Hooks.callAll("updateScene", { id: "s1" }, { tokenVision: false }, {}, "gm");
  runFrames();
  t.refresh();
  assert.equal(t.visible, false, "token vision off: O looks, and does not locate T");
});

test("F9 (kept without libWrapper): a tracker that bypasses the module's _isTokenVisible still loses the hidden combatant's row in renderCombatTracker", () => {
  for (const generation of [13, 14]) {
    makeEnv({ generation });
    installVisibility({ env });
    const { t } = makeScene({ state: "approximate" });
    // a system's tracker overriding the method without calling super, and another module replacing
    // the core method after ours without chaining: both drop the first line of defence
    const Installed = env.CONFIG.ui.combat;
    const SystemTracker = class extends Installed {
      /** @param {any} _token */
      _isTokenVisible(_token) {
        return true;
      }
    };
    env.FakeTracker.prototype._isTokenVisible = () => true;
    assert.equal(new SystemTracker()._isTokenVisible(t), true, `v${generation}: the override bypasses the filter`);
    /** @type {string[]} */
    const removed = [];
    const row = (/** @type {string} */ id) => ({ dataset: { combatantId: id }, remove: () => removed.push(id) });
    const html = { querySelectorAll: () => [row("cT"), row("cO")] };
    const combatants = new Map([
      ["cT", { token: t.document }],
      ["cO", { token: env.canvas.tokens.placeables[0].document }],
    ]);
    env.Hooks.callAll("renderCombatTracker", { viewed: { combatants } }, [html]);
    assert.deepEqual(removed, ["cT"], `v${generation}: the render hook still drops the row the player may not see`);
  }
});
