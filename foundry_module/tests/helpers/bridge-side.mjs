// The bridge side's world reads (send-action.mjs), wired to a stand-in world as main.mjs wires them
// to Foundry's globals: `fromUuid` and `game.scenes.get` of the synced scene.
import { locatesTarget, ownsSubject } from "../../scripts/foundry/send-action.mjs";

/**
 * @param {import("./fake-foundry.mjs").FakeWorld} world
 * @returns {{fromUuid: (uuid: string) => Promise<any>, game: {scenes: {get: () => any}}}}
 */
function envOf(world) {
  return { fromUuid: (uuid) => world.fromUuid(uuid), game: { scenes: { get: () => world.scene } } };
}

/**
 * `owns` and `locates` of a `BridgeSide` (player-requests.mjs) read from `world`'s synced scene.
 * @param {import("./fake-foundry.mjs").FakeWorld} world
 */
export function worldReads(world) {
  const env = envOf(world);
  return { owns: ownsSubject(env, () => world.scene.id), locates: locatesTarget(env, () => world.scene.id) };
}
