/**
 * Foundry-shaped plain objects for tests: documents whose `update` merges dot-path keys the way
 * Foundry's does (including both deletion syntaxes), a world actor class with `updateDocuments`,
 * a scene with `updateEmbeddedDocuments`, and `fromUuid`. Written from the public API docs.
 */

/** Stands in for v14's `foundry.data.operators.ForcedDeletion`. */
export class ForcedDeletion {
  static create() {
    return new ForcedDeletion();
  }
}

/**
 * Merge one flat dot-path update into `target` (Foundry: expandObject + mergeObject).
 * @param {Record<string, any>} target
 * @param {Record<string, unknown>} update
 */
export function mergeUpdate(target, update) {
  for (const [path, value] of Object.entries(update)) {
    if (path === "_id") continue;
    const parts = path.split(".");
    let node = target;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== "object" || node[part] === null || Array.isArray(node[part])) node[part] = {};
      node = node[part];
    }
    const last = /** @type {string} */ (parts.at(-1));
    if (last.startsWith("-=")) {
      if (value !== null) throw new Error(`v13 deletion keys need the value null: ${path}`);
      delete node[last.slice(2)];
    } else if (value instanceof ForcedDeletion) {
      delete node[last];
    } else if (typeof value === "object" && value !== null && !Array.isArray(value) && typeof node[last] === "object" && node[last] !== null && !Array.isArray(node[last])) {
      mergeUpdate(node[last], /** @type {Record<string, unknown>} */ (Object.fromEntries(Object.entries(value))));
    } else {
      node[last] = structuredClone(value);
    }
  }
}

export class FakeHooks {
  /** @type {Map<string, Array<(...args: any[]) => void>>} */
  handlers = new Map();
  /** @param {string} name @param {(...args: any[]) => void} fn */
  on(name, fn) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), fn]);
  }
  /** @param {string} name @param {...any} args */
  call(name, ...args) {
    for (const fn of this.handlers.get(name) ?? []) fn(...args);
  }
  /** Foundry's `Hooks.callAll`: every handler, whatever they return. @param {string} name @param {...any} args */
  callAll(name, ...args) {
    this.call(name, ...args);
    return true;
  }
}

export class FakeDocument {
  /**
   * @param {string} documentName "Actor" | "Token"
   * @param {Record<string, any>} data
   * @param {FakeHooks} hooks
   */
  constructor(documentName, data, hooks) {
    this.documentName = documentName;
    data = structuredClone(data);
    /** @type {string} */
    this.id = data.id;
    /** @type {string} */
    this.uuid = data.uuid ?? "";
    /** @type {string} */
    this.name = data.name ?? "";
    /** @type {number} */
    this.x = data.x ?? 0;
    /** @type {number} */
    this.y = data.y ?? 0;
    /** @type {number} */
    this.elevation = data.elevation ?? 0;
    /** @type {{id: string}|null} */
    this.parent = data.parent ?? null;
    /** @type {any} set on tokens */
    this.actor = null;
    /** @type {Record<string, any>} */
    this.flags = data.flags ?? {};
    this.hooks = hooks;
    /** @type {Array<{changes: Record<string, unknown>, options: Record<string, unknown>}>} */
    this.updates = [];
    /** @type {Set<string>} */
    this.statuses = new Set();
  }

  /** @param {Record<string, unknown>} changes @param {Record<string, unknown>} [options] */
  async update(changes, options = {}) {
    this.updates.push({ changes, options });
    mergeUpdate(/** @type {any} */ (this), changes);
    this.hooks.call(`update${this.documentName}`, this, changes, options);
    return this;
  }

  /** @param {string} status @param {{active: boolean}} options */
  async toggleStatusEffect(status, { active }) {
    if (active) this.statuses.add(status);
    else this.statuses.delete(status);
    return active;
  }
}

/** A tiny Foundry world: actors, one scene with tokens, hooks, fromUuid. */
export class FakeWorld {
  constructor() {
    this.hooks = new FakeHooks();
    /** @type {Map<string, FakeDocument>} */
    this.byUuid = new Map();
    /** @type {FakeDocument[]} */
    this.tokens = [];
    const world = this;
    this.Actor = {
      /** @param {Record<string, any>[]} updates @param {Record<string, unknown>} [options] */
      async updateDocuments(updates, options) {
        for (const { _id, ...rest } of updates) await world.byUuid.get(`Actor.${_id}`)?.update(rest, options);
      },
    };
    this.scene = {
      id: "scene1",
      grid: { size: 100, distance: 1.5, units: "m" },
      flags: {},
      tokens: this.tokens,
      /** @param {string} name @param {Record<string, any>[]} updates @param {Record<string, unknown>} [options] */
      async updateEmbeddedDocuments(name, updates, options) {
        if (name !== "Token") throw new Error(name);
        for (const { _id, ...rest } of updates) await world.tokens.find((t) => t.id === _id)?.update(rest, options);
      },
    };
  }

  /** @param {string} id @param {string} name @param {Record<string, any>} flags */
  addActor(id, name, flags) {
    const actor = new FakeDocument("Actor", { id, uuid: `Actor.${id}`, name, flags: { "vtt-bridge": flags } }, this.hooks);
    this.byUuid.set(actor.uuid, actor);
    return actor;
  }

  /** @param {string} id @param {FakeDocument} actor @param {number} x @param {number} y */
  addToken(id, actor, x, y) {
    const token = new FakeDocument("Token", { id, x, y, elevation: 0, parent: { id: this.scene.id } }, this.hooks);
    token.actor = actor;
    this.tokens.push(token);
    return token;
  }

  /** @param {string} uuid */
  async fromUuid(uuid) {
    return this.byUuid.get(uuid) ?? null;
  }
}
