/**
 * The module's language files as the tests read them, and a Foundry-like i18n over one of them
 * (`game.i18n`: `has`, `localize`, `format` with `{name}` placeholders; an unknown key is the key).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const LANGS = ["en", "de", "zh-CN"];

/** @type {Record<string, Record<string, any>>} */
export const langs = Object.fromEntries(LANGS.map((l) => [l, JSON.parse(readFileSync(join(root, "lang", `${l}.json`), "utf8"))]));

/** The sentence at a dotted key, or undefined. @param {Record<string, any>} tree @param {string} key */
export function lookup(tree, key) {
  /** @type {any} */
  let node = tree;
  for (const part of key.split(".")) node = node?.[part];
  return typeof node === "string" ? node : undefined;
}

/** A Foundry-like i18n over one language file. @param {string} lang @returns {import("../../scripts/core/chat-cards.mjs").I18n} */
export function i18nFor(lang) {
  const tree = langs[lang];
  return {
    lang,
    has: (key) => lookup(tree, key) !== undefined,
    localize: (key) => lookup(tree, key) ?? key,
    format: (key, data = {}) => (lookup(tree, key) ?? key).replace(/{([^}]+)}/g, (m, k) => (k in data ? data[k] : m)),
  };
}
