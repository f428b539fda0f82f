/** A scripted WebSocket and a manual clock, to drive BridgeConnection step by step in Node. */

export class ManualClock {
  time = 0;
  /** @type {Array<{at: number, fn: () => void, id: number}>} */
  timers = [];
  #next = 1;
  now = () => this.time;
  /** @param {() => void} fn @param {number} ms */
  setTimeout = (fn, ms) => {
    const id = this.#next++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  };
  /** @param {number} id */
  clearTimeout = (id) => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };
  /** Run every timer due within `ms`. @param {number} ms */
  advance(ms) {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.timers.shift();
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }
  /** The delays of pending timers. */
  pending() {
    return this.timers.map((t) => t.at - this.time);
  }
}

/** Every FakeSocket created, newest last; `server` decides what happens. */
export function fakeSocketClass() {
  /** @type {FakeSocket[]} */
  const sockets = [];
  class FakeSocket {
    /** @param {string} url */
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      /** @type {any[]} */
      this.sent = [];
      /** @type {any} */ this.onopen = null;
      /** @type {any} */ this.onmessage = null;
      /** @type {any} */ this.onclose = null;
      /** @type {any} */ this.onerror = null;
      sockets.push(this);
    }
    /** @param {string} data */
    send(data) {
      this.sent.push(JSON.parse(data));
    }
    /** @param {number} [code] */
    close(code = 1000) {
      this.readyState = 3;
      this.closedWith = code;
    }
    // --- the server side ---
    open() {
      this.readyState = 1;
      this.onopen?.({});
    }
    /** @param {any} message */
    receive(message) {
      this.onmessage?.({ data: JSON.stringify(message) });
    }
    /** @param {number} code */
    drop(code = 1006) {
      this.readyState = 3;
      this.onerror?.({});
      this.onclose?.({ code });
    }
    /** @param {string} type */
    lastOf(type) {
      return [...this.sent].reverse().find((m) => m.type === type);
    }
  }
  return { FakeSocket, sockets };
}

/** Resolve pending promise jobs (a few rounds of the microtask queue). */
export async function flush() {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
