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
 * - `asBatches`: the damage actions of several targets as `batch` actions (one ruling each, atomic).
 * - `attackerFor`: the token a user attacks with (the one they control and own).
 * - `squareAttack`: the `damage` of an attack at a guessed square, the target unknown to the player.
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
 * click is outside the scene. `dimensions`: the scene's rectangle on the canvas (`x`, `y`: its
 * top-left corner, 0 by default; Foundry's `canvas.dimensions.sceneRect`, inside the padding) and
 * the grid `size`; the squares are counted from the canvas' origin, as token positions are.
 * @param {{x: number, y: number}} point
 * @param {{x?: number, y?: number, width: number, height: number, size: number}} dimensions
 * @returns {{x: number, y: number, center: {x: number, y: number}}|null}
 */
export function guessSquare(point, { x: left0 = 0, y: top0 = 0, width, height, size }) {
  const { x, y } = point;
  if (![x, y, left0, top0, width, height, size].every(Number.isFinite) || size <= 0) return null;
  if (x < left0 || y < top0 || x >= left0 + width || y >= top0 + height) return null;
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
 * @template {{rule: string, text: string, data?: Record<string, any>|null}} S
 * @param {S[]} log
 * @returns {S[]}
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
 * @param {{rule: string, key?: string|null, data?: Record<string, any>|null}[]} log
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

/**
 * What a damage dialog or a card's Apply button sends for these targets (`batchTargets`): the
 * action retargeted, several targets as batches (`asBatches`); a `damage` with no target at all
 * (nothing targeted or selected, and neither the card nor the dialog names one; a guessed square
 * excepted, the sidecar knows who stands there) is `{error: "NoTargets"}` and nothing is sent.
 * Another kind of action is sent as it is.
 * @param {Record<string, any>} action
 * @param {AttackTarget[]} targets
 * @returns {{actions: Record<string, unknown>[]}|{error: "NoTargets"}}
 * @throws {TypeError} an attack on a target without a token (`damageActions`)
 */
export function damageSends(action, targets) {
  if (action.kind === "damage" && !targets.length && typeof action.target !== "string" && !action.attack?.guess) return { error: "NoTargets" };
  return { actions: asBatches(retarget(action, targets)) };
}

/** Items a `batch` holds at most (the sidecar's `BATCH_LIMIT`). */
export const BATCH_LIMIT = 64;

/**
 * Several targets' `damage` actions as the actions to send: one alone as it is, more as `batch`
 * actions of at most `BATCH_LIMIT` items (each one ruling, all or nothing, one undo; the sidecar's
 * log gives each target its own part). None: none.
 * @param {Record<string, unknown>[]} actions
 * @returns {Record<string, unknown>[]}
 */
export function asBatches(actions) {
  const damage = actions.filter((a) => a.kind === "damage");
  if (damage.length !== actions.length || actions.length < 2) return actions;
  const out = [];
  for (let i = 0; i < actions.length; i += BATCH_LIMIT) out.push({ kind: "batch", actions: actions.slice(i, i + BATCH_LIMIT) });
  return out;
}

/**
 * The token a user attacks with: the one token they control and own (a GM: the one they control).
 * @param {{controlled: {id: string, owned: boolean}[], isGM: boolean}} input
 * @returns {{token: string}|{error: "NoAttacker"|"ManyAttackers"|"NotYours"}}
 */
export function attackerFor({ controlled, isGM }) {
  if (!controlled.length) return { error: "NoAttacker" };
  if (controlled.length > 1) return { error: "ManyAttackers" };
  const [token] = controlled;
  if (!isGM && !token.owned) return { error: "NotYours" };
  return { token: token.id };
}

/**
 * The attack a dialog's fields describe (DET-10): its successes and the attacker's token, or null
 * when the successes are left empty (a plain damage, not an attack).
 * @param {Record<string, unknown>} form `{successes, extraSuccesses?, effectPoints?}` as strings or numbers
 * @param {string} attacker the attacker's token id
 * @returns {AttackSource|null}
 * @throws {TypeError} a count that is not a whole number of 0 or more
 */
export function attackFromForm(form, attacker) {
  if (form.successes === undefined || form.successes === "" || form.successes === null) return null;
  /** @param {string} field */
  const count = (field) => {
    const raw = form[field];
    if (raw === undefined || raw === "") return 0;
    const n = typeof raw === "string" ? Number(raw) : raw;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) throw new TypeError(`${field} must be a whole number of 0 or more`);
    return n;
  };
  /** @type {AttackSource} */
  const attack = { attacker, successes: count("successes") };
  const extra = count("extraSuccesses");
  const effect = count("effectPoints");
  if (extra) attack.extraSuccesses = extra;
  if (effect) attack.effectPoints = effect;
  return attack;
}

