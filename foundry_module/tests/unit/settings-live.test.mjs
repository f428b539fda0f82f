// Issue 30 (audit L1, L2, F4, K1): a client setting's change is no Setting document change; the
// module hears it through the registration's onChange (the stand-in fires only what Foundry fires);
// a `cn` client reads Chinese.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { MODULE_ID, SETTING_CHANGED_HOOK } from "../../scripts/core/constants.mjs";
import { PALETTE_SETTING, PALETTES } from "../../scripts/core/palette.mjs";
import { HEALTH_CONTAINER_NAME, installHealthTrack } from "../../scripts/foundry/health-canvas.mjs";
import { registerSettings } from "../../scripts/foundry/settings.mjs";
import { FakeNetwork, FakeWorld } from "../helpers/fake-foundry.mjs";
import { FAKE_PIXI as PIXI, FakeDisplay } from "../helpers/fake-pixi.mjs";

const moduleRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * One player's browser: the module's settings registered in its game.settings, the registration's
 * onChange wired as main.mjs wires it, the Health track installed on its hooks.
 */
function browser() {
  const world = new FakeWorld({ generation: 13 });
  world.addUser("pia", "Pia");
  world.loginAs("pia");
  const net = new FakeNetwork(world);
  const pia = net.connect("pia");
  /** @type {Array<{key: string}>} */
  const told = [];
  registerSettings(pia.settings, (group, key, value) => {
    if (group === "display") pia.hooks.callAll(SETTING_CHANGED_HOOK, { key: `${MODULE_ID}.${key}`, value });
  });
  pia.hooks.on(SETTING_CHANGED_HOOK, (/** @type {{key: string}} */ c) => void told.push(c));
  return { world, pia, told };
}

test("L1 K1: the palette (a client setting) changed without a reload: the Health track is redrawn in it; no Setting document hook fired", async () => {
  const { pia } = browser();
  /** @type {string[]} */
  const documentHooks = [];
  for (const name of ["updateSetting", "createSetting"]) pia.hooks.on(name, () => void documentHooks.push(name));
  await pia.settings.set(MODULE_ID, "healthVisibility", "everyone").catch(() => {}); // a player may not: a world setting
  const token = /** @type {any} */ (Object.assign(new FakeDisplay(), { w: 100, h: 100, isOwner: true, actor: { flags: { [MODULE_ID]: { health: { max: 3, aggravated: 1, lethal: 1 } } } } }));
  installHealthTrack({
    hooks: /** @type {any} */ (pia.hooks),
    PIXI,
    getSetting: (key) => (key === "healthVisibility" ? "everyone" : pia.settings.get(MODULE_ID, key)),
    isGM: () => false,
    localize: (key) => key,
    tokens: () => [token],
  });
  pia.hooks.call("drawToken", token);
  const fills = () => {
    const container = token.children.find((/** @type {any} */ c) => c.name === HEALTH_CONTAINER_NAME);
    return container.children[0].children[0].calls.filter((/** @type {any[]} */ c) => c[0] === "beginFill").map((/** @type {any[]} */ c) => c[1]);
  };
  assert.ok(fills().includes(PALETTES.standard.track.aggravated));
  await pia.settings.set(MODULE_ID, PALETTE_SETTING, "okabeIto");
  assert.deepEqual(documentHooks, [], "a client setting is no Setting document");
  assert.ok(fills().includes(PALETTES.okabeIto.track.aggravated), "redrawn in the colour-blind palette, no reload");
});

test("F4 K1: a world display setting's first change is a createSetting, not an updateSetting; the module hears both through onChange", async () => {
  const world = new FakeWorld({ generation: 13 });
  const net = new FakeNetwork(world);
  const gm = net.connect("gm");
  /** @type {string[]} */
  const seen = [];
  registerSettings(gm.settings, (group, key) => {
    if (group === "display") gm.hooks.callAll(SETTING_CHANGED_HOOK, { key: `${MODULE_ID}.${key}` });
  });
  for (const name of ["updateSetting", "createSetting", SETTING_CHANGED_HOOK]) gm.hooks.on(name, (/** @type {any} */ s) => void seen.push(`${name} ${s.key}`));
  await gm.settings.set(MODULE_ID, "systemBar", "replace");
  await gm.settings.set(MODULE_ID, "systemBar", "beside");
  assert.deepEqual(seen, [
    `${SETTING_CHANGED_HOOK} ${MODULE_ID}.systemBar`,
    `createSetting ${MODULE_ID}.systemBar`,
    `${SETTING_CHANGED_HOOK} ${MODULE_ID}.systemBar`,
    `updateSetting ${MODULE_ID}.systemBar`,
  ]);
  // main.mjs redraws the bars on the module hook, so the first switch redraws too
  const main = readFileSync(join(moduleRoot, "scripts", "main.mjs"), "utf8");
  assert.match(main, /Hooks\.on\(SETTING_CHANGED_HOOK, \(\/\*\* @type \{any\} \*\/ changed\) => \{\n\s+if \(changed\?\.key !== `\$\{MODULE_ID\}\.systemBar`\) return;/);
});

test("L2: Foundry's `cn` language code loads the Simplified-Chinese file: a cn client reads Chinese", () => {
  const manifest = JSON.parse(readFileSync(join(moduleRoot, "module.json"), "utf8"));
  const cn = manifest.languages.find((/** @type {any} */ l) => l.lang === "cn");
  assert.ok(cn, "a `cn` entry");
  // what Foundry does for a client whose language is cn: load the files declared for that code
  const strings = JSON.parse(readFileSync(join(moduleRoot, cn.path), "utf8"));
  assert.equal(strings.VTTBRIDGE.Bridge.none, "无桥接：没有主持人浏览器运行它");
  assert.match(strings.VTTBRIDGE.Notice.Waiting, /桥接/);
  assert.ok(manifest.languages.some((/** @type {any} */ l) => l.lang === "zh-CN" && l.path === cn.path), "zh-CN kept for tables that use it");
});
