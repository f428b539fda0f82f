/**
 * Starting the real sidecar from the module's tests: a free loopback port, and the command that runs
 * `vtt-bridge serve` (the repository's virtualenv, or `$VTT_BRIDGE_PYTHON -m vtt_bridge`). A missing
 * sidecar fails the test with a clear message; nothing is skipped.
 */
import { existsSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
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
