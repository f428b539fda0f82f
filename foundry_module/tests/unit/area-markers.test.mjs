// A player sees an area, not a token (DET-4 on the map), on the strict Foundry stand-in
// (tests/helpers/fake-foundry.mjs) with the real sidecar's rulings (its World, seeded dice): the
// sidecar's areas written on the target tokens by the module's own patch planner, the approximate
// creatures not drawn at all, one neutral marker each over its area, the same for a Large and a Tiny
// creature, standing still while a creature moves inside its area and drawn anew when it leaves;
// a click on a marker targets the creature (DET-10), and the attack's check names no square.
import assert from "node:assert/strict";
import { test } from "node:test";

import { AREAS_FLAG, MODULE_ID } from "../../scripts/core/constants.mjs";
import { areaFor, markerCircle, parseArea } from "../../scripts/core/areas.mjs";
import { planPatch } from "../../scripts/core/apply-patch.mjs";
import { tokenAreaFlags, tokenVisibilityFlags } from "../../scripts/core/messages.mjs";
import { presentationFor } from "../../scripts/core/visibility.mjs";
import { installAreaMarkers, MARKERS_LABEL } from "../../scripts/foundry/area-markers.mjs";
import { installVisibility } from "../../scripts/foundry/visibility-canvas.mjs";
import { FakeCanvas, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";
import { i18nFor } from "../helpers/i18n.mjs";
import { sidecarRulings } from "../helpers/sidecar.mjs";

const g = /** @type {any} */ (globalThis);
const GLOBALS = ["game", "canvas", "CONFIG", "Hooks", "ui", "PIXI"];

/** The sidecar's table: Ayla (the player's) and two creatures she only hears, a Large and a Tiny one. */
const SIDECAR_STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 } },
    "Actor.ogre": { name: "Ogre", health: { max: 9 } },
    "Actor.rat": { name: "Rat", health: { max: 3 } },
  },
  tokens: {
    tA: { actor: "Actor.ayla", x: 400, y: 400 },
    tBig: { actor: "Actor.ogre", x: 1200, y: 600 },
    tTiny: { actor: "Actor.rat", x: 1600, y: 1000 },
  },
};
const PINS = [
  { kind: "pinLocate", observer: "tA", target: "tBig", state: "approximate", until: "scene" },
  { kind: "pinLocate", observer: "tA", target: "tTiny", state: "approximate", until: "scene" },
];
const STATE = { query: { kind: "state" } };
const deletion = (/** @type {string} */ parent, /** @type {string} */ key) => /** @type {[string, unknown]} */ ([`${parent}.-=${key}`, null]);

/**
 * The rulings in order, each with the state after it: `[{result, state}]`.
 * @param {Record<string, unknown>[]} actions
 */
async function ruled(actions) {
  const out = await sidecarRulings(SIDECAR_STATE, [STATE, ...actions.flatMap((a) => [a, STATE])]);
  const first = out[0].state;
  /** @type {{result: any, state: any}[]} */
  const steps = [];
  for (let i = 1; i < out.length; i += 2) steps.push({ result: out[i], state: out[i + 1].state });
  return { first, steps };
}

/**
 * The stand-in table seen by Ann (Ayla's owner), the module's visibility and area markers installed.
 */
