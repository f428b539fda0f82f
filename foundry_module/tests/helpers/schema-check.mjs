/**
 * Every frame the module's end-to-end tests receive is held to the sidecar's own JSON Schema
 * (`vtt-bridge schema`, draft 2020-12), as tests/conftest.py does for the Python tests: a frame the
 * schema does not describe fails the test that received it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** @type {any} */
let schema;

/** The sidecar's JSON Schema, printed by the sidecar itself (run once a test process). */
export function sidecarSchema() {
  schema ??= runSchema();
  return schema;
}

function runSchema() {
  const python = process.env.VTT_BRIDGE_PYTHON;
  const bin = join(repoRoot, ".venv", "bin", "vtt-bridge");
  const [cmd, args] = python ? [python, ["-m", "vtt_bridge", "schema"]] : [bin, ["schema"]];
  if (!python && !existsSync(bin)) throw new Error(`no sidecar: ${bin} does not exist (create the venv, or set VTT_BRIDGE_PYTHON)`);
  const run = spawnSync(cmd, args, { encoding: "utf8", cwd: repoRoot });
  if (run.status !== 0) throw new Error(`vtt-bridge schema failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * A checker of server frames. `strict: false`: pydantic writes OpenAPI's `discriminator` beside
 * `oneOf`, which JSON Schema does not define (the `oneOf` alone decides); formats are not checked.
 */
export function frameChecker() {
  const ajv = new (/** @type {any} */ (Ajv2020).default ?? Ajv2020)({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(sidecarSchema(), "vtt-bridge");
  const validate = ajv.getSchema("vtt-bridge#/$defs/ServerMessage");
  if (!validate) throw new Error("the schema has no $defs/ServerMessage");
  /** @type {string[]} */
  const problems = [];
  let checked = 0;
  return {
    /** @param {string} text one frame as received */
    check(text) {
      checked += 1;
      let frame;
      try {
        frame = JSON.parse(text);
      } catch {
        problems.push(`not JSON: ${text.slice(0, 200)}`);
        return;
      }
      if (!validate(frame)) problems.push(`${ajv.errorsText(validate.errors)}: ${text.slice(0, 300)}`);
    },
    /** @returns {{checked: number, problems: string[]}} */
    get report() {
      return { checked, problems: [...problems] };
    },
  };
}

/**
 * The `ws` package's WebSocket with every received text frame checked first.
 * @param {any} WebSocketClass
 * @param {ReturnType<typeof frameChecker>} checker
 */
export function checkedWebSocket(WebSocketClass, checker) {
  return class CheckedWebSocket extends WebSocketClass {
    /** @param {any[]} args */
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (/** @type {{data: unknown}} */ event) => checker.check(String(event.data)));
    }
  };
}
