// The GM's pins: the pure actions (core/pins.mjs) and the token HUD dialog's wiring
// (foundry/ruling-messages.mjs `pinFor`) with Foundry-shaped globals, written from the public API
// docs: DialogV2.prompt resolves the ok callback's value; `Combat#round` is the combat's round.
import assert from "node:assert/strict";
import { test } from "node:test";

import { pinAction, pinsOn, releaseAction } from "../../scripts/core/pins.mjs";
import { pinFor } from "../../scripts/foundry/ruling-messages.mjs";

const g = /** @type {any} */ (globalThis);

test("pinAction: every observer or one, the three states, until the scene, this round or a move", () => {
  assert.deepEqual(pinAction("T", { observer: "", state: "unlocated", until: "scene" }, { round: 2, by: "GM" }), {
    kind: "pinLocate",
    target: "T",
    state: "unlocated",
    until: "scene",
    by: "GM",
  });
  assert.deepEqual(pinAction("T", { observer: "O", state: "pinpointed", until: "round" }, { round: 3, by: "GM" }), {
    kind: "pinLocate",
    target: "T",
    observer: "O",
    state: "pinpointed",
    until: { round: 3 },
    by: "GM",
  });
  assert.equal(pinAction("T", { state: "approximate", until: "move" }, { round: 0, by: "" }).until, "move");
  assert.throws(() => pinAction("T", { state: "glimpsed", until: "scene" }, { round: 0, by: "" }), TypeError);
  assert.throws(() => pinAction("T", { state: "unlocated", until: "forever" }, { round: 0, by: "" }), TypeError);
  assert.deepEqual(releaseAction("T"), { kind: "releaseLocate", target: "T" });
  assert.deepEqual(releaseAction("T", "O"), { kind: "releaseLocate", observer: "O", target: "T" });
});

test("pinsOn: the pins of the mirrored document, the one on every observer first", () => {
  const state = {
    pins: {
      T: { every: { state: "unlocated", until: "scene", by: "GM" }, observers: { O: { state: "approximate", until: { round: 2 }, by: "Ann" } } },
    },
  };
  assert.deepEqual(pinsOn(state, "T"), [
    { observer: null, state: "unlocated", until: "scene", by: "GM" },
    { observer: "O", state: "approximate", until: { round: 2 }, by: "Ann" },
  ]);
  assert.deepEqual(pinsOn(state, "X"), []);
  assert.deepEqual(pinsOn({}, "T"), []);
});

/** @param {Record<string, string>|null} form what the GM picks, or null: closed */
function installGlobals(form) {
  /** @type {any[]} */
  const sent = [];
  /** @type {any[]} */
  const prompts = [];
  g.game = {
    i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k, has: () => true },
    scenes: { viewed: { tokens: [{ id: "T", name: "Ghost" }, { id: "O", name: "Guard" }] } },
    user: { name: "Gamemaster", isGM: true },
    combat: { round: 4 },
    release: { generation: 13 },
  };
  g.ui = { notifications: { warn: () => {}, error: (/** @type {string} */ m) => sent.push({ error: m }) } };
  g.canvas = undefined;
  g.FormData = class {
    /** @param {any} f */
    constructor(f) {
      this.f = f;
    }
    *entries() {
      yield* Object.entries(this.f.values);
    }
  };
  g.foundry = {
    applications: {
      api: {
        DialogV2: {
          /** @param {any} options */
          async prompt(options) {
            prompts.push(options);
            return form === null ? null : options.ok.callback({}, { form: { values: form } });
          },
        },
      },
    },
  };
  const connection = { status: "connected", action: async (/** @type {any} */ a) => sent.push(a) };
  return { sent, prompts, connection };
}

test("the token HUD's pin dialog sends pinLocate (this combat round) or releaseLocate; closed: nothing", async (t) => {
  const RealFormData = g.FormData;
  t.after(() => {
    for (const name of ["game", "ui", "canvas", "foundry"]) delete g[name];
    g.FormData = RealFormData;
  });
  const target = { id: "T", name: "Ghost" };
  const first = installGlobals({ observer: "O", state: "unlocated", until: "round" });
  const prompts = first.prompts;
  let { sent, connection } = first;
  await pinFor(target, connection);
  assert.deepEqual(sent, [{ kind: "pinLocate", target: "T", observer: "O", state: "unlocated", until: { round: 4 }, by: "Gamemaster" }]);
  assert.ok(prompts[0].content.includes('value="O"') && !prompts[0].content.includes('value="T"'), "the target is not its own observer");
  ({ sent, connection } = installGlobals({ observer: "", state: "release", until: "scene" }));
  await pinFor(target, connection);
  assert.deepEqual(sent, [{ kind: "releaseLocate", target: "T" }]);
  ({ sent, connection } = installGlobals(null));
  await pinFor(target, connection);
  assert.deepEqual(sent, []);
});

test("a reveal held for the GM: read from the log's DET-8 step, asked in a card with Accept and Refuse", async () => {
  const { heldReveals, revealCardHtml } = await import("../../scripts/core/pins.mjs");
  const { actionFromButton } = await import("../../scripts/core/damage.mjs");
  const log = [
    { rule: "DET-8", text: "contest", data: { observer: "O", target: "T", wins: true } },
    { rule: "DET-8", text: "held", data: { held: true, observer: "O", target: "T", shown: "approximate" } },
  ];
  assert.deepEqual(heldReveals(log), [{ observer: "O", target: "T" }]);
  assert.deepEqual(heldReveals([log[0]]), []);
  const html = revealCardHtml({ observer: "O", target: "T" }, { line: "Guard would pinpoint <Ghost>", accept: "Accept", refuse: "Refuse" }, "vtt-bridge");
  assert.ok(html.includes("Guard would pinpoint &#60;Ghost&#62;"), "escaped");
  const attrs = [...html.matchAll(/data-vtt-bridge-action="([^"]*)"/g)].map((m) => m[1].replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))));
  const buttons = attrs.map((raw) => actionFromButton({ getAttribute: () => raw }));
  assert.deepEqual(buttons, [
    { kind: "approveReveal", observer: "O", target: "T", accept: true },
    { kind: "approveReveal", observer: "O", target: "T", accept: false },
  ]);
});

test("lineAt: the overlay's line a right click falls on (nearest within the tolerance), observer to target; off every line: none", async () => {
  const { lineAt, LINE_PICK_TOLERANCE } = await import("../../scripts/core/pins.mjs");
  /** @type {import("../../scripts/core/visibility.mjs").Relation[]} */
  const relations = [
    { observerId: "O", targetId: "T", state: "unlocated", malformed: false, from: { x: 50, y: 50 }, to: { x: 650, y: 50 } },
    { observerId: "P", targetId: "T", state: "approximate", malformed: false, from: { x: 50, y: 450 }, to: { x: 650, y: 50 } },
  ];
  const on = lineAt({ x: 350, y: 50 }, relations, 100);
  assert.equal(on?.observer, "O");
  assert.equal(on?.target, "T");
  const near = lineAt({ x: 350, y: 50 + LINE_PICK_TOLERANCE - 4 }, relations, 100);
  assert.equal(near?.observer, "O");
  assert.equal(lineAt({ x: 350, y: 120 }, relations, 100)?.observer === "O", false);
  assert.equal(lineAt({ x: 900, y: 900 }, relations, 100), null);
  assert.equal(lineAt({ x: NaN, y: 0 }, relations, 100), null);
});
