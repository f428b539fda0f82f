import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { ACTOR_FIELDS, FORWARDED_ACTOR_FIELDS, MODULE_ID, MODULE_VERSION, SOCKET_CHANNEL } from "../../scripts/core/constants.mjs";
import {
  checkSidecarUrl,
  DEFAULT_SIDECAR_URL,
  readConnectionSettings,
  readRuleSettings,
  registerSettings,
  SETTINGS,
  settingLabels,
  shouldRunBridge,
} from "../../scripts/foundry/settings.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "module.json"), "utf8"));

test("the token, URL and 'runs the bridge' are client settings; only the optional rules are world settings", () => {
  const scopes = Object.fromEntries(SETTINGS.map((s) => [s.key, s.scope]));
  assert.deepEqual(scopes, {
    sidecarUrl: "client",
    token: "client",
    runsBridge: "client",
    woundPenalty: "world",
    unconsciousAtZeroWillpower: "world",
    approveReveals: "world",
    approximateSquares: "world",
    healthVisibility: "world",
    palette: "client",
    trackPlacement: "client",
    rulingCards: "world",
    systemAdapter: "world",
    systemMapping: "world",
    systemBar: "world",
  });
  assert.equal(DEFAULT_SIDECAR_URL, "ws://127.0.0.1:30500/ws");
});

test("registerSettings registers each under the module id with localized name/hint keys and onChange", () => {
  /** @type {Array<[string, string, Record<string, any>]>} */
  const calls = [];
  /** @type {string[]} */
  const changed = [];
  registerSettings({ register: (ns, key, config) => calls.push([ns, key, config]) }, (group, key) => changed.push(`${group}:${key}`));
  assert.equal(calls.length, SETTINGS.length);
  const token = calls.find(([, key]) => key === "token");
  assert.deepEqual(token?.[0], MODULE_ID);
  assert.equal(token?.[2].scope, "client");
  assert.equal(token?.[2].type, String);
  assert.equal(token?.[2].name, "VTTBRIDGE.Settings.Token.Name");
  calls.find(([, key]) => key === "woundPenalty")?.[2].onChange();
  assert.deepEqual(changed, ["rules:woundPenalty"]);
});

test("rule settings are read as booleans, the area radius as a whole number of squares, for the state document's settings", () => {
  /** @type {Record<string, unknown>} */
  const stored = { woundPenalty: true };
  assert.deepEqual(readRuleSettings((k) => stored[k]), { woundPenalty: true, unconsciousAtZeroWillpower: false, approveReveals: false, approximateSquares: 3 });
  for (const [value, read] of [[5, 5], [1, 1], [100, 100], [0, 3], [2.5, 3], [101, 3], ["4", 3]]) {
    assert.equal(readRuleSettings((k) => (k === "approximateSquares" ? value : undefined)).approximateSquares, read, `approximateSquares ${value}`);
  }
  assert.deepEqual(readConnectionSettings(() => undefined), { url: DEFAULT_SIDECAR_URL, token: "", runsBridge: false });
});

test("only a GM browser that says it runs the bridge, with a token, connects", () => {
  assert.ok(shouldRunBridge({ isGM: true, runsBridge: true, token: "x" }));
  assert.ok(!shouldRunBridge({ isGM: false, runsBridge: true, token: "x" }));
  assert.ok(!shouldRunBridge({ isGM: true, runsBridge: false, token: "x" }));
  assert.ok(!shouldRunBridge({ isGM: true, runsBridge: true, token: "" }));
});

test("sidecar URLs: ws/wss only, 127.0.0.1 rather than localhost", () => {
  assert.deepEqual(checkSidecarUrl("ws://127.0.0.1:30500/ws"), { ok: true });
  assert.deepEqual(checkSidecarUrl("ws://localhost:30500/ws"), { ok: false, reason: "localhost" });
  assert.deepEqual(checkSidecarUrl("http://127.0.0.1:30500/ws"), { ok: false, reason: "scheme" });
  assert.deepEqual(checkSidecarUrl("nonsense"), { ok: false, reason: "malformed" });
});