function table() {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("ann", "Ann");
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const ogre = world.addActor("ogre", "Ogre", {});
  const rat = world.addActor("rat", "Rat", {});
  world.addToken("tA", ayla, 400, 400, world.scene, { sight: { enabled: true }, texture: { src: "ayla.webp" } });
  world.addToken("tBig", ogre, 1200, 600, world.scene, { width: 2, height: 2, texture: { src: "ogre.webp" } });
  world.addToken("tTiny", rat, 1600, 1000, world.scene, { width: 0.5, height: 0.5, texture: { src: "rat.webp" } });
  world.loginAs("ann");
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  const i18n = i18nFor("en");
  Object.assign(g, {
    game: { user: world.user, i18n, release: { generation: 13 }, keybindings: world.keybindings, combat: null, scenes: { viewed: world.scene, get: () => world.scene } },
    canvas,
    CONFIG: world.config,
    Hooks: world.hooks,
    ui: { notifications: { info() {}, warn() {}, error() {} }, controls: { controls: {}, render() {} } },
    PIXI: FAKE_PIXI,
  });
  const localize = (/** @type {string} */ key) => i18n.localize(key);
  const runtime = installVisibility({ env: g, localize });
  const markers = installAreaMarkers({ env: g, runtime });
  canvas.draw();
  /** @type {any} the module's mirror of the sidecar's document */
  let mirror = null;
  /** @type {import("../../scripts/core/apply-patch.mjs").PatchPlan[]} every plan written, in order */
  const written = [];
  /**
   * The GM's browser writes a sidecar patch as the module does (`planPatch`), here on the one world.
   * @param {any[]} patch @param {"sync"|"patch"} mode @param {number} [rev] a sync's rev (as the bridge sets it)
   */
  const write = async (patch, mode, rev) => {
    // a sync is diffed against the flags the synced scene's tokens hold, as the bridge does (main.mjs)
    const held = mode === "sync" ? { foundryVisibility: tokenVisibilityFlags(world.scene), foundryAreas: tokenAreaFlags(world.scene) } : {};
    const plan = planPatch(mirror, patch, { mode, statusIds: new Set(), deletion, ...held });
    assert.equal(plan.resync, false, plan.reason);
    written.push(plan);
    mirror = plan.state;
    if (rev !== undefined) mirror.rev = rev;
    world.loginAs("gm");
    try {
      for (const [id, update] of plan.tokenUpdates) await world.scene.tokens.find((t) => t.id === id)?.update(update);
    } finally {
      world.loginAs("ann");
    }
  };
  /** @param {any} state the sidecar's whole document: written as a sync's patch replaces it */
  const sync = (state) =>
    write(
      ["visibility", "areas", "tokens"].map((part) => ({ op: "replace", path: `/${part}`, value: state[part] })),
      "sync",
      state.rev,
    );
  const layer = () => canvas.controls.children.find((/** @type {any} */ c) => c.name === MARKERS_LABEL);
  const token = (/** @type {string} */ id) => /** @type {any} */ (canvas.tokens.get(id));
  return { world, canvas, runtime, markers, write, sync, layer, token, written };
}

const frame = () => new Promise((resolve) => setTimeout(resolve, 5));

async function cleanup() {
  await frame();
  for (const name of GLOBALS) delete g[name];
}

/** @param {any} marker */
const circleOf = (marker) => {
  const call = marker.calls.find((/** @type {any[]} */ c) => c[0] === "drawCircle");
  return { x: marker.x, y: marker.y, r: call[3] };
};

test("DET-4 a player sees each approximate creature as one neutral marker over its area, never on its square; a Large and a Tiny creature look the same", async (t) => {
  t.after(cleanup);
  const { first, steps } = await ruled(PINS);
  const after = steps.at(-1)?.state;
  // the sidecar keys its areas by target: each creature's row holds Ayla's area of it
  assert.deepEqual(Object.keys(after.areas).sort(), ["tBig", "tTiny"], "the sidecar ruled an area for each approximate pair");
  for (const id of ["tBig", "tTiny"]) assert.deepEqual(Object.keys(after.areas[id]), ["tA"], `${id}'s row: Ayla's area`);
  /** @type {Record<string, number[]>} */
  const areas = { tBig: after.areas.tBig.tA, tTiny: after.areas.tTiny.tA };
  void first;
  const { sync, layer, token } = table();
  await sync(after);
  await frame();
  // the module wrote the areas on the targets, as it writes the visibility
  assert.deepEqual(token("tBig").document.flags[MODULE_ID][AREAS_FLAG], { tA: areas.tBig });
  // neither creature is drawn: no art, name, bars, effects, nothing of its size or square
  for (const id of ["tBig", "tTiny"]) assert.equal(token(id).isVisible, false, `${id} is not drawn`);
  assert.equal(token("tA").isVisible, true);
  const markers = layer().children;
  assert.equal(markers.length, 2, "one marker per approximate creature");
  const [big, tiny] = ["tBig", "tTiny"].map((id) => markers.find((/** @type {any} */ m) => circleOf(m).x === areas[id][0] + 50));
  assert.ok(big && tiny);
  // the same marker for both: the same radius, the same drawing calls but for the position
  assert.deepEqual(big.calls, tiny.calls, "a Large and a Tiny creature are drawn alike");
  assert.equal(circleOf(big).r, 300, "three squares");
  // over its area, not its square: the centre is the area's (shifted half a square), not the token's
  assert.deepEqual({ x: big.x, y: big.y }, { x: areas.tBig[0] + 50, y: areas.tBig[1] + 50 });
  assert.notDeepEqual({ x: big.x, y: big.y }, { x: 1200 + 100, y: 600 + 100 });
  assert.ok(Math.hypot(big.x - 1250, big.y - 650) <= 300, "the creature's top-left square lies inside");
});

