/**
 * The GM's module against the real sidecar while a local process keeps every slot for sockets that
 * wait for `welcome` taken (issue 34, finding 1): forty silent sockets, each opened again as soon as
 * it is closed or refused. The module's real connection (`core/connection.mjs`, the `ws` package's
 * WebSocket) connects and is welcomed: the sidecar makes room by closing the oldest silent socket
 * (close 1013, which the module answers by connecting again), never 503 to every newcomer, and
 * never with 4401, after which the module would stop trying. Bound by events: the welcome comes
 * before the hello deadline has closed any squatter's socket (before, a GM could get in only
 * in the moment the deadline closed them all).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { WebSocket } from "ws";

import { BridgeConnection } from "../scripts/core/connection.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";

const TOKEN = "squatters-token-" + Math.random().toString(36).slice(2);

/**
 * A squatter: a socket that never sends a frame, opened again whenever it closes.
 * @param {string} url @param {{stopped: boolean, opened: number, deadline: number}} state
 */
function squat(url, state) {
  if (state.stopped) return;
  const ws = new WebSocket(url);
  ws.on("open", () => {
    state.opened += 1;
  });
  ws.on("error", () => {}); // a 503 or a reset; "close" follows
  ws.on("close", (/** @type {number} */ code) => {
    if (code === 4401) state.deadline += 1; // closed by the hello deadline (10 s), not to make room
    setImmediate(() => squat(url, state));
  });
  return ws;
}

test("Node: forty silent local sockets never keep the GM's module from its welcome", async () => {
  const sidecar = await startSidecar({ token: TOKEN });
  const state = { stopped: false, opened: 0, deadline: 0 };
  /** @type {BridgeConnection|null} */
  let connection = null;
  try {
    for (let i = 0; i < 40; i += 1) squat(sidecar.url, state);
    while (state.opened < 32) await new Promise((resolve) => setTimeout(resolve, 20));
    /** @type {string[]} */
    const statuses = [];
    connection = new BridgeConnection({
      url: sidecar.url,
      token: TOKEN,
      world: "squatted",
      WebSocket,
      getState: () => null,
      apply: () => true,
      backoffBase: 50,
      backoffCap: 400,
    });
    const welcomed = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no welcome; statuses: ${statuses.join(", ")}`)), 30_000);
      connection?.on("status", (/** @type {string} */ status) => {
        statuses.push(status);
        if (status === "connected") {
          clearTimeout(timer);
          resolve(undefined);
        } else if (status === "unauthorized") {
          clearTimeout(timer);
          reject(new Error("the module was told its token is wrong"));
        }
      });
    });
    connection.start();
    await welcomed;
    // before, a GM got in only when the hello deadline closed the squatters' sockets at once
    assert.equal(state.deadline, 0, "welcomed before any squatter's socket reached the hello deadline");
    assert.ok(state.opened >= 40, "every squatter had its socket open");
    assert.equal(connection.welcome?.world, "squatted");
  } finally {
    state.stopped = true;
    connection?.stop();
    await sidecar.stop();
  }
});
