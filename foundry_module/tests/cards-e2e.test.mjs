/**
 * Ruling cards end to end: the real sidecar, the GM's browser running the bridge and posting the
 * cards with the module's own wiring, against the strict Foundry stand-in. A player's relayed batch
 * is spoken by that player and leads with its headline; the card keeps its ruling as data, and a
 * German client renders the very message in German; the GM's undo card names the ruling by its
 * headline and who undid it; an undo refused because later rulings changed the same values lists
 * them by their headlines, and "undo them all" undoes them newest first, the refused one last.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { WebSocket } from "ws";

import { damageAction } from "../scripts/core/messages.mjs";
import { answerRequest, relayRequest } from "../scripts/foundry/player-requests.mjs";
import { installChatCards } from "../scripts/foundry/ruling-messages.mjs";
import { clearChatGlobals, installChatGlobals } from "./helpers/chat-globals.mjs";
import { FakeElement } from "./helpers/fake-dom.mjs";
import { i18nFor } from "./helpers/i18n.mjs";
import { client, until } from "./helpers/scenario.mjs";
import { checkedWebSocket, frameChecker } from "./helpers/schema-check.mjs";
import { startSidecar } from "./helpers/sidecar.mjs";

const MODULE = "vtt-bridge";
const TOKEN = "cards-e2e-" + Math.random().toString(36).slice(2);

/** @param {any} message @returns {any} */
const cardOf = (message) => message?.getFlag(MODULE, "rulingCard");
/** @param {any} message @returns {any} */
const rulingOf = (message) => message?.getFlag(MODULE, "ruling");

/** The headline a rendered message shows. @param {any} root */
const headlineOf = (root) => root.querySelector(".vtt-bridge-headline")?.textContent;

