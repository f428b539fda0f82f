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

/**
 * Start `vtt-bridge serve` on a free port with a data folder of its own; resolves once it listens.
 * `stop()` ends it (SIGTERM) and removes the folder.
 * @param {{token: string, seed?: number}} options
 * @returns {Promise<{url: string, port: number, output: () => string, stop: () => Promise<void>}>}
 */
export async function startSidecar({ token, seed = 7 }) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "vtt-bridge-sidecar-"));
  const { cmd, args } = sidecarCommand();
  const child = spawn(cmd, [...args, "--port", String(port), "--data-dir", dataDir, "--token", token, "--seed", String(seed)], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
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
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
