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
    /** @type {Map<string, string>} the attributes the element was parsed with (`parseHtml`) or given */
    this._attributes = new Map();
    /** @type {string|undefined} */
    this._value = undefined;
    /** @type {boolean|undefined} */
    this._checked = undefined;
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

  /** Element#getAttribute: the attribute's value, null when absent. @param {string} name */
  getAttribute(name) {
    if (name === "class") return this._classes.size ? this.className : null;
    if (name.startsWith("data-")) {
      const key = name.slice(5).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      return Object.hasOwn(this.dataset, key) ? this.dataset[key] : null;
    }
    return this._attributes.get(name) ?? null;
  }

  /** Element#setAttribute (`data-*` lands in `dataset`, `class` in `classList`). @param {string} name @param {string} value */
  setAttribute(name, value) {
    const text = String(value);
    if (name === "class") this.className = text;
    else if (name.startsWith("data-")) this.dataset[name.slice(5).replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = text;
    else this._attributes.set(name, text);
  }

  /**
   * HTMLInputElement#value / HTMLSelectElement#value (https://developer.mozilla.org/en-US/docs/Web/API/HTMLInputElement,
   * https://developer.mozilla.org/en-US/docs/Web/API/HTMLSelectElement/value): an input's or option's
   * `value` attribute until set; a select's, the value of its option marked `selected`, else its first.
   * @returns {string}
   */
  get value() {
    if (this._value !== undefined) return this._value;
    if (this.tagName === "SELECT") {
      const options = this.children.filter((c) => c instanceof FakeElement && c.tagName === "OPTION");
      const chosen = options.find((o) => o._attributes.has("selected")) ?? options[0];
      return chosen ? chosen.value : "";
    }
    if (this.tagName === "OPTION") return this._attributes.get("value") ?? this.textContent;
    return this._attributes.get("value") ?? "";
  }

  set value(value) {
    /** @type {string|undefined} */
    this._value = String(value);
  }

  /** HTMLInputElement#checked: the `checked` attribute until set. */
  get checked() {
    return this._checked ?? this._attributes.has("checked");
  }

  set checked(value) {
    /** @type {boolean|undefined} */
    this._checked = !!value;
  }

  /** Element#innerHTML set: the children replaced by the parsed fragment (`parseHtml`). @param {string} html */
  set innerHTML(html) {
    for (const child of this.children) /** @type {any} */ (child).parentElement = null;
    this.children = [];
    this.textContent = "";
    this.append(...parseHtml(html, /** @type {typeof FakeElement} */ (this.constructor)));
    this.textContent = this.children.map((c) => c.textContent).join("");
  }

  /** @param {FakeElement[]} nodes */
  append(...nodes) {
    for (const node of nodes) if (node && typeof node === "object") /** @type {any} */ (node).parentElement = this;
    this.children.push(...nodes);
  }

  /** Element#replaceChildren (https://developer.mozilla.org/en-US/docs/Web/API/Element/replaceChildren): its children replaced by `nodes`. @param {FakeElement[]} nodes */
  replaceChildren(...nodes) {
    for (const child of this.children) if (child && typeof child === "object") /** @type {any} */ (child).parentElement = null;
    this.children = [];
    this.textContent = "";
    this.append(...nodes);
  }

  /** Element#remove: out of its parent. */
  remove() {
    const parent = /** @type {any} */ (this).parentElement;
    if (parent) parent.children = parent.children.filter((/** @type {FakeElement} */ c) => c !== this);
    /** @type {any} */ (this).parentElement = null;
  }

  /**
   * Element#insertAdjacentHTML (https://developer.mozilla.org/en-US/docs/Web/API/Element/insertAdjacentHTML):
   * the fragment parsed (`parseHtml`) and put at `position`; the module uses "beforeend" alone, any
   * other position throws here rather than being guessed at.
   * @param {string} position @param {string} html
   */
  insertAdjacentHTML(position, html) {
    if (position !== "beforeend") throw new Error(`fake DOM: insertAdjacentHTML("${position}") is not modelled`);
    this.append(...parseHtml(html, /** @type {typeof FakeElement} */ (this.constructor)));
    this.textContent += parseHtml(`<div>${html}</div>`)[0].textContent; // text outside any tag too
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

/** Elements HTML closes by itself (https://html.spec.whatwg.org/multipage/syntax.html#void-elements). */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

/** @param {string} text the HTML's character references decoded (numeric, and the five XML ones) */
function decodeEntities(text) {
  const named = /** @type {Record<string, string>} */ ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" });
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] !== "#") return named[ref.toLowerCase()] ?? whole;
    return String.fromCodePoint(ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
  });
}

/**
 * An HTML fragment as elements, the way a browser parses `innerHTML` in outline: tags, their quoted
 * attributes (character references decoded: `data-*` in `dataset`), void elements, text as each
 * element's `textContent` (its own and its descendants'). Enough for the module's chat cards; a
 * malformed fragment throws rather than being guessed at.
 * @param {string} html
 * @param {typeof FakeElement} [Element]
 * @returns {FakeElement[]} the top-level elements
 */
export function parseHtml(html, Element = FakeElement) {
  const top = new Element("template");
  /** @type {FakeElement[]} */
  const open = [top];
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/y;
  const attribute = /\s+([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/y;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const text = html.slice(i, lt < 0 ? html.length : lt);
    if (text) for (const element of open) element.textContent += decodeEntities(text);
    if (lt < 0) break;
    tag.lastIndex = lt;
    const match = tag.exec(html);
    if (!match) throw new Error(`fake DOM: cannot parse the HTML at ${JSON.stringify(html.slice(lt, lt + 40))}`);
    i = tag.lastIndex;
    const [, closing, rawName, attrs, selfClosing] = match;
    const name = rawName.toLowerCase();
    if (closing) {
      let at = open.length - 1;
      while (at > 0 && open[at].tagName !== name.toUpperCase()) at -= 1;
      if (at <= 0) throw new Error(`fake DOM: </${name}> closes nothing`);
      open.length = at;
      continue;
    }
    const element = new Element(name);
    attribute.lastIndex = 0;
    for (let rest = attrs, m; rest && (m = attribute.exec(rest)); ) {
      element.setAttribute(m[1].toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
      if (name === "button" && m[1].toLowerCase() === "type") element.type = m[2] ?? m[3] ?? m[4] ?? "";
    }
    /** @type {FakeElement} */ (open.at(-1)).append(element);
    if (!VOID_ELEMENTS.has(name) && !selfClosing) open.push(element);
  }
  return top.children;
}
