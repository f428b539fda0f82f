/**
 * A strict Foundry stand-in for the module's tests, written from Foundry's public API pages only
 * (never from its source). It is meant to be as strict as the documented Foundry, never kinder: where
 * the documentation leaves something open, the stand-in takes the reading that makes careless module
 * code fail. Each behaviour names the page it comes from:
 *
 * [expand]     foundry.utils.expandObject — https://foundryvtt.com/api/functions/foundry.utils.expandObject.html
 *              "converting all dot-notation keys to inner objects"; v14 expandObjectInPlace
 *              (https://foundryvtt.com/api/v14/functions/foundry.utils.expandObjectInPlace.html): keys
 *              with dots are expanded "via setProperty", at every level unless `shallow`.
 * [merge]      foundry.utils.mergeObject — https://foundryvtt.com/api/v12/functions/foundry.utils.mergeObject.html
 *              and v14 https://foundryvtt.com/api/v14/functions/foundry.utils.mergeObject.html: inner
 *              objects merged recursively, new keys inserted, values overwritten; `performDeletions`
 *              (v14 `applyOperators`) applies the deletion/replacement operators.
 * [operators]  `{"-=key": null}` deletes, `{"==key": value}` replaces whole (v12/v13); v14 replaces
 *              both with `foundry.data.operators.ForcedDeletion` / `ForcedReplacement` values on the
 *              plain key, the old keys deprecated until v16, `_del` a shared ForcedDeletion instance:
 *              the v14 announcement (https://github.com/foundryvtt/foundryvtt/issues/13090, thread
 *              https://doublepost.link/guild/170995199584108546/thread/1412433779674579015/p/1412433781960347781/).
 *              v13 requires the value `null` on a `-=` key (https://github.com/foundryvtt/foundryvtt/issues/11977).
 * [update]     ClientDocument#update / Document.updateDocuments — https://foundryvtt.com/api/classes/foundry.ClientDocument.html;
 *              the `diff` option "Difference each update object against current Document data and
 *              only use differential data" — https://foundryvtt.com/api/v14/interfaces/foundry.abstract.types.DatabaseUpdateOperation.html
 *              (an update that changes nothing writes nothing and fires no update hook).
 * [hooks]      preUpdateDocument (initiating client, may cancel with `false`) —
 *              https://foundryvtt.com/api/v12/functions/hookEvents.preUpdateDocument.html;
 *              updateDocument(document, changed, options, userId) with the differential data —
 *              https://foundryvtt.com/api/v12/functions/hookEvents.updateDocument.html;
 *              createDocument / deleteDocument likewise (createActiveEffect, deleteActiveEffect).
 *              Hooks.call stops at a handler returning false; Hooks.callAll calls every handler —
 *              https://foundryvtt.com/api/classes/foundry.helpers.Hooks.html.
 * [ownership]  CONST.DOCUMENT_OWNERSHIP_LEVELS (NONE 0 … OWNER 3) —
 *              https://foundryvtt.com/api/v14/variables/CONST.DOCUMENT_OWNERSHIP_LEVELS.html; "OWNER:
 *              Allows the User to view and make changes to the Document" —
 *              https://foundryvtt.com/api/enums/foundry.CONST.DOCUMENT_OWNERSHIP_LEVELS.html;
 *              Document#testUserPermission, #isOwner ("the current game User has ownership rights") —
 *              https://foundryvtt.com/api/classes/foundry.ClientDocument.html; Game Masters may do
 *              everything — https://foundryvtt.com/article/users/. An update by a user below OWNER
 *              is refused.
 * [embedded]   Scene#updateEmbeddedDocuments updates documents embedded in THAT scene —
 *              https://foundryvtt.com/api/v14/classes/foundry.documents.Scene.html; an id the scene
 *              does not hold is refused (the stand-in throws).
 * [statuses]   Actor#toggleStatusEffect(statusId, {active, overlay}) —
 *              https://foundryvtt.com/api/classes/foundry.documents.Actor.html — creates or deletes the
 *              ActiveEffect of a status configured in CONFIG.statusEffects (an array in v12/v13,
 *              an object keyed by id in v14 — https://foundryvtt.com/api/v14/variables/CONFIG.statusEffects.html);
 *              ActiveEffect `statuses` is a Set of status ids —
 *              https://foundryvtt.com/api/interfaces/foundry.types.ActiveEffectData.html; Actor#statuses,
 *              the statuses of the actor's effects, is derived data recomputed when the actor
 *              prepares its data. The pages do not say whether that happens before the
 *              create/deleteActiveEffect hooks run, so here it happens AFTER them: a hook handler
 *              must read the event's effect, not Actor#statuses.
 * [queries]    v13+ `CONFIG.queries[name] = handler` and `User#query(name, data, {timeout})`, a
 *              promise answered by that user's client — https://foundryvtt.com/api/classes/foundry.documents.User.html,
 *              https://foundryvtt.wiki/en/development/api/sockets. The stand-in rejects on timeout
 *              and when the user is not connected.
 * [socket]     `game.socket.emit("module.<id>", data)` reaches every OTHER connected client, never
 *              the sender — https://foundryvtt.wiki/en/development/api/sockets.
 * [flags]      Document#getFlag(scope, key) reads `flags[scope]` at a dot-notation key, undefined when
 *              unset — https://foundryvtt.com/api/classes/foundry.abstract.Document.html; a flag is
 *              changed by an update of `flags.<scope>.<key>` like any other field ([update]).
 * [chat]       ChatMessage.create(data) creates a message authored by the current user and fires
 *              createChatMessage — https://foundryvtt.com/api/classes/foundry.documents.ChatMessage.html;
 *              the chat log renders it and fires renderChatMessageHTML(message, html, context) with
 *              an HTMLElement on v13+ (https://foundryvtt.com/api/functions/hookEvents.renderChatMessageHTML.html),
 *              renderChatMessage with jQuery on v12 (https://foundryvtt.com/api/functions/hookEvents.renderChatMessage.html).
 *              The stand-in renders only when the test asks (`renderMessage`): a module must not rely
 *              on being rendered at any other time.
 *              A message keeps its rolls serialized, as ChatMessageData's `rolls` holds them —
 *              https://foundryvtt.com/api/interfaces/foundry.documents.types.ChatMessageData.html;
 *              `Roll.fromData(data)` rebuilds a roll from such data — https://foundryvtt.com/api/classes/foundry.dice.Roll.html.
 *              Who may read a message: its author, the users it is whispered to and the Game
 *              Masters; everyone when it is whispered to nobody (`FakeWorld#visibleTo`) —
 *              https://foundryvtt.com/api/classes/foundry.documents.ChatMessage.html (`visible`, `whisper`).
 *              The chat log renders "each ChatMessage which is rendered for addition to the ChatLog"
 *              (the render hooks' pages above) from its `content`, "The HTML content of this chat
 *              message" (https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.ChatMessageData.html),
 *              and only a message `visible` to its user: "Messages may not be visible if they are
 *              private whispers" (https://foundryvtt.com/api/v10/classes/client.ChatMessage.html):
 *              `renderMessage` parses the content (buttons and their data attributes included) and
 *              refuses (throws) to render a message its user may not see.
 * [keys]       game.keybindings.register(namespace, action, data) —
 *              https://foundryvtt.com/api/classes/foundry.helpers.interaction.ClientKeybindings.html;
 *              data is a KeybindingActionConfig (`name` required; `restricted`: "only a GM can edit
 *              and execute this Action"; `onDown` returning true consumes the event) —
 *              https://foundryvtt.com/api/interfaces/foundry.types.KeybindingActionConfig.html.
 *              The stand-in refuses a second registration of one action, one without `name`, and one
 *              after `init` (the module's own reading, visibility-canvas.mjs: "keybindings must be
 *              registered during init").
 *              A binding (KeybindingActionBinding) names its `key` by "The KeyboardEvent#code value"
 *              (https://foundryvtt.com/api/interfaces/foundry.types.KeybindingActionBinding.html, codes
 *              as https://developer.mozilla.org/en-US/docs/Web/API/KeyboardEvent/code/code_values:
 *              "KeyZ", not "z") and its `modifiers` from KeyboardManager.MODIFIER_KEYS, written as the
 *              register example writes them ("Control", "Alt"; "Shift") —
 *              https://foundryvtt.com/api/v14/classes/foundry.helpers.interaction.ClientKeybindings.html;
 *              the KeyboardManager's PROTECTED_KEYS ("reserved for browser-level actions": F5, F11,
 *              F12, PrintScreen, ScrollLock, NumLock, CapsLock) "should not be used" —
 *              https://foundryvtt.com/api/v14/classes/foundry.helpers.interaction.KeyboardManager.html.
 *              The stand-in refuses any other binding; `pressKey(code, modifiers, user)` runs the
 *              onDown of each action bound to exactly that key and those modifiers (for a GM only
 *              when restricted) with a KeyboardEventContext
 *              (https://foundryvtt.com/api/interfaces/foundry.types.KeyboardEventContext.html),
 *              until one returns true ("the event is consumed and no further keybinds execute").
 * [targets]    User#targets, "the current set of Tokens which are targeted by the User" —
 *              https://foundryvtt.com/api/classes/foundry.documents.User.html; a Set that dispatches
 *              the targetToken(user, token, targeted) hook whenever it changes —
 *              https://foundryvtt.com/api/classes/client.UserTargets.html,
 *              https://foundryvtt.com/api/functions/hookEvents.targetToken.html;
 *              Token#setTarget(targeted, {user, releaseOthers, groupSelection}) —
 *              https://foundryvtt.com/api/v14/classes/foundry.canvas.placeables.Token.html. The pages
 *              do not say what `releaseOthers` defaults to: here true (the user's other targets are
 *              released, each firing the hook), the reading that punishes code counting on a target
 *              staying.
 * [canvas]     canvas.ready, .scene, .dimensions (a SceneDimensions: `size`, `sceneRect` inside the
 *              padding, `sceneX`, `sceneY`, ...) — https://foundryvtt.com/api/interfaces/client.SceneDimensions.html;
 *              .grid, .stage, .tokens (the TokenLayer: `placeables`, `controlled`, `get`, `hover`) —
 *              https://foundryvtt.com/api/v14/classes/foundry.canvas.Canvas.html. A token placeable is
 *              made from the configured `CONFIG.Token.objectClass` when the canvas is drawn (so a
 *              module's class replacement must happen before, in `init`). The stage's pointer events
 *              are PixiJS FederatedPointerEvents (`button` 0 left, 2 right; `getLocalPosition(container)`
 *              the point in that container's coordinates) — https://pixijs.download/release/docs/events.FederatedMouseEvent.html;
 *              the stage is panned and zoomed, so its local coordinates are the canvas' (the client
 *              point is not: the stand-in sends a client point that differs).
 * [token]      a Token placeable's parts (nameplate, bars, effects, tooltip, border, mesh; v13+
 *              targetArrows and targetPips, v12 target), shown by core's refresh (`_refreshState`,
 *              `_refreshVisibility`) in outline; `_getBorderColor` the disposition's colour from
 *              CONFIG.Canvas.dispositionColors — https://foundryvtt.com/api/v14/classes/foundry.canvas.placeables.Token.html.
 * [tracker]    the combat tracker renders one row `[data-combatant-id]` per combatant whose token
 *              `_isTokenVisible` (the module's reading, visibility-canvas.mjs) and fires
 *              renderCombatTracker(app, html) — https://foundryvtt.com/api/classes/foundry.applications.sidebar.tabs.CombatTracker.html.
 * [settings]   game.settings.register / get / set — https://foundryvtt.com/api/v14/classes/foundry.helpers.ClientSettings.html:
 *              `storage` is "Map<"client" or "world", Storage>", a client setting lives in the
 *              browser's own storage ("the same API as window.localStorage") and is no document; the
 *              world's are Setting documents (https://foundryvtt.com/api/v14/classes/foundry.documents.collections.WorldSettings.html),
 *              created on their first change (createSetting) and updated after (updateSetting).
 *              A client setting's change fires its `onChange` and, v13+, the hook
 *              clientSettingChanged(key, value, options) — https://foundryvtt.com/api/v14/functions/hookEvents.clientSettingChanged.html —
 *              never the Setting document hooks. A world setting may be set by a Game Master only.
 * [users]      User documents: `role` (CONST.USER_ROLES, ASSISTANT 3, GAMEMASTER 4), `isGM` for both —
 *              https://foundryvtt.com/api/classes/foundry.documents.User.html; `game.users.activeGM`
 *              "one User who is an active Gamemaster (non-assistant if possible)" —
 *              https://foundryvtt.com/api/classes/foundry.documents.collections.Users.html; a user's
 *              flags change by an update of the User (its own user, or a Game Master), updateUser on
 *              every client; userConnected(user, connected) fires on every other client when a
 *              browser joins or leaves — https://foundryvtt.com/api/functions/hookEvents.userConnected.html.
 *              Each browser runs its own copy of the module: a FakeClient has its own hooks.
 * [dialog]     DialogV2.prompt / DialogV2.wait resolve the value of the chosen button's
 *              `callback(event, button, dialog)`, `button.form` the dialog's form; closed with
 *              `rejectClose: false`, null — https://foundryvtt.com/api/interfaces/foundry.DialogV2WaitOptions.html,
 *              https://foundryvtt.com/api/types/foundry.DialogV2ButtonCallback.html. The test says
 *              which button (or none) the user picks and what the form holds; a button the dialog
 *              does not offer is refused. With a `render(event, dialog)` option ("a synchronous
 *              function to invoke whenever the dialog is rendered", DialogV2WaitOptions) the dialog
 *              is rendered first: `dialog.element` holds its form with the content parsed, each
 *              field holding its value (an input its `value`, a select its `selected` option, else
 *              its first, a checkbox `checked`); a test's `edit` then changes fields as a user does
 *              (a select only to one of its options, a checkbox "on" or "off") and each change fires a bubbling `change` event
 *              (https://developer.mozilla.org/en-US/docs/Web/API/HTMLElement/change_event); the
 *              form submitted is then the fields' values.
 */

