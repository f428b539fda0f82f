/**
 * What the module's own connection receives, as text, for long and short messages: a world-mate
 * connects, then the GM, whose connection syncs a scene with long names of characters of one to
 * four bytes (in parts), damages an actor and asks for the state; the mate takes the pushed
 * patches. Runnable in Node (the `ws` package's WebSocket) and in a browser page (the native one).
 * Ids are counted, so two sidecars with the same seed answer the same requests with the same text:
 * the tests compare a sidecar that sends long messages in fragments with one that never does.
 */

import { BridgeConnection } from "../../scripts/core/connection.mjs";
import { damageAction } from "../../scripts/core/messages.mjs";
import { bigScene } from "./big-scene.mjs";
import { until } from "./scenario.mjs";

/**
 * An actor's name of about 190 characters, some of two, three and four bytes in UTF-8 (cut between
 * code points, never inside a surrogate pair).
 * @param {number} i
 */
export function longName(i) {
  return Array.from(`${i} Zoë 战士 🎲 `.repeat(16)).slice(0, 190 + (i % 4)).join("");
}

/**
 * A WebSocket class that records the text of every message its sockets receive into `into`.
 * @param {any} WebSocket the constructor to extend
 * @param {string[]} into
 * @returns {any} the class (a `WebSocketCtor`)
 */
function recording(WebSocket, into) {
  return class Recording extends WebSocket {
    /** @param {string} url */
    constructor(url) {
      super(url);
      this.addEventListener("message", (/** @type {{data: unknown}} */ event) => into.push(String(event.data)));
    }
  };
}

/**
 * @param {{WebSocket: any, url: string, token: string, world: string, tokens?: number}} args
 * @returns {Promise<{gm: string[], mate: string[], errors: string[], heldTokens: number}>}
 */
export async function recordedMessages({ WebSocket, url, token, world, tokens = 60 }) {
  /** @type {{gm: string[], mate: string[]}} */
  const received = { gm: [], mate: [] };
  /** @type {string[]} */
  const errors = [];
  const state = bigScene(tokens, { name: longName });
  /** @param {"gm"|"mate"} who @param {() => Record<string, any>|null} getState */
  const connection = (who, getState) => {
    let count = 0;
    const conn = new BridgeConnection({
      url,
      token,
      world,
      WebSocket: recording(WebSocket, received[who]),
      newId: () => `${who}-${++count}`,
      requestTimeout: 60_000,
      getState,
      apply: () => true,
    });
    conn.on("error", (error) => errors.push(`${who}: ${error?.message ?? error}`));
    return conn;
  };
  const mate = connection("mate", () => null);
  const gm = connection("gm", () => state);
  try {
    mate.start();
    await until(() => mate.connected, "the mate's welcome", 30_000);
    gm.start();
    await until(() => gm.rev !== null, "the GM's sync", 60_000);
    const target = Object.keys(state.actors)[1];
    await gm.action(damageAction(target, [{ amount: 3, grade: "L" }]));
    const held = /** @type {any} */ (await gm.query({ kind: "state" }));
    await until(() => received.mate.filter((text) => text.includes('"type":"patch"')).length >= 2, "the pushed patches", 30_000);
    return { ...received, errors, heldTokens: Object.keys(held.state.tokens).length };
  } finally {
    gm.stop();
    mate.stop();
  }
}