test("DET-4 a creature moving one square inside its area leaves its marker where it was; moving far draws a new one around it", async (t) => {
  t.after(cleanup);
  const { steps } = await ruled(PINS);
  const area = steps.at(-1)?.state.areas.tBig.tA;
  // one square towards the area's middle: still inside
  const dx = Math.sign(area[0] - 1200) * 100;
  const inside = { kind: "move", token: "tBig", x: 1200 + dx, y: 600 };
  assert.ok(Math.hypot(1200 + dx - area[0], 600 - area[1]) <= area[2], "the move stays inside");
  const far = { kind: "move", token: "tBig", x: 3000, y: 2400 };
  const run = await ruled([...PINS, inside, far]);
  const [, , moved, away] = run.steps;
  assert.ok(!moved.result.patch.some((/** @type {any} */ op) => op.path.startsWith("/areas")), "no area changed");
  const { sync, write, layer, token } = table();
  await sync(run.steps[1].state);
  await frame();
  const before = layer().children.map(circleOf);
  await write(moved.result.patch, "patch");
  await frame();
  assert.equal(token("tBig").document.x, 1200 + dx, "the creature moved");
  assert.deepEqual(layer().children.map(circleOf), before, "the markers did not move");
  await write(away.result.patch, "patch");
  await frame();
  const now = layer().children.map(circleOf);
  const newArea = away.state.areas.tBig.tA;
  const areaOps = away.result.patch.filter((/** @type {any} */ op) => op.path.startsWith("/areas"));
  assert.equal(areaOps.length, 1, "the far move redraws the creature's row in one op");
  assert.match(areaOps[0].path, /^\/areas\/tBig(\/|$)/);
  assert.ok(now.some((/** @type {any} */ c) => c.x === newArea[0] + 50 && c.y === newArea[1] + 50), "a new marker over the new area");
  assert.ok(!now.some((/** @type {any} */ c) => c.x === area[0] + 50 && c.y === area[1] + 50), "the old one is gone");
  assert.ok(Math.hypot(3000 - newArea[0], 2400 - newArea[1]) <= newArea[2], "the new area holds the creature");
  assert.equal(token("tBig").isVisible, false, "still not drawn");
});

test("DET-4 a reconnect's sync deletes the areas Foundry's tokens hold that the sidecar no longer rules, and writes nothing on a token whose areas stand", async (t) => {
  t.after(cleanup);
  const pinpointed = { kind: "pinLocate", observer: "tA", target: "tTiny", state: "pinpointed", until: "scene" };
  const { steps } = await ruled([...PINS, pinpointed]);
  const before = steps[1].state;
  const after = steps[2].state;
  assert.deepEqual(Object.keys(after.areas), ["tBig"], "the rat is pinpointed: its row is gone");
  assert.deepEqual(after.areas.tBig, before.areas.tBig, "the ogre's area stands");
  const { sync, token, layer, written } = table();
  await sync(before);
  await frame();
  assert.deepEqual(token("tTiny").document.flags[MODULE_ID][AREAS_FLAG], { tA: before.areas.tTiny.tA });
  assert.equal(layer().children.length, 2);
  // the link was down while the pin was ruled: the module's next sync gets the whole document
  await sync(after);
  await frame();
  const plan = written.at(-1);
  assert.ok(plan);
  assert.deepEqual([...plan.tokenUpdates.keys()], ["tTiny"], "only the rat's token is written");
  assert.deepEqual(token("tTiny").document.flags[MODULE_ID][AREAS_FLAG], {}, "its stale area deleted");
  assert.deepEqual(token("tBig").document.flags[MODULE_ID][AREAS_FLAG], { tA: after.areas.tBig.tA });
  assert.equal(layer().children.length, 1, "one marker left: the ogre's");
  assert.equal(token("tTiny").isVisible, true, "the rat is drawn where it stands");
});

test("DET-10 a click on a marker targets the creature it stands for (shift keeps the others); a click again untargets it", async (t) => {
  t.after(cleanup);
  const { steps } = await ruled(PINS);
  const { sync, layer, token, world } = table();
  const targets = /** @type {Set<any>} */ (world.user.targets);
  await sync(steps.at(-1)?.state);
  await frame();
  const markerOf = (/** @type {string} */ id) => {
    const area = steps.at(-1)?.state.areas[id].tA;
    return layer().children.find((/** @type {any} */ m) => m.x === area[0] + 50 && m.y === area[1] + 50);
  };
  markerOf("tBig").emit("pointerdown", { button: 0, shiftKey: false, stopPropagation() {} });
  assert.deepEqual([...targets].map((t) => t.document.id), ["tBig"]);
  await frame();
  assert.ok(markerOf("tBig").calls.some((/** @type {any[]} */ c) => c[0] === "lineStyle" && c[1]?.color === 0xff9829), "the marker shows the target");
  markerOf("tTiny").emit("pointerdown", { button: 0, shiftKey: true, stopPropagation() {} });
  assert.deepEqual([...targets].map((t) => t.document.id).sort(), ["tBig", "tTiny"]);
  markerOf("tBig").emit("pointerdown", { button: 2, stopPropagation() {} });
  assert.equal(targets.size, 2, "a right click does nothing");
  markerOf("tBig").emit("pointerdown", { button: 0, shiftKey: true, stopPropagation() {} });
  assert.deepEqual([...targets].map((t) => t.document.id), ["tTiny"]);
  assert.equal(token("tBig").isVisible, false);
});

