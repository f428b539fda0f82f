// At the table, on the strict Foundry stand-in (tests/helpers/fake-foundry.mjs: its canvas, tokens,
// targets, combat tracker, dialogs and chat), with the real sidecar's rulings (its World, seeded
// dice): the square pick of an attack on what a player cannot see (DET-10), the attack on targets as
// one batch, the GM overlay's right click on a line (pins), and what a player targeting a silhouette
// sees: no name, bars, effects or disposition anywhere (the card, the roll, the tracker, the marker).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { installTableTools } from "../../scripts/foundry/attack-tools.mjs";
import { installChatCards } from "../../scripts/foundry/ruling-messages.mjs";
import { answerRequest } from "../../scripts/foundry/player-requests.mjs";
import { installVisibility, isIdentityHidden } from "../../scripts/foundry/visibility-canvas.mjs";
import { FakeCanvas, FakeCombatTracker, FakeDialogs, FakeFormData, FakeRoll, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FakeElement } from "../helpers/fake-dom.mjs";
import { FAKE_PIXI } from "../helpers/fake-pixi.mjs";
import { i18nFor } from "../helpers/i18n.mjs";
import { sidecarRulings } from "../helpers/sidecar.mjs";

const g = /** @type {any} */ (globalThis);

/** The overlay's legend also sets a style and replaces its children (https://developer.mozilla.org/en-US/docs/Web/API/Element). */
class Element extends FakeElement {
  /** @type {Record<string, string>} */
  style = {};
  /** @param {any[]} nodes */
  replaceChildren(...nodes) {
    this.children = nodes;
  }
  remove() {}
}
const GLOBALS = ["game", "canvas", "CONFIG", "Hooks", "ui", "PIXI", "ChatMessage", "foundry", "FormData", "document", "fromUuidSync"];

/** The sidecar's state of the same table (tokens at the stand-in's positions). */
const SIDECAR_STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 } },
    "Actor.thief": { name: "Thief", health: { max: 7 } },
    "Actor.ghost": { name: "Ghost", health: { max: 7 } },
    "Actor.ogre": { name: "Ogre", health: { max: 9 }, iwr: { resistances: [{ type: "fire", value: 5 }] } },
  },
  tokens: {
    tA: { actor: "Actor.ayla", x: 400, y: 400 },
    tT: { actor: "Actor.thief", x: 800, y: 400 },
    tG: { actor: "Actor.ghost", x: 1200, y: 400 },
    tO: { actor: "Actor.ogre", x: 400, y: 800 },
  },
};

/** How the GM pinned the table: Ayla roughly hears the thief, does not find the ghost. */
const PINS = [
  { kind: "pinLocate", observer: "tA", target: "tT", state: "approximate", until: "scene" },
  { kind: "pinLocate", observer: "tA", target: "tG", state: "unlocated", until: "scene" },
];

/**
 * One browser of the table: the stand-in world seen as `user`, the module's visibility, chat cards
 * and table tools installed on it, the canvas drawn.
 * @param {"gm"|"ann"} as
 */
