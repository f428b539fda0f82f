/**
 * Living beside a game system that configured its own Token class and combat tracker (as mta does
 * at its `init`, before the module's): our mixins extend the system's classes, once; the system's
 * own drawing stays for everything we do not replace; our Health boxes replace or sit beside the
 * system's Health bar (the world setting).
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { composeOnce, replacesSystemBar, systemBarMixin, TOKEN_MIXIN_TAGS } from "../../../scripts/systems/canvas.mjs";
import { installVisibility } from "../../../scripts/foundry/visibility-canvas.mjs";
import { FakeHooks } from "../../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../../helpers/fake-pixi.mjs";

/** A bar's Graphics, recording what is drawn on it. */
class FakeBar {
  /** @type {string[]} */
  drawn = [];
  clear() {
    this.drawn = [];
    return this;
  }
}

/** Core's Token in outline: `_drawBar(number, bar, data)` draws a plain bar. */
class CoreToken {
  /** @param {any} document */
  constructor(document) {
    this.document = document;
    this.actor = document.actor ?? null;
  }
  /** @param {number} number @param {FakeBar} bar @param {any} data */
  _drawBar(number, bar, data) {
    bar.drawn.push(`core:${number}:${data.attribute}`);
  }
  _drawEffects() {
    return "core effects";
  }
}

/** A system's Token class (mta's shape: its own Health bar, its own effects). */
class SystemToken extends CoreToken {
  /** @param {number} number @param {FakeBar} bar @param {any} data */
  _drawBar(number, bar, data) {
    if (data.attribute === "health") bar.drawn.push("system:three-colour health");
    else super._drawBar(number, bar, data);
  }
  _drawEffects() {
    return "system effects (Conditions and Tilts)";
  }
}

class CoreTracker {
  /** @param {any} token */
  _isTokenVisible(token) {
    return !!token?.visible;
  }
  getData() {
    return { turns: ["core"] };
  }
}
/** @param {number} generation */
function systemEnv(generation) {
  // a fresh class per test: v12/v13 patch its prototype
  class SystemTracker extends CoreTracker {
    getData() {
      return { turns: [...super.getData().turns, "system css"] };
    }
  }
  return {
    SystemTracker,
    CONFIG: { Token: { objectClass: SystemToken }, Canvas: { dispositionColors: { INACTIVE: 0 } }, ui: { combat: SystemTracker } },
    game: {
      user: { id: "u1", isGM: false },
      release: { generation },
      keybindings: { register: () => undefined },
      i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k },
      combat: null,
    },
    ui: { combat: { render() {} }, controls: { controls: { tokens: { tools: {} } }, render() {} } },
    Hooks: new FakeHooks(),
    PIXI: FAKE_PIXI,
    requestAnimationFrame: () => undefined,
    canvas: null,
  };
}

test("composeOnce: wraps the configured class once; a class configured later is wrapped again", () => {
  const tag = Symbol("test mixin");
  let made = 0;
  /** @param {typeof CoreToken} Base */
  const mixin = (Base) => {
    made += 1;
    return class extends Base {};
  };
  const once = composeOnce(SystemToken, mixin, tag);
  assert.ok(once.prototype instanceof SystemToken);
  assert.equal(composeOnce(once, mixin, tag), once, "already in: left alone");
  class Subclassed extends once {}
  assert.equal(composeOnce(Subclassed, mixin, tag), Subclassed, "a subclass of ours still has it");
  class LateSystemToken extends CoreToken {}
  assert.ok(composeOnce(LateSystemToken, mixin, tag).prototype instanceof LateSystemToken);
  assert.equal(made, 2);
});

for (const generation of [13, 14]) {
  test(`v${generation}: installVisibility extends the system's Token class and combat tracker, keeping their own code`, () => {
    const env = systemEnv(generation);
    const { SystemTracker } = env;
    installVisibility({ env });
    const Token = env.CONFIG.Token.objectClass;
    assert.ok(Token.prototype instanceof SystemToken, "our Token mixin extends the system's class");
    assert.ok(Object.prototype.hasOwnProperty.call(Token, TOKEN_MIXIN_TAGS.visibility));
    const token = new Token({ id: "t", actor: null });
    assert.equal(token._drawEffects(), "system effects (Conditions and Tilts)");
    const bar = new FakeBar();
    token._drawBar(0, bar, { attribute: "health" });
    assert.deepEqual(bar.drawn, ["system:three-colour health"]);
    // a second install (a reload of the settings, the `setup` check) does not stack another mixin
    env.CONFIG.Token.objectClass = composeOnce(Token, () => assert.fail("no second mixin"), TOKEN_MIXIN_TAGS.visibility);
    assert.equal(env.CONFIG.Token.objectClass, Token);
    const Tracker = env.CONFIG.ui.combat;
    assert.ok(Tracker === SystemTracker || Tracker.prototype instanceof SystemTracker, "the tracker is the system's or extends it");
    const tracker = new Tracker();
    assert.deepEqual(tracker.getData().turns, ["core", "system css"]);
    assert.equal(tracker._isTokenVisible({ visible: true }), true, "a token without a placeable: the system's answer");
    if (generation < 14) assert.notEqual(SystemTracker.prototype._isTokenVisible, CoreTracker.prototype._isTokenVisible, "v13: patched on the system's class, not core's");
    else assert.equal(SystemTracker.prototype._isTokenVisible, CoreTracker.prototype._isTokenVisible, "v14: a subclass, core's class untouched");
  });
}

test("the system's Health bar: replaced only when the setting says so, for the bar of its Health, for an actor we draw", () => {
  assert.ok(replacesSystemBar({ setting: "replace", attribute: "health", healthBar: "health", hasTrack: true }));
  assert.ok(!replacesSystemBar({ setting: "beside", attribute: "health", healthBar: "health", hasTrack: true }));
  assert.ok(!replacesSystemBar({ setting: "replace", attribute: "willpower", healthBar: "health", hasTrack: true }));
  assert.ok(!replacesSystemBar({ setting: "replace", attribute: "health", healthBar: "health", hasTrack: false }));
  assert.ok(!replacesSystemBar({ setting: "replace", attribute: "health", healthBar: null, hasTrack: true }));
  assert.ok(!replacesSystemBar({ setting: undefined, attribute: "health", healthBar: "health", hasTrack: true }));

  let setting = "beside";
  const Token = systemBarMixin(SystemToken, (token, data) =>
    replacesSystemBar({ setting, attribute: data.attribute, healthBar: "health", hasTrack: !!token.actor?.flags?.["vtt-bridge"]?.health }),
  );
  const ours = new Token({ id: "a", actor: { flags: { "vtt-bridge": { health: { max: 7 } } } } });
  const theirs = new Token({ id: "b", actor: { flags: {} } });
  const draw = (/** @type {any} */ token, /** @type {string} */ attribute) => {
    const bar = new FakeBar();
    bar.drawn.push("drawn before");
    token._drawBar(0, bar, { attribute, value: 7, max: 7 });
    return bar.drawn;
  };
  assert.deepEqual(draw(ours, "health"), ["drawn before", "system:three-colour health"], "beside: the system's bar stays");
  setting = "replace";
  assert.deepEqual(draw(ours, "health"), [], "replace: the bar is cleared, the system's drawing skipped");
  assert.deepEqual(draw(ours, "willpower"), ["drawn before", "core:0:willpower"], "every other bar is the system's");
  assert.deepEqual(draw(theirs, "health"), ["drawn before", "system:three-colour health"], "an actor without our track keeps the system's bar");
});