test("DET-4 several owned observers: the best state counts, and an approximate target is drawn by the area of the first approximate observer in id order", () => {
  const areas = { zed: [900, 900, 300], amy: [100, 100, 300], bob: [500, 500, 300] };
  const visibility = { zed: "a", amy: "a", bob: "a" };
  assert.deepEqual(areaFor(areas, visibility, ["zed", "bob", "amy"]), { x: 100, y: 100, r: 300 });
  assert.deepEqual(areaFor(areas, visibility, ["amy", "zed"]), areaFor(areas, visibility, ["zed", "amy"]), "whatever order the observers come in");
  assert.deepEqual(areaFor(areas, { ...visibility, amy: "u" }, ["zed", "amy", "bob"]), { x: 500, y: 500, r: 300 }, "an observer that cannot locate it has no say");
  assert.equal(areaFor({ amy: "bad" }, { amy: "a" }, ["amy"]), null, "an unreadable area: none (the silhouette, as before areas)");
  assert.equal(areaFor(areas, { amy: "x" }, ["amy"]), null);
  for (const bad of [null, [1, 2], [1, 2, 0], [1, "2", 3], [1, 2, Infinity]]) assert.equal(parseArea(bad), null, JSON.stringify(bad));
  assert.deepEqual(markerCircle({ x: 100, y: 200, r: 300 }, 140), { x: 170, y: 270, r: 300 });
  // with an area the token itself is not drawn and its light does not shine; for a player the GM hid it from, no marker
  const p = presentationFor({ state: "approximate", isGM: false, area: { x: 1, y: 2, r: 300 } });
  assert.equal(p.drawn, false);
  assert.equal(p.emitsLight, false);
  assert.equal(p.targetable, true);
  assert.deepEqual(p.area, { x: 1, y: 2, r: 300 });
  assert.equal(presentationFor({ state: "approximate", isGM: false, hidden: true, area: { x: 1, y: 2, r: 300 } }).area, null);
  assert.equal(presentationFor({ state: "approximate", isGM: false }).silhouette, true, "no area: the silhouette");
});

test("DET-4 the patch planner writes a target's areas (the sidecar's row of that target) on its token, deletes those that go, and on a sync deletes areas Foundry holds that the result lacks", () => {
  const state = { rev: 3, scene: { id: "s" }, settings: {}, actors: {}, tokens: {}, visibility: { o: { t: "a" } }, areas: { t: { o: [1, 2, 300] } } };
  const moved = planPatch(state, [{ op: "test", path: "/rev", value: 3 }, { op: "replace", path: "/areas/t", value: { o: [5, 6, 300] } }, { op: "replace", path: "/rev", value: 4 }], { statusIds: new Set(), deletion });
  assert.deepEqual(Object.fromEntries(moved.tokenUpdates), { t: { [`flags.${MODULE_ID}.${AREAS_FLAG}.o`]: [5, 6, 300] } });
  const gone = planPatch(state, [{ op: "remove", path: "/areas/t/o" }], { statusIds: new Set(), deletion });
  assert.deepEqual(Object.fromEntries(gone.tokenUpdates), { t: { [`flags.${MODULE_ID}.${AREAS_FLAG}.-=o`]: null } });
  const synced = planPatch(null, [{ op: "replace", path: "/areas", value: { t: { o: [1, 2, 300] } } }], {
    mode: "sync",
    statusIds: new Set(),
    deletion,
    foundryAreas: { t: { o: [1, 2, 300], stale: [0, 0, 300] } },
  });
  assert.deepEqual(Object.fromEntries(synced.tokenUpdates), { t: { [`flags.${MODULE_ID}.${AREAS_FLAG}.-=stale`]: null } }, "an area Foundry already holds is not rewritten");
});

test("DET-4 (leaks row 17) v13+: the path the GM plans or drags for a creature the player locates only roughly is not shown: its ruler stays hidden; her own token's ruler shows", async (t) => {
  t.after(cleanup);
  const { steps } = await ruled(PINS);
  const { sync, token } = table();
  await sync(steps.at(-1)?.state);
  await frame();
  for (const id of ["tBig", "tTiny", "tA"]) {
    token(id).ruler.isVisible = true; // the GM (or Ann) plans a path: core would show the ruler
    token(id).refresh();
  }
  assert.equal(token("tBig").ruler.visible, false);
  assert.equal(token("tTiny").ruler.visible, false);
  assert.equal(token("tA").ruler.visible, true, "her own token's path shows");
});
