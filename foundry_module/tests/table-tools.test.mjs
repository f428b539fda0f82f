// At the table, on the strict Foundry stand-in (tests/helpers/fake-foundry.mjs: its canvas, tokens,
// targets, combat tracker, dialogs and chat), with the real sidecar's rulings (its World, seeded
// dice): the square pick of an attack on what a player cannot see (DET-10), the attack on targets as
// one batch, the GM overlay's right click on a line (pins), and what a player targeting a silhouette
// sees: no name, bars, effects or disposition anywhere (the card, the roll, the tracker, the marker).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../scripts/core/constants.mjs";
import { installTableTools } from "../scripts/foundry/attack-tools.mjs";
import { installChatCards } from "../scripts/foundry/ruling-messages.mjs";
import { answerRequest } from "../scripts/foundry/player-requests.mjs";
import { installVisibility, isIdentityHidden } from "../scripts/foundry/visibility-canvas.mjs";
import { FakeCanvas, FakeCombatTracker, FakeDialogs, FakeFormData, FakeRoll, FakeWorld } from "./helpers/fake-foundry.mjs";
import { FakeElement } from "./helpers/fake-dom.mjs";
import { FAKE_PIXI } from "./helpers/fake-pixi.mjs";
import { i18nFor } from "./helpers/i18n.mjs";
import { sidecarRulings } from "./helpers/sidecar.mjs";
import { worldReads } from "./helpers/bridge-side.mjs";

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
 * @param {{checkAttack?: (query: Record<string, unknown>) => Promise<unknown>, cards?: string}} [options] the tools' `attackCheck`, the "ruling cards" setting
 */
function table(as = "ann", { checkAttack = /** @type {((query: Record<string, unknown>) => Promise<unknown>)|undefined} */ (undefined), cards = "public" } = {}) {
  const world = new FakeWorld({ generation: 13 });
  const ann = world.addUser("ann", "Ann");
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const thief = world.addActor("thief", "Thief", {});
  const ghost = world.addActor("ghost", "Ghost", {});
  const ogre = world.addActor("ogre", "Ogre", {});
  const flag = (/** @type {Record<string, string>} */ visibility) => ({ [MODULE_ID]: { visibility } });
  const art = (/** @type {string} */ id) => ({ texture: { src: `tokens/${id}-art.webp` } });
  world.addToken("tA", ayla, 400, 400, world.scene, { disposition: 1, sight: { enabled: true }, ...art("ayla") });
  world.addToken("tT", thief, 800, 400, world.scene, { disposition: -1, flags: flag({ tA: "approximate" }), ...art("thief") });
  world.addToken("tG", ghost, 1200, 400, world.scene, { disposition: -1, flags: flag({ tA: "unlocated" }), ...art("ghost") });
  world.addToken("tO", ogre, 400, 800, world.scene, { disposition: -1, ...art("ogre") });
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
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => (key === "rulingCards" ? cards : undefined), config: world.config });
  const tools = installTableTools({ env: g, sendAction: (action) => sent.push(action), localize, overlay: runtime, checkAttack });
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
    locates: worldReads(world).locates,
    send: async (/** @type {any} */ action) => sent.push(action),
  };
  const request = { type: "vtt-bridge.action", id: "r1", action: theirs };
  assert.deepEqual(await answerRequest(request, side, ann.id), { ok: false, code: "notOwner" });
  const mine = { ...request, action: { kind: "batch", actions: [{ ...theirs.actions[0], attack: { attacker: "tA", token: "tO", successes: 1 } }] } };
  assert.deepEqual(await answerRequest(mine, side, ann.id), { ok: true, code: "sent" });
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

/**
 * The GM's browser posts the cards of rulings it sent (it runs the bridge, and relays a player's
 * attack): switch the page to the GM and hand each ruling to the chat cards' log listener.
 * @param {any} world
 * @param {any[]} requests
 * @param {any[]} results
 */