function table(as = "ann") {
  const world = new FakeWorld({ generation: 13 });
  const ann = world.addUser("ann", "Ann");
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const thief = world.addActor("thief", "Thief", {});
  const ghost = world.addActor("ghost", "Ghost", {});
  const ogre = world.addActor("ogre", "Ogre", {});
  const flag = (/** @type {Record<string, string>} */ visibility) => ({ [MODULE_ID]: { visibility } });
  world.addToken("tA", ayla, 400, 400, world.scene, { disposition: 1, sight: { enabled: true } });
  world.addToken("tT", thief, 800, 400, world.scene, { disposition: -1, flags: flag({ tA: "approximate" }) });
  world.addToken("tG", ghost, 1200, 400, world.scene, { disposition: -1, flags: flag({ tA: "unlocated" }) });
  world.addToken("tO", ogre, 400, 800, world.scene, { disposition: -1 });
  world.loginAs(as);
  const dialogs = new FakeDialogs();
  /** @type {{level: string, message: string}[]} */
  const notes = [];
  /** @type {Record<string, unknown>[]} */
  const sent = [];
  /** @type {Map<string, Function[]>} */
  const keyListeners = new Map();
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  const i18n = i18nFor("en");
  const tracker = new FakeCombatTracker(world, { Element: FakeElement });
  Object.assign(g, {
    game: {
      user: world.user,
      users: Object.assign([...world.users.values()], { get: (/** @type {string} */ id) => world.users.get(id) }),
      i18n,
      release: { generation: 13 },
      keybindings: world.keybindings,
      get combat() {
        return world.combat;
      },
      scenes: { viewed: world.scene, get: () => world.scene },
      messages: world.messages,
    },
    canvas,
    CONFIG: world.config,
    Hooks: world.hooks,
    ui: {
      notifications: Object.fromEntries(["info", "warn", "error"].map((level) => [level, (/** @type {string} */ message) => notes.push({ level, message })])),
      combat: tracker,
      controls: { controls: {}, render() {} },
    },
    PIXI: FAKE_PIXI,
    ChatMessage: world.ChatMessage,
    foundry: { applications: { api: { DialogV2: dialogs.DialogV2 } }, dice: { Roll: FakeRoll } },
    FormData: FakeFormData,
    document: {
      createElement: (/** @type {string} */ tag) => new Element(tag),
      createTextNode: (/** @type {string} */ text) => ({ textContent: text }),
      body: { append() {} },
      /** @param {string} type @param {Function} fn */
      addEventListener: (type, fn) => keyListeners.set(type, [...(keyListeners.get(type) ?? []), fn]),
      /** @param {string} type @param {Function} fn */
      removeEventListener: (type, fn) => keyListeners.set(type, (keyListeners.get(type) ?? []).filter((f) => f !== fn)),
    },
    fromUuidSync: (/** @type {string} */ uuid) => world.byUuid.get(uuid) ?? null,
  });
  const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  const runtime = installVisibility({ env: g, localize });
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => (key === "rulingCards" ? "public" : undefined), config: world.config });
  const tools = installTableTools({ env: g, sendAction: (action) => sent.push(action), localize, overlay: runtime });
  canvas.draw();
  const token = (/** @type {string} */ id) => /** @type {any} */ (canvas.tokens.get(id));
  const press = (/** @type {string} */ key) => {
    for (const fn of keyListeners.get("keydown") ?? []) fn({ key });
  };
  return { world, ann, dialogs, notes, sent, canvas, runtime, tools, token, press, tracker };
}

/** The stand-in's deferred refresh (requestAnimationFrame is absent: setTimeout 0). */
const frame = () => new Promise((resolve) => setTimeout(resolve, 5));

/** After a test: its deferred refreshes run first, then the globals go. */
async function cleanup() {
  await frame();
  for (const name of GLOBALS) delete g[name];
}

const ATTACK_FORM = { amount: "6", grade: "L", type: "fire", successes: "3", extraSuccesses: "0", effectPoints: "0" };

test("DET-10 the square pick: armed from the attack dialog, a click outside the scene is an error, a click inside sends the attack at that square's centre; Escape cancels", async (t) => {
  t.after(cleanup);
  const { dialogs, notes, sent, canvas, tools, token, press } = table("ann");
  token("tA").control();
  dialogs.answers.push({ button: "square", form: ATTACK_FORM });
  await tools.openDialog();
  assert.equal(tools.pick.armed, true);
  assert.equal(notes.at(-1)?.message, "Click the square to attack (Escape cancels).");
  canvas.stage.press(0, 150, 450); // in the padding, left of the scene rectangle (x 200..2200)
  assert.deepEqual(sent, [], "nothing sent for a point outside the scene");
  assert.deepEqual(notes.at(-1), { level: "error", message: "That point is outside the scene: click a square inside it (Escape cancels)." });
  assert.equal(tools.pick.armed, true, "still armed after the error");
  canvas.stage.press(0, 1234, 456); // the square 1200..1300 × 400..500
  assert.deepEqual(sent, [
    { kind: "damage", instances: [{ amount: 6, grade: "L", type: "fire" }], attack: { attacker: "tA", successes: 3, guess: { x: 1250, y: 450 } } },
  ]);
  assert.equal(tools.pick.armed, false, "one click");
  canvas.stage.press(0, 1234, 456);
  assert.equal(sent.length, 1, "a click after the pick is the canvas' own again");
  // armed again, then Escape: cancelled, and the next click sends nothing
  dialogs.answers.push({ button: "square", form: ATTACK_FORM });
  await tools.openDialog();
  press("Escape");
  assert.equal(tools.pick.armed, false);
  assert.equal(notes.at(-1)?.message, "The attack at a square is cancelled.");
  canvas.stage.press(0, 900, 450);
  assert.equal(sent.length, 1);
  // a right click cancels too
  dialogs.answers.push({ button: "square", form: ATTACK_FORM });
  await tools.openDialog();
  canvas.stage.press(2, 900, 450);
  assert.equal(tools.pick.armed, false);
});

