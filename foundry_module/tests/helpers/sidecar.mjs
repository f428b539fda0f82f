/**
 * Starting the real sidecar from the module's tests: a free loopback port, and the command that runs
 * `vtt-bridge serve` (the repository's virtualenv, or `$VTT_BRIDGE_PYTHON -m vtt_bridge`), and
 * `startSidecar` that runs it. A missing sidecar fails the test with a clear message; nothing is
 * skipped.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** A port free on 127.0.0.1 now. @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The command and arguments that run `vtt-bridge serve`. @returns {{cmd: string, args: string[]}} */
export function sidecarCommand() {
  const python = process.env.VTT_BRIDGE_PYTHON;
  if (python) return { cmd: python, args: ["-m", "vtt_bridge", "serve"] };
  const bin = join(repoRoot, ".venv", "bin", "vtt-bridge");
  if (!existsSync(bin)) {
    throw new Error(`no sidecar: ${bin} does not exist (create the venv, or set VTT_BRIDGE_PYTHON)`);
  }
  return { cmd: bin, args: ["serve"] };
}

/** The sidecar's Python: the venv's, or `$VTT_BRIDGE_PYTHON`. */
export function sidecarPython() {
  const bin = process.env.VTT_BRIDGE_PYTHON ?? join(repoRoot, ".venv", "bin", "python");
  if (!existsSync(bin)) throw new Error(`no sidecar Python at ${bin} (create the venv, or set VTT_BRIDGE_PYTHON)`);
  return bin;
}

/**
 * The real sidecar's rulings, one request a line: each line of stdin `[state, actions]`, each line
 * of stdout the answers, ruled on a new `World` with new seeded dice (nothing is kept between two
 * requests); one such Python per test file, which ends when its stdin closes.
 */
const RULINGS_SCRIPT = `
import json, sys
from vtt_bridge.engine.world import World
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.preview import preview
def rule(state, actions):
    w = World("w")
    w.commit(w.prepare_sync({"state": state}), "")
    roller = SeededRoller(7)
    out = []
    for i, action in enumerate(actions):
        if set(action) == {"query"}:
            try:
                q = action["query"]
                out.append(preview(w, q, roller) if q.get("kind") == "preview" else w.query(q))
            except RequestError as exc:
                out.append({"error": {"code": exc.code.value, "message": exc.message}})
            continue
        try:
            pending = w.prepare_action(f"a{i}", action, roller)
        except RequestError as exc:
            out.append({"error": {"code": exc.code.value, "message": exc.message}})
            continue
        w.commit(pending, "")
        out.append(pending.result)
    return out
for line in sys.stdin:
    print(json.dumps(rule(*json.loads(line))), flush=True)
`;

/** @type {{ask: (line: string) => Promise<string>}|null} the test file's rulings process, once started */
let rulings = null;
let inFlight = 0;

/** How many `sidecarRulings` calls wait for their answer now (a test's flow that asks one is not done). */
export function rulingsInFlight() {
  return inFlight;
}

/** The test file's rulings process (started on first use). It keeps Node running only while a request waits. */
function rulingsProcess() {
  if (rulings) return rulings;
  const child = spawn(sidecarPython(), ["-c", RULINGS_SCRIPT], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  /** @type {{resolve: (line: string) => void, reject: (error: Error) => void}[]} */
  const waiting = [];
  let pending = "";
  let errors = "";
  const idle = () => {
    for (const stream of [child.stdout, child.stderr, child.stdin]) /** @type {any} */ (stream).unref?.();
    child.unref();
  };
  const busy = () => {
    for (const stream of [child.stdout, child.stderr, child.stdin]) /** @type {any} */ (stream).ref?.();
    child.ref();
  };
  child.stderr.on("data", (/** @type {Buffer} */ chunk) => void (errors += chunk.toString()));
  child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
    pending += chunk.toString();
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      waiting.shift()?.resolve(line);
    }
    if (waiting.length === 0) idle();
  });
  child.once("exit", (code) => {
    rulings = null;
    for (const request of waiting.splice(0)) request.reject(new Error(`the rulings process exited (${code}):\n${errors}`));
  });
  rulings = {
    ask: (line) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        busy();
        child.stdin.write(`${line}\n`);
      }),
  };
  return rulings;
}

/**
 * Rulings of the real sidecar (its `World`, seeded dice) on a synced state, in order, without a
 * server: each action's `result` payload, or `{error: {code, message}}` for a refused one; an item
 * `{query}` is asked as a query (its `result` payload) between the rulings (a `preview` as the
 * server answers it, `engine/preview.py`, from the same dice). Each call starts afresh (a new world,
 * new dice), in one Python process per test file.
 * @param {Record<string, unknown>} state the `sync` state
 * @param {Record<string, unknown>[]} actions
 * @returns {Promise<any[]>}
 */
export async function sidecarRulings(state, actions) {
  inFlight += 1;
  try {
    return JSON.parse(await rulingsProcess().ask(JSON.stringify([state, actions])));
  } finally {
    inFlight -= 1;
  }
}

/**
 * Run `vtt-bridge serve` on `port` with `dataDir` (neither owned: a restart reuses both); resolves
 * once it listens, rejects with its output when it exits or does not listen within 20 s.
 * `stop(signal)` sends the signal (SIGTERM unless told) and waits for the exit; `extra`: more
 * arguments of `serve` (e.g. `--max-frame`).
 * @param {{token: string, seed?: number, port: number, dataDir: string, extra?: string[]}} options
 * @returns {Promise<{child: import("node:child_process").ChildProcess, output: () => string, stop: (signal?: NodeJS.Signals) => Promise<void>}>}
 */
export async function spawnSidecar({ token, seed = 7, port, dataDir, extra = [] }) {
  const { cmd, args } = sidecarCommand();
  const child = spawn(cmd, [...args, "--port", String(port), "--data-dir", dataDir, "--token", token, "--seed", String(seed), ...extra], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  /** @param {NodeJS.Signals} signal */
  const stop = async (signal = "SIGTERM") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the sidecar did not start:\n${output}`)), 20_000);
      /** @param {Buffer} chunk */
      const onData = (chunk) => {
        output += chunk.toString();
        if (output.includes("listening on")) {
          clearTimeout(timer);
          resolve(undefined);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the sidecar exited (${code}):\n${output}`));
      });
    });
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
  return { child, output: () => output, stop };
}

/**
 * Start `vtt-bridge serve` on a free port with a data folder of its own; resolves once it listens.
 * `stop()` ends it (SIGTERM) and removes the folder; `extra`: more arguments of `serve`.
 * @param {{token: string, seed?: number, extra?: string[]}} options
 * @returns {Promise<{url: string, port: number, output: () => string, stop: () => Promise<void>}>}
 */
export async function startSidecar({ token, seed = 7, extra = [] }) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "vtt-bridge-sidecar-"));
  /** @type {Awaited<ReturnType<typeof spawnSidecar>>} */
  let sidecar;
  try {
    sidecar = await spawnSidecar({ token, seed, port, dataDir, extra });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    port,
    output: sidecar.output,
    async stop() {
      await sidecar.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
