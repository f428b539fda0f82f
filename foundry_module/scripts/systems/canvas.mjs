/**
 * Living beside a game system's canvas code. A system may configure its own Token class
 * (`CONFIG.Token.objectClass`; mta draws a three-colour Health bar in `_drawBar`) and its own
 * combat tracker (`CONFIG.ui.combat`), at `init` (before the module's `init`, as systems load
 * first) or later. The module's classes EXTEND whatever is configured, once:
 * - `composeOnce`: wraps the configured class unless it already extends the module's mixin (so the
 *   module's `setup` check re-wraps a class a system configured after the module's `init`);
 * - `systemBarMixin`: our Health boxes replace the system's own Health bar, or sit beside it (a
 *   world setting); every other bar is the system's.
 * @module systems/canvas
 */

/** The tags `composeOnce` marks the module's Token mixins with. */
export const TOKEN_MIXIN_TAGS = Object.freeze({
  visibility: Symbol.for("vtt-bridge.token.visibility"),
  systemBar: Symbol.for("vtt-bridge.token.systemBar"),
  statusPrivacy: Symbol.for("vtt-bridge.token.statusPrivacy"),
});

/**
 * `Base`, when a class of its prototype chain carries `tag` (the mixin is in already), else
 * `mixin(Base)` tagged.
 * @template {new (...args: any[]) => any} T
 * @param {T} Base the configured class
 * @param {(base: T) => T} mixin
 * @param {symbol} tag
 * @returns {T}
 */
export function composeOnce(Base, mixin, tag) {
  for (let cls = Base; typeof cls === "function" && cls !== Function.prototype; cls = Object.getPrototypeOf(cls)) {
    if (Object.prototype.hasOwnProperty.call(cls, tag)) return Base;
  }
  const Mixed = mixin(Base);
  Object.defineProperty(Mixed, tag, { value: true });
  return Mixed;
}

/** The world setting "the system's Health bar": our boxes sit beside it, or replace it. */
export const SYSTEM_BAR_CHOICES = Object.freeze(["beside", "replace"]);

/**
 * Whether the module leaves a token bar undrawn: the setting says "replace", the bar shows the
 * attribute the system keeps Health in, and the module draws a Health track for this actor.
 * @param {{setting: unknown, attribute: unknown, healthBar: string|null|undefined, hasTrack: boolean}} args
 * @returns {boolean}
 */
export function replacesSystemBar({ setting, attribute, healthBar, hasTrack }) {
  return setting === "replace" && hasTrack && typeof healthBar === "string" && attribute === healthBar;
}

/**
 * @typedef {new (...args: any[]) => {_drawBar(number: number, bar: any, data: any): unknown}} BarTokenClass
 */

/**
 * The Token mixin of the bar setting: `_drawBar` (called by Foundry for each of a token's two bars
 * with the bar's Graphics and `{attribute, value, max}`) draws nothing for the Health bar our
 * boxes replace (the Graphics is cleared, so an earlier drawing goes too), and is the configured
 * class' own for every other bar.
 * @template {BarTokenClass} T
 * @param {T} Base
 * @param {(token: any, data: any) => boolean} replaces
 * @returns {T}
 */
export function systemBarMixin(Base, replaces) {
  return class VttBridgeSystemBarToken extends Base {
    /** @param {number} number @param {any} bar @param {any} data */
    _drawBar(number, bar, data) {
      if (replaces(this, data)) {
        bar?.clear?.();
        return undefined;
      }
      return super._drawBar(number, bar, data);
    }
  };
}
