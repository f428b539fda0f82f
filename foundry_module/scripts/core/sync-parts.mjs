/**
 * Splitting a `sync` state into parts that each fit one websocket frame (PROTOCOL.md "Sending a
 * large sync in parts"): every part but the last is sent with `more: true`, and the sidecar merges
 * them in order, `actors` and `tokens` entry by entry, any other key (`scene`, `settings`) replaced
 * by the later part that has it. Pure: no I/O, the state is not changed.
 * @module sync-parts
 */

/**
 * The most bytes one `sync` frame may take: half the sidecar's default 1 MiB `--max-frame`, so a
 * part fits with room to spare even when the GM's entries are large.
 */
export const SYNC_PART_BYTES = 512 * 1024;

/**
 * The bytes per `sync` frame for a sidecar whose `welcome` says it takes frames of up to
 * `maxFrame` characters (a character is at least one byte of UTF-8, so a frame of that many bytes
 * fits): `SYNC_PART_BYTES`, or less for a sidecar started with a smaller `--max-frame`. A `welcome`
 * without it (an older sidecar) gets `SYNC_PART_BYTES`.
 * @param {unknown} maxFrame `welcome.maxFrame`
 * @returns {number}
 */
export function partBudget(maxFrame) {
  if (typeof maxFrame !== "number" || !Number.isInteger(maxFrame) || maxFrame <= 0) return SYNC_PART_BYTES;
  return Math.min(SYNC_PART_BYTES, maxFrame);
}

/**
 * What the envelope around a part's payload adds at most: `{"v":1,"id":"…","type":"sync",
 * "payload":…}` with an id of up to 200 characters (the protocol's limit) is under 256 bytes.
 */
export const ENVELOPE_BYTES = 256;

/** The keys whose entries may be spread over several parts. */
const SPLIT_KEYS = /** @type {const} */ (["actors", "tokens"]);

const encoder = new TextEncoder();

/**
 * UTF-8 bytes of a JSON text (what the frame carries).
 * @param {string} text
 * @returns {number}
 */
function bytes(text) {
  return encoder.encode(text).byteLength;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isMap(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The parts of a `sync` state, in order. Each part's frame (`{state: part, more: true}` in the
 * envelope) stays under `budget` bytes unless it holds a single entry that is larger on its own
 * (then that entry travels alone, and the sidecar answers `too_large` as it would for the whole).
 * A state that fits is one part: the state itself. Every key but `actors` and `tokens` (`scene`,
 * `settings`) is in the first part; `actors` then `tokens` follow entry by entry, in their order, so
 * merging the parts as the sidecar does gives back the state (a token's actor may be in another
 * part: the sidecar rules on the merged whole).
 * @param {Record<string, any>} state
 * @param {number} [budget] bytes per frame
 * @returns {Record<string, any>[]}
 */
export function syncParts(state, budget = SYNC_PART_BYTES) {
  if (bytes(JSON.stringify({ state, more: true })) + ENVELOPE_BYTES <= budget) return [state];
  /** @type {Record<string, any>} */
  const head = {};
  for (const [key, value] of Object.entries(state)) {
    if (!(SPLIT_KEYS.includes(/** @type {any} */ (key)) && isMap(value))) head[key] = value;
  }
  /** @type {Record<string, any>[]} */
  const parts = [head];
  let part = head;
  // a part's frame with empty maps of entries; each entry adds `"id":value,`
  let used = bytes(JSON.stringify({ state: { actors: {}, tokens: {}, ...head }, more: true })) + ENVELOPE_BYTES;
  const emptyPart = bytes(JSON.stringify({ state: { actors: {}, tokens: {} }, more: true })) + ENVELOPE_BYTES;
  for (const key of SPLIT_KEYS) {
    const members = state[key];
    if (!isMap(members)) continue;
    for (const [id, value] of Object.entries(members)) {
      const json = JSON.stringify(value);
      if (json === undefined) continue; // JSON.stringify of the whole would leave it out too
      const size = bytes(JSON.stringify(id)) + 1 + bytes(json) + 1;
      if (Object.keys(part).length > 0 && used + size > budget) {
        part = {};
        parts.push(part);
        used = emptyPart;
      }
      (part[key] ??= {})[id] = value;
      used += size;
    }
  }
  return parts;
}
