// The README's GM section names every setting the settings window shows, by its English name: the
// world settings in its table, the client ones in the line after it. A setting added to
// settings.mjs without a word in the README fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { SETTINGS, settingLabels } from "../../scripts/foundry/settings.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(moduleRoot, "..", "README.md"), "utf8");
const en = JSON.parse(readFileSync(join(moduleRoot, "lang", "en.json"), "utf8"));

/** @param {string} key a dotted localization key */
function english(key) {
  /** @type {any} */
  let node = en;
  for (const part of key.split(".")) node = node?.[part];
  assert.equal(typeof node, "string", `lang/en.json has no ${key}`);
  return /** @type {string} */ (node);
}

const section = readme.split("### At the table: the GM's tools")[1]?.split("\n## ")[0] ?? "";
const tableRows = section.split("\n").filter((line) => line.startsWith("|")).join("\n");
const clientLine = section.slice(section.indexOf("The client settings"));

test("the README's GM section lists every world setting in its table and every client setting after it", () => {
  assert.ok(section, "README: no section 'At the table: the GM's tools'");
  const shown = SETTINGS.filter((def) => def.config);
  assert.ok(shown.some((def) => def.scope === "world") && shown.some((def) => def.scope === "client"));
  for (const def of shown) {
    const name = english(settingLabels(def.key, def.i18n).name);
    const where = def.scope === "world" ? tableRows : clientLine;
    assert.ok(where.includes(name), `README's GM section does not name the ${def.scope} setting "${name}" (${def.key})`);
  }
});