import { FakeElement as FakeDomElement, parseHtml } from "./fake-dom.mjs";

/** v14 `foundry.data.operators.ForcedDeletion`; constructed with `new` (or the `_del` instance). */
export class ForcedDeletion {}

/** v14 `foundry.data.operators.ForcedReplacement`: replaces the key's value whole. */
export class ForcedReplacement {
  /** @param {unknown} replacement */
  constructor(replacement) {
    this.replacement = replacement;
  }
  /** @param {unknown} replacement */
  static create(replacement) {
    return new ForcedReplacement(replacement);
  }
}

/** The globals a module reads per version (`deletionOperator(env)` and friends). */
export const ENV = Object.freeze({
  12: Object.freeze({ release: { generation: 12 } }),
  13: Object.freeze({ release: { generation: 13 } }),
  14: Object.freeze({
    release: { generation: 14 },
    foundry: { data: { operators: { ForcedDeletion, ForcedReplacement } } },
    _del: new ForcedDeletion(),
  }),
});

/** @param {unknown} value @returns {value is Record<string, any>} */
export function isPlain(value) {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * [expand] Dot-notation keys become inner objects, at every level; class instances (operators)
 * are kept as they are.
 * @param {Record<string, unknown>} data
 * @returns {Record<string, any>}
 */
export function expandObject(data) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, raw] of Object.entries(data)) {
    const value = isPlain(raw) ? expandObject(raw) : raw;
    const parts = key.split(".");
    let node = out;
    for (const part of parts.slice(0, -1)) {
      if (!isPlain(node[part])) node[part] = {};
      node = node[part];
    }
    node[/** @type {string} */ (parts.at(-1))] = value;
  }
  return out;
}

/**
 * [operators] v14: each legacy `-=`/`==` key met (deprecated, a console warning in Foundry, removed
 * in v16): a test reads (and clears) it to prove the module wrote none.
 * @type {string[]}
 */
export const legacyOperatorWarnings = [];

/**
 * [merge] + [operators]: merge expanded `other` into `original` in place.
 * @param {Record<string, any>} original
 * @param {Record<string, any>} other
 * @param {number} generation 12, 13 or 14
 */
export function mergeObject(original, other, generation) {
  for (const [key, value] of Object.entries(other)) {
    if (generation >= 14 && (key.startsWith("-=") || key.startsWith("=="))) legacyOperatorWarnings.push(key);
    if (key.startsWith("-=")) {
      if (generation >= 13 && value !== null) throw new Error(`v${generation}: the deletion key ${key} needs the value null`);
      delete original[key.slice(2)];
    } else if (key.startsWith("==")) {
      original[key.slice(2)] = structuredClone(value);
    } else if (generation >= 14 && value instanceof ForcedDeletion) {
      delete original[key];
    } else if (generation >= 14 && value instanceof ForcedReplacement) {
      original[key] = structuredClone(value.replacement);
    } else if (isPlain(value)) {
      if (!isPlain(original[key])) original[key] = {};
      mergeObject(original[key], value, generation);
    } else {
      original[key] = isPlain(value) || Array.isArray(value) ? structuredClone(value) : value;
    }
  }
  return original;
}

