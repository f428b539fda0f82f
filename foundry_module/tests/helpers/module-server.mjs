/**
 * The module's files over http on 127.0.0.1, as Foundry would serve them, for the tests that load
 * them in headless Chromium (e2e, pixi). Nothing under node_modules is served but the files named in
 * `extra`; `/favicon.ico` answers 204 so the browser logs no error for it.
 */

import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES = Object.freeze({ ".mjs": "text/javascript", ".js": "text/javascript", ".html": "text/html", ".json": "application/json" });

/**
 * Start the server; `close()` stops it.
 * @param {string} moduleRoot the folder served as `/`
 * @param {{extra?: readonly string[]}} [options] absolute paths served although under node_modules
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function serveModuleFiles(moduleRoot, { extra = [] } = {}) {
  const server = createServer((req, res) => {
    if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const path = normalize(join(moduleRoot, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
    const allowed = extra.includes(path) || (path.startsWith(moduleRoot + sep) && !path.includes(`${sep}node_modules${sep}`));
    if (!allowed || !existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": /** @type {Record<string, string>} */ (TYPES)[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  return {
    origin: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
