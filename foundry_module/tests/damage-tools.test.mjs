// The damage dialog and a chat card's Apply button (damage-tools.mjs), the way a table uses them, on
// the strict Foundry stand-in (tests/helpers/fake-foundry.mjs: User#targets, canvas.tokens.controlled,
// DialogV2, ChatMessage and the chat log's rendering, queries between two browsers), with the real
// send path (send-action.mjs: a player's action relayed to the GM's browser that runs the bridge,
// player-requests.mjs) and the real sidecar's rulings of what reached it (its World, seeded dice).
// And the GM's reveal card (ruling-messages.mjs `askReveals`) fed from a real held reveal (DET-8).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../scripts/core/constants.mjs";
import { actionCardHtml } from "../scripts/core/damage.mjs";
import { installDamageTools, LAST_TYPE_FLAG } from "../scripts/foundry/damage-tools.mjs";
import { listenAsBridge } from "../scripts/foundry/player-requests.mjs";
import { installChatCards } from "../scripts/foundry/ruling-messages.mjs";
import { makeSendAction } from "../scripts/foundry/send-action.mjs";
import { worldReads } from "./helpers/bridge-side.mjs";
import { FakeCanvas, FakeDialogs, FakeFormData, FakeNetwork, FakeRoll, FakeWorld } from "./helpers/fake-foundry.mjs";
import { FakeElement } from "./helpers/fake-dom.mjs";
import { FAKE_PIXI } from "./helpers/fake-pixi.mjs";
import { i18nFor } from "./helpers/i18n.mjs";
import { rulingsInFlight, sidecarRulings } from "./helpers/sidecar.mjs";

const g = /** @type {any} */ (globalThis);
const GLOBALS = ["game", "canvas", "CONFIG", "Hooks", "ui", "ChatMessage", "foundry", "FormData", "document", "HTMLElement", "fromUuid", "fromUuidSync"];

const seer = { detection: [{ name: "sight", sense: "sight", essence: "magical", rank: "D" }] };
/** The sidecar's state of the same table (tokens at the stand-in's positions). */
const SIDECAR_STATE = {
  scene: { id: "scene1", round: 1, gridSize: 100 },
  settings: { approveReveals: true },
  actors: {
    "Actor.ayla": { name: "Ayla", health: { max: 7 }, ...seer },
    "Actor.thief": { name: "Thief", health: { max: 7 } },
    "Actor.ogre": { name: "Ogre", health: { max: 9 }, iwr: { resistances: [{ type: "fire", value: 5 }] } },
    "Actor.ghost": { name: "Ghost", health: { max: 7 }, antiDetection: [{ name: "veil", essence: "magical", rank: "D" }] },
  },
  tokens: {
    tA: { actor: "Actor.ayla", x: 400, y: 400 },
    tT: { actor: "Actor.thief", x: 800, y: 400 },
    tO: { actor: "Actor.ogre", x: 400, y: 800 },
    tG: { actor: "Actor.ghost", x: 1200, y: 400 },
  },
};

/**
 * A table of two browsers on one world: the GM's runs the bridge (what reaches the sidecar is kept
 * in `sidecar`), Ann's (a player, owner of Ayla) does not. The globals are those of the browser
 * `as`: its user, its `game.users` (with queries to the other browser), its canvas and chat log.
 * @param {"gm"|"ann"} as
 * @param {{lang?: string, preview?: (action: Record<string, unknown>) => Promise<any>}} [options]
 *   `preview`: the GM's browser's `preview` of an action (main.mjs `previewDamage`)
 */
