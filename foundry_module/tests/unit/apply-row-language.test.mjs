// Issue 35: a roll card's "Apply as damage" row is worded by each client in its own user's language
// (the message's content holds the poster's words), as the ruling cards are.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MODULE_ID } from "../../scripts/core/constants.mjs";
import { applyAsDamageHtml } from "../../scripts/core/damage-preview.mjs";
import { bindChatButtons } from "../../scripts/foundry/damage-tools.mjs";
import { FakeElement } from "../helpers/fake-dom.mjs";
import { i18nFor } from "../helpers/i18n.mjs";

/** @param {string} lang */
const localizer = (lang) => {
  const i18n = i18nFor(lang);
  return (/** @type {string} */ key, /** @type {Record<string, string>|undefined} */ data) => (data ? i18n.format(key, data) : i18n.localize(key));
};

/** A roll card posted by an English GM, as another client renders it. @param {string} cardType */
function rendered(cardType) {
  const root = new FakeElement("div");
  root.insertAdjacentHTML("beforeend", applyAsDamageHtml(3, i18nFor("en"), "Actor.a"));
  const message = { getFlag: (/** @type {string} */ scope, /** @type {string} */ key) => (scope === MODULE_ID && key === "card" ? cardType : undefined), author: { isGM: true } };
  return { root, message };
}

const texts = (/** @type {FakeElement} */ root) => [
  root.querySelector(`.${MODULE_ID}-apply-label`)?.textContent,
  ...root.querySelectorAll(`[data-${MODULE_ID}-action]`).map((b) => b.textContent),
];

for (const lang of ["de", "zh-CN"]) {
  test(`a roll card's Apply as damage row reads in the viewer's language (${lang}), its buttons unchanged`, () => {
    const { root, message } = rendered("roll");
    const before = root.querySelectorAll(`[data-${MODULE_ID}-action]`).map((b) => b.getAttribute(`data-${MODULE_ID}-action`));
    const localize = localizer(lang);
    bindChatButtons(/** @type {any} */ (root), { env: {}, sendAction: () => {}, localize }, message);
    const i18n = i18nFor(lang);
    assert.deepEqual(texts(root), [i18n.format("VTTBRIDGE.Preview.ApplyAsDamage", { amount: "3" }), ...["B", "L", "A"].map((g) => i18n.localize(`VTTBRIDGE.Grade.${g}`))]);
    for (const text of texts(root)) assert.ok(!Object.values(i18nFor("en")).includes(text) && !/Apply|bashing|lethal|aggravated/i.test(String(text)), `English left: ${text}`);
    assert.deepEqual(root.querySelectorAll(`[data-${MODULE_ID}-action]`).map((b) => b.getAttribute(`data-${MODULE_ID}-action`)), before, "the actions are the poster's");
  });
}

test("a card of another type keeps its content's words (only a roll card's row is worded again)", () => {
  const { root, message } = rendered("apply");
  const english = texts(root);
  bindChatButtons(/** @type {any} */ (root), { env: {}, sendAction: () => {}, localize: localizer("de") }, message);
  assert.deepEqual(texts(root), english);
});