/**
 * One flat dot-path update applied the way Document#update applies it ([expand] then [merge]).
 * @param {Record<string, any>} target
 * @param {Record<string, unknown>} update
 * @param {number} [generation]
 */
export function mergeUpdate(target, update, generation = 13) {
  const { _id, ...rest } = update;
  void _id;
  return mergeObject(target, expandObject(rest), generation);
}

/**
 * [update] the differential part of expanded `changes` against `source` (operators always kept).
 * @param {Record<string, any>} source
 * @param {Record<string, any>} changes
 * @returns {Record<string, any>}
 */
function diffObject(source, changes) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, value] of Object.entries(changes)) {
    if (key.startsWith("-=")) {
      if (key.slice(2) in source) out[key] = value;
    } else if (key.startsWith("==") || value instanceof ForcedDeletion || value instanceof ForcedReplacement) {
      out[key] = value;
    } else if (isPlain(value) && isPlain(source[key])) {
      const inner = diffObject(source[key], value);
      if (Object.keys(inner).length) out[key] = inner;
    } else if (JSON.stringify(source[key]) !== JSON.stringify(value) || !(key in source)) {
      out[key] = value;
    }
  }
  return out;
}

export class FakeHooks {
  /** @type {Map<string, Array<(...args: any[]) => unknown>>} */
  handlers = new Map();
  /** @param {string} name @param {(...args: any[]) => unknown} fn */
  on(name, fn) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), fn]);
    return fn;
  }
  /** @param {string} name @param {(...args: any[]) => unknown} fn */
  once(name, fn) {
    const wrapped = (/** @type {any[]} */ ...args) => {
      this.off(name, wrapped);
      return fn(...args);
    };
    return this.on(name, wrapped);
  }
  /** @param {string} name @param {(...args: any[]) => unknown} fn */
  off(name, fn) {
    this.handlers.set(name, (this.handlers.get(name) ?? []).filter((f) => f !== fn));
  }
  /** [hooks] Hooks.call: stops at (and returns false for) a handler returning false. @param {string} name @param {...any} args */
  call(name, ...args) {
    for (const fn of this.handlers.get(name) ?? []) if (fn(...args) === false) return false;
    return true;
  }
  /** [hooks] Hooks.callAll: every handler, whatever they return. @param {string} name @param {...any} args */
  callAll(name, ...args) {
    for (const fn of this.handlers.get(name) ?? []) fn(...args);
    return true;
  }
}

/** @typedef {{id: string, name: string, isGM: boolean, role?: number, active: boolean, targets?: Set<any>, flags?: Record<string, any>, getFlag?: (scope: string, key: string) => unknown}} FakeUser */

const OWNER = 3;

export class FakeDocument {
  /**
   * @param {FakeWorld} world
   * @param {string} documentName "Actor" | "Token" | "Scene"
   * @param {Record<string, any>} data
   */
  constructor(world, documentName, data) {
    this.world = world;
    this.documentName = documentName;
    /** @type {Record<string, any>} the stored data: flags, x, y, elevation, name, ownership */
    this._source = structuredClone({ flags: {}, ownership: { default: 0 }, ...data });
    /** @type {string} */
    this.id = data.id;
    /** @type {string} */
    this.uuid = data.uuid ?? "";
    /** @type {any} the parent document (a token's scene, an effect's actor) */
    this.parent = null;
    /** @type {any} set on tokens */
    this.actor = null;
    /** every update call made, as given: `{changes, options}` */
    /** @type {Array<{changes: Record<string, unknown>, options: Record<string, unknown>}>} */
    this.updates = [];
    /** @type {FakeEffect[]} */
    this.effects = [];
    /** @type {Set<string>} [statuses] derived: recomputed after the effect hooks */
    this.statuses = new Set();
  }

  get flags() {
    return this._source.flags;
  }

  /** [flags] @param {string} scope @param {string} key */
  getFlag(scope, key) {
    /** @type {any} */
    let value = this._source.flags?.[scope];
    for (const part of key.split(".")) value = value?.[part];
    return value === undefined ? undefined : structuredClone(value);
  }
  set flags(value) {
    this._source.flags = value;
  }
  /**
   * a game system's data (`system`) and subtype (`type`) are stored data; what a document shows is
   * its PREPARED data — https://foundryvtt.com/api/classes/foundry.abstract.DataModel.html (`_source`
   * "the source data object for this DataModel instance", prepared on it by `prepareData`): with
   * `world.prepareSystem` set (a game system's derived data, e.g. mta's `willpower.max` from a derived
   * trait), `system` is that function of the stored data, recomputed on every read (after each update)
   */
  get system() {
    const prepare = this.world.prepareSystem;
    return prepare && this.documentName === "Actor" && this._source.system ? prepare(structuredClone(this._source.system), this) : this._source.system;
  }
  set system(value) {
    this._source.system = value;
  }
  get type() {
    return this._source.type;
  }
  set type(value) {
    this._source.type = value;
  }
  get name() {
    return this._source.name ?? "";
  }
  get x() {
    return this._source.x ?? 0;
  }
  get y() {
    return this._source.y ?? 0;
  }
  get elevation() {
    return this._source.elevation ?? 0;
  }
  get ownership() {
    return this._source.ownership;
  }
  /** [chat] ChatMessage#author: the User who created it (its source keeps the id) */
  get author() {
    return this.documentName === "ChatMessage" ? (this.world.users.get(this._source.author) ?? null) : undefined;
  }

  /**
   * [ownership] the user's level: a Game Master owns everything; a token inherits its actor's.
   * @param {FakeUser} user
   * @returns {number}
   */
  getUserLevel(user) {
    if (user.isGM) return OWNER;
    if (this.documentName === "Token" && this.actor) return this.actor.getUserLevel(user);
    const own = this.ownership ?? {};
    return own[user.id] ?? own.default ?? 0;
  }

  /** @param {FakeUser} user @param {"NONE"|"LIMITED"|"OBSERVER"|"OWNER"} level */
  testUserPermission(user, level) {
    return this.getUserLevel(user) >= { NONE: 0, LIMITED: 1, OBSERVER: 2, OWNER: 3 }[level];
  }

  get isOwner() {
    return this.testUserPermission(this.world.user, "OWNER");
  }

  /**
   * [update] [hooks] [ownership]
   * @param {Record<string, unknown>} changes
   * @param {Record<string, unknown>} [options]
   */
  async update(changes, options = {}) {
    this.updates.push({ changes, options });
    const user = this.world.user;
    if (!this.testUserPermission(user, "OWNER")) {
      throw new Error(`User ${user.name} lacks permission to update ${this.documentName} [${this.id}]`);
    }
    const { _id, ...rest } = changes;
    void _id;
    const expanded = expandObject(rest);
    if (this.world.hooks.call(`preUpdate${this.documentName}`, this, expanded, options, user.id) === false) return undefined;
    const diff = options.diff === false ? expanded : diffObject(this._source, expanded);
    if (!Object.keys(diff).length) return this;
    mergeObject(this._source, diff, this.world.generation);
    this.world.hooks.callAll(`update${this.documentName}`, this, diff, options, user.id);
    return this;
  }

  /**
   * [statuses] create or delete the status's ActiveEffect; resolves to the new effect, `true` when
   * one already existed, `false` when one was deleted, `undefined` when nothing changed (our reading
   * of the return value, which the pages we read leave unclear; the module never uses it).
   * @param {string} statusId
   * @param {{active?: boolean, overlay?: boolean}} [options]
   */
  async toggleStatusEffect(statusId, { active, overlay = false } = {}) {
    // [statuses] an Actor method (Actor#toggleStatusEffect); tokens and other documents have none
    if (this.documentName !== "Actor") throw new TypeError(`${this.documentName}#toggleStatusEffect is not a function`);
    const config = this.world.statusEffect(statusId);
    if (!config) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
    const existing = this.effects.filter((e) => e.statuses.has(statusId));
    const want = active ?? !existing.length;
    if (want && existing.length) return overlay ? undefined : true;
    if (!want && !existing.length) return undefined;
    const user = this.world.user;
    if (!this.testUserPermission(user, "OWNER")) {
      throw new Error(`User ${user.name} lacks permission to ${want ? "create" : "delete"} ActiveEffect in Actor [${this.id}]`);
    }
    if (want) {
      const effect = new FakeEffect(this, { name: config.name ?? statusId, statuses: [statusId], img: config.img ?? "icons/svg/aura.svg" });
      if (this.world.hooks.call("preCreateActiveEffect", effect, {}, {}, user.id) === false) return undefined;
      this.effects.push(effect);
      this.world.hooks.callAll("createActiveEffect", effect, {}, user.id);
      this.prepareData();
      return effect;
    }
    for (const effect of existing) {
      if (this.world.hooks.call("preDeleteActiveEffect", effect, {}, user.id) === false) continue;
      this.effects = this.effects.filter((e) => e !== effect);
      this.world.hooks.callAll("deleteActiveEffect", effect, {}, user.id);
    }
    this.prepareData();
    return false;
  }

