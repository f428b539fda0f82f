/**
 * The few DOM calls the module's chat-card wiring makes, for Node (no browser): elements with
 * `classList`, `dataset`, `append`, `querySelector` by class, and click listeners that receive an
 * event with `preventDefault` (https://developer.mozilla.org/en-US/docs/Web/API/Element). The
 * e2e tests run the same wiring in headless Chromium's real DOM.
 */

export class FakeElement {
  /** @param {string} tagName @param {string} [className] */
  constructor(tagName, className = "") {
    this.tagName = tagName.toUpperCase();
    /** @type {FakeElement[]} */
    this.children = [];
    this.type = "";
    this.textContent = "";
    /** @type {Record<string, string>} */
    this.dataset = {};
    /** @type {Set<string>} */
    this._classes = new Set(className.split(/\s+/).filter(Boolean));
    /** @type {Map<string, Function[]>} */
    this._listeners = new Map();
    const classes = this._classes;
    this.classList = {
      /** @param {string[]} names */
      add: (...names) => names.forEach((n) => classes.add(n)),
      /** @param {string} name */
      contains: (name) => classes.has(name),
      /** @param {string[]} names */
      remove: (...names) => names.forEach((n) => classes.delete(n)),
    };
  }

  get className() {
    return [...this._classes].join(" ");
  }

  set className(value) {
    this._classes.clear();
    for (const name of String(value).split(/\s+/).filter(Boolean)) this._classes.add(name);
  }

  /** @param {FakeElement[]} nodes */
  append(...nodes) {
    for (const node of nodes) if (node && typeof node === "object") /** @type {any} */ (node).parentElement = this;
    this.children.push(...nodes);
  }

  /** Element#remove: out of its parent. */
  remove() {
    const parent = /** @type {any} */ (this).parentElement;
    if (parent) parent.children = parent.children.filter((/** @type {FakeElement} */ c) => c !== this);
    /** @type {any} */ (this).parentElement = null;
  }

  /** @param {string} type @param {Function} fn */
  addEventListener(type, fn) {
    this._listeners.set(type, [...(this._listeners.get(type) ?? []), fn]);
  }

  /** A click, as a user makes it. */
  click() {
    let prevented = false;
    const event = { type: "click", target: this, preventDefault: () => (prevented = true) };
    for (const fn of this._listeners.get("click") ?? []) fn(event);
    return prevented;
  }

  /** Descendants matching one `.class` or `[data-name]` selector, depth first. @param {string} selector @returns {FakeElement[]} */
  querySelectorAll(selector) {
    const data = /^\[data-([a-z-]+)\]$/.exec(selector);
    if (!data && (!selector.startsWith(".") || selector.includes(" "))) throw new Error(`fake DOM: only ".class" and "[data-name]" selectors, not ${selector}`);
    const name = selector.slice(1);
    const datasetKey = data ? data[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase()) : "";
    /** @type {FakeElement[]} */
    const out = [];
    const walk = (/** @type {FakeElement} */ node) => {
      for (const child of node.children) {
        if (!(child instanceof FakeElement)) continue;
        if (data ? Object.hasOwn(child.dataset, datasetKey) : child._classes.has(name)) out.push(child);
        walk(child);
      }
    };
    walk(this);
    return out;
  }

  /** @param {string} selector */
  querySelector(selector) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
}

/** `document.createElement`. */
export const fakeDocument = { createElement: (/** @type {string} */ tag) => new FakeElement(tag) };
