/**
 * The globals a browser's chat cards read (`installChatCards`), over a strict stand-in world: the
 * game (its user, messages, keybindings, release, users, viewed scene; i18n answering with the key),
 * ChatMessage, notifications into `notices`, and the fake DOM. `clearChatGlobals` removes them.
 */
import { FakeElement, fakeDocument } from "./fake-dom.mjs";

const g = /** @type {any} */ (globalThis);

/**
 * @param {import("./fake-foundry.mjs").FakeWorld} world
 * @param {string[]} notices
 */
export function installChatGlobals(world, notices) {
  g.game = {
    get user() {
      return world.user;
    },
    i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k, has: () => false },
    messages: { [Symbol.iterator]: () => world.messages.values() },
    keybindings: world.keybindings,
    release: { generation: world.generation },
    users: [...world.users.values()],
    scenes: { viewed: world.scene },
  };
  g.ChatMessage = world.ChatMessage;
  const note = (/** @type {string} */ m) => notices.push(m);
  g.ui = { notifications: { info: note, warn: note, error: note } };
  g.document = fakeDocument;
  g.HTMLElement = FakeElement;
  g.canvas = undefined;
}

export function clearChatGlobals() {
  for (const name of ["game", "ChatMessage", "ui", "document", "HTMLElement", "canvas"]) delete g[name];
}