  /**
   * [effects] Actor#temporaryEffects: the actor's effects "which have a limited duration"; an
   * effect with statuses counts as temporary (ActiveEffect#isTemporary) —
   * https://foundryvtt.com/api/classes/foundry.documents.Actor.html,
   * https://foundryvtt.com/api/classes/foundry.documents.ActiveEffect.html. Disabled ones are not.
   */
  get temporaryEffects() {
    return (this.effects ?? []).filter((/** @type {FakeEffect} */ e) => !e.disabled && e.statuses.size > 0);
  }

  /** [statuses] derived data: the statuses of the actor's enabled effects. */
  prepareData() {
    this.statuses = new Set(this.effects.filter((e) => !e.disabled).flatMap((e) => [...e.statuses]));
  }
}

let effectCount = 0;

export class FakeEffect {
  /** @param {FakeDocument} parent @param {{name: string, statuses: string[], img?: string}} data */
  constructor(parent, data) {
    this.id = `effect${(effectCount += 1)}`;
    this.parent = parent;
    this.name = data.name;
    /** [effects] ActiveEffectData#img: the icon drawn on a token */
    this.img = data.img ?? "icons/svg/aura.svg";
    /** @type {string|null} */
    this.tint = null;
    this.disabled = false;
    /** @type {Set<string>} */
    this.statuses = new Set(data.statuses);
  }
}

export class FakeScene extends FakeDocument {
  /** @param {FakeWorld} world @param {Record<string, any>} data */
  constructor(world, data) {
    super(world, "Scene", { grid: { size: 100, distance: 1.5, units: "m" }, ...data, uuid: `Scene.${data.id}` });
    /** @type {FakeDocument[]} the scene's embedded tokens */
    this.tokens = [];
  }

  get grid() {
    return this._source.grid;
  }

  /**
   * [embedded] only tokens of this scene; an unknown id is refused before anything is written.
   * @param {string} name
   * @param {Record<string, any>[]} updates
   * @param {Record<string, unknown>} [options]
   */
  async updateEmbeddedDocuments(name, updates, options = {}) {
    if (name !== "Token") throw new Error(`the stand-in embeds only Token, not ${name}`);
    const docs = updates.map(({ _id }) => {
      const doc = this.tokens.find((t) => t.id === _id);
      if (!doc) throw new Error(`Token [${_id}] does not exist in Scene [${this.id}]`);
      return doc;
    });
    const out = [];
    for (const [i, { _id, ...rest }] of updates.entries()) {
      void _id;
      out.push(await docs[i].update(rest, options));
    }
    return out;
  }
}

/**
 * A tiny Foundry world of one version: users, actors, scenes with tokens, hooks, fromUuid,
 * CONFIG.statusEffects, `game.socket` and v13+ queries between connected clients.
 */
/** [keys] KeyboardEvent#code values a binding may name (letters, digits, function keys, the rest). */
const KEY_CODE = /^(Key[A-Z]|Digit[0-9]|Numpad([0-9]|Add|Subtract|Multiply|Divide|Decimal|Enter)|F([1-9]|1[0-9]|2[0-4])|Arrow(Up|Down|Left|Right)|Escape|Enter|Space|Tab|Backspace|Delete|Insert|Home|End|PageUp|PageDown|Minus|Equal|BracketLeft|BracketRight|Backslash|Semicolon|Quote|Backquote|Comma|Period|Slash|PrintScreen|ScrollLock|NumLock|CapsLock)$/;
/** [keys] KeyboardManager.PROTECTED_KEYS */
const PROTECTED_KEYS = ["F5", "F11", "F12", "PrintScreen", "ScrollLock", "NumLock", "CapsLock"];
/** [keys] KeyboardManager.MODIFIER_KEYS, as bindings write them */
const MODIFIER_KEYS = ["Alt", "Control", "Shift"];

/** [keys] game.keybindings. */
export class FakeKeybindings {
  constructor() {
    /** @type {Map<string, Record<string, any>>} */
    this.actions = new Map();
    /** `init` has run: registering now is refused */
    this.initialized = false;
  }

  /** @param {string} namespace @param {string} action @param {Record<string, any>} data */
  register(namespace, action, data) {
    const id = `${namespace}.${action}`;
    if (this.initialized) throw new Error(`keybinding ${id} registered after init`);
    if (this.actions.has(id)) throw new Error(`keybinding ${id} registered twice`);
    if (typeof data?.name !== "string") throw new Error(`keybinding ${id} has no name`);
    for (const binding of [...(data.editable ?? []), ...(data.uneditable ?? [])]) {
      if (typeof binding?.key !== "string" || !KEY_CODE.test(binding.key) || PROTECTED_KEYS.includes(binding.key)) {
        throw new Error(`keybinding ${id}: ${JSON.stringify(binding?.key)} is not a KeyboardEvent#code a binding may use`);
      }
      for (const modifier of binding.modifiers ?? []) {
        if (!MODIFIER_KEYS.includes(modifier)) throw new Error(`keybinding ${id}: ${JSON.stringify(modifier)} is not a modifier key (${MODIFIER_KEYS.join(", ")})`);
      }
    }
    this.actions.set(id, { ...data, namespace });
  }

  /**
   * Press a key (a KeyboardEvent#code) with exactly these modifiers held, as `user`: the onDown of
   * each action bound to it runs, until one consumes the event.
   * @param {string} code e.g. "KeyZ"
   * @param {string[]} modifiers e.g. ["Alt"]
   * @param {{isGM: boolean}} user
   * @returns {boolean} whether an action consumed the event
   */
  pressKey(code, modifiers, user) {
    const held = [...modifiers].sort().join("+");
    const context = {
      key: code,
      logicalKey: code.replace(/^Key/, "").toLowerCase(),
      isAlt: modifiers.includes("Alt"),
      isControl: modifiers.includes("Control"),
      isShift: modifiers.includes("Shift"),
      hasModifier: modifiers.length > 0,
      modifiers: [...modifiers],
      up: false,
      repeat: false,
    };
    for (const [id, config] of this.actions) {
      const bindings = [...(config.editable ?? []), ...(config.uneditable ?? [])];
      if (!bindings.some((b) => b.key === code && [...(b.modifiers ?? [])].sort().join("+") === held)) continue;
      if (config.restricted && !user.isGM) continue;
      if (typeof config.onDown === "function" && config.onDown({ ...context, action: id }) === true) return true;
    }
    return false;
  }
}

/**
 * [users] a User: role, isGM, flags (read with getFlag).
 * @param {string} id @param {string} name @param {number} role @param {boolean} active
 * @returns {FakeUser}
 */
function fakeUser(id, name, role, active) {
  /** @type {FakeUser} */
  const user = {
    id,
    name,
    role,
    isGM: role >= 3,
    active,
    targets: new Set(),
    flags: {},
    getFlag(scope, key) {
      const value = this.flags?.[scope]?.[key];
      return value === undefined ? undefined : structuredClone(value);
    },
  };
  return user;
}

