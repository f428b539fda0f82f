// The module's layers, checked by walking every import in scripts/ (static, re-exports, dynamic
// `import()`, and JSDoc `import("...")` types):
// - scripts/core/ holds pure decisions: it imports only core/, and never names a Foundry global
//   (game, canvas, Hooks, ui, foundry, CONFIG, ...), not even through `globalThis`;
// - scripts/systems/ (the game-system adapters) imports core/ and systems/, never foundry/;
// - scripts/foundry/ (the wiring) imports anything but main.mjs; nothing imports main.mjs;
// - no two modules import each other, directly or through others (runtime imports).
// The analysis parses each file with TypeScript's parser (a dev dependency already used by
// `npm run typecheck`), so comments, strings and property names are not mistaken for references.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPTS = join(root, "scripts");

/** The globals Foundry defines that a pure core module must not read (eslint.config.mjs lists them too). */
const FOUNDRY_GLOBALS = new Set(["game", "canvas", "Hooks", "ui", "foundry", "CONFIG", "fromUuid", "ChatMessage", "PIXI"]);
/** Names of the global object through which a global can also be reached. */
const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self"]);

/**
 * @typedef {object} Analysis
 * @property {string[]} runtime relative specifiers imported at run time (static, re-export, dynamic)
 * @property {string[]} types relative specifiers of JSDoc `import("...")` types
 * @property {Array<{name: string, line: number}>} globals free references to FOUNDRY_GLOBALS
 */

/** @param {ts.Node} node @returns {string[]} names a binding pattern or name declares */
function boundNames(node) {
  if (ts.isIdentifier(node)) return [node.text];
  if (ts.isObjectBindingPattern(node) || ts.isArrayBindingPattern(node)) {
    return node.elements.flatMap((e) => (ts.isBindingElement(e) ? boundNames(e.name) : []));
  }
  return [];
}

/** @param {ts.Node} scope @returns {Set<string>} the names declared directly in this scope */
function declaredIn(scope) {
  /** @type {Set<string>} */
  const names = new Set();
  if (ts.isFunctionLike(scope)) {
    for (const p of scope.parameters) for (const n of boundNames(p.name)) names.add(n);
    if ((ts.isFunctionExpression(scope) || ts.isClassExpression(scope)) && scope.name) names.add(scope.name.text);
  }
  if (ts.isCatchClause(scope) && scope.variableDeclaration) for (const n of boundNames(scope.variableDeclaration.name)) names.add(n);
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (node !== scope && (ts.isFunctionLike(node) || ts.isClassLike(node))) {
      if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) names.add(node.name.text);
      return; // an inner function's own names belong to it
    }
    if (ts.isVariableDeclaration(node)) for (const n of boundNames(node.name)) names.add(n);
    if (ts.isImportClause(node) && node.name) names.add(node.name.text);
    if (ts.isImportSpecifier(node) || ts.isNamespaceImport(node)) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(scope, visit);
  return names;
}

/** @param {ts.Identifier} id whether this identifier is a reference (not a property or declared name) */
function isReference(id) {
  const parent = id.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)) && parent.name === id) return false;
  if ((ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isPropertySignature(parent)) && parent.name === id) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === id) return false;
  if ((ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) && parent.propertyName === id) return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  return true;
}

/** @param {ts.Identifier} id whether some enclosing scope declares its name */
function isLocal(id) {
  for (let node = id.parent; node; node = node.parent) {
    if (ts.isFunctionLike(node) || ts.isBlock(node) || ts.isSourceFile(node) || ts.isCatchClause(node) || ts.isForStatement(node) || ts.isForOfStatement(node) || ts.isForInStatement(node)) {
      if (declaredIn(node).has(id.text)) return true;
    }
  }
  return false;
}

/**
 * Imports and Foundry-global references of one ES module's source.
 * @param {string} source
 * @param {string} [fileName]
 * @returns {Analysis}
 */