async function postAsGm(world, requests, results) {
  world.loginAs("gm");
  g.game.user = world.user;
  /** @type {Record<string, Function[]>} */
  const listeners = {};
  world.hooks.callAll(`${MODULE_ID}.connection`, { status: "connected", on: (/** @type {string} */ name, /** @type {Function} */ fn) => (listeners[name] = [...(listeners[name] ?? []), fn]) });
  for (const [i, result] of results.entries()) {
    for (const fn of listeners.log ?? []) await fn({ rev: result.rev, log: result.log, rolls: result.rolls, request: { type: "action", payload: requests[i], id: `a${i}` } });
  }
}

/** What of a target a player must never read: names, ids, art, Health, effects, disposition. */
const SECRETS = ["Thief", "thief", "tT", "Ghost", "ghost", "tG", "webp", "Health", "lethal", "bashing", "resist", "HOSTILE", "disposition", "invisib"];

test("DET-10 the player's card of an attack on a silhouette names it Someone: hit, the successes halved; a wrong square: that square missed, naming no one; a roll against it: Someone, the roller's own dice; the GM's whispered card names the target", async (t) => {
  t.after(cleanup);
  const { world, ann, token, sent, dialogs, tools } = table("ann");
  await frame();
  token("tA").control();
  token("tT").setTarget(true, { user: ann });
  dialogs.answers.push({ button: "targets", form: ATTACK_FORM });
  await tools.openDialog();
  for (const point of [[1650, 450], [1234, 456]]) {
    dialogs.answers.push({ button: "square", form: ATTACK_FORM });
    await tools.openDialog();
    g.canvas.stage.press(0, point[0], point[1]);
  }
  assert.equal(sent.length, 3, JSON.stringify(sent));
  const roll = { kind: "roll", actor: "Actor.ayla", pool: 4, opponent: "Actor.thief", opposed: { pool: 3 } };
  const requests = [...sent, roll];
  const results = (await sidecarRulings(SIDECAR_STATE, [...PINS, ...requests])).slice(2);
  assert.ok(results.every((r) => !r.error), JSON.stringify(results.map((r) => r.error)));
  await postAsGm(world, requests, results);
  const shown = world.visibleTo(ann);
  const whispered = [...world.messages.values()].filter((/** @type {any} */ m) => !shown.includes(m));
  // what the player's browser receives of each card: its content, its rolls and its flags (the card kept as data)
  const texts = shown.map((/** @type {any} */ m) => [String(m._source.content), ...(m._source.rolls ?? []).map((/** @type {any} */ r) => JSON.stringify(r)), JSON.stringify(m._source.flags ?? {})].join(" "));
  assert.equal(texts.length, 4, `the player has a card of each attack and the roll: ${texts.join(" | ")}`);
  for (const message of shown) assert.ok(message.getFlag("vtt-bridge", "publicCard"), "each players' card keeps what it shows as data, worded by each client");
  const someone = "Someone: hit; located only roughly, the successes count half: 3 → 1 (DET-10)";
  assert.ok(texts[0].includes("Ayla attacks") && texts[0].includes(someone), texts[0]);
  assert.ok(texts[1].includes("The attack on that square missed (DET-10)."), texts[1]);
  assert.ok(texts[2].includes("The attack on that square hit someone; a guessed square counts as approximate: successes 3 → 1 (DET-10)"), texts[2]);
  const wins = results[3].log.find((/** @type {any} */ s) => s.rule === "DICE-5").data.wins;
  const own = results[3].rolls.find((/** @type {any} */ r) => r.by === "Actor.ayla");
  assert.ok(texts[3].includes(`Ayla rolls against Someone: ${own.successes} successes, and ${wins ? "wins" : "fails"} (DICE-5)`), texts[3]);
  const rolled = shown[3]._source.rolls.map((/** @type {any} */ r) => (typeof r === "string" ? JSON.parse(r) : r));
  assert.deepEqual(rolled.map((/** @type {any} */ r) => r.terms[0].number), [4], "only the roller's own dice, never the opponent's pool");
  for (const text of texts) for (const secret of SECRETS) assert.ok(!text.includes(secret), `a card the player sees carries ${secret}: ${text}`);
  for (const message of shown) assert.deepEqual(message._source.whisper ?? [], [], "the players' card is public");
  // the roll is thrown once (Dice So Nice): only the players' card carries its dice, the GM's none
  const withRolls = [...world.messages.values()].filter((/** @type {any} */ m) => (m._source.rolls ?? []).length);
  assert.deepEqual(withRolls, [shown[3]], "one message of the roll carries its dice");
  // a German player's browser words the same message in German, from its flags
  world.loginAs("ann");
  g.game.user = world.user;
  g.game.i18n = i18nFor("de");
  const hadElement = "HTMLElement" in g;
  g.HTMLElement ??= FakeElement;
  const german = world.renderMessage(shown[0], FakeElement).querySelector(".vtt-bridge-ruling")?.textContent ?? "";
  if (!hadElement) delete g.HTMLElement;
  assert.ok(german.startsWith("Ayla greift an") && german.includes("Jemand: getroffen"), german);
  g.game.i18n = i18nFor("en");
  world.loginAs("gm");
  g.game.user = world.user;
  // the GM's cards are whispered to the GMs only, and name the target
  assert.ok(whispered.length >= 3);
  for (const message of whispered) assert.ok(message._source.whisper.every((/** @type {string} */ id) => world.users.get(id)?.isGM));
  const gmText = whispered.map((/** @type {any} */ m) => String(m._source.content)).join(" ");
  assert.match(gmText, /Thief/, "the GM's card names the thief");
  assert.match(gmText, /Ghost/, "and who stood at the right square");
});