export class FakeWorld {
  /** @param {{generation?: 12|13|14, statusIds?: string[]}} [options] */
  constructor({ generation = 13, statusIds = ["blind", "deaf", "unconscious", "dead", "prone", "invisible"] } = {}) {
    this.generation = generation;
    this.env = ENV[generation];
    this.hooks = new FakeHooks();
    /** @type {Map<string, FakeUser>} */
    this.users = new Map([["gm", fakeUser("gm", "Gamemaster", 4, true)]]);
    /** @type {FakeUser} the user this client is logged in as */
    this.user = /** @type {FakeUser} */ (this.users.get("gm"));
    /** [statuses] CONFIG.statusEffects in the version's shape (each with its `img`) */
    /** @type {Record<string, {id: string, name: string, img?: string}>|Array<{id: string, name: string, img?: string}>} */
    this.statusEffects = generation >= 14
      ? Object.fromEntries(statusIds.map((id) => [id, { id, name: `EFFECT.Status${id}`, img: `icons/svg/${id}.svg` }]))
      : statusIds.map((id) => ({ id, name: `EFFECT.Status${id}`, img: `icons/svg/${id}.svg` }));
    /** @type {Map<string, FakeDocument>} */
    this.actors = new Map();
    /** @type {Map<string, FakeDocument>} */
    this.byUuid = new Map();
    /** @type {Map<string, FakeScene>} */
    this.scenes = new Map();
    this.scene = this.addScene("scene1");
    /** @type {FakeDocument[]} the first scene's tokens */
    this.tokens = this.scene.tokens;
    const world = this;
    /** [chat] the world's chat messages, in creation order */
    this.messages = new Map();
    this.keybindings = new FakeKeybindings();
    /** @type {((system: Record<string, any>, actor: FakeDocument) => Record<string, any>)|null} a game system's data preparation (K14) */
    this.prepareSystem = null;
    /** [settings] the world's Setting documents: key → value */
    /** @type {Map<string, unknown>} */
    this.settings = new Map();
    /** [canvas] [token] the world's CONFIG parts the canvas reads: the Token class (a module replaces it in
     * `init`), the disposition colours (https://foundryvtt.com/api/v14/variables/CONFIG.Canvas.html) */
    this.config = {
      Token: { objectClass: /** @type {any} */ (FakeToken) },
      Canvas: { dispositionColors: { HOSTILE: 0xe72124, NEUTRAL: 0xf1d836, FRIENDLY: 0x43dfdf, INACTIVE: 0x555555 } },
      ui: { combat: FakeCombatTracker },
      statusEffects: this.statusEffects,
    };
    /** [tracker] the active combat: `{combatants: Map<id, {id, name, token}>, round}` */
    /** @type {any} */
    this.combat = null;
    this.ChatMessage = {
      /** [chat] @param {Record<string, any>} data */
      async create(data) {
        const id = `msg${world.messages.size + 1}`;
        const author = world.user.id;
        // [chat] a message keeps its rolls serialized (ChatMessageData `rolls`: "the serialized content of Roll instances")
        const rolls = (data.rolls ?? []).map((/** @type {any} */ r) => JSON.stringify(typeof r?.toJSON === "function" ? r.toJSON() : r));
        const message = new FakeDocument(world, "ChatMessage", { ...structuredClone({ ...data, rolls: undefined }), rolls, id, author, ownership: { default: 0, [author]: 3 } });
        world.messages.set(id, message);
        world.hooks.callAll("createChatMessage", message, {}, author);
        return message;
      },
    };
    this.Actor = {
      /** [update] Actor.updateDocuments: every id must name a world actor. @param {Record<string, any>[]} updates @param {Record<string, unknown>} [options] */
      async updateDocuments(updates, options) {
        const docs = updates.map(({ _id }) => {
          const doc = world.actors.get(_id);
          if (!doc) throw new Error(`Actor [${_id}] does not exist`);
          return doc;
        });
        const out = [];
        for (const [i, { _id, ...rest }] of updates.entries()) {
          void _id;
          out.push(await docs[i].update(rest, options));
        }
        return out;
      },
    };
  }

  /**
   * [chat] The chat log of this client's user renders a message: its content (the HTML, parsed as a
   * browser parses it, buttons and their `data-*` attributes included) in an element passed to the
   * version's render hook; a message the user may not see (`visibleTo`) is never rendered (throws).
   * @param {FakeDocument} message
   * @param {typeof import("./fake-dom.mjs").FakeElement} Element
   */
  renderMessage(message, Element) {
    if (!this.visibleTo(this.user).includes(message)) throw new Error(`the chat log of ${this.user.name} does not render ${message.id}: it is not visible to them`);
    const root = new Element("li", "chat-message");
    root.append(...parseHtml(String(message._source.content ?? ""), Element));
    if (this.generation >= 13) this.hooks.callAll("renderChatMessageHTML", message, root, {});
    else this.hooks.callAll("renderChatMessage", message, [root], {});
    return root;
  }

  /**
   * [chat] The messages `user` may read, in creation order.
   * @param {FakeUser} user
   */
  visibleTo(user) {
    return [...this.messages.values()].filter((m) => {
      const whisper = /** @type {string[]} */ (m._source.whisper ?? []);
      return !whisper.length || user.isGM || whisper.includes(user.id) || m._source.author === user.id;
    });
  }

  /** @param {string} id */
  statusEffect(id) {
    const all = Array.isArray(this.statusEffects) ? this.statusEffects : Object.values(this.statusEffects);
    return all.find((s) => s.id === id) ?? null;
  }

  /** @param {string} id @param {string} name @param {{isGM?: boolean, active?: boolean, assistant?: boolean}} [options] */
  addUser(id, name, { isGM = false, active = true, assistant = false } = {}) {
    const user = fakeUser(id, name, isGM ? (assistant ? 3 : 4) : 1, active);
    this.users.set(id, user);
    return user;
  }

  /** Log this client in as another user. @param {string} id */
  loginAs(id) {
    this.user = /** @type {FakeUser} */ (this.users.get(id));
    return this.user;
  }

  /** @param {string} id */
  addScene(id) {
    const scene = new FakeScene(this, { id, name: id });
    this.scenes.set(id, scene);
    this.byUuid.set(scene.uuid, scene);
    return scene;
  }

  /**
   * @param {string} id
   * @param {string} name
   * @param {Record<string, any>} flags the actor's `flags.vtt-bridge`
   * @param {Record<string, number>} [ownership] user id → level (and `default`)
   */
  addActor(id, name, flags, ownership = { default: 0 }) {
    const actor = new FakeDocument(this, "Actor", { id, uuid: `Actor.${id}`, name, flags: { "vtt-bridge": flags }, ownership });
    this.actors.set(id, actor);
    this.byUuid.set(actor.uuid, actor);
    return actor;
  }

  /** @param {string} id @param {FakeDocument} actor @param {number} x @param {number} y @param {FakeScene} [scene] @param {Record<string, any>} [data] name, disposition, hidden, flags */
  addToken(id, actor, x, y, scene = this.scene, data = {}) {
    const token = new FakeDocument(this, "Token", { name: actor?.name, ...data, id, uuid: `${scene.uuid}.Token.${id}`, x, y, elevation: 0 });
    token.parent = scene;
    token.actor = actor;
    scene.tokens.push(token);
    this.byUuid.set(token.uuid, token);
    return token;
  }

  /** @param {string} uuid */
  async fromUuid(uuid) {
    return this.byUuid.get(uuid) ?? null;
  }
}

/**
 * [settings] One browser's `game.settings`: client settings in this browser's own storage, world
 * settings in the world (Setting documents, created on the first change).
 */
export class FakeSettings {
  /** @param {FakeWorld} world @param {FakeUser} user @param {FakeHooks} hooks this browser's hooks */
  constructor(world, user, hooks) {
    this.world = world;
    this.user = user;
    this.hooks = hooks;
    /** @type {Map<string, Record<string, any>>} */
    this.configs = new Map();
    /** @type {Map<string, unknown>} this browser's localStorage */
    this.client = new Map();
  }
  /** @param {string} namespace @param {string} key @param {Record<string, any>} config */
  register(namespace, key, config) {
    this.configs.set(`${namespace}.${key}`, config);
  }
  /** @param {string} namespace @param {string} key */
  get(namespace, key) {
    const id = `${namespace}.${key}`;
    const config = this.configs.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    const store = config.scope === "client" ? this.client : this.world.settings;
    return store.has(id) ? structuredClone(store.get(id)) : config.default;
  }
  /** @param {string} namespace @param {string} key @param {unknown} value */
  async set(namespace, key, value) {
    const id = `${namespace}.${key}`;
    const config = this.configs.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    if (config.scope === "client") {
      this.client.set(id, structuredClone(value));
      if (typeof config.onChange === "function") config.onChange(value, {});
      if (this.world.generation >= 13) this.hooks.callAll("clientSettingChanged", id, value, {});
      return value;
    }
    if (!this.user.isGM) throw new Error(`User ${this.user.name} lacks permission to modify the world setting ${id}`);
    const created = !this.world.settings.has(id);
    this.world.settings.set(id, structuredClone(value));
    const setting = { key: id, value };
    if (typeof config.onChange === "function") config.onChange(value, {});
    this.hooks.callAll(created ? "createSetting" : "updateSetting", setting, created ? {} : { value }, {}, this.user.id);
    return value;
  }
}

