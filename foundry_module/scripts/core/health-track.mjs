/**
 * The Health track on a token, as data: which boxes to draw and where, the status and wound penalty
 * texts, who may see them, and the condition/emotion point counters. PURE: no Foundry or PIXI
 * globals; `drawing.mjs` turns the results into PIXI objects and `health-canvas.mjs` wires them.
 *
 * The sidecar rules the track (HEALTH-1..12); this module only mirrors its shape: `max` boxes
 * (temporary changes of max are already counted in `max`, `temporaryMax` only records them), filled
 * aggravated first, then lethal, then bashing, the rest healthy (the CofD way of writing a track).
 * @module health-track
 */

import { pointNameKey } from "./chat-cards.mjs";

/** @typedef {"aggravated"|"lethal"|"bashing"|"healthy"} BoxKind */

/** The box kinds in track order (leftmost first). */
export const BOX_KINDS = Object.freeze(/** @type {const} */ (["aggravated", "lethal", "bashing", "healthy"]));

/** The `status` values the sidecar derives (HEALTH-6). */
export const HEALTH_STATUSES = Object.freeze(["unharmed", "lightly", "moderately", "badly", "dying", "dead"]);

/**
 * Above this many boxes the track is not drawn (`tooMany` in the layout): even at the minimum box
 * size it would cover a large part of the scene. No rulebook creature comes near.
 */
export const MAX_DRAWN_BOXES = 120;

/**
 * @typedef {object} LayoutOptions
 * @property {number} width the token's width in pixels; the track is never wider
 * @property {number} [minBox] smallest readable box side in pixels (below it, boxes wrap onto more rows)
 * @property {number} [maxBox] largest box side in pixels
 * @property {number} [gap] pixels between two boxes of a row, and between two rows
 */

/**
 * @typedef {object} Box
 * @property {BoxKind} kind
 * @property {number} index position in track order, 0 = leftmost of the first row
 * @property {number} x left edge, pixels from the token's left edge
 * @property {number} y top edge, pixels from the track's top
 * @property {number} size side of the square box in pixels
 */

/**
 * @typedef {object} TrackLayout
 * @property {Box[]} boxes in track order
 * @property {{aggravated: number, lethal: number, bashing: number, healthy: number}} counts
 * @property {number} boxSize
 * @property {number} columns boxes per full row
 * @property {number} rows
 * @property {number} width pixels the boxes span (≤ the token width)
 * @property {number} height pixels the rows span
 * @property {number} tokenWidth the token width the layout was made for (pixels, floored)
 * @property {number} tempHp temporary Health points (HEALTH-11), drawn as a counter, not as boxes
 * @property {boolean} tooMany more than MAX_DRAWN_BOXES boxes: nothing drawn
 */

/** A layout that draws nothing. */
function emptyLayout(tempHp = 0, tooMany = false, tokenWidth = 0) {
  return {
    tokenWidth,
    boxes: [],
    counts: { aggravated: 0, lethal: 0, bashing: 0, healthy: 0 },
    boxSize: 0,
    columns: 0,
    rows: 0,
    width: 0,
    height: 0,
    tempHp,
    tooMany,
  };
}

/**
 * A non-negative integer, or `fallback` for anything else.
 * @param {unknown} value
 * @param {number} [fallback]
 */