test("DET-10 bad input: attacking with no token, or guessing with one the player does not own, is refused before anything is sent", async (t) => {
  t.after(cleanup);
  const { world, ann, dialogs, notes, sent, tools, token } = table("ann");
  dialogs.answers.push({ button: "square", form: ATTACK_FORM });
  await tools.openDialog();
  assert.equal(notes.at(-1)?.message, "Select the token you attack with.");
  assert.equal(token("tT").control(), false, "the stand-in refuses control of a token the player does not own");
  // a relayed attack whose attacker is not the player's: the bridge refuses it (player-requests.mjs)
  const theirs = { kind: "batch", actions: [{ kind: "damage", target: "Actor.ogre", instances: [{ amount: 1, grade: "L" }], attack: { attacker: "tT", token: "tO", successes: 1 } }] };
  const side = {
    runsBridge: () => true,
    user: (/** @type {string} */ id) => world.users.get(id),
    owns: (/** @type {any} */ subject, /** @type {any} */ user) => !!world.scene.tokens.find((d) => d.id === subject.token)?.testUserPermission(user, "OWNER"),
    send: async (/** @type {any} */ action) => sent.push(action),
  };
  const request = { type: "vtt-bridge.action", id: "r1", from: ann.id, action: theirs };
  assert.deepEqual(await answerRequest(request, side), { ok: false, code: "notOwner" });
  const mine = { ...request, action: { kind: "batch", actions: [{ ...theirs.actions[0], attack: { attacker: "tA", token: "tO", successes: 1 } }] } };
  assert.deepEqual(await answerRequest(mine, side), { ok: true, code: "sent" });
  assert.equal(sent.length, 1);
});

test("an attack on the targeted tokens is one batch: one damage per target, each with the attack and its own token", async (t) => {
  t.after(cleanup);
  const { sent, dialogs, tools, token, ann } = table("ann");
  token("tA").control();
  token("tT").setTarget(true, { user: ann });
  token("tO").setTarget(true, { user: ann, releaseOthers: false });
  dialogs.answers.push({ button: "targets", form: ATTACK_FORM });
  await tools.openDialog();
  const instances = [{ amount: 6, grade: "L", type: "fire" }];
  assert.deepEqual(sent, [
    {
      kind: "batch",
      actions: [
        { kind: "damage", target: "Actor.thief", instances, attack: { attacker: "tA", token: "tT", successes: 3 } },
        { kind: "damage", target: "Actor.ogre", instances, attack: { attacker: "tA", token: "tO", successes: 3 } },
      ],
    },
  ]);
  const [ruled] = await sidecarRulings(SIDECAR_STATE, [...PINS, sent[0]]).then((r) => r.slice(2));
  const headers = ruled.log.filter((/** @type {any} */ s) => s.key === "BATCH.item").map((/** @type {any} */ s) => s.data.target);
  assert.deepEqual(headers, ["Actor.thief", "Actor.ogre"], "the sidecar rules it as one batch");
});