function table(as, { lang = "en", preview = undefined } = {}) {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("ann", "Ann");
  world.addUser("gm2", "Assistant", { isGM: true });
  world.addUser("bob", "Bob");
  const ayla = world.addActor("ayla", "Ayla", {}, { default: 0, ann: 3 });
  const thief = world.addActor("thief", "Thief", {});
  const ogre = world.addActor("ogre", "Ogre", {});
  const ghost = world.addActor("ghost", "Ghost", {});
  world.addToken("tA", ayla, 400, 400, world.scene, { disposition: 1 });
  world.addToken("tT", thief, 800, 400, world.scene, { disposition: -1 });
  world.addToken("tO", ogre, 400, 800, world.scene, { disposition: -1 });
  world.addToken("tG", ghost, 1200, 400, world.scene, { disposition: -1, flags: { [MODULE_ID]: { visibility: { tA: "approximate" } } } });
  // the GM's browser runs the bridge: its claim (bridge-election.mjs) is what a player's relay asks
  /** @type {any} */ (world.users.get("gm")).flags[MODULE_ID] = { bridge: { since: 1, up: true, key: null } };
  const network = new FakeNetwork(world);
  const browsers = { gm: network.connect("gm"), ann: network.connect("ann") };
  /** @type {Record<string, unknown>[]} what the bridge sent to the sidecar */
  const sidecar = [];
  const bridge = { action: async (/** @type {Record<string, unknown>} */ action) => void sidecar.push(action) };
  // the GM's browser answers relayed requests (main.mjs's `ready`), ownership read on the GM's world
  listenAsBridge(
    { generation: 13, queries: browsers.gm.queries, socket: browsers.gm.socket },
    {
      runsBridge: () => true,
      user: (id) => world.users.get(id),
      ...worldReads(world),
      send: (action) => bridge.action(action),
    },
  );
  world.loginAs(as);
  const dialogs = new FakeDialogs();
  /** @type {{level: string, message: string}[]} */
  const notes = [];
  const i18n = i18nFor(lang);
  const canvas = new FakeCanvas(world, { PIXI: FAKE_PIXI });
  Object.assign(g, {
    game: {
      user: world.user,
      users: browsers[as].users(),
      i18n,
      release: { generation: 13 },
      socket: browsers[as].socket,
      scenes: { viewed: world.scene, get: () => world.scene },
      messages: world.messages,
    },
    canvas,
    CONFIG: world.config,
    Hooks: world.hooks,
    ui: { notifications: Object.fromEntries(["info", "warn", "error"].map((level) => [level, (/** @type {string} */ message) => notes.push({ level, message })])) },
    ChatMessage: world.ChatMessage,
    foundry: { applications: { api: { DialogV2: dialogs.DialogV2 } }, dice: { Roll: FakeRoll } },
    FormData: FakeFormData,
    document: { createElement: (/** @type {string} */ tag) => new FakeElement(tag) },
    HTMLElement: FakeElement,
    fromUuid: (/** @type {string} */ uuid) => world.fromUuid(uuid),
    fromUuidSync: (/** @type {string} */ uuid) => world.byUuid.get(uuid) ?? null,
  });
  const localize = (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
  // main.mjs's wiring: the GM's browser sends over its connection, a player's is relayed
  const sendAction = makeSendAction({ env: g, connection: () => (as === "gm" ? bridge : null), localize });
  // this user's last damage type: a flag of their own User (main.mjs), written as Foundry writes it
  const lastType = {
    get: () => world.user.getFlag?.(MODULE_ID, LAST_TYPE_FLAG),
    set: (/** @type {string} */ type) => network.setUserFlag(world.user, world.user.id, MODULE_ID, LAST_TYPE_FLAG, type),
  };
  const tools = installDamageTools({ env: g, sendAction, localize, preview, lastType });
  canvas.draw();
  const token = (/** @type {string} */ id) => /** @type {any} */ (canvas.tokens.get(id));
  /** Ann's or the GM's click on the first action button of a message as this browser renders it. */
  const press = async (/** @type {any} */ message, /** @type {number} */ index = 0) => {
    const root = world.renderMessage(message, FakeElement);
    const button = root.querySelectorAll(`[data-${MODULE_ID}-action]`)[index];
    assert.ok(button, "the card has the button");
    button.click();
    await settle();
  };
  /** A card the GM (the bridge) posted with the module's card flag (main.mjs postActionCard, askReveals). */
  const post = async (/** @type {string} */ content, /** @type {string} */ type = "apply") => {
    const was = world.user;
    world.loginAs("gm");
    const message = await world.ChatMessage.create({ content, flags: { [MODULE_ID]: { card: type } } });
    world.user = was;
    return message;
  };
  return { world, dialogs, notes, sidecar, tools, token, press, ayla, sendAction, post };
}

/** Let a click's relay (queries between the browsers) finish, and any ruling it asked the real sidecar for. */
const settle = async () => {
  do await new Promise((resolve) => setTimeout(resolve, 20));
  while (rulingsInFlight() > 0);
};

async function cleanup() {
  for (const name of GLOBALS) delete g[name];
}

const FIRE = { amount: "6", grade: "L", type: "fire" };
const instances = [{ amount: 6, grade: "L", type: "fire" }];
const BATCH = {
  kind: "batch",
  actions: [
    { kind: "damage", target: "Actor.thief", instances },
    { kind: "damage", target: "Actor.ogre", instances },
  ],
};

/** The batch items the real sidecar ruled, each target's own part (`BATCH.item`). @param {any} ruling */
const batchItems = (ruling) => ruling.log.filter((/** @type {any} */ s) => s.key === "BATCH.item").map((/** @type {any} */ s) => s.data.target);

test("the damage dialog of a player who targets two tokens: one batch, one damage per target, relayed through the GM's bridge and ruled as one", async (t) => {
  t.after(cleanup);
  const { dialogs, notes, sidecar, tools, token, ayla, world } = table("ann");
  const ann = /** @type {any} */ (world.users.get("ann"));
  token("tT").setTarget(true, { user: ann });
  token("tO").setTarget(true, { user: ann, releaseOthers: false });
  dialogs.answers.push({ button: "ok", form: FIRE });
  await tools.openDamageDialog(ayla, "damage");
  await settle();
  assert.equal(dialogs.opened[0].window.title, "Damage Thief, Ogre", "the title names the targets, not the sheet's actor");
  assert.deepEqual(notes, []);
  assert.deepEqual(sidecar, [BATCH], "exactly one batch reached the sidecar, one damage per target");
  const [ruled] = await sidecarRulings(SIDECAR_STATE, sidecar);
  assert.deepEqual(batchItems(ruled), ["Actor.thief", "Actor.ogre"], "the sidecar rules one ruling with each target's part");
});

test("DET-10 from the sheet: a player's damage dialog attacks from their own token, so the silhouette (approximately located) takes half, as from the Attack tool; a token they do not own is not offered", async (t) => {
  t.after(cleanup);
  const { dialogs, notes, sidecar, tools, token, ayla, world } = table("ann");
  const ann = /** @type {any} */ (world.users.get("ann"));
  token("tT").setTarget(true, { user: ann });
  token("tG").setTarget(true, { user: ann, releaseOthers: false });
  dialogs.answers.push({ button: "ok", edit: { amount: "6", grade: "L" } });
  await tools.openDamageDialog(ayla, "damage");
  await settle();
  assert.deepEqual(notes, []);
  const content = String(dialogs.opened[0].content);
  assert.match(content, /<option value="tA" selected>Ayla<\/option>/, "Ayla's token, the sheet's, attacks");
  assert.doesNotMatch(content, /value="tO"/, "the Ogre is not Ann's: not offered as the attacker");
  const attack = (/** @type {string} */ tok) => ({ attacker: "tA", token: tok, successes: 6 });
  const batch = {
    kind: "batch",
    actions: [
      { kind: "damage", target: "Actor.thief", instances: [{ amount: 6, grade: "L" }], attack: attack("tT") },
      { kind: "damage", target: "Actor.ghost", instances: [{ amount: 6, grade: "L" }], attack: attack("tG") },
    ],
  };
  assert.deepEqual(sidecar, [batch], "relayed through the GM's bridge: Ayla is Ann's token");
  const [ruled] = await sidecarRulings(SIDECAR_STATE, sidecar);
  const halved = ruled.log.filter((/** @type {any} */ s) => s.key === "DET-10.damageHalved");
  assert.deepEqual(halved.map((/** @type {any} */ s) => [s.data.target, s.data.before, s.data.after]), [["tG", [6], [3]]], "the silhouette takes half, the thief in full");
  // "nobody" chosen: a plain damage, no attack. Ayla only locates the ghost roughly, so the bridge
  // refuses it (DET-10 would be skipped: the silhouette struck in full); the thief alone is sent
  dialogs.answers.push({ button: "ok", edit: { amount: "6", grade: "L", attacker: "" } });
  await tools.openDamageDialog(ayla, "damage");
  await settle();
  assert.equal(sidecar.length, 1, "nothing sent: the ghost is not pinpointed by any of Ann's tokens");
  assert.deepEqual(notes, [{ level: "warn", message: "vtt-bridge: the bridge refused the action: none of your tokens pinpoints that target. Attack it from one of your tokens (Attack from)." }]);
  token("tG").setTarget(false, { user: ann });
  dialogs.answers.push({ button: "ok", edit: { amount: "6", grade: "L", attacker: "" } });
  await tools.openDamageDialog(ayla, "damage");
  await settle();
  assert.deepEqual(sidecar[1], { kind: "damage", target: "Actor.thief", instances: [{ amount: 6, grade: "L" }] }, "a pinpointed thief: plain damage is the player's to send");
});

test("the damage dialog of a GM: the selected tokens (not the GM's targets) get one batch; nothing selected or targeted, the dialog's own actor", async (t) => {
  t.after(cleanup);
  const { dialogs, notes, sidecar, tools, token, ayla, world } = table("gm");
  token("tA").setTarget(true, { user: world.user }); // a target the selection overrides
  assert.ok(token("tT").control() && token("tO").control());
  dialogs.answers.push({ button: "ok", form: FIRE });
  await tools.openDamageDialog(ayla, "damage");
  assert.deepEqual(sidecar, [BATCH]);
  // nothing selected, nothing targeted: the actor whose sheet opened the dialog (its title names it)
  token("tT").controlled = false;
  token("tO").controlled = false;
  token("tA").setTarget(false, { user: world.user });
  dialogs.answers.push({ button: "ok", form: FIRE });
  await tools.openDamageDialog(ayla, "damage");
  assert.deepEqual(sidecar.at(-1), { kind: "damage", target: "Actor.ayla", instances });
  assert.match(String(dialogs.opened.at(-1).content), /<option value="" selected>/, "nobody to attack from: the actor damages itself");
  // closed without a choice: nothing
  dialogs.answers.push(null);
  await tools.openDamageDialog(ayla, "damage");
  assert.equal(sidecar.length, 2);
  assert.deepEqual(notes, []);
  const [first] = await sidecarRulings(SIDECAR_STATE, sidecar.slice(0, 1));
  assert.deepEqual(batchItems(first), ["Actor.thief", "Actor.ogre"]);
});

test("a chat card's Apply: the player's targets, or the GM's selection, get one batch with one damage each; no target of its own, the card's", async (t) => {
  t.after(cleanup);
  // the GM announces 6 fire (main.mjs postActionCard: actionCardHtml), for whoever is targeted
  const card = actionCardHtml({ kind: "damage", instances }, "Apply", "6 fire");
  {
    const { world, token, press, sidecar, notes, post } = table("ann");
    const ann = /** @type {any} */ (world.users.get("ann"));
    const message = await post(card);
    token("tT").setTarget(true, { user: ann });
    token("tO").setTarget(true, { user: ann, releaseOthers: false });
    await press(message);
    assert.deepEqual(notes, []);
    assert.deepEqual(sidecar, [BATCH], "the player's Apply: one batch, relayed");
    const [ruled] = await sidecarRulings(SIDECAR_STATE, sidecar);
    assert.deepEqual(batchItems(ruled), ["Actor.thief", "Actor.ogre"]);
  }
  await cleanup();
  {
    const { token, press, sidecar, post } = table("gm");
    const message = await post(card);
    token("tT").control();
    token("tO").control();
    await press(message);
    assert.deepEqual(sidecar, [BATCH], "the GM's Apply: the selection, one batch");
    // a card with its own target, nothing selected: that target alone
    token("tT").controlled = false;
    token("tO").controlled = false;
    const own = await post(actionCardHtml({ kind: "damage", target: "Actor.ogre", instances }, "Apply", "6 fire"));
    await press(own);
    assert.deepEqual(sidecar.at(-1), { kind: "damage", target: "Actor.ogre", instances });
  }
});

test("nothing targeted or selected, and a card naming no target: a localized notice, nothing sent (en, de, zh-CN)", async (t) => {
  t.after(cleanup);
  const card = actionCardHtml({ kind: "damage", instances }, "Apply", "6 fire");
  const expected = {
    en: "vtt-bridge: nothing to damage: target the tokens first (or, as Game Master, select them).",
    de: "vtt-bridge: Nichts zu beschädigen: Markiere zuerst die Tokens (oder wähle sie als Spielleitung aus).",
    "zh-CN": "vtt-bridge：没有可伤害的对象：请先标记 Token（主持人也可选中它们）。",
  };
  for (const [lang, sentence] of Object.entries(expected)) {
    for (const as of /** @type {const} */ (["ann", "gm"])) {
      const { press, sidecar, notes, post } = table(as, { lang });
      await press(await post(card));
      assert.deepEqual(notes, [{ level: "warn", message: sentence }], `${as} ${lang}`);
      assert.deepEqual(sidecar, [], "nothing reached the sidecar");
      await cleanup();
    }
  }
});

test("a player's Apply is refused for tokens they do not own: an attack by another's token, a heal of another's actor; their own attack on enemies goes", async (t) => {
  t.after(cleanup);
  const { world, token, press, sidecar, notes, post } = table("ann");
  const ann = /** @type {any} */ (world.users.get("ann"));
  token("tO").setTarget(true, { user: ann });
  // the thief's attack (a card the GM posted), applied by Ann: the attacker is not hers
  const theirs = await post(actionCardHtml({ kind: "damage", instances, attack: { attacker: "tT", successes: 3 } }, "Apply", "the thief"));
  await press(theirs);
  assert.deepEqual(notes, [{ level: "warn", message: "vtt-bridge: the bridge refused the action: you do not own that actor." }]);
  assert.deepEqual(sidecar, [], "the bridge sent nothing");
  // healing the thief: his Health is his owner's
  const heal = await post(actionCardHtml({ kind: "heal", target: "Actor.thief", amount: 2, source: "magic" }, "Apply", "heal"));
  await press(heal);
  assert.equal(notes.length, 2);
  assert.deepEqual(notes[1], notes[0]);
  assert.deepEqual(sidecar, []);
  // Ayla's attack on the ogre Ann targets: an enemy she does not own, by a token she does
  const mine = await post(actionCardHtml({ kind: "damage", instances, attack: { attacker: "tA", successes: 3 } }, "Apply", "Ayla"));
  await press(mine);
  assert.equal(notes.length, 2);
  assert.deepEqual(sidecar, [{ kind: "damage", target: "Actor.ogre", instances, attack: { attacker: "tA", token: "tO", successes: 3 } }]);
});

// ---- the GM's reveal card (DET-8, world setting "approve reveals") ----

const WIN = { kind: "contest", observer: "tA", target: "tG", dice: { observer: [8], target: [1] } };

/**
 * The GM's browser: the chat cards installed and the bridge's connection handed over (main.mjs's
 * `vtt-bridge.connection` hook); `ruling` is given to the connection's log listeners.
 * @param {ReturnType<typeof table>} tableParts
 */
function gmChat({ world, sendAction }) {
  /** @type {Record<string, Function[]>} */
  const listeners = {};
  installChatCards({ hooks: /** @type {any} */ (world.hooks), getSetting: (key) => (key === "rulingCards" ? "public" : undefined), config: world.config });
  const connection = {
    status: "connected",
    on: (/** @type {string} */ name, /** @type {Function} */ fn) => (listeners[name] = [...(listeners[name] ?? []), fn]),
    action: sendAction,
  };
  world.hooks.callAll(`${MODULE_ID}.connection`, connection);
  return {
    /** @param {any} ruling @param {Record<string, unknown>} request */
    async ruling(ruling, request) {
      for (const fn of listeners.log ?? []) await fn({ rev: ruling.rev, log: ruling.log, rolls: ruling.rolls, request: { type: "action", payload: request, id: "a0" } });
    },
  };
}

test("DET-8 the reveal card: whispered to the GMs only, naming observer and target; Accept and Refuse send approveReveal with the ids and the answer, and the sidecar takes each", async (t) => {
  t.after(cleanup);
  const [held] = await sidecarRulings(SIDECAR_STATE, [WIN]);
  assert.ok(held.log.some((/** @type {any} */ s) => s.key === "DET-8.held"), "the real ruling holds the reveal");
  const parts = table("gm");
  const { world, press, sidecar, notes } = parts;
  await gmChat(parts).ruling(held, WIN);
  const reveals = [...world.messages.values()].filter((m) => String(m._source.content).includes(`${MODULE_ID}-reveal`));
  assert.equal(reveals.length, 1, "one card for the one held reveal");
  const [card] = reveals;
  assert.deepEqual(card._source.whisper, ["gm", "gm2"], "whispered to every GM and nobody else");
  const root = world.renderMessage(card, FakeElement);
  assert.match(root.querySelector(`.${MODULE_ID}-reveal`).textContent, /Ayla would pinpoint Ghost\. Reveal it to the players\?/);
  const labels = root.querySelectorAll(`[data-${MODULE_ID}-action]`).map((/** @type {any} */ b) => b.textContent);
  assert.deepEqual(labels, ["Accept", "Refuse"]);
  await press(card, 0);
  assert.deepEqual(sidecar, [{ kind: "approveReveal", observer: "tA", target: "tG", accept: true }]);
  await press(card, 1);
  assert.deepEqual(sidecar[1], { kind: "approveReveal", observer: "tA", target: "tG", accept: false });
  assert.deepEqual(notes, []);
  // the real sidecar takes each answer: accepted, the pair pinpointed (its approximate cell removed)
  const [, accepted] = await sidecarRulings(SIDECAR_STATE, [WIN, sidecar[0]]);
  assert.ok(!accepted.error, JSON.stringify(accepted.error));
  /** @param {any} ruling @param {string} path */
  const removes = (ruling, path) => ruling.patch.some((/** @type {any} */ op) => op.op === "remove" && op.path === path);
  assert.ok(removes(accepted, "/reveals/tG"), "the held reveal is answered");
  assert.ok(removes(accepted, "/visibility/tA/tG"), "accepted: Ayla now pinpoints the ghost");
  const [, refused] = await sidecarRulings(SIDECAR_STATE, [WIN, sidecar[1]]);
  assert.ok(!refused.error, JSON.stringify(refused.error));
  assert.ok(removes(refused, "/reveals/tG"), "the held reveal is answered");
  assert.ok(!refused.patch.some((/** @type {any} */ op) => op.path.startsWith("/visibility/")), "refused: what the players see does not change");
});

test("DET-8 the reveal card: a player is shown nothing of the ruling, and a forged Accept pressed by a player is refused, nothing sent", async (t) => {
  t.after(cleanup);
  const [held] = await sidecarRulings(SIDECAR_STATE, [WIN]);
  {
    const parts = table("gm");
    await gmChat(parts).ruling(held, WIN);
    const { world } = parts;
    assert.ok(world.messages.size >= 1);
    for (const id of ["ann", "bob"]) {
      const player = /** @type {any} */ (world.users.get(id));
      assert.deepEqual(world.visibleTo(player), [], `${id} may read none of the ruling's messages`);
      world.loginAs(id);
      for (const message of world.messages.values()) assert.throws(() => world.renderMessage(message, FakeElement), /not visible/, "not rendered in a player's log");
    }
  }
  await cleanup();
  // Ann posts the reveal card's HTML herself and presses Accept: the bridge takes no approveReveal from a player
  const { world, press, sidecar, notes } = table("ann");
  const forged = await world.ChatMessage.create({
    content: `<div class="${MODULE_ID}-card ${MODULE_ID}-reveal"><button type="button" data-${MODULE_ID}-action="${JSON.stringify({ kind: "approveReveal", observer: "tA", target: "tG", accept: true }).replace(/"/g, "&#34;")}">Accept</button></div>`,
  });
  await press(forged);
  assert.deepEqual(sidecar, []);
  assert.deepEqual(notes, [{ level: "warn", message: "vtt-bridge: this button was not placed by the bridge; it does nothing." }], "a player's card: the button does nothing, and says why");
});

const ROLL = { kind: "roll", actor: "Actor.ayla", pool: 9 };

/**
 * The GM's browser's preview (main.mjs `previewDamage`) answered by the real sidecar after the
 * roll, each action asked recorded in `asked`.
 * @param {Record<string, unknown>[]} asked
 */
const sidecarPreview = (asked) => async (/** @type {Record<string, unknown>} */ action) => {
  asked.push(action);
  const [, answer] = await sidecarRulings(SIDECAR_STATE, [ROLL, { query: { kind: "preview", action } }]);
  assert.ok(!answer.error, JSON.stringify(answer.error));
  return answer.data;
};

/** The GM's roll card (posted from the real roll ruling), its "Apply as damage" buttons and successes. @param {ReturnType<typeof table>} parts */
async function rollCard(parts) {
  const [rolled] = await sidecarRulings(SIDECAR_STATE, [ROLL]);
  const successes = rolled.log.find((/** @type {any} */ s) => s.key === "DICE-1.result")?.data?.successes;
  assert.ok(successes > 0, "the seeded roll has successes to apply");
  await gmChat(parts).ruling(rolled, ROLL);
  const cards = [...parts.world.messages.values()].filter((m) => String(m._source.content).includes(`${MODULE_ID}-apply-damage`));
  assert.equal(cards.length, 1, "the roll's one card carries Apply as damage");
  assert.equal(cards[0].getFlag(MODULE_ID, "card"), "roll", "declared as a roll card (its buttons may send a damage only)");
  const root = parts.world.renderMessage(cards[0], FakeElement);
  return { successes, buttons: root.querySelectorAll(`[data-${MODULE_ID}-action]`), content: String(cards[0]._source.content) };
}

test("from a roll card to three targets damaged with typed damage: four clicks; the preview follows the type as it is chosen, the silhouette's halving (DET-10) shown; one batch lands as previewed", async (t) => {
  t.after(cleanup);
  /** @type {Record<string, unknown>[]} */
  const asked = [];
  const parts = table("gm", { preview: sidecarPreview(asked) });
  const { world, dialogs, sidecar, token, notes } = parts;
  // the three targets were chosen before the roll (Foundry's targeting, as for any attack roll)
  for (const id of ["tT", "tO", "tG"]) token(id).setTarget(true, { user: world.user, releaseOthers: false });
  const { successes, buttons, content } = await rollCard(parts);
  assert.match(content, new RegExp(`<span class="vtt-bridge-apply-label">Apply ${successes} as damage:</span>`));
  assert.deepEqual(buttons.map((/** @type {any} */ b) => b.textContent), ["bashing", "lethal", "aggravated"]);
  let clicks = 0;
  // in the dialog the GM opens the type list and picks fire (2 clicks), then presses Damage (1)
  dialogs.answers.push({ button: "ok", edit: { type: "fire" } });
  buttons[1].click(); // "lethal" on the roll card
  clicks += 1;
  await settle();
  clicks += 2 + 1;
  assert.ok(clicks <= 4, `${clicks} clicks`);
  assert.deepEqual(notes, []);
  assert.equal(dialogs.opened.length, 1, "one dialog: the preview was redrawn in it, nothing reopened");
  const [dialog] = dialogs.opened;
  assert.equal(dialog.window.title, "Damage Thief, Ogre, Ghost");
  // the attack comes from the roller's token (Ayla's), each target's own DET-10 ruled by the sidecar
  const batch = {
    kind: "batch",
    actions: [["Actor.thief", "tT"], ["Actor.ogre", "tO"], ["Actor.ghost", "tG"]].map(([target, tok]) => ({
      kind: "damage",
      target,
      instances: [{ amount: successes, grade: "L", type: "fire" }],
      attack: { attacker: "tA", token: tok, successes },
    })),
  };
  assert.deepEqual(asked.at(-1), batch, "the last preview asked is the batch that is sent");
  assert.deepEqual(sidecar, [batch], "one batch: one card, one undo");
  // what lands is what the dialog shows: each target's Health after, the Ogre's resistance, the ghost's halving
  const [, landed] = await sidecarRulings(SIDECAR_STATE, [ROLL, batch]);
  const [, previewed] = await sidecarRulings(SIDECAR_STATE, [ROLL, { query: { kind: "preview", action: batch } }]);
  assert.deepEqual([previewed.data.patch, previewed.data.log], [landed.patch, landed.log]);
  const shown = dialogs.elements[0].querySelector(`.${MODULE_ID}-damage-preview`);
  const html = shown.children.map((/** @type {any} */ el) => el.textContent).join(" ");
  for (const step of landed.log.filter((/** @type {any} */ s) => s.key === "HEALTH-2.damage")) {
    assert.ok(html.includes(`${step.data.healthy}/${step.data.max}`), `the dialog shows ${step.data.actor}'s Health after`);
  }
  assert.ok(landed.log.some((/** @type {any} */ s) => s.key === "DET-10.damageHalved" && s.data.target === "tG"), "the sidecar halves the damage to the silhouette");
  assert.match(html, /resistance/i, "the Ogre's fire resistance at work, in the redrawn preview");
  assert.match(html, /Ayla's attack on Ghost is halved, and so is its damage: \d+ → \d+/, "the ghost's halving, in the redrawn preview, by names");
  assert.match(String(dialog.content), /<option value="tA" selected>Ayla<\/option>/, "the attack is Ayla's (the roller's token)");
  // the dialog remembers the type for this user: the next one opens with fire (2 clicks: grade, Damage)
  assert.equal(world.user.getFlag?.(MODULE_ID, LAST_TYPE_FLAG), "fire");
  dialogs.answers.push({ button: "ok" });
  buttons[0].click();
  await settle();
  assert.equal(dialogs.opened.length, 2);
  assert.match(String(dialogs.opened[1].content), /<option value="fire" selected>/);
  assert.equal(/** @type {any} */ (sidecar[1]).actions[0].instances[0].type, "fire");
});

test("a field changed and Damage pressed before its preview shows: the dialog opens again with the new preview before anything lands (the Ogre's fire resistance shown)", async (t) => {
  t.after(cleanup);
  /** @type {Record<string, unknown>[]} */
  const asked = [];
  const parts = table("gm", { preview: sidecarPreview(asked) });
  const { world, dialogs, sidecar, token } = parts;
  token("tO").setTarget(true, { user: world.user });
  const { successes, buttons } = await rollCard(parts);
  const fire = { amount: String(successes), grade: "L", type: "fire", attacker: "" };
  // the submitted form differs from the values shown (no change event: the preview was not redrawn)
  dialogs.answers.push({ button: "ok", form: fire }, { button: "ok", form: fire });
  buttons[1].click();
  await settle();
  assert.equal(dialogs.opened.length, 2, "changed: shown again");
  assert.equal(asked.length, 2);
  assert.deepEqual(asked[1], { kind: "damage", target: "Actor.ogre", instances: [{ amount: successes, grade: "L", type: "fire" }] });
  assert.match(String(dialogs.opened[1].content), /resistance/i, "the second preview shows the Ogre's fire resistance at work");
  assert.deepEqual(sidecar, [asked[1]], "what was seen is what is sent, once");
});

test("a roll card's Apply as damage pressed by a player on a card a player posted does nothing (the card scheme)", async (t) => {
  t.after(cleanup);
  const { world, press, sidecar, notes, dialogs } = table("ann");
  const forged = await world.ChatMessage.create({
    content: `<div class="${MODULE_ID}-apply-damage"><button type="button" data-${MODULE_ID}-action="${JSON.stringify({ kind: "damage", instances: [{ amount: 9, grade: "A" }] }).replace(/"/g, "&#34;")}">aggravated</button></div>`,
    flags: { [MODULE_ID]: { card: "roll" } },
  });
  await press(forged);
  assert.deepEqual([sidecar, dialogs.opened], [[], []]);
  assert.deepEqual(notes, [{ level: "warn", message: "vtt-bridge: this button was not placed by the bridge; it does nothing." }]);
});