/**
 * [socket] [queries] The browsers connected to one world: each has its own `CONFIG.queries` and
 * `game.socket`; a socket message reaches every other browser (never the sender), a query reaches
 * the one user asked and is answered by that browser's handler, or rejects (not connected, no
 * handler, or no answer within `timeout`). Data crosses the wire as JSON.
 */
export class FakeNetwork {
  /** @param {FakeWorld} world */
  constructor(world) {
    this.world = world;
    /** @type {Map<string, FakeClient>} user id → browser */
    this.clients = new Map();
  }

  /** @param {string} userId @returns {FakeClient} */
  connect(userId) {
    const client = new FakeClient(this, /** @type {FakeUser} */ (this.world.users.get(userId)));
    this.clients.set(userId, client);
    client.user.active = true;
    // [users] userConnected on every other browser
    for (const other of this.clients.values()) if (other !== client) other.hooks.callAll("userConnected", client.user, true);
    return client;
  }

  /** @param {string} userId */
  disconnect(userId) {
    this.clients.delete(userId);
    const user = this.world.users.get(userId);
    if (!user) return;
    user.active = false;
    for (const other of this.clients.values()) other.hooks.callAll("userConnected", user, false);
  }

  /**
   * [users] `by` updates a User's flag (`flags.<scope>.<key>`, null unsets it): its own user or a
   * Game Master only; updateUser(user, changes, options, userId) on every connected browser.
   * @param {FakeUser} by @param {string} userId @param {string} scope @param {string} key @param {unknown} value
   */
  async setUserFlag(by, userId, scope, key, value) {
    const user = this.world.users.get(userId);
    if (!user) throw new Error(`User [${userId}] does not exist`);
    if (by.id !== userId && !by.isGM) throw new Error(`User ${by.name} lacks permission to update User [${userId}]`);
    const flags = (user.flags ??= {});
    const scoped = (flags[scope] ??= {});
    if (value === null) delete scoped[key];
    else scoped[key] = structuredClone(value);
    const changes = { flags: { [scope]: { [value === null ? `-=${key}` : key]: value } } };
    await Promise.resolve();
    for (const client of this.clients.values()) client.hooks.callAll("updateUser", user, structuredClone(changes), {}, by.id);
  }

  /**
   * @param {string} targetId @param {string} name @param {unknown} data @param {number} [timeout] @param {string} [asker] the asking browser's user id
   * @returns {Promise<unknown>}
   */
  async query(targetId, name, data, timeout, asker) {
    const target = this.clients.get(targetId);
    if (!target) throw new Error(`User [${targetId}] is not connected`);
    const handler = target.queries[name];
    if (typeof handler !== "function") throw new Error(`User [${targetId}] has no query handler "${name}"`);
    // the handler is told who asks (the User document of the asking browser, as peers read `{user}`)
    const user = asker ? target.users().get(asker) : undefined;
    const answer = Promise.resolve().then(() => handler(JSON.parse(JSON.stringify(data)), { timeout, user })).then((a) => JSON.parse(JSON.stringify(a ?? null)));
    if (timeout === undefined) return answer;
    /** @type {any} */
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`query "${name}" timed out`)), timeout);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export class FakeClient {
  /** @param {FakeNetwork} network @param {FakeUser} user */
  constructor(network, user) {
    this.network = network;
    this.user = user;
    /** [users] this browser's own Hooks (its own copy of the module listens here) */
    this.hooks = new FakeHooks();
    /** [settings] this browser's game.settings */
    this.settings = new FakeSettings(network.world, user, this.hooks);
    /** @type {Record<string, (data: any, options?: any) => unknown>} this browser's CONFIG.queries */
    this.queries = {};
    /** @type {Map<string, Array<(data: unknown, senderId: string) => void>>} */
    this.listeners = new Map();
    const client = this;
    this.socket = {
      /** @param {string} channel @param {unknown} data */
      emit(channel, data) {
        for (const other of network.clients.values()) {
          if (other === client) continue;
          for (const fn of other.listeners.get(channel) ?? []) queueMicrotask(() => fn(JSON.parse(JSON.stringify(data)), user.id));
        }
      },
      /** @param {string} channel @param {(data: unknown, senderId: string) => void} fn */
      on(channel, fn) {
        client.listeners.set(channel, [...(client.listeners.get(channel) ?? []), fn]);
      },
      /** @param {string} channel @param {(data: unknown) => void} fn */
      off(channel, fn) {
        client.listeners.set(channel, (client.listeners.get(channel) ?? []).filter((f) => f !== fn));
      },
    };
  }

  /**
   * `game.users` as this browser sees them: each with `query` (v13+); the collection's `get(id)` and
   * `activeGM`, "one User who is an active Gamemaster ..., or null if no active GM is available"
   * (https://foundryvtt.com/api/classes/foundry.documents.collections.Users.html); `isSelf` on this
   * browser's own user ("Is this User the same as the currently connected user",
   * https://foundryvtt.com/api/classes/foundry.documents.User.html).
   */
  users() {
    const network = this.network;
    const self = this.user.id;
    const list = [...network.world.users.values()].map((u) => ({
      ...u,
      isSelf: u.id === self,
      /** @param {string} name @param {Record<string, unknown>} data @param {{timeout?: number}} [options] */
      query: (name, data, options = {}) => network.query(u.id, name, data, options.timeout, self),
    }));
    return Object.assign(list, {
      /** @param {string} id */
      get: (id) => list.find((u) => u.id === id),
      /** [users] "non-assistant if possible": a full GM first, then an assistant; by id within each */
      get activeGM() {
        const gms = list.filter((u) => u.isGM && u.active).sort((a, b) => Number(b.role ?? 4) - Number(a.role ?? 4) || (a.id < b.id ? -1 : 1));
        return gms[0] ?? null;
      },
    });
  }
}

// ---- the canvas ------------------------------------------------------------------------------

/** [canvas] The stage: a PixiJS container that dispatches pointer events to its listeners. */
export class FakeStage {
  constructor() {
    /** @type {Map<string, Function[]>} */
    this.listeners = new Map();
    /** the pan and zoom: canvas point = (client - pan) / scale */
    this.pan = { x: 37, y: 19, scale: 0.5 };
  }
  /** @param {string} name @param {Function} fn */
  on(name, fn) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn]);
    return this;
  }
  /** @param {string} name @param {Function} fn */
  off(name, fn) {
    this.listeners.set(name, (this.listeners.get(name) ?? []).filter((f) => f !== fn));
    return this;
  }
  /**
   * A pointer press at canvas point (x, y), as PixiJS dispatches it on the stage.
   * @param {number} button 0 left, 2 right
   * @param {number} x @param {number} y canvas coordinates
   */
  press(button, x, y) {
    const stage = this;
    const client = { x: x * this.pan.scale + this.pan.x, y: y * this.pan.scale + this.pan.y };
    const event = {
      type: "pointerdown",
      button,
      client,
      global: client,
      /** @param {any} container */
      getLocalPosition(container) {
        if (container !== stage) throw new Error("the stand-in knows local positions on the stage only");
        return { x, y };
      },
    };
    for (const fn of this.listeners.get("pointerdown") ?? []) fn(event);
  }
}

const TOKEN_PARTS = ["border", "nameplate", "bars", "effects", "tooltip", "targetArrows", "targetPips"];