test("module.json: id, version, compatibility, socket, every named file present", () => {
  assert.equal(manifest.id, MODULE_ID);
  assert.equal(manifest.version, MODULE_VERSION);
  assert.equal(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version, MODULE_VERSION);
  assert.deepEqual(manifest.compatibility, { minimum: "12", verified: "13" });
  assert.equal(manifest.socket, true);
  assert.equal(SOCKET_CHANNEL, "module.vtt-bridge");
  assert.deepEqual(manifest.esmodules, ["scripts/main.mjs"]);
  // L2: Foundry's Simplified-Chinese code is `cn`; both point at the one file
  assert.deepEqual(manifest.languages.map((/** @type {any} */ l) => l.lang), ["en", "de", "zh-CN", "cn"]);
  for (const file of [...manifest.esmodules, ...manifest.styles, ...manifest.languages.map((/** @type {any} */ l) => l.path)]) {
    assert.ok(existsSync(join(root, file)), file);
  }
});

/** @param {Record<string, any>} obj @param {string} [prefix] @returns {string[]} */
function flatKeys(obj, prefix = "") {
  return Object.entries(obj).flatMap(([k, v]) => (typeof v === "object" ? flatKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

test("every language has the same keys, and every key the code and templates use exists", () => {
  const langs = Object.fromEntries(
    manifest.languages.map((/** @type {any} */ l) => [l.lang, flatKeys(JSON.parse(readFileSync(join(root, l.path), "utf8"))).sort()]),
  );
  assert.deepEqual(langs.de, langs.en);
  assert.deepEqual(langs["zh-CN"], langs.en);
  const en = new Set(langs.en);
  const sources = [
    ...readdirSync(join(root, "scripts"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".mjs"))
      .map((f) => join(root, "scripts", f)),
    ...readdirSync(join(root, "templates")).map((f) => join(root, "templates", f)),
  ];
  /** @type {string[]} */
  const missing = [];
  for (const file of sources) {
    for (const [key] of readFileSync(file, "utf8").matchAll(/VTTBRIDGE\.[A-Za-z.]+[A-Za-z]/g)) {
      if (!en.has(key) && !langs.en.some((/** @type {string} */ k) => k.startsWith(`${key}.`))) missing.push(`${file}: ${key}`);
    }
  }
  assert.deepEqual(missing, []);
  // the bridge indicator's states (bridge-election.mjs `bridgeIndicator`, composed keys)
  for (const state of ["up", "down", "none", "Waiting", "Title"]) assert.ok(en.has(`VTTBRIDGE.Bridge.${state}`), state);
  for (const s of SETTINGS) {
    const { name, hint } = settingLabels(s.key, s.i18n);
    assert.ok(en.has(name) && en.has(hint), s.key);
    for (const label of Object.values(s.choices ?? {})) assert.ok(en.has(label), label);
  }
});

test("every notice kind the connection emits has its words in each language, with its placeholders", () => {
  const placeholders = { lost: ["{url}"], restored: [], unauthorized: ["{url}"], version: ["{module}", "{sidecar}"] };
  for (const language of manifest.languages) {
    const notices = JSON.parse(readFileSync(join(root, language.path), "utf8")).VTTBRIDGE.Notice;
    for (const [kind, names] of Object.entries(placeholders)) {
      assert.equal(typeof notices[kind], "string", `${language.lang}: Notice.${kind}`);
      for (const name of names) assert.ok(notices[kind].includes(name), `${language.lang}: Notice.${kind} shows ${name}`);
    }
  }
});

test("flag layout: forwarded fields are actor fields; the token is never a flag", () => {
  for (const f of FORWARDED_ACTOR_FIELDS) assert.ok(ACTOR_FIELDS.includes(f), f);
  assert.ok(!ACTOR_FIELDS.includes("token"));
  assert.ok(!ACTOR_FIELDS.includes("name"));
});
