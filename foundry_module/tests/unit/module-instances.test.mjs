// K9: two simulated browsers in one Node test each run their own copy of the module, so main.mjs's
// module-level state (the bridge link, the relay queue, the election) is not shared between them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FakeNetwork, FakeWorld } from "../helpers/fake-foundry.mjs";
import { importModuleFor, loaded, untilLoaded } from "../helpers/browser-instance.mjs";

const g = /** @type {any} */ (globalThis);

test("K9: each simulated browser imports its own main.mjs, with its own copies of the module's files", async () => {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("gm2", "Gwen", { isGM: true });
  const net = new FakeNetwork(world);
  const gm = net.connect("gm");
  const gm2 = net.connect("gm2");
  delete g.game; // Foundry imports the module before it creates `game`
  await importModuleFor("gm", gm.hooks);
  await importModuleFor("gm2", gm2.hooks);
  assert.equal(g.Hooks, undefined, "the process's Hooks is left as it was");
  for (const hook of ["init", "ready", "canvasReady", "updateToken"]) {
    const mine = gm.hooks.handlers.get(hook) ?? [];
    const theirs = gm2.hooks.handlers.get(hook) ?? [];
    assert.ok(mine.length > 0, `gm's browser listens to ${hook}`);
    assert.equal(theirs.length, mine.length, `gm2's browser has its own ${hook} listeners`);
    // each closure reads its own copy's `connection`, `relay` and `host`
    for (const fn of theirs) assert.ok(!mine.includes(fn), `${hook}: gm2's listener is not gm's`);
  }
  // the module's own imports are per browser too: visibility-canvas.mjs's runtime (who may see a
  // token's name) and bridge-host.mjs are not shared between the GM's and the player's pages
  for (const file of ["foundry/visibility-canvas.mjs", "foundry/bridge-host.mjs", "core/connection.mjs"]) {
    for (const browser of ["gm", "gm2"]) {
      await untilLoaded((url) => url.includes(`/scripts/${file}?browser=${browser}`));
    }
  }
  assert.ok(!loaded.some((url) => url.includes("node_modules")), "only the module's own files get a browser's copy");
});