/** [token] [targets] A Token placeable in core's outline; the module's mixins extend it. */
export class FakeToken {
  /** @param {FakeDocument} document @param {{world: FakeWorld, PIXI: any}} context */
  constructor(document, { world, PIXI }) {
    this.world = world;
    this.document = document;
    /** @type {any} */ (document).object = this;
    this.actor = document.actor;
    this.controlled = false;
    this.hover = false;
    this.destroyed = false;
    this.visible = true;
    this.w = 100;
    this.h = 100;
    this.center = { x: document.x + 50, y: document.y + 50 };
    /** @type {any[]} */
    this.children = [];
    this.mesh = new PIXI.Container();
    for (const part of TOKEN_PARTS) {
      const child = new PIXI.Container();
      child.parent = this;
      this.children.push(child);
      /** @type {any} */ (this)[part] = child;
    }
    /** @type {Set<FakeUser>} the users targeting this token */
    this.targeted = new Set();
    /** [ruler] v13+ `Token#ruler` (a BaseTokenRuler; v12 has none): visible while another user plans a path for it */
    /** @type {{visible: boolean, isVisible: boolean}|null} */
    this.ruler = world.generation >= 13 ? { visible: false, isVisible: false } : null;
    this.renderFlags = { set: () => this.refresh() };
  }
  /** @param {any} child */
  addChild(child) {
    child.parent = this;
    this.children.push(child);
    return child;
  }
  get isVisible() {
    return !this.document._source.hidden || this.world.user.isGM;
  }
  /** Token#hasSight: the token has vision (its document's `sight.enabled`) */
  get hasSight() {
    return !!this.document._source.sight?.enabled;
  }
  _refreshVisibility() {
    this.visible = this.isVisible;
    this.mesh.visible = this.visible;
  }
  _refreshState() {
    for (const part of TOKEN_PARTS) /** @type {any} */ (this)[part].visible = true;
    // [ruler] v13+: "BaseTokenRuler#visible is set to BaseTokenRuler#isVisible in Token#_refreshState" —
    // https://foundryvtt.com/api/classes/foundry.canvas.placeables.tokens.BaseTokenRuler.html
    if (this.ruler) this.ruler.visible = this.ruler.isVisible;
    /** @type {any} */ (this).border.tint = this._getBorderColor();
  }
  refresh() {
    this._refreshVisibility();
    this._refreshState();
  }
  _getBorderColor() {
    const colors = this.world.config.Canvas.dispositionColors;
    const disposition = Number(this.document._source.disposition ?? -1);
    return disposition === 1 ? colors.FRIENDLY : disposition === 0 ? colors.NEUTRAL : colors.HOSTILE;
  }
  _canHUD() {
    return true;
  }
  _canHover() {
    return true;
  }
  _canControl(/** @type {FakeUser} */ user) {
    return this.document.testUserPermission(user ?? this.world.user, "OWNER");
  }
  _canView() {
    return true;
  }
  _canDrag() {
    return true;
  }
  _isLightSource() {
    return false;
  }
  /**
   * [targets] target or untarget this token for `user` (this client's user by default).
   * @param {boolean} [targeted] @param {{user?: FakeUser|null, releaseOthers?: boolean, groupSelection?: boolean}} [options]
   */
  setTarget(targeted = true, { user = null, releaseOthers = true } = {}) {
    const who = user ?? this.world.user;
    const targets = /** @type {Set<any>} */ (who.targets);
    if (targeted && releaseOthers) for (const other of [...targets]) if (other !== this) other.setTarget(false, { user: who, releaseOthers: false });
    if (targeted === targets.has(this)) return;
    if (targeted) {
      targets.add(this);
      this.targeted.add(who);
    } else {
      targets.delete(this);
      this.targeted.delete(who);
    }
    this.world.hooks.callAll("targetToken", who, this, targeted);
  }
  /**
   * [effects] Token#drawEffects (public): the effect icons of the actor's temporary effects drawn
   * into `token.effects`, each by the protected `_drawEffect(src, tint)` ("Draw a status effect
   * icon", a Promise of the sprite or undefined), the defeated status (CONFIG.specialStatusEffects
   * DEFEATED, "dead") as the overlay instead — https://foundryvtt.com/api/classes/foundry.canvas.placeables.Token.html
   * (v12: https://foundryvtt.com/api/v12/classes/client.Token.html). Whether `_drawEffect` or its
   * caller adds the sprite is not said; here the caller adds what `_drawEffect` returns, so an
   * override that returns undefined draws nothing.
   */
  async drawEffects() {
    const container = /** @type {any} */ (this).effects;
    for (const child of container.children ?? []) child.destroy?.();
    container.children = [];
    /** @type {string[]} the icons drawn, in order (the overlay as "overlay:<src>") */
    this.drawnEffects = [];
    for (const effect of this.actor?.temporaryEffects ?? []) {
      if (effect.statuses.has("dead")) {
        this.drawnEffects.push(`overlay:${effect.img}`);
        continue;
      }
      const sprite = await /** @type {any} */ (this)._drawEffect(effect.img, effect.tint);
      if (sprite) {
        container.children.push(sprite);
        this.drawnEffects.push(effect.img);
      }
    }
  }

  /** [effects] the protected icon drawing: a sprite of `src`. @param {string} src @param {unknown} tint */
  async _drawEffect(src, tint) {
    if (typeof src !== "string" || !src) return undefined;
    return { src, tint, destroy() {} };
  }

  /** control (select) this token, as a left click does */
  control() {
    if (!this._canControl(this.world.user)) return false;
    this.controlled = true;
    this.world.hooks.callAll("controlToken", this, true);
    return true;
  }
}

/** [canvas] The canvas of the viewed scene, drawn from `CONFIG.Token.objectClass`. */
export class FakeCanvas {
  /** @param {FakeWorld} world @param {{PIXI: any, sceneRect?: {x: number, y: number, width: number, height: number}}} options */
  constructor(world, { PIXI, sceneRect = { x: 200, y: 200, width: 2000, height: 1500 } }) {
    this.world = world;
    this.PIXI = PIXI;
    this.ready = false;
    this.scene = world.scene;
    const size = world.scene.grid.size;
    this.grid = { size };
    this.dimensions = {
      size,
      sceneRect,
      sceneX: sceneRect.x,
      sceneY: sceneRect.y,
      sceneWidth: sceneRect.width,
      sceneHeight: sceneRect.height,
      width: sceneRect.width + 2 * sceneRect.x,
      height: sceneRect.height + 2 * sceneRect.y,
    };
    this.stage = new FakeStage();
    this.controls = new PIXI.Container();
    const canvas = this;
    this.tokens = {
      /** @type {any[]} */
      placeables: [],
      /** @type {any} */
      hover: null,
      get controlled() {
        return this.placeables.filter((/** @type {any} */ t) => t.controlled);
      },
      /** @param {string} id */
      get(id) {
        return this.placeables.find((/** @type {any} */ t) => t.document.id === id);
      },
      /**
       * [targets] v13+ TokenLayer#setTargets(ids, {mode: "replace"|"acquire"|"release"}) —
       * https://foundryvtt.com/api/v14/classes/foundry.canvas.layers.TokenLayer.html. The pages do not
       * say it goes through Token#setTarget: here it does not (it changes the user's targets and fires
       * targetToken itself), the reading that punishes a guard placed on setTarget alone.
       * @param {string[]} ids @param {{mode?: "replace"|"acquire"|"release"}} [options]
       */
      setTargets(ids, { mode = "replace" } = {}) {
        if (canvas.world.generation < 13) throw new TypeError("TokenLayer#setTargets is not a function");
        const who = canvas.world.user;
        const targets = /** @type {Set<any>} */ (who.targets);
        const chosen = this.placeables.filter((/** @type {any} */ t) => ids.includes(t.document.id));
        /** @param {any} token @param {boolean} on */
        const change = (token, on) => {
          if (on === targets.has(token)) return;
          if (on) targets.add(token), token.targeted.add(who);
          else targets.delete(token), token.targeted.delete(who);
          canvas.world.hooks.callAll("targetToken", who, token, on);
        };
        if (mode === "replace") for (const token of [...targets]) if (!chosen.includes(token)) change(token, false);
        for (const token of chosen) change(token, mode !== "release");
      },
    };
  }
  /** Draw the scene's tokens with the configured Token class, then fire canvasReady. */
  draw() {
    const Token = this.world.config.Token.objectClass;
    this.tokens.placeables = this.scene.tokens.map((doc) => new Token(doc, { world: this.world, PIXI: this.PIXI }));
    for (const token of this.tokens.placeables) token.refresh();
    this.ready = true;
    this.world.hooks.callAll("canvasReady", this);
  }
}

/** [tracker] The combat tracker of the world's combat. */
export class FakeCombatTracker {
  /** @param {FakeWorld} world @param {{Element: any}} dom */
  constructor(world, { Element }) {
    this.world = world;
    this.Element = Element;
  }
  /** @param {any} token */
  _isTokenVisible(token) {
    return !!token?.visible;
  }
  /** Render: a row per combatant whose token shows, then the render hook. */
  render() {
    const combat = this.world.combat;
    const root = new this.Element("ol", "combat-tracker");
    for (const combatant of combat?.combatants.values() ?? []) {
      if (!this._isTokenVisible(combatant.token?.object)) continue;
      const row = new this.Element("li", "combatant");
      row.dataset.combatantId = combatant.id;
      row.textContent = combatant.name;
      root.append(row);
    }
    this.world.hooks.callAll("renderCombatTracker", this, root, {});
    return root;
  }
}

