/**
 * Undo and redo end to end: the real sidecar, two real connections of one world (the GM's browser,
 * which runs the bridge and posts the ruling cards, and another client), the module's own card
 * wiring against the strict Foundry stand-in. A ruling the other client makes gets its card on the
 * GM's side with Undo; the GM's Undo and Redo go to the sidecar and back; an undo the other client
 * makes strikes the GM's card through; the shortcut undoes the GM's last standing ruling; a
 * player's ruling the GM's browser relays gets its Undo too. And in
 * headless Chromium, with the module's stylesheet: an undone card's steps are struck through, its
 * Redo button is not.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { WebSocket } from "ws";

import { damageAction } from "../scripts/core/messages.mjs";
import { answerRequest, relayRequest } from "../scripts/foundry/player-requests.mjs";
import { installChatCards } from "../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "./helpers/chat-globals.mjs";
import { launchChromium } from "./helpers/chromium.mjs";
import { FakeElement } from "./helpers/fake-dom.mjs";
import { serveModuleFiles } from "./helpers/module-server.mjs";
import { client, until } from "./helpers/scenario.mjs";
import { checkedWebSocket, frameChecker } from "./helpers/schema-check.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";

const MODULE = "vtt-bridge";
const TOKEN = "undo-e2e-" + Math.random().toString(36).slice(2);

/** @param {any} message @returns {any} */
const flagOf = (message) => message?.getFlag(MODULE, "ruling");

test("end to end: another client's ruling gets Undo on the GM's card; Undo, Redo, its undo by the other client, the shortcut, a relayed player's ruling", async (t) => {
  const sidecar = await startSidecar({ token: TOKEN });
  const frames = frameChecker();
  const args = { WebSocket: checkedWebSocket(WebSocket, frames), url: sidecar.url, token: TOKEN, world: "undo-e2e" };
  const gm = client(args);
  const other = client(args);
  /** @type {string[]} */
  const notices = [];
  /** @type {any[]} */
  const otherRulings = [];
  t.after(async () => {
    gm.connection.stop();
    other.connection.stop();
    clearChatGlobals();
    await sidecar.stop();
  });
  installChatGlobals(gm.w, notices);
  installChatCards({ hooks: /** @type {any} */ (gm.w.hooks), getSetting: () => "public" });
  gm.w.keybindings.initialized = true; // `init` is over
  gm.w.hooks.callAll(`${MODULE}.connection`, gm.connection);
  other.connection.on("log", (/** @type {any} */ event) => otherRulings.push(event));

  gm.connection.start();
  await until(() => gm.connection.rev !== null && gm.applier.state !== null, "the GM's sync");
  other.connection.start();
  await until(() => other.connection.rev !== null && gm.connection.rev === other.connection.rev, "both in step");
  const bob = () => gm.bob.flags[MODULE].health.lethal;

  // 1. the other client damages Bob: the GM's browser posts the card, with the ruling's id
  await other.connection.action(damageAction(gm.bob.uuid, [{ amount: 3, grade: "L" }]));
  await other.connection.idle();
  const made = otherRulings.find((e) => e.kind === "damage");
  assert.ok(made?.action, "the other client's own ruling has its action id");
  await until(() => [...gm.w.messages.values()].some((m) => flagOf(m)?.id === made.action), "the GM's card of the other client's ruling");
  const card = [...gm.w.messages.values()].find((m) => flagOf(m)?.id === made.action);
  assert.deepEqual(flagOf(card), { id: made.action, rev: made.rev, kind: "damage", scene: "scene1", undone: false });
  await until(() => bob() === 3, "3 lethal on the GM's side");

  // 2. the GM's Undo: sent to the sidecar, the card struck through, Bob's Health back
  const undoButton = gm.w.renderMessage(card, FakeElement).querySelector(`.${MODULE}-undo`);
  assert.ok(undoButton, "the GM sees Undo on another client's ruling");
  undoButton.click();
  await until(() => flagOf(card).undone === true, "the card marked undone");
  await until(() => bob() === 0 && other.bob.flags[MODULE].health.lethal === 0, "Health restored on both sides");
  let root = gm.w.renderMessage(card, FakeElement);
  assert.ok(root.querySelector(".vtt-bridge-ruling")?.classList.contains(`${MODULE}-undone`), "struck through");
  assert.equal(root.querySelector(`.${MODULE}-undo`), null);

  // 3. Redo: the damage again, the card standing
  root.querySelector(`.${MODULE}-redo`)?.click();
  await until(() => flagOf(card).undone === false && bob() === 3, "redone");

  // 4. the other client undoes it: the pushed undo updates the GM's card
  await other.connection.action({ kind: "undo", action: made.action });
  await until(() => flagOf(card).undone === true && bob() === 0, "the card of a ruling another client undid");
  root = gm.w.renderMessage(card, FakeElement);
  assert.ok(root.querySelector(`.${MODULE}-redo`), "Redo on the card of a ruling another client undid");

  // 5. the shortcut: the GM's own damage to Ann is the last standing ruling of the scene
  await gm.connection.action(damageAction(gm.ann.uuid, [{ amount: 2, grade: "L" }]));
  await gm.connection.idle();
  const own = [...gm.w.messages.values()].find((m) => flagOf(m) && flagOf(m).id !== made.action);
  assert.ok(own && flagOf(own).kind === "damage" && flagOf(own).undone === false);
  assert.equal(gm.ann.flags[MODULE].health.lethal, 2);
  assert.equal(gm.w.keybindings.pressKey("KeyZ", ["Alt"], gm.w.user), true, "Alt+Z is the GM's");
  await until(() => flagOf(own).undone === true && gm.ann.flags[MODULE].health.lethal === 0, "the shortcut's undo");
  assert.equal(gm.w.keybindings.pressKey("KeyZ", ["Alt"], gm.w.user), true);
  await until(() => notices.includes("VTTBRIDGE.Rules.Card.NothingToUndo"), "nothing left to undo");
  assert.deepEqual(notices, ["VTTBRIDGE.Rules.Card.NothingToUndo"], "no refusal on the way");
  assert.equal(flagOf(card).undone, true);

  // 6. a player's damage, relayed by the GM's browser (the bridge): its card has Undo too
  const relayed = await answerRequest(
    relayRequest(damageAction(gm.bob.uuid, [{ amount: 1, grade: "B" }]), "ask-1"),
    {
      runsBridge: () => true,
      user: () => ({ isGM: false }),
      owns: () => true,
      locates: () => true,
      send: (action, options) => gm.connection.action(action, options),
    },
    "p1",
  );
  assert.deepEqual(relayed, { ok: true, code: "sent" });
  await gm.connection.idle();
  const players = [...gm.w.messages.values()].find((m) => flagOf(m) && ![made.action, flagOf(own).id].includes(flagOf(m).id));
  assert.ok(players && flagOf(players).kind === "damage" && flagOf(players).undone === false, "the relayed ruling's card carries its id");
  assert.equal(gm.bob.flags[MODULE].health.bashing, 1);
  gm.w.renderMessage(players, FakeElement).querySelector(`.${MODULE}-undo`)?.click();
  await until(() => flagOf(players).undone === true && gm.bob.flags[MODULE].health.bashing === 0, "the relayed ruling undone");

  assert.deepEqual(frames.report.problems, [], "every frame fits the sidecar's schema");
  assert.ok(frames.report.checked > 10);
});

