// The sidecar's status page, in the browser: it words each step in the reader's language with the
// Foundry module's own sentence code (scripts/core/chat-cards.mjs, served by the sidecar with the
// module's language files), refreshes the page while open, and its Undo and Redo buttons send
// `undo` / `redo` over the protocol's websocket (/ws on this page's own origin), authenticated with
// the token as the Foundry module is. The token is asked for once, in a password field, and kept in
// this tab's sessionStorage (gone when the tab closes); it is never written into the page. A wrong
// token is forgotten at once. See docs/security.md.

const CARDS_URL = "/module/scripts/core/chat-cards.mjs";

/** @type {Map<string, Promise<Record<string, any>|null>>} */
const langFiles = new Map();

/** The module's language file `lang` (fetched once), or null. @param {string} lang */
function langFile(lang) {
  let found = langFiles.get(lang);
  if (!found) {
    found = fetch(`/module/lang/${encodeURIComponent(lang)}.json`)
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null);
    langFiles.set(lang, found);
  }
  return found;
}

/** The sentence at a dotted key, or undefined. @param {Record<string, any>} tree @param {string} key */
function lookup(tree, key) {
  /** @type {any} */
  let node = tree;
  for (const part of key.split(".")) node = node?.[part];
  return typeof node === "string" ? node : undefined;
}

/**
 * Foundry's `game.i18n` as the card code uses it, over one language file.
 * @param {string} lang @param {Record<string, any>} tree
 * @returns {import("../../../foundry_module/scripts/core/chat-cards.mjs").I18n}
 */
function i18nOf(lang, tree) {
  return {
    lang,
    has: (key) => lookup(tree, key) !== undefined,
    localize: (key) => lookup(tree, key) ?? key,
    format: (key, data = {}) => (lookup(tree, key) ?? key).replace(/{([^}]+)}/g, (m, k) => (k in data ? data[k] : m)),
  };
}

/** Word every step of the page in its language (`main[data-lang]`), subjects by name (`#step-names`); a step whose key the language does not word keeps the sidecar's English text. */
async function wordSteps() {
  const main = document.querySelector("main");
  if (!main) return;
  const lang = main.dataset.lang ?? "en";
  const [cards, tree] = await Promise.all([
    /** @type {Promise<typeof import("../../../foundry_module/scripts/core/chat-cards.mjs")>} */ (import(CARDS_URL)),
    langFile(lang),
  ]);
  if (!tree) return;
  const i18n = i18nOf(lang, tree);
  /** @type {Record<string, string>} */
  const names = JSON.parse(/** @type {HTMLElement|null} */ (main.querySelector("#step-names"))?.dataset.names ?? "{}");
  const nameOf = (/** @type {string} */ id) => names[id];
  for (const item of main.querySelectorAll("li[data-step]")) {
    const say = item.querySelector(".say");
    if (!(item instanceof HTMLElement) || !(say instanceof HTMLElement)) continue;
    const step = JSON.parse(item.dataset.step ?? "{}");
    const key = cards.keyedTemplate(step, i18n);
    if (key === null) continue;
    say.innerHTML = i18n.format(key, cards.keyedParams(step, i18n, nameOf));
    say.lang = lang;
  }
  wordPage(i18n);
  main.dataset.worded = lang;
}

/** The reader's words (set once the language file is read), for the Undo and Redo notices. @type {ReturnType<typeof i18nOf>|null} */
let words = null;

/**
 * Word the page's own text (`[data-say]`: a key under `VTTBRIDGE.StatusPage`, or a full module key,
 * with `data-say-args`: HTML the server escaped) in the reader's language; a key the language file
 * lacks keeps the server's English.
 * @param {ReturnType<typeof i18nOf>} i18n
 */
function wordPage(i18n) {
  words = i18n;
  // a worded element may bring marked words of its own (its arguments): word those in the next pass
  for (let pass = 0; pass < 4; pass++) {
    const unworded = document.querySelectorAll("[data-say]:not([data-said])");
    if (unworded.length === 0) break;
    for (const element of unworded) {
      if (!(element instanceof HTMLElement)) continue;
      element.dataset.said = "";
      const name = element.dataset.say ?? "";
      const key = name.startsWith("VTTBRIDGE.") ? name : `VTTBRIDGE.StatusPage.${name}`;
      if (!i18n.has(key)) continue;
      element.innerHTML = i18n.format(key, JSON.parse(element.dataset.sayArgs ?? "{}"));
      element.lang = i18n.lang ?? "en";
    }
  }
  document.documentElement.lang = i18n.lang ?? "en";
}

/**
 * A notice in the reader's words: `VTTBRIDGE.StatusPage.<key>` with `data`, or `english` before the
 * language file is read.
 * @param {string} key @param {Record<string, string>} data @param {string} english
 */
function t(key, data, english) {
  const full = `VTTBRIDGE.StatusPage.${key}`;
  return words?.has(full) ? words.format(full, data) : english;
}

const TOKEN_KEY = "vtt-bridge.token";
const REFRESH_MS = 10000;
const TIMEOUT_MS = 15000;

/** A fresh message id (getRandomValues: randomUUID needs a secure context, a LAN name is not one). */
function freshId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {string} text */
function say(text) {
  const status = document.getElementById("undo-status");
  if (status) status.textContent = text;
}

