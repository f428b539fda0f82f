/**
 * Sending an action from this browser (thin wiring over player-requests.mjs): directly when it runs
 * the bridge, else through the relay queue to the elected bridge (bridge-election.mjs), waiting
 * while none is up; every refusal a localized notice; and the bridge side's ownership test of a
 * relayed action (`ownedSubject`).
 *
 * Foundry API used (public pages): `game.users` (`activeGM`, each User's `isGM`, `active`, `isSelf`)
 * and `Document#testUserPermission(user, "OWNER")` — https://foundryvtt.com/api/classes/foundry.documents.User.html,
 * https://foundryvtt.com/api/classes/foundry.ClientDocument.html; `fromUuid` —
 * https://foundryvtt.com/api/functions/fromUuid.html; `game.socket` —
 * https://foundryvtt.wiki/en/development/api/sockets.
 * Everything is read from the `env` passed in (usually `globalThis`).
 * @module send-action
 */

import { BRIDGE_FLAG, electBridge } from "../core/bridge-election.mjs";
import { MODULE_ID } from "../core/constants.mjs";
import { randomId } from "../core/connection.mjs";
import { errorSentence } from "../core/headline.mjs";
import { locateStateFor, visibilityFlagOf } from "../core/visibility.mjs";
import { RelayQueue } from "./player-requests.mjs";

/**
 * A refusal as a sentence in this user's language (`errorSentence`: the sidecar's code and field
 * paths in words), through `game.i18n`; without it, the error's own message.
 * @param {any} env @param {unknown} error
 * @returns {string}
 */
function refusalText(env, error) {
  const source = env?.game?.i18n;
  if (!source || typeof source.format !== "function") return String(/** @type {Error} */ (error)?.message ?? error);
  const has = (/** @type {string} */ key) => (typeof source.has === "function" ? source.has(key) : source.localize(key) !== key);
  return errorSentence(/** @type {any} */ (error), { localize: (key) => source.localize(key), format: (key, data) => source.format(key, data), has, lang: source.lang });
}

/**
 * The localized notice of a refused relay, or null when it was sent.
 * @param {import("./player-requests.mjs").RelayAnswer} answer
 * @returns {{level: "warn"|"error", key: string, data?: Record<string, string>}|null}
 */
export function relayNotice(answer) {
  if (answer.ok) return null;
  if (answer.code === "noBridge") return { level: "warn", key: "VTTBRIDGE.Notice.NoBridge" };
  if (answer.code === "notOwner") return { level: "warn", key: "VTTBRIDGE.Notice.NotOwner" };
  if (answer.code === "mustAttack") return { level: "warn", key: "VTTBRIDGE.Notice.MustAttack" };
  return { level: "error", key: "VTTBRIDGE.Notice.Refused", data: { message: answer.message ?? answer.code } };
}

/**
 * The elected bridge as this browser sees it in `env.game.users` (their claims), or null.
 * @param {any} env
 * @returns {import("./player-requests.mjs").BridgeTarget|null}
 */
export function bridgeTarget(env) {
  const users = [...env.game.users];
  const elected = electBridge(users.map((u) => ({ id: u.id, name: u.name, isGM: !!u.isGM, active: !!u.active, claim: u.getFlag?.(MODULE_ID, BRIDGE_FLAG) ?? u.flags?.[MODULE_ID]?.[BRIDGE_FLAG] })));
  if (!elected) return null;
  const user = users.find((u) => u.id === elected.id);
  return {
    id: elected.id,
    up: elected.claim.up,
    key: elected.claim.key,
    query: typeof user?.query === "function" ? (name, data, options) => user.query(name, data, options) : undefined,
  };
}

/**
 * This browser's relay queue over `env` (`game.socket`, `game.users`, WebCrypto).
 * @param {any} env
 * @param {{onWaiting?: (waiting: number) => void, timeout?: number, retry?: number}} [options]
 */
export function makeRelayQueue(env, options = {}) {
  const { game } = env;
  return new RelayQueue({
    generation: game.release?.generation ?? 12,
    userId: game.user.id,
    bridge: () => bridgeTarget(env),
    socket: game.socket,
    newId: randomId,
    subtle: env.crypto?.subtle,
    ...options,
  });
}

