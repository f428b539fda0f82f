/**
 * A small, pure RFC 6901 (JSON Pointer) and RFC 6902 (JSON Patch) implementation: the module keeps
 * a mirror of the sidecar's state document and applies each patch to it, so it can tell what
 * changed and what a `test` op expects.
 * @module json-patch
 */

/** @typedef {import("./_types.mjs").PatchOp} PatchOp */

/** A patch that cannot be applied (bad pointer, missing member, failed `test`). */
export class PatchError extends Error {
  /**
   * @param {string} message
   * @param {number} index the op that failed
   * @param {boolean} [failedTest] a `test` op did not match
   */
  constructor(message, index, failedTest = false) {
    super(message);
    this.name = "PatchError";
    this.index = index;
    this.failedTest = failedTest;
  }
}

/**
 * The reference tokens of a JSON Pointer ("" is the whole document).
 * @param {string} pointer
 * @returns {string[]}
 */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new SyntaxError(`not a JSON Pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * A JSON Pointer from reference tokens.
 * @param {...(string|number)} tokens
 * @returns {string}
 */
export function pointer(...tokens) {
  return tokens.map((t) => "/" + String(t).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * JSON equality (RFC 6902 `test` semantics: key order does not matter).
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/** A reference token that names an element of an array (RFC 6901: no leading zeros). */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * The value a pointer names, or undefined when there is none.
 * @param {unknown} doc
 * @param {string|string[]} path a pointer or its tokens
 * @returns {unknown}
 */
export function getAt(doc, path) {
  const tokens = typeof path === "string" ? parsePointer(path) : path;
  /** @type {unknown} */
  let node = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isPlainObject(node)) {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/**
 * @typedef {object} Box a patch being applied: the document so far, and the containers this patch
 *   made (its own copies, safe to change; every other container is shared with the document before)
 * @property {unknown} root
 * @property {Set<object>} fresh
 */

/**
 * Apply a JSON Patch to a copy of `doc`; `doc` is never changed. The copy is made along the ops'
 * paths only (copy on write): each object or array an op changes, and those above it, are copied
 * once per patch; every other part of the result is the very object `doc` holds, so a patch of a
 * few ops costs a few copies, not a copy of the whole document. An `add` or `replace` puts its op's
 * value in as it is (a later op of the patch that changes inside it copies it first; a `copy` is
 * deep-copied, as it may be a container this patch changes again). Treat the document, the ops'
 * values and the result as immutable.
 * @param {unknown} doc
 * @param {readonly PatchOp[]} ops
 * @returns {unknown} the patched copy
 * @throws {PatchError}
 */
export function applyJsonPatch(doc, ops) {
  /** @type {Box} */
  const box = { root: doc, fresh: new Set() };
  ops.forEach((op, index) => applyOne(box, op, index));
  return box.root;
}

/**
 * This patch's own copy of a container (itself when this patch made it).
 * @param {Box} box
 * @param {object} value
 * @returns {any}
 */
function own(box, value) {
  if (box.fresh.has(value)) return value;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  box.fresh.add(copy);
  return copy;
}

/**
 * The container that holds the last token of a path, made this patch's own along with every
 * container above it; undefined when a member on the way is missing or not a container.
 * @param {Box} box
 * @param {string[]} tokens
 * @returns {any}
 */
function ownParent(box, tokens) {
  if (typeof box.root !== "object" || box.root === null) return undefined;
  box.root = own(box, box.root);
  /** @type {any} */
  let node = box.root;
  for (let i = 0; i < tokens.length - 1; i++) {
    const token = /** @type {string} */ (tokens[i]);
    /** @type {string|number} */
    let key = token;
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      key = Number(token);
    } else if (!Object.prototype.hasOwnProperty.call(node, token)) {
      return undefined;
    }
    const child = node[key];
    if (typeof child !== "object" || child === null) return undefined;
    node = node[key] = own(box, child);
  }
  return node;
}

/**
 * @param {Box} box
 * @param {PatchOp} op
 * @param {number} index
 */
function applyOne(box, op, index) {
  /** @param {string} message */
  const fail = (message) => new PatchError(`op ${index} (${op.op} ${op.path}): ${message}`, index);
  let tokens;
  try {
    tokens = parsePointer(op.path);
  } catch (error) {
    throw fail(String(error));
  }
  switch (op.op) {
    case "test": {
      if (!deepEqual(getAt(box.root, tokens), op.value)) {
        throw new PatchError(`op ${index} (test ${op.path}): value differs`, index, true);
      }
      return;
    }
    case "add":
      return put(box, tokens, op.value, "add", fail);
    case "replace":
      if (getAt(box.root, tokens) === undefined) throw fail("no such member");
      return put(box, tokens, op.value, "replace", fail);
    case "remove":
      if (getAt(box.root, tokens) === undefined) throw fail("no such member");
      return remove(box, tokens, fail);
    case "copy":
    case "move": {
      if (op.from === undefined) throw fail("no 'from'");
      const fromTokens = parsePointer(op.from);
      const value = getAt(box.root, fromTokens);
      if (value === undefined) throw fail("no such 'from' member");
      if (op.op === "move") {
        if (op.path.startsWith(op.from + "/")) throw fail("cannot move into itself");
        remove(box, fromTokens, fail);
      }
      return put(box, tokens, op.op === "copy" ? structuredClone(value) : value, "add", fail);
    }
    default:
      throw fail("unknown op");
  }
}

/**
 * @param {Box} box
 * @param {string[]} tokens
 * @param {unknown} value
 * @param {"add"|"replace"} mode
 * @param {(message: string) => PatchError} fail
 */
function put(box, tokens, value, mode, fail) {
  if (tokens.length === 0) {
    box.root = value;
    return;
  }
  const parent = ownParent(box, tokens);
  const key = /** @type {string} */ (tokens[tokens.length - 1]);
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (!/^(0|[1-9][0-9]*|-)$/.test(key) || index > parent.length) throw fail("bad array index");
    if (mode === "add") parent.splice(index, 0, value);
    else parent[index] = value;
  } else if (isPlainObject(parent)) {
    parent[key] = value;
  } else {
    throw fail("parent is missing or not a container");
  }
}

/**
 * @param {Box} box
 * @param {string[]} tokens
 * @param {(message: string) => PatchError} fail
 */
function remove(box, tokens, fail) {
  if (tokens.length === 0) {
    box.root = undefined;
    return;
  }
  const parent = ownParent(box, tokens);
  const key = /** @type {string} */ (tokens[tokens.length - 1]);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (isPlainObject(parent)) delete parent[key];
  else throw fail("parent is missing");
}