test("headless Chromium: the module's stylesheet strikes an undone card's steps through, not its Redo button; a standing card is not", async (t) => {
  const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
  const http = await serveModuleFiles(moduleRoot);
  const { browser, close } = await launchChromium();
  t.after(async () => {
    await close();
    await http.close();
  });
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${http.origin}/module.json`); // a document of the module's origin, to import from
  await page.setContent("<!doctype html><html><body></body></html>");
  await page.addStyleTag({ content: readFileSync(join(moduleRoot, "styles", "vtt-bridge.css"), "utf8") });
  const looks = await page.evaluate(async (origin) => {
    const w = /** @type {any} */ (window);
    w.game = { user: { isGM: true }, i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k, has: () => false } };
    const { renderCard } = await import(`${origin}/scripts/core/chat-cards.mjs`);
    const { decorateRulingCard } = await import(`${origin}/scripts/foundry/ruling-messages.mjs`);
    /** @type {any[]} */
    const sent = [];
    /** @param {boolean} undone */
    const card = (undone) => {
      const root = document.createElement("li");
      root.innerHTML = renderCard({ log: [{ rule: "HEALTH-2", text: "3 lethal", data: { amount: 3, grade: "L" } }], kind: "damage" }, w.game.i18n);
      document.body.append(root);
      // a card the bridge (a GM) created: its author is a Game Master
      decorateRulingCard({ getFlag: () => ({ id: "hit-1", rev: 2, kind: "damage", undone }), author: { isGM: true } }, root, (/** @type {any} */ a) => sent.push(a));
      const line = (/** @type {string} */ selector) => getComputedStyle(/** @type {Element} */ (root.querySelector(selector))).textDecorationLine;
      const button = /** @type {HTMLButtonElement} */ (root.querySelector("button"));
      button.click();
      return { steps: line(".vtt-bridge-steps"), head: line(".vtt-bridge-ruling-head"), button: button.className, buttonLine: getComputedStyle(button).textDecorationLine };
    };
    // a ruling flag on a message a player created: not the bridge's card, no Undo
    const forged = document.createElement("li");
    forged.innerHTML = renderCard({ log: [{ rule: "HEALTH-2", text: "3 lethal", data: { amount: 3, grade: "L" } }], kind: "damage" }, w.game.i18n);
    decorateRulingCard({ getFlag: () => ({ id: "hit-1", rev: 2, kind: "damage", undone: false }), author: { isGM: false } }, forged, (/** @type {any} */ a) => sent.push(a));
    return { undone: card(true), standing: card(false), sent, forgedButtons: forged.querySelectorAll("button").length };
  }, http.origin);
  assert.equal(looks.forgedButtons, 0, "no Undo on a player's message");
  assert.deepEqual(errors, []);
  assert.deepEqual(looks.undone, { steps: "line-through", head: "line-through", button: "vtt-bridge-redo", buttonLine: "none" });
  assert.deepEqual(looks.standing, { steps: "none", head: "none", button: "vtt-bridge-undo", buttonLine: "none" });
  assert.deepEqual(looks.sent, [{ kind: "redo", action: "hit-1" }, { kind: "undo", action: "hit-1" }]);
});