export function analyse(source, fileName = "module.mjs") {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  /** @type {Analysis} */
  const out = { runtime: [], types: [], globals: [] };
  const line = (/** @type {ts.Node} */ n) => file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.runtime.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [spec] = node.arguments;
      if (spec && (ts.isStringLiteral(spec) || ts.isNoSubstitutionTemplateLiteral(spec))) out.runtime.push(spec.text);
      else if (spec) out.runtime.push(`<computed import at line ${line(node)}>`);
    } else if (ts.isIdentifier(node) && FOUNDRY_GLOBALS.has(node.text) && isReference(node) && !isLocal(node)) {
      out.globals.push({ name: node.text, line: line(node) });
    } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && GLOBAL_OBJECTS.has(node.expression.text) && FOUNDRY_GLOBALS.has(node.name.text)) {
      out.globals.push({ name: `${node.expression.text}.${node.name.text}`, line: line(node) });
    } else if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && GLOBAL_OBJECTS.has(node.expression.text)) {
      const key = node.argumentExpression;
      if (!ts.isStringLiteral(key) || FOUNDRY_GLOBALS.has(key.text)) out.globals.push({ name: `${node.expression.text}[...]`, line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  for (const [, spec] of source.matchAll(/import\(\s*["'`]([^"'`]+)["'`]\s*\)/g)) if (!out.runtime.includes(spec)) out.types.push(spec);
  return out;
}

/** Every module under scripts/, by its path relative to scripts/ (posix). */
function modules() {
  /** @type {Map<string, Analysis>} */
  const all = new Map();
  for (const rel of readdirSync(SCRIPTS, { recursive: true, encoding: "utf8" })) {
    if (!rel.endsWith(".mjs")) continue;
    const path = rel.split(/[\\/]/).join("/");
    all.set(path, analyse(readFileSync(join(SCRIPTS, rel), "utf8"), path));
  }
  return all;
}

/** @param {string} from @param {string} spec @returns {string|null} the scripts/-relative target of a relative specifier */
function resolveSpec(from, spec) {
  if (!spec.startsWith(".")) return null;
  return posix.normalize(posix.join(posix.dirname(from), spec.replace(/[?#].*$/, "")));
}

/** @param {string} path @returns {"core"|"foundry"|"systems"|"main"|"other"} */
function layerOf(path) {
  if (path === "main.mjs") return "main";
  const top = path.split("/")[0];
  return top === "core" || top === "foundry" || top === "systems" ? top : "other";
}

/** Which layers each layer may import. */
const MAY_IMPORT = Object.freeze({
  core: new Set(["core"]),
  systems: new Set(["core", "systems"]),
  foundry: new Set(["core", "systems", "foundry"]),
  main: new Set(["core", "systems", "foundry"]),
  other: new Set(),
});

/**
 * Every import that breaks a layer, as readable lines.
 * @param {Map<string, Analysis>} all
 */
export function layerProblems(all) {
  /** @type {string[]} */
  const problems = [];
  for (const [path, analysis] of all) {
    const layer = layerOf(path);
    if (layer === "other") problems.push(`${path}: outside core/, foundry/, systems/ and main.mjs`);
    for (const spec of [...analysis.runtime, ...analysis.types]) {
      if (spec.startsWith("<")) {
        problems.push(`${path}: ${spec}`);
        continue;
      }
      const target = resolveSpec(path, spec);
      if (target === null) {
        if (layer === "core" && spec !== "pixi.js") problems.push(`${path}: imports the package ${spec}`);
        continue;
      }
      if (!all.has(target)) problems.push(`${path}: imports ${spec}, which is not a module in scripts/`);
      else if (!MAY_IMPORT[layer].has(layerOf(target))) problems.push(`${path} (${layer}) imports ${target} (${layerOf(target)})`);
    }
    if (layer === "core") for (const g of analysis.globals) problems.push(`${path}:${g.line}: a core module reads the Foundry global ${g.name}`);
  }
  return problems;
}

/**
 * Every cycle of runtime imports (each reported once, as a path that returns to its start).
 * @param {Map<string, Analysis>} all
 * @returns {string[][]}
 */
export function importCycles(all) {
  /** @type {Map<string, string[]>} */
  const edges = new Map();
  for (const [path, analysis] of all) {
    edges.set(path, analysis.runtime.map((s) => resolveSpec(path, s)).filter((t) => t !== null && all.has(t)).map(String));
  }
  /** @type {string[][]} */
  const cycles = [];
  /** @type {Map<string, "open"|"done">} */
  const state = new Map();
  /** @type {string[]} */
  const stack = [];
  /** @param {string} node */
  const visit = (node) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

test("the analysis sees imports and Foundry globals, not comments, strings, properties or locals", () => {
  const source = [
    'import { a } from "./a.mjs";',
    'export { b } from "../foundry/b.mjs";',
    '/** @typedef {import("../foundry/c.mjs").C} C */',
    "// game.user in a comment; canvas too",
    'const text = "game.settings";',
    "const obj = { game: 1, ui: x.ui, CONFIG };",
    "function local(canvas) { return canvas.scene; }",
    "export function reads() { return game.user; }",
    "const viaGlobal = globalThis.Hooks;",
    'const later = () => import("./d.mjs");',
  ].join("\n");
  const result = analyse(source);
  assert.deepEqual(result.runtime, ["./a.mjs", "../foundry/b.mjs", "./d.mjs"]);
  assert.deepEqual(result.types, ["../foundry/c.mjs"]);
  assert.deepEqual(result.globals, [
    { name: "CONFIG", line: 6 },
    { name: "game", line: 8 },
    { name: "globalThis.Hooks", line: 9 },
  ]);
});

test("layer rules and cycles are found in a made-up tree", () => {
  /** @type {Map<string, Analysis>} */
  const tree = new Map([
    ["core/a.mjs", analyse('import "../foundry/w.mjs"; export const x = canvas.grid;')],
    ["core/b.mjs", analyse('import "./c.mjs";')],
    ["core/c.mjs", analyse('import "./b.mjs";')],
    ["systems/s.mjs", analyse('/** @typedef {import("../foundry/w.mjs").W} W */')],
    ["foundry/w.mjs", analyse('import "../main.mjs";')],
    ["main.mjs", analyse('import "./foundry/w.mjs";')],
  ]);
  assert.deepEqual(layerProblems(tree), [
    "core/a.mjs (core) imports foundry/w.mjs (foundry)",
    "core/a.mjs:1: a core module reads the Foundry global canvas",
    "systems/s.mjs (systems) imports foundry/w.mjs (foundry)",
    "foundry/w.mjs (foundry) imports main.mjs (main)",
  ]);
  assert.deepEqual(importCycles(tree), [
    ["foundry/w.mjs", "main.mjs", "foundry/w.mjs"],
    ["core/b.mjs", "core/c.mjs", "core/b.mjs"],
  ]);
});

test("scripts/: core imports only core and reads no Foundry global; systems never imports foundry/", () => {
  const all = modules();
  assert.ok([...all.keys()].filter((p) => p.startsWith("core/")).length >= 10, "core/ has its modules");
  assert.deepEqual(layerProblems(all), []);
});

test("scripts/: no two modules import each other, directly or around a circle", () => {
  assert.deepEqual(importCycles(modules()), []);
});