function count(value, fallback = 0) {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

/**
 * A positive finite number of pixels, floored, or `fallback`.
 * @param {unknown} value
 * @param {number} fallback
 */
function pixels(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

/**
 * The boxes of the flag `health` (`{max, bashing, lethal, aggravated, tempHp, temporaryMax, ...}`)
 * and their rectangles on a token `width` pixels wide: one row while every box fits at `minBox`
 * pixels or more, else as many rows as needed (the rows as even as possible), centred, never wider
 * than the token, never overlapping. Malformed or missing data gives an empty layout, never an error.
 * @param {unknown} health
 * @param {LayoutOptions} options
 * @returns {TrackLayout}
 */
export function healthTrackLayout(health, { width, minBox = 8, maxBox = 16, gap = 2 }) {
  const w = pixels(width, 0);
  if (!health || typeof health !== "object" || Array.isArray(health)) return emptyLayout(0, false, w);
  const h = /** @type {Record<string, unknown>} */ (health);
  const tempHp = count(h.tempHp);
  const max = count(h.max, -1);
  if (max <= 0) return emptyLayout(tempHp, false, w);
  if (max > MAX_DRAWN_BOXES) return emptyLayout(tempHp, true, w);
  const smallest = Math.max(1, pixels(minBox, 8));
  const largest = Math.max(smallest, pixels(maxBox, 16));
  const space = pixels(gap, 2);
  if (w < 1) return emptyLayout(tempHp, false, w);

  // the sidecar guarantees B + L + A ≤ max; should a flag say otherwise, the heavier grades win
  const aggravated = Math.min(count(h.aggravated), max);
  const lethal = Math.min(count(h.lethal), max - aggravated);
  const bashing = Math.min(count(h.bashing), max - aggravated - lethal);
  const counts = { aggravated, lethal, bashing, healthy: max - aggravated - lethal - bashing };

  /** @param {number} columns */
  const sideFor = (columns) => Math.floor((w - (columns - 1) * space) / columns);
  let columns = max;
  if (sideFor(max) < smallest) {
    // wrap: as many columns as fit at the smallest size, then rows as even as possible
    const fit = Math.max(1, Math.floor((w + space) / (smallest + space)));
    columns = Math.ceil(max / Math.ceil(max / fit));
  }
  const size = Math.min(largest, Math.max(1, sideFor(columns)));
  // a token narrower than one box: one column of boxes as wide as the token
  const side = Math.min(size, w);
  const step = columns > 1 ? side + space : side;
  const rows = Math.ceil(max / columns);
  const spanned = columns * side + (columns - 1) * space;
  const left = Math.max(0, Math.floor((w - spanned) / 2));

  /** @type {Box[]} */
  const boxes = [];
  for (const kind of BOX_KINDS) {
    for (let i = 0; i < counts[kind]; i++) {
      const index = boxes.length;
      boxes.push({ kind, index, x: left + (index % columns) * step, y: Math.floor(index / columns) * (side + space), size: side });
    }
  }
  return {
    boxes,
    counts,
    boxSize: side,
    columns,
    rows,
    width: Math.min(spanned, w),
    height: rows * side + (rows - 1) * space,
    tempHp,
    tooMany: false,
    tokenWidth: w,
  };
}

/**
 * The localization key of the status text (`status` flag), or null when the flag is missing or unknown.
 * @param {unknown} status
 * @returns {string|null}
 */
export function statusTextKey(status) {
  return typeof status === "string" && HEALTH_STATUSES.includes(status) ? `VTTBRIDGE.HealthTrack.Status.${status}` : null;
}

/**
 * The wound penalty text (HEALTH-7; the sidecar's `woundPenalty`, present while the optional rule is
 * on): "−N" (a real minus sign) when N > 0, else null.
 * @param {unknown} woundPenalty
 * @returns {string|null}
 */
export function woundPenaltyText(woundPenalty) {
  const n = count(woundPenalty);
  return n > 0 ? `\u2212${n}` : null;
}

/**
 * Whether this user sees a token's Health boxes under the world setting "who sees Health boxes":
 * the GM always; "everyone" everyone; "owner" (also the fallback for an unknown value) the owners;
 * "gm" the GM only.
 * @param {{setting: unknown, isGM: boolean, isOwner: boolean}} args
 */
export function canSeeHealth({ setting, isGM, isOwner }) {
  if (isGM) return true;
  if (setting === "everyone") return true;
  if (setting === "gm") return false;
  return !!isOwner;
}

/** Derived Health conditions only a user who sees the boxes sees on a token ("dead" stays public). */
export const PRIVATE_HEALTH_STATUSES = Object.freeze(["unconscious", "worsening", "dying"]);

/**
 * How much of a token's Health this user reads (HEALTH-6), from "who sees Health boxes": "boxes"
 * (the track, the derived status icons, the boxes, IWR and dice pools in cards) where
 * `canSeeHealth` allows; else "words" (the rulebook's Health status word only) under "owner" or an
 * unknown value; else "none" under "gm" (only "dead" stays public).
 * @param {{setting: unknown, isGM: boolean, isOwner: boolean}} args
 * @returns {"boxes"|"words"|"none"}
 */
export function healthDetail(args) {
  if (canSeeHealth(args)) return "boxes";
  return args.setting === "gm" ? "none" : "words";
}

/**
 * The status ids a token shows this user: all of them with "boxes", else without the private
 * derived Health conditions.
 * @param {Iterable<string>} statuses
 * @param {"boxes"|"words"|"none"} detail
 * @returns {string[]}
 */
export function shownStatuses(statuses, detail) {
  const all = [...statuses];
  return detail === "boxes" ? all : all.filter((id) => !PRIVATE_HEALTH_STATUSES.includes(id));
}

/**
 * Who reads a public card's detail (boxes, IWR, dice pools) about the `named` tokens and actors:
 * the users for whom every named one is "boxes". `split` is false when every user may (the card
 * stays one public card); else the detail is whispered to `detailTo` and a public line carries,
 * per named one, its Health status word when the setting allows words (`words`).
 * @param {{named: string[], users: Array<{id: string, isGM: boolean}>, setting: unknown, isOwner: (id: string, user: {id: string, isGM: boolean}) => boolean}} args
 * @returns {{split: boolean, detailTo: string[], words: boolean}}
 */
export function healthAudience({ named, users, setting, isOwner }) {
  const allowed = users.filter((user) => named.every((id) => healthDetail({ setting, isGM: user.isGM, isOwner: isOwner(id, user) }) === "boxes"));
  return { split: allowed.length < users.length, detailTo: allowed.map((u) => u.id), words: setting !== "gm" };
}

/**
 * @typedef {object} Counter
 * @property {"tempHp"|"condition"|"emotion"} kind
 * @property {string} id the condition or emotion id (`tempHp` for temporary Health)
 * @property {number} value
 */

/**
 * @param {unknown} points
 * @param {"condition"|"emotion"} kind
 * @returns {Counter[]}
 */
function pointCounters(points, kind) {
  if (!points || typeof points !== "object" || Array.isArray(points)) return [];
  return Object.entries(points)
    .filter(([, value]) => count(value) > 0)
    .map(([id, value]) => ({ kind, id, value: /** @type {number} */ (value) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The small counters drawn beside the track, non-zero only, in a stable order: temporary Health
 * (`health.tempHp`), then condition points (`conditionPoints`, id → count), then emotion points
 * (`emotionPoints`), each group by id. A GM sees e.g. "poison 3" at a glance.
 * @param {unknown} actorFlags the actor's `flags["vtt-bridge"]`
 * @returns {Counter[]}
 */
export function conditionCounters(actorFlags) {
  if (!actorFlags || typeof actorFlags !== "object") return [];
  const flags = /** @type {Record<string, any>} */ (actorFlags);
  const health = flags.health && typeof flags.health === "object" ? flags.health : {};
  const tempHp = count(health.tempHp);
  return [
    ...(tempHp > 0 ? [{ kind: /** @type {const} */ ("tempHp"), id: "tempHp", value: tempHp }] : []),
    ...pointCounters(flags.conditionPoints, "condition"),
    ...pointCounters(flags.emotionPoints, "emotion"),
  ];
}

/**
 * The localization key of a counter's label: "temp. Health", or the name of the condition or
 * emotion point kind (the words the chat cards use). A kind without a name shows its id.
 * @param {Counter} counter
 * @returns {string}
 */
export function counterLabelKey(counter) {
  return counter.kind === "tempHp" ? "VTTBRIDGE.HealthTrack.TempHp" : pointNameKey(counter.id);
}

/** The client setting "where the Health track sits" and its choices (this browser only). */
export const TRACK_PLACEMENT_SETTING = "trackPlacement";
export const TRACK_PLACEMENTS = Object.freeze(/** @type {const} */ (["below", "inside", "hover"]));

/** The smallest side of a Health box on screen, in screen pixels, at any canvas zoom. */
export const MIN_SCREEN_BOX = 8;
/** The smallest status text on screen, in screen pixels. */
export const MIN_SCREEN_FONT = 9;
/** The track grows at most this many times its size as the canvas zooms out. */
export const MAX_TRACK_SCALE = 4;

/**
 * How much larger the track is drawn at canvas zoom `zoom` (1 = 100 %): 1 when zoomed in or at
 * 100 %, else 1/zoom (in quarter steps, up to MAX_TRACK_SCALE), so a box of at least
 * MIN_SCREEN_BOX × scale canvas pixels is at least MIN_SCREEN_BOX pixels on screen.
 * @param {unknown} zoom
 * @returns {number}
 */
export function trackScale(zoom) {
  const z = typeof zoom === "number" && Number.isFinite(zoom) && zoom > 0 ? zoom : 1;
  return Math.min(MAX_TRACK_SCALE, Math.max(1, Math.ceil(4 / z) / 4));
}

/**
 * Where the track of a token sits and whether it shows, by the placement setting: "below" the token
 * (the default, also for an unknown value), "inside" it along its bottom edge, or "hover": below,
 * only while the token is hovered (or controlled).
 * @param {{placement: unknown, hovered: boolean, tokenHeight: number, trackHeight: number}} args
 * @returns {{shown: boolean, y: number, inside: boolean}}
 */
export function trackPlacement({ placement, hovered, tokenHeight, trackHeight }) {
  if (placement === "inside") return { shown: true, y: Math.max(0, Math.floor(tokenHeight - trackHeight - 2)), inside: true };
  return { shown: placement !== "hover" || hovered, y: tokenHeight + 2, inside: false };
}

/**
 * Everything one token shows, from its actor's flags: the layout, the status key, the penalty text
 * and the counters. `null` when the actor has no Health flag at all (an actor the sidecar never saw).
 * No wound penalty is shown on the dead (HEALTH-7 penalises rolls; the dead roll nothing).
 * @param {unknown} actorFlags the actor's `flags["vtt-bridge"]`
 * @param {LayoutOptions} options
 */
export function healthTrackView(actorFlags, options) {
  if (!actorFlags || typeof actorFlags !== "object") return null;
  const flags = /** @type {Record<string, unknown>} */ (actorFlags);
  if (!flags.health || typeof flags.health !== "object") return null;
  return {
    layout: healthTrackLayout(flags.health, options),
    statusKey: statusTextKey(flags.status),
    penalty: flags.status === "dead" ? null : woundPenaltyText(flags.woundPenalty),
    counters: conditionCounters(flags),
  };
}