/**
 * `sendAction(action)`: directly over `connection()` when this browser runs the bridge, else
 * through the relay queue (a request that finds no bridge up is shown as waiting and goes out when
 * one is); a failure is a notice, never a silent loss.
 * @param {{env?: any, connection: () => ({action: (action: Record<string, unknown>) => Promise<unknown>}|null), localize: (key: string, data?: Record<string, string>) => string, relay?: () => RelayQueue}} options
 * @returns {(action: Record<string, unknown>|null) => Promise<void>}
 */
export function makeSendAction({ env = globalThis, connection, localize, relay }) {
  /** @type {RelayQueue|null} */
  let own = null;
  const queue = () => (relay ? relay() : (own ??= makeRelayQueue(env)));
  return async (action) => {
    if (!action) return;
    const direct = connection();
    if (direct) {
      try {
        await direct.action(action);
      } catch (error) {
        env.ui.notifications.error(localize("VTTBRIDGE.Notice.Error", { message: refusalText(env, error) }));
      }
      return;
    }
    const relayQueue = queue();
    if (!relayQueue.side.bridge()?.up) env.ui.notifications.info(localize("VTTBRIDGE.Notice.Waiting"));
    const answer = await relayQueue.submit(action);
    const notice = relayNotice(answer);
    if (notice) env.ui.notifications[notice.level](localize(notice.key, notice.data));
  };
}

/**
 * The token documents of the synced scene (none while no scene is synced).
 * @param {any} env
 * @param {() => (string|null|undefined)} syncedScene the synced scene's id
 * @returns {any[]}
 */
function sceneTokens(env, syncedScene) {
  const sceneId = syncedScene();
  const scene = sceneId ? env.game.scenes.get(sceneId) : null;
  // the scene's tokens: a Collection, iterated as its values
  return [...(scene?.tokens ?? [])];
}

/**
 * Whether `user` owns what a relayed action needs (player-requests.mjs `ownedSubject`): an actor by
 * uuid, or the actor of a token of the synced scene.
 * @param {any} env
 * @param {() => (string|null|undefined)} syncedScene the synced scene's id
 * @returns {(subject: {actor: string}|{token: string}, user: any) => Promise<boolean>}
 */
export function ownsSubject(env, syncedScene) {
  return async (subject, user) => {
    if ("actor" in subject) {
      const actor = subject.actor ? await env.fromUuid(subject.actor) : null;
      return !!actor?.testUserPermission?.(user, "OWNER");
    }
    const token = sceneTokens(env, syncedScene).find((t) => t.id === subject.token);
    return !!token?.actor?.testUserPermission?.(user, "OWNER");
  };
}

/**
 * Whether `user` may send a plain damage (no attack) at an actor (player-requests.mjs
 * `plainDamageTargets`): they own it, or it has no token on the synced scene, or one of its tokens
 * is pinpointed by the tokens `user` observes there (OBSERVER permission, not hidden: those Foundry
 * lets them see through), read from the tokens' visibility flags as the map draws them
 * (visibility.mjs `locateStateFor`). A token without a flag has no ruling: it is seen as Foundry
 * shows it. A user who observes no token there locates no ruled token.
 * @param {any} env
 * @param {() => (string|null|undefined)} syncedScene the synced scene's id
 * @returns {(actor: string, user: any) => Promise<boolean>}
 */
export function locatesTarget(env, syncedScene) {
  return async (actorId, user) => {
    const actor = actorId ? await env.fromUuid(actorId) : null;
    if (actor?.testUserPermission?.(user, "OWNER")) return true;
    const tokens = sceneTokens(env, syncedScene);
    const targets = tokens.filter((t) => t.actor?.uuid === actorId);
    if (!targets.length) return true;
    const observers = tokens.filter((t) => !t.hidden && !!t.actor?.testUserPermission?.(user, "OBSERVER")).map((t) => t.id);
    return targets.some((t) => {
      const flag = visibilityFlagOf(t);
      if (flag === undefined || flag === null) return true;
      return observers.length > 0 && locateStateFor(flag, observers) === "pinpointed";
    });
  };
}