test("DET-10 the attack dialog asks attackCheck first, relayed as the attacker's view: a silhouette halved as Someone, the ogre in full; at a square the same lines whether the guess is right or wrong; sent only on Attack", async (t) => {
  t.after(cleanup);
  /** @type {Record<string, unknown>[]} */
  const asked = [];
  // the player's query goes through the bridge's relay (answerRequest) to the real sidecar
  /** @type {Record<string, unknown>[]} */
  const relayed = [];
  const checkAttack = async (/** @type {Record<string, unknown>} */ query) => {
    asked.push(query);
    const side = {
      runsBridge: () => true,
      user: (/** @type {string} */ id) => g.game.users.get(id),
      owns: async () => true,
      locates: async () => true,
      send: async () => assert.fail("a query is not an action"),
      query: async (/** @type {Record<string, unknown>} */ q) => {
        relayed.push(q);
        const [answer] = (await sidecarRulings(SIDECAR_STATE, [...PINS, { query: q }])).slice(2);
        assert.ok(!answer.error, JSON.stringify(answer.error));
        return answer;
      },
    };
    const reply = await answerRequest({ type: "vtt-bridge.action", id: `q${asked.length}`, action: query }, side, "ann");
    assert.equal(reply.ok, true, JSON.stringify(reply));
    return reply.data;
  };
  const { ann, token, sent, dialogs, tools } = table("ann", { checkAttack });
  await frame();
  token("tA").control();
  token("tT").setTarget(true, { user: ann });
  token("tO").setTarget(true, { user: ann, releaseOthers: false });
  dialogs.answers.push({ button: "targets", form: ATTACK_FORM }, { button: "cancel", form: {} });
  assert.equal(await tools.openDialog(), null, "cancelled on the DET-10 dialog");
  assert.deepEqual(sent, []);
  assert.ok(relayed.every((q) => q.view === "attacker"), "the relay asks the attacker's view");
  const lines = String(dialogs.opened[1].content);
  assert.equal(dialogs.opened[1].window.title, "What DET-10 says");
  assert.ok(lines.includes("Someone: located only roughly: successes, extra successes and effect points count half (1 success)"), lines);
  assert.ok(lines.includes("Ogre: counts in full (3 successes)"), lines);
  for (const secret of ["Thief", "thief", "tT", "webp", "hit", "unlocated"]) assert.ok(!lines.includes(secret), `the dialog shows ${secret}: ${lines}`);
  dialogs.answers.push({ button: "targets", form: ATTACK_FORM }, { button: "send", form: {} });
  await tools.openDialog();
  assert.equal(sent.length, 1, "sent on Attack");
  assert.equal(/** @type {any} */ (sent[0]).kind, "batch");
  // at a square: the right one (the ghost's) and a wrong one show the same lines
  const squareLines = [];
  for (const point of [[1234, 456], [1650, 450]]) {
    dialogs.answers.push({ button: "square", form: ATTACK_FORM }, { button: "send", form: {} });
    await tools.openDialog();
    g.canvas.stage.press(0, point[0], point[1]);
    for (let i = 0; i < 50 && sent.length < 2 + squareLines.length; i++) await frame();
    squareLines.push(String(dialogs.opened.at(-1).content));
  }
  assert.equal(sent.length, 3, "each square attack sent after its DET-10 dialog");
  assert.equal(squareLines[0], squareLines[1], "a right and a wrong square look the same before the attack");
  assert.match(squareLines[0], /At a guessed square: if someone stands there, it counts as approximate \(1 success\); if nobody does, the attack misses/);
  assert.deepEqual(asked.at(-1), { kind: "attackCheck", attacker: "tA", successes: 3, view: "attacker", guess: { x: 1650, y: 450 } });
});

