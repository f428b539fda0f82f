// The wiring of the GM's "why can't X see Y?" button (foundry/ruling-messages.mjs) with Foundry-shaped globals,
// written from the public API docs: DialogV2.prompt resolves the ok callback's value, and when the
// dialog is closed without a choice it rejects if `rejectClose` (default true in v12, false in v13:
// foundryvtt/foundryvtt#11763), else resolves null.
import assert from "node:assert/strict";
import { test } from "node:test";

import { pickObserver } from "../../scripts/foundry/ruling-messages.mjs";

const g = /** @type {any} */ (globalThis);

/**
 * @param {{generation: number, choose: string|null}} options `choose`: the observer id picked, or
 *   null when the GM closes the dialog
 */
function installGlobals({ generation, choose }) {
  const target = { id: "T", name: "Target" };
  const tokens = [target, { id: "O", name: "Observer" }, { id: "P", name: "Other" }];
  /** @type {any[]} */
  const prompts = [];
  g.game = {
    i18n: { localize: (/** @type {string} */ k) => k, format: (/** @type {string} */ k) => k, has: () => true },
    scenes: { viewed: { tokens } },
    release: { generation },
  };
  g.ui = { notifications: { warn: () => {}, error: () => {} } };
  g.canvas = undefined;
  g.foundry = {
    applications: {
      api: {
        DialogV2: {
          /** @param {any} options */
          async prompt(options) {
            prompts.push(options);
            if (choose !== null) {
              const form = { observer: choose };
              return options.ok.callback({}, { form: { get: () => form } });
            }
            const rejectClose = options.rejectClose ?? generation < 13;
            if (rejectClose) throw new Error("The Dialog was closed without a choice being made.");
            return null;
          },
        },
      },
    },
  };
  return { target, prompts };
}

test("pickObserver: closing the dialog picks nobody, in v12 (rejects by default) and v13", async (t) => {
  t.after(() => {
    for (const name of ["game", "ui", "canvas", "foundry"]) delete g[name];
  });
  // FormData over the fake form: the callback reads `new FormData(button.form).get("observer")`
  const RealFormData = g.FormData;
  g.FormData = class {
    /** @param {any} form */
    constructor(form) {
      this.form = form;
    }
    /** @param {string} name */
    get(name) {
      return this.form.get()[name];
    }
  };
  t.after(() => {
    g.FormData = RealFormData;
  });
  for (const generation of [12, 13]) {
    const { target } = installGlobals({ generation, choose: null });
    assert.equal(await pickObserver(target), null, `v${generation}: closed without a choice`);
  }
  const { target, prompts } = installGlobals({ generation: 12, choose: "O" });
  const observer = await pickObserver(target);
  assert.equal(observer?.id, "O");
  assert.ok(!prompts[0].content.includes('value="T"'), "the target is not offered as its own observer");
});