test("PIN the GM overlay's right click on a line offers that pair's pins and release; off a line, overlay off, or a player: nothing", async (t) => {
  t.after(cleanup);
  const { canvas, runtime, dialogs, world } = table("gm");
  /** @type {Record<string, unknown>[]} */
  const actions = [];
  world.hooks.callAll(`${MODULE_ID}.connection`, { status: "connected", on() {}, action: async (/** @type {any} */ a) => actions.push(a) });
  const midpoint = { x: (450 + 850) / 2, y: 450 }; // tA's centre to tT's
  canvas.stage.press(2, midpoint.x, midpoint.y);
  await frame();
  assert.equal(dialogs.opened.length, 0, "the overlay is off");
  runtime.setOverlay(true, false);
  canvas.stage.press(2, midpoint.x, midpoint.y + 200); // between the lines, far from each
  await frame();
  assert.equal(dialogs.opened.length, 0);
  dialogs.answers.push({ button: "ok", form: { observer: "tA", state: "pinpointed", until: "scene" } });
  canvas.stage.press(2, midpoint.x, midpoint.y);
  await frame();
  assert.equal(dialogs.opened.length, 1);
  const content = String(dialogs.opened[0].content);
  assert.ok(content.includes('value="tA"') && !content.includes('value=""') && !content.includes('value="tO"'), "the pair's observer only");
  assert.equal(dialogs.opened[0].window.title, "How Ayla locates Thief");
  assert.deepEqual(actions, [{ kind: "pinLocate", target: "tT", observer: "tA", state: "pinpointed", until: "scene", by: "Gamemaster" }]);
  dialogs.answers.push({ button: "ok", form: { observer: "tA", state: "release", until: "scene" } });
  canvas.stage.press(2, midpoint.x, midpoint.y);
  await frame();
  assert.deepEqual(actions.at(-1), { kind: "releaseLocate", observer: "tA", target: "tT" });
  canvas.stage.press(0, midpoint.x, midpoint.y); // a left click is the canvas' own
  await frame();
  assert.equal(dialogs.opened.length, 2);
  // a player never gets it (the overlay is the GM's)
  world.loginAs("ann");
  g.game.user = world.user;
  runtime.overlayActive = true;
  canvas.stage.press(2, midpoint.x, midpoint.y);
  await frame();
  assert.equal(dialogs.opened.length, 2);
});