test("DET-10 the relay cuts an attackCheck answer to the attacker's fields, and refuses one for a token the player does not own", async (t) => {
  t.after(cleanup);
  const { world } = table("gm");
  const full = { rev: 3, data: { verdict: "guessed", hit: false, locate: "unlocated", log: [{ rule: "DET-10", text: "tA locates tG" }], successes: 1, halved: true } };
  const side = {
    runsBridge: () => true,
    user: (/** @type {string} */ id) => world.users.get(id),
    owns: async (/** @type {any} */ subject, /** @type {any} */ user) => !!world.scene.tokens.find((d) => d.id === subject.token)?.testUserPermission(user, "OWNER"),
    locates: worldReads(world).locates,
    send: async () => assert.fail("no action"),
    query: async () => full,
  };
  const ask = (/** @type {string} */ attacker) => answerRequest({ type: "vtt-bridge.action", id: "q1", action: { kind: "attackCheck", attacker, successes: 3, guess: { x: 1250, y: 450 } } }, side, "ann");
  assert.deepEqual(await ask("tA"), { ok: true, code: "sent", data: { verdict: "guessed", successes: 1, halved: true } });
  assert.deepEqual(await ask("tT"), { ok: false, code: "notOwner" });
});

test("DET-10 with the ruling cards setting 'gm' the players' card of an attack goes to the GMs and the attacker's owner only; 'off': none", async (t) => {
  t.after(cleanup);
  for (const cards of ["gm", "off"]) {
    const { world, ann, token, sent, dialogs, tools } = table("ann", { cards });
    const bob = world.addUser("bob", "Bob");
    await frame();
    token("tA").control();
    token("tT").setTarget(true, { user: ann });
    dialogs.answers.push({ button: "targets", form: ATTACK_FORM });
    await tools.openDialog();
    const results = (await sidecarRulings(SIDECAR_STATE, [...PINS, ...sent])).slice(2);
    await postAsGm(world, sent, results);
    const forAnn = world.visibleTo(ann).map((/** @type {any} */ m) => String(m._source.content));
    if (cards === "off") {
      assert.deepEqual(forAnn, []);
      continue;
    }
    assert.equal(forAnn.length, 1, forAnn.join(" | "));
    assert.ok(forAnn[0].includes("Someone: hit"), forAnn[0]);
    assert.deepEqual(world.visibleTo(bob), [], "another player sees nothing");
    await cleanup();
  }
});
