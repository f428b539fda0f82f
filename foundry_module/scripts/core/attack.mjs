/**
 * PURE: attacks on what a player cannot pinpoint (DET-10) and damage to several targets.
 *
 * - `attackMode`: how this client may attack a token: as Foundry does (pinpointed, or no ruling),
 *   at its silhouette (approximate: targetable, nothing that names it shown), or at a guessed square
 *   (unlocated: the token is not drawn; the sidecar, which knows where it is, rules the guess).
 * - `targetLabel`: the name a card or roll of this client gives a target ("Someone" while hidden).
 * - `guessSquare`: the square a click falls in, or null outside the scene.
 * - `damageActions`: one `damage` action per target (a batch), each with the attack it comes from.
 * - `iwrChanges`: the IWR steps of a damage ruling's log that changed the amount (the GM's card).
 * @module attack
 */

import { damageAction } from "./messages.mjs";

/**
 * @typedef {import("./visibility.mjs").LocateState} LocateState
 * @typedef {"direct"|"silhouette"|"guess"} AttackMode
 */

/**
 * @param {LocateState|null} state how this client's observers locate the token (null: no ruling)
 * @returns {AttackMode}
 */
export function attackMode(state) {
  if (state === "approximate") return "silhouette";
  if (state === "unlocated") return "guess";
  return "direct";
}

/**
 * The name this client may give a target in a card, a roll's flavour or a notification.
 * @param {{name: string, identityHidden: boolean, isGM: boolean, someone: string}} input
 *   `identityHidden`: the token's presentation on this client hides who it is
 * @returns {string}
 */
export function targetLabel({ name, identityHidden, isGM, someone }) {
  return identityHidden && !isGM ? someone : name;
}

/**
 * The square a click at canvas `point` falls in (its top-left corner and centre), or null when the
 * click is outside the scene (`dimensions`: the scene's `width`, `height` and grid `size`).
 * @param {{x: number, y: number}} point
 * @param {{width: number, height: number, size: number}} dimensions
 * @returns {{x: number, y: number, center: {x: number, y: number}}|null}
 */
export function guessSquare(point, { width, height, size }) {
  const { x, y } = point;
  if (![x, y, width, height, size].every(Number.isFinite) || size <= 0) return null;
  if (x < 0 || y < 0 || x >= width || y >= height) return null;
  const left = Math.floor(x / size) * size;
  const top = Math.floor(y / size) * size;
  return { x: left, y: top, center: { x: left + size / 2, y: top + size / 2 } };
}

/**
 * @typedef {object} AttackTarget one target of a damage batch
 * @property {string} actor the damaged actor's uuid
 * @property {string} [token] its token id on the synced scene (needed with an attack)
 * @property {{x: number, y: number}} [guess] the guessed square's centre (an unlocated target)
 */

/**
 * @typedef {object} AttackSource the attack the damage comes from (DET-10)
 * @property {string} attacker the attacker's token id
 * @property {number} successes
 * @property {number} [extraSuccesses]
 * @property {number} [effectPoints]
 */

/**
 * One `damage` action per target, in the targets' order: the same instances for each, and with an
 * attack each its own `attack` (the target's token, its guessed square). A target without a token
 * cannot carry an attack (the sidecar judges DET-10 between tokens): refused.
 * @param {AttackTarget[]} targets
 * @param {import("./messages.mjs").DamageInstance[]} instances
 * @param {AttackSource|null} [attack]
 * @returns {Record<string, unknown>[]}
 * @throws {TypeError} no target, or an attack on a target without a token
 */
export function damageActions(targets, instances, attack = null) {
  if (!targets.length) throw new TypeError("no target: target or select the tokens to damage");
  return targets.map((target) => {
    const action = damageAction(target.actor, instances);
    if (!attack) return action;
    if (!target.token) throw new TypeError(`the target ${target.actor} has no token on the scene`);
    /** @type {Record<string, unknown>} */
    const source = { attacker: attack.attacker, token: target.token, successes: attack.successes };
    if (attack.extraSuccesses) source.extraSuccesses = attack.extraSuccesses;
    if (attack.effectPoints) source.effectPoints = attack.effectPoints;
    if (target.guess) source.guess = { x: target.guess.x, y: target.guess.y };
    return { ...action, attack: source };
  });
}

/**
 * The steps of a damage ruling's log that changed the amount: IWR steps with a `before` and an
 * `after` that differ (a weakness, a resistance: "12 - 5 = 7", IWR-7), DET-10's halving and a
 * missed guess; each `{rule, text, data}` as sent.
 * @param {{rule: string, text: string, data?: Record<string, any>}[]} log
 * @returns {{rule: string, text: string, data?: Record<string, any>}[]}
 */
export function iwrChanges(log) {
  return log.filter((step) => {
    if (!step.rule.startsWith("IWR-") && step.rule !== "DET-10") return false;
    const data = step.data ?? {};
    if (step.rule === "DET-10") return Array.isArray(data.after) || data.right === false || data.guessed === false;
    return "before" in data && "after" in data && JSON.stringify(data.before) !== JSON.stringify(data.after);
  });
}

/** The DET-10 step keys of a miss: a wrong guess, no square guessed, nobody at the square. */
export const MISS_KEYS = Object.freeze(["DET-10.guessWrong", "DET-10.noGuess", "DET-10.noTarget"]);

/**
 * Whether a damage ruling's log says the attack missed (a wrong or missing guess, DET-10).
 * @param {{rule: string, key?: string|null, data?: Record<string, any>}[]} log
 * @returns {boolean}
 */
export function attackMissed(log) {
  return log.some((step) => typeof step.key === "string" && MISS_KEYS.includes(step.key));
}

/**
 * @typedef {object} TokenRef a token as the wiring reads it
 * @property {string} id the token id
 * @property {string|undefined} actor its actor's uuid
 */

/**
 * Whom a damage dialog or a card's Apply button damages: for a player the tokens they target (their
 * attack), for a GM the tokens they selected, else those they target; with none, `fallback` (the
 * dialog's or the card's own actor). Tokens without an actor are left out; an actor's tokens count
 * once each.
 * @param {{isGM: boolean, targeted: TokenRef[], controlled: TokenRef[], fallback: AttackTarget|null}} input
 * @returns {AttackTarget[]}
 */
export function batchTargets({ isGM, targeted, controlled, fallback }) {
  const chosen = isGM && controlled.length ? controlled : targeted;
  const out = chosen.filter((t) => typeof t.actor === "string" && t.actor).map((t) => ({ actor: /** @type {string} */ (t.actor), token: t.id }));
  const seen = new Set();
  const unique = out.filter((t) => !seen.has(t.token) && seen.add(t.token));
  return unique.length ? unique : fallback ? [fallback] : [];
}

/**
 * The damage batch of a card's action for these targets: its instances (and attack, with each
 * target's token) for each; another kind of action is returned as it is.
 * @param {Record<string, any>} action
 * @param {AttackTarget[]} targets
 * @returns {Record<string, unknown>[]}
 */
export function retarget(action, targets) {
  if (action.kind !== "damage" || !targets.length) return [action];
  const attack = action.attack && typeof action.attack === "object" ? action.attack : null;
  return damageActions(targets, action.instances, attack);
}