test("DET-10 must show: a player targeting a silhouette sees no name, bars, effects or disposition anywhere: the marker, the tracker, the card, the roll; a wrong square misses", async (t) => {
  t.after(cleanup);
  const { world, ann, token, tracker, sent, dialogs, tools } = table("ann");
  await frame();
  const thief = token("tT");
  assert.equal(isIdentityHidden(thief), true, "a silhouette: the Health boxes and counters do not name it either");
  thief.setTarget(true, { user: ann });
  await frame();
  assert.ok(ann.targets?.has(thief), "a silhouette is targetable (DET-10)");
  thief.refresh();
  for (const part of ["nameplate", "bars", "effects", "tooltip", "targetArrows", "targetPips"]) assert.equal(thief[part].visible, false, `the ${part} stays hidden`);
  assert.equal(thief.mesh.visible, false, "no art");
  assert.equal(thief.border.tint, world.config.Canvas.dispositionColors.INACTIVE, "no disposition colour");
  const silhouette = thief.children.find((/** @type {any} */ c) => c.name === "vtt-bridge-silhouette");
  assert.ok(silhouette?.visible, "the silhouette is drawn");
  assert.equal(silhouette.vttTarget?.visible, true, "the target marker is the silhouette's own");
  // an unlocated token is not drawn and cannot be targeted at all
  token("tG").setTarget(true, { user: ann, releaseOthers: false });
  assert.equal(ann.targets?.has(token("tG")), false);
  // the combat tracker: no row for the silhouette
  world.combat = {
    round: 1,
    combatants: new Map([
      ["cA", { id: "cA", name: "Ayla", token: world.scene.tokens[0] }],
      ["cT", { id: "cT", name: "Thief", token: world.scene.tokens[1] }],
    ]),
  };
  const rows = tracker.render().children.map((/** @type {any} */ r) => r.textContent);
  assert.deepEqual(rows, ["Ayla"]);
  // the player's attack on the silhouette and the ogre (one batch), a roll against the thief, and an
  // attack at a wrong square (the ghost stands at 1200, 400): ruled by the real sidecar
  token("tA").control();
  token("tO").setTarget(true, { user: ann, releaseOthers: false });
  dialogs.answers.push({ button: "targets", form: ATTACK_FORM });
  await tools.openDialog();
  dialogs.answers.push({ button: "square", form: ATTACK_FORM });
  await tools.openDialog();
  g.canvas.stage.press(0, 1650, 450);
  assert.equal(sent.length, 2);
  const roll = { kind: "roll", actor: "Actor.ayla", pool: 4, opponent: "Actor.thief", opposed: { pool: 3 } };
  const results = (await sidecarRulings(SIDECAR_STATE, [...PINS, sent[0], roll, sent[1]])).slice(2);
  assert.ok(results.every((r) => !r.error), JSON.stringify(results.map((r) => r.error)));
  const missed = results[2];
  assert.equal(missed.log.at(-1).key, "DET-10.noTarget", "a wrong square (nobody stands there) misses");
  assert.deepEqual([missed.log.at(-1).data.guessed, missed.log.at(-1).data.right], [true, false]);
  assert.equal(missed.patch.length, 2, "and changes nothing but the rev");
  // the GM's browser posts the cards (it runs the bridge): switch this page to the GM
  world.loginAs("gm");
  g.game.user = world.user;
  /** @type {Record<string, Function[]>} */
  const listeners = {};
  world.hooks.callAll(`${MODULE_ID}.connection`, { status: "connected", on: (/** @type {string} */ name, /** @type {Function} */ fn) => (listeners[name] = [...(listeners[name] ?? []), fn]) });
  const requests = [sent[0], roll, sent[1]];
  for (const [i, result] of results.entries()) {
    for (const fn of listeners.log ?? []) await fn({ rev: result.rev, log: result.log, rolls: result.rolls, request: { type: "action", payload: requests[i], id: `a${i}` } });
  }
  const forGm = world.visibleTo(world.user);
  assert.ok(forGm.length >= 3, `the GM has every card (${forGm.length})`);
  const batchCard = String(forGm[0]._source.content);
  assert.match(batchCard, /<h4>Thief<\/h4>/, "the GM's card names the thief");
  assert.match(batchCard, /<h4>Ogre<\/h4><ul><li class="vtt-bridge-batch-total">6 fire → 1<\/li>/, "and shows the ogre's resistance: 6 fire → 1");
  const shown = world.visibleTo(ann);
  for (const message of shown) {
    const text = [String(message._source.content), ...(message._source.rolls ?? [])].join(" ");
    for (const secret of ["Thief", "thief", "tT", "Ghost", "tG", "HOSTILE"]) assert.ok(!text.includes(secret), `a card the player sees names ${secret}: ${text.slice(0, 300)}`);
  }
  assert.ok(forGm.some((m) => (m._source.rolls ?? []).length), "the roll was posted, whispered to the GM");
});

test("the attack tool joins the token controls for every user: v13+ a record tool with onChange, v12 an array tool with onClick", async (t) => {
  t.after(cleanup);
  const { world, dialogs } = table("ann");
  /** @type {any} */
  const v13 = { tokens: { tools: { select: { name: "select" } } } };
  world.hooks.callAll("getSceneControlButtons", v13);
  const tool = v13.tokens.tools["vtt-bridge-attack"];
  assert.equal(tool.button, true);
  assert.equal(tool.order, 1);
  /** @type {any[]} */
  const v12 = [{ name: "token", tools: [{ name: "select" }] }, { name: "walls", tools: [] }];
  world.hooks.callAll("getSceneControlButtons", v12);
  assert.equal(v12[0].tools[1].name, "vtt-bridge-attack");
  assert.equal(v12[1].tools.length, 0);
  tool.onChange();
  v12[0].tools[1].onClick();
  await frame();
  assert.equal(dialogs.opened.length, 2, "each opens the attack dialog");
  assert.equal(dialogs.opened[0].window.title, "Attack");
});