function showButtons() {
  for (const button of document.querySelectorAll("button[data-mode]")) {
    if (button instanceof HTMLElement) button.hidden = false;
  }
}

/** Ask for the token in the page's dialog; null when cancelled. @returns {Promise<string|null>} */
function askToken() {
  const dialog = /** @type {HTMLDialogElement|null} */ (document.getElementById("token-dialog"));
  const form = /** @type {HTMLFormElement|null} */ (document.getElementById("token-form"));
  if (!dialog || !form) return Promise.resolve(null);
  const input = /** @type {HTMLInputElement} */ (form.elements.namedItem("token"));
  return new Promise((resolve) => {
    const done = (/** @type {string|null} */ value) => {
      form.removeEventListener("submit", onSubmit);
      cancel?.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      input.value = "";
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const onSubmit = (/** @type {Event} */ event) => {
      event.preventDefault();
      const value = input.value.trim();
      done(value || null);
    };
    const onCancel = () => done(null);
    const cancel = document.getElementById("token-cancel");
    form.addEventListener("submit", onSubmit);
    cancel?.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    input.value = "";
    dialog.showModal();
    input.focus();
  });
}

/**
 * One `undo` or `redo` over a fresh connection: hello, the action, its reply.
 * @param {string} token @param {string} world @param {"undo"|"redo"} kind @param {string} action
 * @returns {Promise<{type: string, payload: any}>} the reply to the action, or the error refusing hello
 */
function send(token, world, kind, action) {
  const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
  const helloId = `page-hello-${freshId()}`;
  const actionId = `page-${kind}-${freshId()}`;
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let settled = false;
    const finish = (/** @type {{type: string, payload: any}} */ outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      ws.close();
    };
    const timer = setTimeout(() => finish({ type: "error", payload: { code: "timeout", message: "the sidecar did not answer" } }), TIMEOUT_MS);
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify({ v: 1, id: helloId, type: "hello", payload: { token, world, client: { name: "status page" } } }));
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (message.re === helloId) {
        if (message.type === "welcome") {
          ws.send(JSON.stringify({ v: 1, id: actionId, type: "action", payload: { kind, action } }));
        } else {
          finish(message);
        }
      } else if (message.re === actionId) {
        finish(message);
      }
    });
    ws.addEventListener("close", () => finish({ type: "error", payload: { code: "closed", message: "the sidecar closed the connection (is this page's origin allowed?)" } }));
  });
}

/** @param {any} payload an error payload @returns {string} */
function describe(payload) {
  const details = Array.isArray(payload?.details) ? payload.details.map((/** @type {any} */ d) => `${(d.path ?? []).join("/")}: ${d.message}`) : [];
  return [String(payload?.message ?? payload?.code ?? "refused"), ...details].join("; ");
}

let busy = false;

/** @param {HTMLButtonElement} button */
async function onButton(button) {
  if (busy) return;
  const kind = button.dataset.mode === "redo" ? "redo" : "undo";
  const world = button.dataset.world ?? "";
  const action = button.dataset.action ?? "";
  busy = true;
  try {
    let token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) {
      token = await askToken();
      if (!token) return;
      sessionStorage.setItem(TOKEN_KEY, token);
    }
    say(kind === "undo" ? t("Undoing", {}, "Undoing…") : t("Redoing", {}, "Redoing…"));
    const reply = await send(token, world, kind, action);
    if (reply.type === "result") {
      const rev = String(reply.payload?.rev);
      say(kind === "undo" ? t("DoneUndo", { rev }, `Undone: rev ${rev}.`) : t("DoneRedo", { rev }, `Redone: rev ${rev}.`));
      await refresh();
      return;
    }
    if (reply.payload?.code === "unauthorized") sessionStorage.removeItem(TOKEN_KEY);
    const data = { code: String(reply.payload?.code ?? "error"), message: describe(reply.payload) };
    say(kind === "undo" ? t("RefusedUndo", data, `Undo refused (${data.code}): ${data.message}`) : t("RefusedRedo", data, `Redo refused (${data.code}): ${data.message}`));
  } finally {
    busy = false;
  }
}

/** Replace the page's content with a fresh copy (the dialog and what it holds stay). */
async function refresh() {
  const dialog = /** @type {HTMLDialogElement|null} */ (document.getElementById("token-dialog"));
  if (dialog?.open) return;
  let text;
  try {
    const response = await fetch(location.pathname + location.search, { cache: "no-store" });
    if (!response.ok) return;
    text = await response.text();
  } catch {
    return;
  }
  const fresh = new DOMParser().parseFromString(text, "text/html").querySelector("main");
  const current = document.querySelector("main");
  if (!fresh || !current) return;
  const status = document.getElementById("undo-status")?.textContent ?? "";
  current.replaceWith(document.adoptNode(fresh));
  say(status);
  showButtons();
  await wordSteps();
}

document.addEventListener("click", (event) => {
  const target = /** @type {Element|null} */ (event.target instanceof Element ? event.target : null);
  const button = target?.closest("button[data-mode]");
  if (button instanceof HTMLButtonElement) void onButton(button);
});
showButtons();
void wordSteps();
setInterval(() => {
  if (!busy) void refresh();
}, REFRESH_MS);

export {};