/** [dialog] DialogV2 answering with the test's choice: `choose(options) -> {button, form}|null`. */
export class FakeDialogs {
  constructor() {
    /** @type {Array<{button: string, form?: Record<string, string>, edit?: Record<string, string>}|null>} */
    this.answers = [];
    /** @type {any[]} */
    this.opened = [];
    /** @type {any[]} each rendered dialog's element (a `render` option's), as opened */
    this.elements = [];
    const dialogs = this;
    this.DialogV2 = {
      /** @param {any} options */
      async prompt(options) {
        return dialogs.answer(options, [{ action: "ok", ...options.ok }]);
      },
      /** @param {any} options */
      async wait(options) {
        return dialogs.answer(options, options.buttons ?? []);
      },
    };
  }
  /** @param {any} options @param {any[]} buttons */
  async answer(options, buttons) {
    this.opened.push(options);
    const element = typeof options.render === "function" ? renderDialog(options) : null;
    if (element) this.elements.push(element);
    const answer = this.answers.shift() ?? null;
    if (answer === null) {
      if (options.rejectClose !== false) throw new Error("the dialog was closed");
      return null;
    }
    const button = buttons.find((b) => b.action === answer.button);
    if (!button) throw new Error(`the dialog offers no button ${answer.button}`);
    if (answer.edit && !element) throw new Error("the dialog was not rendered: no field to edit");
    for (const [name, value] of Object.entries(answer.edit ?? {})) await editField(/** @type {any} */ (element), name, value);
    const form = { values: answer.form ?? (element ? fieldValues(element) : {}) };
    return typeof button.callback === "function" ? button.callback({ type: "click" }, { form }, {}) : button.action;
  }
}

/** Every descendant element, depth first. @param {any} node @returns {any[]} */
const descendants = (node) => (node.children ?? []).flatMap((/** @type {any} */ child) => [child, ...descendants(child)]);
/** A form's fields (input, select, textarea with a name). @param {any} root */
const formFields = (root) => descendants(root).filter((el) => ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) && el.getAttribute("name") !== null);
/** @param {any} select */
const optionsOf = (select) => descendants(select).filter((el) => el.tagName === "OPTION");

/** The dialog rendered: a form holding the parsed content, each field its value; then `render(event, dialog)`. @param {any} options */
function renderDialog(options) {
  const element = new FakeDomElement("dialog");
  const form = new FakeDomElement("form", "dialog-form");
  form.append(...parseHtml(String(options.content ?? "")));
  element.append(form);
  for (const field of formFields(form)) {
    if (field.tagName === "SELECT") {
      const choices = optionsOf(field);
      const chosen = choices.find((o) => o.getAttribute("selected") !== null) ?? choices[0];
      field.value = chosen ? String(chosen.getAttribute("value") ?? chosen.textContent) : "";
    } else if (isCheckbox(field)) {
      field.value = String(field.getAttribute("value") ?? "on");
      field.checked = field.getAttribute("checked") !== null;
    } else field.value = String(field.getAttribute("value") ?? "");
  }
  options.render({ type: "render" }, { element });
  return element;
}

/** @param {any} field */
const isCheckbox = (field) => field.tagName === "INPUT" && field.getAttribute("type") === "checkbox";

/** The values a form submits (a checkbox only when checked: https://developer.mozilla.org/en-US/docs/Web/API/FormData). @param {any} element */
const fieldValues = (element) =>
  Object.fromEntries(formFields(element).filter((field) => !isCheckbox(field) || field.checked).map((field) => [String(field.getAttribute("name")), String(field.value)]));

/**
 * A user changes one field: its value set (a select's only to one of its options), then `change`
 * bubbles up from it; what the listeners started is awaited (the user acts on what they then see).
 * @param {any} element @param {string} name @param {string} value
 */
async function editField(element, name, value) {
  const field = formFields(element).find((el) => el.getAttribute("name") === name);
  if (!field) throw new Error(`the dialog has no field ${name}`);
  if (field.tagName === "SELECT" && !optionsOf(field).some((o) => String(o.getAttribute("value") ?? o.textContent) === value)) {
    throw new Error(`the select ${name} offers no option ${value}`);
  }
  if (isCheckbox(field)) {
    if (value !== "on" && value !== "off") throw new Error(`the checkbox ${name} is checked ("on") or not ("off"), not ${value}`);
    field.checked = value === "on";
  } else field.value = value;
  const event = { type: "change", target: field, bubbles: true };
  const started = [];
  for (let node = field; node; node = node.parentElement) for (const fn of node._listeners?.get("change") ?? []) started.push(fn(event));
  await Promise.all(started);
}

/**
 * [app] `foundry.applications.api.ApplicationV2` as its public pages describe it
 * (https://foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html,
 * https://foundryvtt.com/api/modules/foundry.applications.html): `DEFAULT_OPTIONS` merged down the
 * class chain into `options`; an application is not renderable unless its subclass defines
 * `_renderHTML` and `_replaceHTML` (render throws here); `render` runs `_prepareContext`, then
 * `_renderHTML(context, options)`, then `_replaceHTML(result, content, options)` into the window's
 * content element (built on the first render, the `tag` of the options), then `_onRender`;
 * `rendered` after it, false after `close`. A click on an element with `data-action` inside the
 * application runs `options.actions[action]` with the application as `this` and `(event, target)`
 * (`click`, standing for the delegated listener); an action the options lack throws.
 */
export class FakeApplicationV2 {
  static DEFAULT_OPTIONS = { id: "app-{id}", tag: "div", classes: [], window: { title: "" }, actions: {} };

  /** @param {Record<string, any>} [options] */
  constructor(options = {}) {
    /** @type {any[]} */
    const chain = [];
    for (let c = /** @type {any} */ (this.constructor); c && c !== Object; c = Object.getPrototypeOf(c)) if (Object.hasOwn(c, "DEFAULT_OPTIONS")) chain.unshift(c.DEFAULT_OPTIONS);
    /** @type {Record<string, any>} */
    const merged = {};
    for (const layer of [...chain, options]) {
      for (const [key, value] of Object.entries(layer)) {
        merged[key] = value && typeof value === "object" && !Array.isArray(value) && merged[key] && typeof merged[key] === "object" ? { ...merged[key], ...value } : value;
      }
    }
    this.options = merged;
    /** @type {any} */
    this.element = null;
    this.rendered = false;
    this.renders = 0;
  }

  /** @param {any} [options] */
  async render(options = {}) {
    const self = /** @type {any} */ (this);
    if (typeof self._renderHTML !== "function" || typeof self._replaceHTML !== "function") throw new Error("an ApplicationV2 subclass must define _renderHTML and _replaceHTML to render");
    const renderOptions = options === true ? { force: true } : options;
    const context = await (self._prepareContext?.(renderOptions) ?? {});
    const result = await self._renderHTML(context, renderOptions);
    if (!this.element) {
      this.element = new FakeDomElement(this.options.tag ?? "div", (this.options.classes ?? []).join(" "));
      this.element.id = this.options.id;
    }
    self._replaceHTML(result, this.element, renderOptions);
    this.rendered = true;
    this.renders += 1;
    self._onRender?.(context, renderOptions);
    return this;
  }

  async close() {
    this.rendered = false;
    return this;
  }

  /** A user's click on `target` (an element inside the application). @param {any} target */
  async click(target) {
    for (let node = target; node; node = node.parentElement) {
      const action = node.dataset?.action;
      if (!action) continue;
      const handler = this.options.actions?.[action];
      if (typeof handler !== "function") throw new Error(`the application has no action ${action}`);
      if (target.tagName === "INPUT" && target.getAttribute?.("type") === "checkbox") target.checked = !target.checked;
      return handler.call(this, { type: "click", target, preventDefault() {} }, node);
    }
    if (target.tagName === "INPUT" && target.getAttribute?.("type") === "checkbox") target.checked = !target.checked;
    return undefined;
  }
}

/** `FormData` over the stand-in dialog's form (the values the test put in it). */
export class FakeFormData {
  /** @param {{values: Record<string, string>}} form */
  constructor(form) {
    this.values = form?.values ?? {};
  }
  *entries() {
    yield* Object.entries(this.values);
  }
  /** @param {string} name */
  get(name) {
    return this.values[name] ?? null;
  }
}

/** [chat] `foundry.dice.Roll`: `fromData` keeps the data, serialized as it came. */
export const FakeRoll = {
  /** @param {Record<string, any>} data */
  fromData(data) {
    return { ...structuredClone(data), toJSON: () => structuredClone(data) };
  },
};