test("end to end: a player's batch card speaks as the player, leads with its headline, renders in each client's language; undo names it; a refused undo offers to undo the later rulings newest first", async (t) => {
  const sidecar = await startSidecar({ token: TOKEN });
  const frames = frameChecker();
  const gm = client({ WebSocket: checkedWebSocket(WebSocket, frames), url: sidecar.url, token: TOKEN, world: "cards-e2e" });
  /** @type {string[]} */
  const notices = [];
  t.after(async () => {
    gm.connection.stop();
    clearChatGlobals();
    await sidecar.stop();
  });
  gm.w.addUser("pAyla", "Ayla");
  installChatGlobals(gm.w, notices);
  const g = /** @type {any} */ (globalThis);
  g.game.i18n = i18nFor("en");
  const settings = /** @type {Record<string, string>} */ ({ rulingCards: "public", healthVisibility: "everyone" });
  installChatCards({ hooks: /** @type {any} */ (gm.w.hooks), getSetting: (key) => settings[key] });
  gm.w.keybindings.initialized = true;
  gm.w.hooks.callAll(`${MODULE}.connection`, gm.connection);
  gm.connection.start();
  await until(() => gm.connection.rev !== null && gm.applier.state !== null, "the GM's sync");

  // 1. Ayla's batch, relayed by the GM's browser: one card, spoken by Ayla, the headline first
  const relayed = await answerRequest(
    relayRequest({ kind: "batch", actions: [damageAction(gm.ann.uuid, [{ amount: 2, grade: "L" }]), damageAction(gm.bob.uuid, [{ amount: 8, grade: "L" }])] }, "ask-1"),
    { runsBridge: () => true, user: () => ({ isGM: false }), owns: () => true, locates: () => true, send: (action, options) => gm.connection.action(action, options) },
    "pAyla",
  );
  assert.deepEqual(relayed, { ok: true, code: "sent" });
  await gm.connection.idle();
  await until(() => [...gm.w.messages.values()].some((m) => rulingOf(m)?.kind === "batch"), "the batch's card");
  const batch = [...gm.w.messages.values()].find((m) => rulingOf(m)?.kind === "batch");
  assert.equal(batch._source.speaker.alias, "Ayla", "spoken by the player who acted");
  assert.equal(batch._source.author, "gm", "authored by the bridge's GM, whose cards alone carry buttons");
  let root = gm.w.renderMessage(batch, FakeElement);
  assert.equal(headlineOf(root), "Ayla → Ann, Bob");
  const items = (/** @type {any} */ r) => [...(r.querySelector(".vtt-bridge-outcomes")?.children ?? [])].map((li) => li.textContent);
  assert.deepEqual(items(root), ["Ann 2 lethal, lightly injured", "Bob 8 lethal, badly injured, Unconscious, Worsening"]);
  const why = root.querySelector(".vtt-bridge-why");
  assert.ok(why && why.tagName.toLowerCase() === "details" && why.getAttribute("open") === null, "the rule steps fold under a closed Why");

  // 2. the same message in a German client: rendered from its flags in German
  g.game.i18n = i18nFor("de");
  root = gm.w.renderMessage(batch, FakeElement);
  assert.equal(headlineOf(root), "Ayla → Ann, Bob");
  assert.deepEqual(items(root), ["Ann 2 tödlich, leicht verletzt", "Bob 8 tödlich, schwer verletzt, Bewusstlos, Verschlechternd"]);
  const shown = root.querySelector(".vtt-bridge-ruling")?.textContent ?? "";
  assert.ok(!/lethal|injured|Why/.test(shown), shown);
  assert.equal(root.querySelector(".vtt-bridge-why")?.children[0]?.textContent, "Warum");
  g.game.i18n = i18nFor("en");

  // 3. the GM undoes it: the undo card names the ruling by its headline and who undid it
  gm.w.renderMessage(batch, FakeElement).querySelector(`.${MODULE}-undo`)?.click();
  await until(() => rulingOf(batch).undone === true, "undone");
  await until(() => [...gm.w.messages.values()].some((m) => cardOf(m)?.undo), "the undo card");
  const undoCard = [...gm.w.messages.values()].find((m) => cardOf(m)?.undo);
  root = gm.w.renderMessage(undoCard, FakeElement);
  assert.equal(headlineOf(root), "Gamemaster undid: Ayla → Ann, Bob");
  g.game.i18n = i18nFor("zh-CN");
  assert.equal(headlineOf(gm.w.renderMessage(undoCard, FakeElement)), "Gamemaster撤销了：Ayla → Ann，Bob");
  g.game.i18n = i18nFor("en");

  // 4. three hits on Ann; undoing the first is refused: the later two changed her Health since
  /** @type {any[]} */
  const hits = [];
  for (const amount of [1, 2, 3]) {
    await gm.connection.action(damageAction(gm.ann.uuid, [{ amount, grade: "B" }]));
    await gm.connection.idle();
    await until(() => [...gm.w.messages.values()].filter((m) => rulingOf(m)?.kind === "damage").length === hits.length + 1, "the hit's card");
    hits.push([...gm.w.messages.values()].filter((m) => rulingOf(m)?.kind === "damage").at(-1));
  }
  assert.equal(hits[0]._source.speaker.alias, "Gamemaster", "the GM's own ruling is the GM's");
  assert.equal(gm.ann.flags[MODULE].health.bashing, 6);
  gm.w.renderMessage(hits[0], FakeElement).querySelector(`.${MODULE}-undo`)?.click();
  await until(() => [...gm.w.messages.values()].some((m) => cardOf(m)?.refusal), "the refusal's card");
  const refusal = [...gm.w.messages.values()].find((m) => cardOf(m)?.refusal);
  assert.deepEqual(refusal._source.whisper, ["gm"], "whispered to the GMs");
  root = gm.w.renderMessage(refusal, FakeElement);
  assert.equal(headlineOf(root), "Not undone: Gamemaster → Ann: 1 bashing, lightly injured");
  const later = [...(root.querySelector(".vtt-bridge-later")?.children ?? [])].map((li) => li.textContent);
  assert.deepEqual(later, ["Gamemaster → Ann: 3 bashing, lightly injured", "Gamemaster → Ann: 2 bashing, lightly injured"].slice(), "the later rulings, newest first");
  const ids = hits.map((m) => rulingOf(m).id);
  assert.deepEqual(
    cardOf(refusal).refusal.actions.map((/** @type {any} */ a) => a.action),
    [ids[2], ids[1], ids[0]],
  );
  root.querySelector(".vtt-bridge-undo-all")?.click();
  await until(() => hits.every((m) => rulingOf(m).undone === true), "all three undone");
  assert.equal(gm.ann.flags[MODULE].health.bashing, 0);
  assert.deepEqual(notices, [], "no refusal on the way");

  // 5. a roll's card: its card type for Apply as damage and its ruling as data side by side
  await gm.connection.action({ kind: "roll", actor: gm.ann.uuid, pool: 6 });
  await gm.connection.idle();
  await until(() => [...gm.w.messages.values()].some((m) => rulingOf(m)?.kind === "roll"), "the roll's card");
  const roll = [...gm.w.messages.values()].find((m) => rulingOf(m)?.kind === "roll");
  assert.equal(roll.getFlag(MODULE, "card"), "roll", "the roll card's type, which its Apply as damage buttons act on");
  assert.equal(cardOf(roll)?.kind, "roll");
  assert.match(headlineOf(gm.w.renderMessage(roll, FakeElement)) ?? "", /^Ann: \d+ success/);

  // 6. "who sees Health boxes" is Owners: a card about Bob goes whole to the GM, and as a line to
  // everyone else, which each client words in its language too
  settings.healthVisibility = "owner";
  await gm.connection.action(damageAction(gm.bob.uuid, [{ amount: 1, grade: "B" }]));
  await gm.connection.idle();
  await until(() => [...gm.w.messages.values()].some((m) => m.getFlag(MODULE, "healthLine")), "the public Health line");
  const line = [...gm.w.messages.values()].find((m) => m.getFlag(MODULE, "healthLine"));
  assert.equal(cardOf(line), undefined, "the public line carries no ruling data: its boxes, IWR and dice are not everyone's");
  gm.w.user = /** @type {any} */ (gm.w.users.get("pAyla"));
  g.game.i18n = i18nFor("de");
  const seen = gm.w.renderMessage(line, FakeElement).querySelector(".vtt-bridge-ruling")?.textContent ?? "";
  assert.match(seen, /^Schaden/, seen);
  assert.match(seen, /Bob/);
  assert.ok(!/Damage|boxes/.test(seen), seen);
  gm.w.user = /** @type {any} */ (gm.w.users.get("gm"));
  g.game.i18n = i18nFor("en");

  // 7. its undo card names the ruling by its headline (Bob's Health): it goes only to those the
  // ruling's own card went to, never to Ayla, who may not read Bob's Health
  const detail = [...gm.w.messages.values()].filter((m) => rulingOf(m)?.kind === "damage").at(-1);
  assert.ok(detail._source.whisper.length && !detail._source.whisper.includes("pAyla"), JSON.stringify(detail._source.whisper));
  const before = gm.w.messages.size;
  gm.w.renderMessage(detail, FakeElement).querySelector(`.${MODULE}-undo`)?.click();
  await until(() => rulingOf(detail).undone === true && [...gm.w.messages.values()].slice(before).some((m) => cardOf(m)?.undo), "the undo card of Bob's damage");
  const bobsUndo = [...gm.w.messages.values()].slice(before).find((m) => cardOf(m)?.undo);
  assert.match(headlineOf(gm.w.renderMessage(bobsUndo, FakeElement)) ?? "", /^Gamemaster undid: Gamemaster → Bob: 1 bashing/);
  assert.deepEqual(bobsUndo._source.whisper, detail._source.whisper);
  assert.ok(!gm.w.visibleTo(/** @type {any} */ (gm.w.users.get("pAyla"))).includes(bobsUndo), "Ayla's chat never gets it");
  assert.deepEqual(frames.report.problems, []);
});