/**
 * The `damage` of an attack at a guessed square: no `target` and no `attack.token` (the player does
 * not know who stands there; the sidecar does, and rules the guess: the token there is hit as an
 * approximate target, DET-10, or nobody is and the attack misses).
 * @param {AttackSource} attack
 * @param {import("./messages.mjs").DamageInstance[]} instances
 * @param {{x: number, y: number}} square the guessed square's centre
 * @returns {Record<string, unknown>}
 */
export function squareAttack(attack, instances, square) {
  const action = damageAction("guess", instances); // validates the instances
  /** @type {Record<string, unknown>} */
  const source = { attacker: attack.attacker, successes: attack.successes, guess: { x: square.x, y: square.y } };
  if (attack.extraSuccesses) source.extraSuccesses = attack.extraSuccesses;
  if (attack.effectPoints) source.effectPoints = attack.effectPoints;
  return { kind: "damage", instances: action.instances, attack: source };
}

/**
 * @typedef {object} PickState the square pick of this client
 * @property {boolean} armed
 * @property {{attack: AttackSource, instances: import("./messages.mjs").DamageInstance[]}} [pending]
 */

/** Not picking. */
export const PICK_IDLE = Object.freeze({ armed: false });

/**
 * Arm a one-click pick: the next left click on the canvas picks the square the attack goes at.
 * @param {AttackSource} attack
 * @param {import("./messages.mjs").DamageInstance[]} instances
 * @returns {PickState}
 */
export function armPick(attack, instances) {
  return { armed: true, pending: { attack, instances } };
}

/**
 * @typedef {{type: "pointer", button: number, point: {x: number, y: number}}|{type: "key", key: string}} PickEvent
 *   `button` as the DOM and PixiJS count it: 0 left, 2 right
 * @typedef {{kind: "cancel"}|{kind: "outside"}|{kind: "attack", square: {x: number, y: number, center: {x: number, y: number}}, action: Record<string, unknown>}} PickOutcome
 */

/**
 * What one event does to an armed pick: a left click in the scene picks its square (the attack's
 * `damage`, and the pick ends); a left click outside the scene is an error (the pick stays armed);
 * Escape or a right click cancels; anything else, or a pick not armed, is ignored (null).
 * @param {PickState} state
 * @param {PickEvent} event
 * @param {{x?: number, y?: number, width: number, height: number, size: number}} scene the scene's rectangle and grid size
 * @returns {{state: PickState, outcome: PickOutcome|null}}
 */
export function pickEvent(state, event, scene) {
  if (!state.armed || !state.pending) return { state, outcome: null };
  if (event.type === "key") return event.key === "Escape" ? { state: PICK_IDLE, outcome: { kind: "cancel" } } : { state, outcome: null };
  if (event.button === 2) return { state: PICK_IDLE, outcome: { kind: "cancel" } };
  if (event.button !== 0) return { state, outcome: null };
  const square = guessSquare(event.point, scene);
  if (!square) return { state, outcome: { kind: "outside" } };
  const action = squareAttack(state.pending.attack, state.pending.instances, square.center);
  return { state: PICK_IDLE, outcome: { kind: "attack", square, action } };
}
