/**
 * Sending an action from this browser (thin wiring over player-requests.mjs): directly when it runs
 * the bridge, else relayed to the active Game Masters, every refusal a localized notice; and the
 * bridge side's ownership test of a relayed action (`ownedSubject`).
 *
 * Foundry API used (public pages): `game.users` (`activeGM`, each User's `isGM`, `active`, `isSelf`)
 * and `Document#testUserPermission(user, "OWNER")` — https://foundryvtt.com/api/classes/foundry.documents.User.html,
 * https://foundryvtt.com/api/classes/foundry.ClientDocument.html; `fromUuid` —
 * https://foundryvtt.com/api/functions/fromUuid.html; `game.socket` —
 * https://foundryvtt.wiki/en/development/api/sockets.
 * Everything is read from the `env` passed in (usually `globalThis`).
 * @module send-action
 */

import { randomId } from "../core/connection.mjs";
import { askBridge } from "./player-requests.mjs";

/**
 * The active Game Masters but this user, `game.users.activeGM` first (who may run the bridge).
 * @param {any} env
 * @returns {any[]}
 */
export function activeGMs(env) {
  const { users, user } = env.game;
  const first = users.activeGM;
  const others = users.filter((/** @type {any} */ u) => u.isGM && !!u.active && u !== first);
  return [...(first ? [first] : []), ...others].filter((u) => !u.isSelf && u.id !== user.id);
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
  return { level: "error", key: "VTTBRIDGE.Notice.Refused", data: { message: answer.message ?? answer.code } };
}

/**
 * `sendAction(action)`: directly over `connection()` when this browser runs the bridge, else
 * through the relay; a failure is a notice, never a silent loss.
 * @param {{env?: any, connection: () => ({action: (action: Record<string, unknown>) => Promise<unknown>}|null), localize: (key: string, data?: Record<string, string>) => string}} options
 * @returns {(action: Record<string, unknown>|null) => Promise<void>}
 */
export function makeSendAction({ env = globalThis, connection, localize }) {
  return async (action) => {
    if (!action) return;
    const direct = connection();
    if (direct) {
      try {
        await direct.action(action);
      } catch (error) {
        env.ui.notifications.error(localize("VTTBRIDGE.Notice.Error", { message: /** @type {Error} */ (error).message }));
      }
      return;
    }
    const { game } = env;
    const answer = await askBridge(action, {
      generation: game.release?.generation ?? 12,
      userId: game.user.id,
      gms: () => activeGMs(env),
      socket: game.socket,
      newId: randomId,
    });
    const notice = relayNotice(answer);
    if (notice) env.ui.notifications[notice.level](localize(notice.key, notice.data));
  };
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
    const sceneId = syncedScene();
    const scene = sceneId ? env.game.scenes.get(sceneId) : null;
    // the scene's tokens: a Collection, iterated as its values
    const token = [...(scene?.tokens ?? [])].find((/** @type {any} */ t) => t.id === subject.token);
    return !!token?.actor?.testUserPermission?.(user, "OWNER");
  };
}
