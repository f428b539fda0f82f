/**
 * A PixiJS stand-in for Node tests of the canvas wiring (real PixiJS runs in the Chromium tests):
 * a display object tree with what the module's code touches, and Graphics that record their calls.
 */

export class FakeDisplay {
  constructor() {
    /** @type {any[]} */
    this.children = [];
    /** @type {any} */
    this.parent = null;
    this.visible = true;
    this.destroyed = false;
    this.name = "";
    this.x = 0;
    this.y = 0;
    this.width = 10;
    this.height = 10;
    /** @type {any[]|null} */
    this.filters = null;
    // `position.set` moves the object (x, y) and keeps `position.x/y` in step, as PIXI's does
    this.position = {
      x: 0,
      y: 0,
      set: (/** @type {number} */ x, /** @type {number} */ y) => {
        Object.assign(this, { x, y });
        Object.assign(this.position, { x, y });
      },
    };
    /** @type {{x: number, y: number, set: (x: number, y?: number) => void}} */
    this.scale = {
      x: 1,
      y: 1,
      set: (/** @type {number} */ x, /** @type {number} */ y = x) => Object.assign(this.scale, { x, y }),
    };
    this.anchor = { set: () => {} };
    /** @type {Array<[string, ...any[]]>} */
    this.calls = [];
    /** @type {Map<string, Function[]>} listeners: a display object is an EventEmitter (`on`, `emit`) */
    this.listeners = new Map();
  }
  /** @param {string} event @param {Function} fn */
  on(event, fn) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
    return this;
  }
  /** @param {string} event @param {...any} args */
  emit(event, ...args) {
    for (const fn of this.listeners.get(event) ?? []) fn(...args);
    return (this.listeners.get(event) ?? []).length > 0;
  }
  /**
   * Container#addChild: a child already in a container is taken out of it first, so adding a child
   * again moves it to the top (https://pixijs.download/v7.4.2/docs/PIXI.Container.html#addChild).
   * @param {...any} children
   */
  addChild(...children) {
    for (const child of children) {
      child.parent?.removeChild?.(child);
      child.parent = this;
      this.children.push(child);
    }
    return children[0];
  }
  /** Container#removeChild. @param {any} child */
  removeChild(child) {
    this.children = this.children.filter((/** @type {any} */ c) => c !== child);
    if (child) child.parent = null;
    return child;
  }
  /**
   * PIXI's `toLocal(position, from)`: a point of `from`'s space in this object's space (positions
   * and scales of both parent chains).
   * @param {{x: number, y: number}} point @param {any} [from]
   */
  toLocal(point, from) {
    /** @param {any} node @param {{x: number, y: number}} p */
    const toGlobal = (node, p) => {
      let { x, y } = p;
      for (let n = node; n; n = n.parent) ({ x, y } = { x: n.x + x * n.scale.x, y: n.y + y * n.scale.y });
      return { x, y };
    };
    const global = from ? toGlobal(from, point) : point;
    /** @type {any[]} */
    const chain = [];
    for (let n = /** @type {any} */ (this); n; n = n.parent) chain.unshift(n);
    let { x, y } = global;
    for (const n of chain) ({ x, y } = { x: (x - n.x) / n.scale.x, y: (y - n.y) / n.scale.y });
    return { x, y };
  }
  removeChildren() {
    const removed = this.children;
    this.children = [];
    for (const c of removed) c.parent = null;
    return removed;
  }
  destroy() {
    this.destroyed = true;
    if (this.parent) this.parent.children = this.parent.children.filter((/** @type {any} */ c) => c !== this);
    this.parent = null;
  }
}

/** @param {string} name */
const record = (name) =>
  /** @this {any} @param {any[]} args */
  function (...args) {
    this.calls.push([name, ...args]);
    return this;
  };

export class FakeGraphics extends FakeDisplay {}
for (const m of ["clear", "lineStyle", "beginFill", "endFill", "drawRect", "drawRoundedRect", "drawCircle", "drawPolygon", "moveTo", "lineTo"]) {
  // @ts-ignore
  FakeGraphics.prototype[m] = record(m);
}

export class FakeText extends FakeDisplay {
  /** @param {string} [text] */
  constructor(text = "") {
    super();
    this.text = text;
  }
}

/** PIXI.Point: a pair of coordinates. */
export class FakePoint {
  constructor(x = 0, y = 0) {
    this.x = x;
    this.y = y;
  }
}

/** The `PIXI` namespace the module's drawing gets in Node tests. */
export const FAKE_PIXI = /** @type {any} */ ({ Container: FakeDisplay, Graphics: FakeGraphics, Text: FakeText, BlurFilter: class {}, Point: FakePoint });
