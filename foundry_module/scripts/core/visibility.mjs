/**
 * Who sees what on this client, as pure decisions. The sidecar rules per pair of
 * tokens how an observer locates a target (DET-4); the module writes it on the TARGET token as
 * `flags.vtt-bridge.visibility.<observer token id>`: the pair's code (`a` approximate, `u`
 * unlocated, `LOCATE_CODES`), absent when pinpointed. This file turns those flags plus "who is
 * looking on this client" into one render decision per token, and the GM overlay's data.
 * No Foundry globals: everything is passed in (Foundry-shaped plain objects in the tests).
 * @module visibility
 */

import { LOCATE_CODES, LOCATE_STATES, MODULE_ID, VISIBILITY_FLAG } from "./constants.mjs";
import { cssLineStyle, END_GLYPHS, locateLook, PALETTES } from "./palette.mjs";

/** @typedef {import("./_types.mjs").LocateState} LocateState */

/**
 * Rank of each state for "the best observer counts": lower is better. A missing ruling ranks with
 * "pinpointed" (Foundry decides, exactly as without the module).
 * @type {Readonly<Record<LocateState, number>>}
 */
export const LOCATE_RANK = Object.freeze({ pinpointed: 0, approximate: 1, unlocated: 2 });

/**
 * The state an unreadable ruling counts as: "unlocated". A ruling exists for the pair (the sidecar
 * wrote something) but this client cannot read it, e.g. a newer sidecar's state name or a hand-edited
 * flag. Drawing the token normally could show a player what the sidecar meant to hide, and a leak
 * cannot be taken back; hiding it wrongly is visible to the GM (the overlay marks the pair as
 * malformed) and is undone by the next correct write. Another observer of the same user that
 * locates the token still wins (best state counts).
 * @type {LocateState}
 */
export const MALFORMED_STATE = "unlocated";

/**
 * Read one flag value: a code (`a`, `u`), or a state's name as a module before 0.4.0 wrote it;
 * anything else is unreadable (unlocated, `malformed`).
 * @param {unknown} value
 * @returns {{state: LocateState, malformed: boolean}}
 */
export function parseLocateState(value) {
  if (typeof value !== "string") return { state: MALFORMED_STATE, malformed: true };
  if (Object.hasOwn(LOCATE_CODES, value)) return { state: LOCATE_CODES[/** @type {keyof typeof LOCATE_CODES} */ (value)], malformed: false };
  // the state's name: a flag an older module wrote (the first sync rewrites it as its code)
  if (/** @type {readonly string[]} */ (LOCATE_STATES).includes(value)) return { state: /** @type {LocateState} */ (value), malformed: false };
  return { state: MALFORMED_STATE, malformed: true };
}

/**
 * The visibility flag of a token document (or of its `flags`), or undefined.
 * @param {{flags?: Record<string, any>}|null|undefined} tokenDocument
 * @returns {unknown}
 */
export function visibilityFlagOf(tokenDocument) {
  return tokenDocument?.flags?.[MODULE_ID]?.[VISIBILITY_FLAG];
}

/**
 * @typedef {object} ObserverCandidate one token of the viewed scene, as this client sees it
 * @property {string} id token id
 * @property {boolean} [controlled] this user controls it
 * @property {boolean} [observable] this user may see through it (OBSERVER permission or better)
 * @property {boolean} [hasSight] the token has vision enabled
 * @property {boolean} [hidden] the token is hidden by the GM (document.hidden)
 */

/**
 * @typedef {object} Observers
 * @property {"controlled"|"owned"|"all"|"none"} source where they come from: "all" = a GM who
 *   controls no token with sight (sees everything); "none" = a player with no token to look through
 * @property {string[]} ids the observer token ids (empty for "all" and "none")
 */

/**
 * This client's observers, following Foundry's rule for vision sources (research §2.1): the tokens
 * the user controls that have sight (a hidden one only for a GM); if none, for a player the tokens
 * they may observe (OBSERVER permission) that have sight and are not hidden; a GM with none
 * sees everything. With token vision off on the scene, sight is not required (Foundry then has no
 * vision sources, but the sidecar's rulings still apply to who the user looks through).
 * @param {{isGM: boolean, tokens: Iterable<ObserverCandidate>, tokenVision?: boolean}} input
 * @returns {Observers}
 */
export function observersFor({ isGM, tokens, tokenVision = true }) {
  const all = [...tokens];
  /** @param {ObserverCandidate} t */
  const sees = (t) => (!tokenVision || !!t.hasSight) && (isGM || !t.hidden);
  const controlled = all.filter((t) => t.controlled && sees(t)).map((t) => t.id);
  if (controlled.length) return { source: "controlled", ids: controlled };
  if (isGM) return { source: "all", ids: [] };
  const owned = all.filter((t) => t.observable && sees(t)).map((t) => t.id);
  return owned.length ? { source: "owned", ids: owned } : { source: "none", ids: [] };
}

/**
 * How the best of the observers locates the target. The flag is sparse (docs/protocol.md): it holds
 * only the observers that do not pinpoint the target, so an observer without an entry pinpoints it.
 * `null` = no ruling applies (no observers, or no flag at all): Foundry draws the token as it would
 * anyway, as it does a pinpointed one. A pinpointing observer wins; then approximate; then unlocated.
 * A present entry that is unreadable counts as unlocated, and a flag that is present but not an
 * object as an unreadable ruling for every observer.
 * @param {unknown} visibilityFlag the target token's `flags.vtt-bridge.visibility`
 * @param {Iterable<string>} observerIds
 * @returns {LocateState|null}
 */
export function locateStateFor(visibilityFlag, observerIds) {
  if (visibilityFlag === undefined || visibilityFlag === null) return null;
  const readable = typeof visibilityFlag === "object" && !Array.isArray(visibilityFlag);
  /** @type {LocateState|null} */
  let best = null; // also the answer without observers
  let bestRank = Infinity;
  for (const id of observerIds) {
    /** @type {LocateState|null} */
    let state;
    if (!readable) state = MALFORMED_STATE;
    else if (!Object.hasOwn(visibilityFlag, id)) state = "pinpointed"; // absent: pinpointed (sparse)
    else state = parseLocateState(/** @type {Record<string, unknown>} */ (visibilityFlag)[id]).state;
    if (state === "pinpointed") return "pinpointed";
    const rank = state === null ? 0.5 : LOCATE_RANK[state];
    if (rank < bestRank) {
      bestRank = rank;
      best = state;
    }
  }
  return best;
}

/**
 * @typedef {object} Presentation one client's answer to every render decision for one token
 * @property {LocateState|null} state the state that was applied (null: no ruling, or the viewer's own token)
 * @property {boolean} drawn the token is drawn at all (false: unlocated)
 * @property {boolean} coreVisibility when drawn, Foundry's own test (walls, light, hidden) still decides
 * @property {boolean} silhouette drawn as the anonymous blurred silhouette instead of its art
 * @property {boolean} identityHidden silhouette or not drawn: nothing that names the token may show
 * @property {boolean} art the token's image, ring and mesh
 * @property {boolean} name the name plate
 * @property {boolean} bars the resource bars
 * @property {boolean} effects the status/effect icons
 * @property {boolean} tooltip the hover text / elevation tooltip
 * @property {boolean} targetMarkers target arrows and pips
 * @property {boolean} turnMarker the combat turn marker on the canvas
 * @property {boolean} hud the token HUD (right click)
 * @property {boolean} hover hover interactions (hover name, highlight)
 * @property {boolean} control selecting / controlling it
 * @property {boolean} view opening its sheet by double click
 * @property {boolean} drag dragging it
 * @property {boolean} targetable the user may target it
 * @property {boolean} inCombatTracker its row (and turn) is listed in the combat tracker
 * @property {"core"|"neutral"} border "neutral": no disposition colour on the border
 * @property {boolean} emitsLight its light source shines on this client (see `presentationFor`)
 * @property {{x: number, y: number, r: number}|null} area approximate with an area: the token is not
 *   drawn at all, a neutral marker over this area stands for it (`core/areas.mjs`, DET-4)
 */

/** @type {Readonly<Presentation>} */
const CORE = Object.freeze({
  state: null,
  drawn: true,
  coreVisibility: true,
  silhouette: false,
  identityHidden: false,
  art: true,
  name: true,
  bars: true,
  effects: true,
  tooltip: true,
  targetMarkers: true,
  turnMarker: true,
  hud: true,
  hover: true,
  control: true,
  view: true,
  drag: true,
  targetable: true,
  inCombatTracker: true,
  border: "core",
  emitsLight: true,
  area: null,
});

/** @type {Readonly<Presentation>} CORE for a target the observers pinpoint */
const PINPOINTED = Object.freeze({ ...CORE, state: /** @type {const} */ ("pinpointed") });

/**
 * Every render decision for one token on this client. "true" never grants more than Foundry
 * would: the wiring asks Foundry too (e.g. `hud: true` means "Foundry's own `_canHUD` decides").
 *
 * - the viewer's own token (controlled, or owned by a player, or one of this client's observers):
 *   exactly as Foundry draws it. A GM owns every document by role, so for a GM only the tokens
 *   they control count as their own; otherwise a GM previewing through a token would see nothing;
 * - pinpointed or no ruling: exactly as Foundry draws it;
 * - approximate: drawn even where Foundry's sight test fails (the observer knows roughly where it
 *   is), except a token the GM hid (`hidden`) for a player; shown as an anonymous silhouette: no
 *   art, name, bars, effects, tooltip, core target markers, turn marker, neutral border; for a player
 *   no HUD, hover, control, sheet, drag, combat tracker row; targetable (DET-10: an attack on it
 *   counts half), its target marker drawn on the silhouette only (`silhouetteMarker`);
 * - unlocated: not drawn (and, like a token the GM hid in core, its light does not shine on this
 *   client, since a moving light would show where it is); for a player also not targetable and not
 *   in the tracker.
 * A GM previewing through controlled tokens sees the same picture as the player would, but keeps
 * every interaction and the full combat tracker (nothing there is a secret from the GM).
 * - approximate with an area (the sidecar's `areas`, chosen by `core/areas.mjs` `areaFor`): as
 *   approximate, but the token itself is not drawn anywhere (its square, size and moves would tell
 *   where it is) and its light does not shine here; a neutral marker over the area stands for it,
 *   targetable (DET-10).
 * @param {{state: LocateState|null, isGM: boolean, isOwner?: boolean, isControlled?: boolean,
 *   isObserver?: boolean, hidden?: boolean, area?: {x: number, y: number, r: number}|null}} input
 *   `isOwner`: the user owns the token (ignored for a GM); `isObserver`: it is one of this client's
 *   observers; `hidden`: the GM hid it (document.hidden); `area`: the area it is drawn by when approximate
 * @returns {Presentation}
 */
export function presentationFor({ state, isGM, isOwner = false, isControlled = false, isObserver = false, hidden = false, area = null }) {
  const own = isControlled || isObserver || (!isGM && isOwner);
  // the common answers are shared frozen objects: `isVisible` asks for every token on every refresh
  if (own || state === null) return CORE;
  if (state === "pinpointed") return PINPOINTED;
  const player = !isGM;
  // Not pinpointed: nothing that names or describes the token, and for players no interaction.
  const anonymous = {
    ...CORE,
    state,
    identityHidden: true,
    art: false,
    name: false,
    bars: false,
    effects: false,
    tooltip: false,
    targetMarkers: false,
    turnMarker: false,
    hud: !player,
    hover: !player,
    control: !player,
    view: !player,
    drag: !player,
    targetable: !player,
    inCombatTracker: !player,
    border: /** @type {const} */ ("neutral"),
  };
  if (state === "unlocated") return { ...anonymous, drawn: false, coreVisibility: false, emitsLight: false };
  if (area) {
    // the area, not the token: nothing of it drawn, its light dark here; the marker is targetable
    // (a GM hiding the token hides the marker from players too)
    if (player && hidden) return { ...anonymous, drawn: false, coreVisibility: false, emitsLight: false };
    return { ...anonymous, drawn: false, coreVisibility: false, emitsLight: false, targetable: true, area };
  }
  // approximate: the silhouette, where it is; its light shines (they know roughly where it is); a
  // player may target it (DET-10: attacked at half), the marker drawn on the silhouette only
  return { ...anonymous, drawn: true, coreVisibility: player && hidden, silhouette: true, emitsLight: true, targetable: true };
}

/**
 * Whether this client shows a chat message's speaker anonymously (row 16 of docs/visibility-leaks.md).
 * The message's author and GMs always see the real speaker; anyone else sees "Someone" and no portrait
 * when the speaking token's presentation on this client is identity-hidden (approximate or unlocated
 * for their observers). `presentation` null: the speaker is not a token of the viewed scene (or the
 * canvas does not know it yet): shown as Foundry shows it.
 * @param {{presentation: Pick<Presentation, "identityHidden">|null|undefined, isGM: boolean, isAuthor: boolean}} input
 * @returns {{anonymous: boolean}}
 */
export function speakerPresentation({ presentation, isGM, isAuthor }) {
  return { anonymous: !isGM && !isAuthor && !!presentation?.identityHidden };
}

/**
 * Whether a token update (as the `updateToken` hook receives it: an expanded diff) touches our
 * visibility flag, in any deletion syntax (`-=key` or v14 ForcedDeletion values, which keep the key).
 * @param {Record<string, any>|null|undefined} changes
 * @returns {boolean}
 */
export function visibilityFlagChanged(changes) {
  if (!changes || typeof changes !== "object") return false;
  for (const key of Object.keys(changes)) {
    if (key === `flags.${MODULE_ID}` || key.startsWith(`flags.${MODULE_ID}.${VISIBILITY_FLAG}`)) return true;
  }
  const flags = changes.flags;
  if (!flags || typeof flags !== "object") return false;
  if (Object.hasOwn(flags, `-=${MODULE_ID}`)) return true;
  const ours = flags[MODULE_ID];
  if (!ours || typeof ours !== "object") return Object.hasOwn(flags, MODULE_ID);
  return Object.hasOwn(ours, VISIBILITY_FLAG) || Object.hasOwn(ours, `-=${VISIBILITY_FLAG}`);
}

/**
 * Whether a token update can change who this client's observers are or where the overlay draws.
 * @param {Record<string, any>|null|undefined} changes
 * @returns {{observers: boolean, position: boolean}}
 */
export function tokenChangeKinds(changes) {
  if (!changes || typeof changes !== "object") return { observers: false, position: false };
  const position = ["x", "y", "width", "height", "elevation"].some((k) => Object.hasOwn(changes, k));
  const observers = Object.hasOwn(changes, "hidden") || Object.hasOwn(changes, "sight") || Object.hasOwn(changes, "actorId") || Object.hasOwn(changes, "ownership");
  return { observers, position };
}

// ---------------------------------------------------------------------------------------------
// GM overlay of who locates whom

/**
 * The most lines the overlay draws at once. 500 tokens could carry 249,500 pairs; past a few
 * hundred lines the picture is unreadable and PIXI redraws get slow on every token move. When there
 * are more, the worst states are kept first (unlocated, then approximate, then pinpointed: the
 * exceptions are what a GM looks for) and the legend says "N of M shown".
 */
export const OVERLAY_CAP = 300;

/** Lines get a midpoint label only when at most this many are drawn (else labels are clutter). */
export const OVERLAY_LABEL_LIMIT = 40;

/** @typedef {import("./palette.mjs").LocateLook} LocateLook */
/** @typedef {import("./palette.mjs").Palette} Palette */

/**
 * Colour, dash pattern and end marker per state in the standard palette (`palette.mjs` decides
 * them; `locateLook` gives them in another). `malformed` is an unreadable ruling.
 * @type {Readonly<Record<LocateState|"malformed", Readonly<LocateLook>>>}
 */
export const OVERLAY_STYLES = Object.freeze({
  pinpointed: locateLook("pinpointed"),
  approximate: locateLook("approximate"),
  unlocated: locateLook("unlocated"),
  malformed: locateLook("malformed"),
});

/**
 * @typedef {object} OverlayToken
 * @property {string} id
 * @property {{x: number, y: number}} center canvas coordinates
 * @property {unknown} [visibility] its `flags.vtt-bridge.visibility`
 */

/**
 * @typedef {object} Relation one line of the overlay: `observerId` locates `targetId` as `state`
 * @property {string} observerId
 * @property {string} targetId
 * @property {LocateState} state
 * @property {boolean} malformed the flag value was unreadable (`state` is then MALFORMED_STATE)
 * @property {{x: number, y: number}} from observer centre
 * @property {{x: number, y: number}} to target centre
 */

/**
 * The overlay's data: every ruled pair whose two tokens are on the scene, restricted to the pairs
 * touching the focus tokens (hovered or controlled) when there are any, worst first, capped.
 * @param {Iterable<OverlayToken>} tokens
 * @param {string|Iterable<string>|null} [focus] token id(s) to restrict to (as observer or target)
 * @param {{cap?: number}} [options]
 * @returns {{relations: Relation[], total: number, counts: Record<LocateState, number>, malformed: number, truncated: boolean}}
 */
export function overlayRelations(tokens, focus = null, { cap = OVERLAY_CAP } = {}) {
  /** @type {Map<string, OverlayToken>} */
  const byId = new Map();
  for (const token of tokens) if (token && typeof token.id === "string") byId.set(token.id, token);
  const focusIds = new Set(typeof focus === "string" ? [focus] : focus ? [...focus] : []);
  /** @type {Relation[]} */
  const relations = [];
  /** @type {Record<LocateState, number>} */
  const counts = { pinpointed: 0, approximate: 0, unlocated: 0 };
  let malformed = 0;
  for (const target of byId.values()) {
    const flag = target.visibility;
    if (!flag || typeof flag !== "object" || Array.isArray(flag)) continue;
    for (const [observerId, value] of Object.entries(flag)) {
      const observer = byId.get(observerId);
      if (!observer || observerId === target.id) continue;
      if (focusIds.size && !focusIds.has(observerId) && !focusIds.has(target.id)) continue;
      const parsed = parseLocateState(value);
      counts[parsed.state] += 1;
      if (parsed.malformed) malformed += 1;
      relations.push({ observerId, targetId: target.id, state: parsed.state, malformed: parsed.malformed, from: observer.center, to: target.center });
    }
  }
  relations.sort(
    (a, b) =>
      Number(b.malformed) - Number(a.malformed) ||
      LOCATE_RANK[b.state] - LOCATE_RANK[a.state] ||
      (a.observerId < b.observerId ? -1 : a.observerId > b.observerId ? 1 : 0) ||
      (a.targetId < b.targetId ? -1 : a.targetId > b.targetId ? 1 : 0),
  );
  const total = relations.length;
  const limit = Math.max(0, Math.floor(cap));
  return { relations: relations.slice(0, limit), total, counts, malformed, truncated: total > limit };
}

/**
 * The overlay's style for one relation, in `palette`.
 * @param {Pick<Relation, "state"|"malformed">} relation
 * @param {Readonly<Palette>} [palette]
 * @returns {Readonly<LocateLook>}
 */
export function relationStyle(relation, palette = PALETTES.standard) {
  if (palette === PALETTES.standard) return relation.malformed ? OVERLAY_STYLES.malformed : OVERLAY_STYLES[relation.state];
  return locateLook(relation.malformed ? "malformed" : relation.state, palette);
}

/**
 * The segment of a line shifted sideways (to its right, looking from `from` to `to`) by `offset`,
 * so A→B and B→A do not cover each other; shortened by `inset` at both ends so it starts and stops
 * outside the token centres.
 * @param {{x: number, y: number}} from
 * @param {{x: number, y: number}} to
 * @param {{offset?: number, inset?: number}} [options]
 * @returns {{from: {x: number, y: number}, to: {x: number, y: number}}|null} null if too short to draw
 */
export function overlaySegment(from, to, { offset = 4, inset = 0 } = {}) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy);
  if (!Number.isFinite(length) || length <= 2 * inset || length === 0) return null;
  const ux = dx / length;
  const uy = dy / length;
  const nx = -uy * offset;
  const ny = ux * offset;
  return {
    from: { x: from.x + ux * inset + nx, y: from.y + uy * inset + ny },
    to: { x: to.x - ux * inset + nx, y: to.y - uy * inset + ny },
  };
}

/**
 * The dashes of a dashed line, as segments (PIXI Graphics has no dash style): `pattern` is on, off,
 * on, off, ... lengths, repeated (default `[dash, gap]`); the last dash is clipped at the end.
 * @param {{x: number, y: number}} from
 * @param {{x: number, y: number}} to
 * @param {{dash?: number, gap?: number, pattern?: readonly number[]}} [options]
 * @returns {Array<[{x: number, y: number}, {x: number, y: number}]>}
 */
export function dashSegments(from, to, { dash = 12, gap = 8, pattern = [dash, gap] } = {}) {
  const length = Math.hypot(to.x - from.x, to.y - from.y);
  const period = pattern.reduce((a, b) => a + b, 0);
  const usable = pattern.length % 2 === 0 && pattern.every((n, i) => Number.isFinite(n) && (i % 2 ? n >= 0 : n > 0));
  if (!Number.isFinite(length) || length === 0 || !usable || period <= 0) return [];
  const ux = (to.x - from.x) / length;
  const uy = (to.y - from.y) / length;
  /** @type {Array<[{x: number, y: number}, {x: number, y: number}]>} */
  const out = [];
  for (let start = 0, i = 0; start < length; start += pattern[i] + pattern[i + 1], i = (i + 2) % pattern.length) {
    const end = Math.min(start + pattern[i], length);
    out.push([
      { x: from.x + ux * start, y: from.y + uy * start },
      { x: from.x + ux * end, y: from.y + uy * end },
    ]);
  }
  return out;
}

/** How far a line's ends stay from the token centres, in grid squares (about a small token's edge). */
export const OVERLAY_INSET = 0.3;
/** How far A→B is shifted sideways from B→A, in pixels. */
export const OVERLAY_OFFSET = 5;
/** The arrowhead: its length in pixels and the half-angle of its point in radians. */
export const ARROW_HEAD = Object.freeze({ size: 10, spread: 0.4 });
/** The other end markers, in pixels: the ring's radius, the cross's half-diagonal, the bar's half-length. */
export const END_MARKERS = Object.freeze({ ring: 7, cross: 9, bar: 8 });
/** Sides of the polygon drawing the ring. */
const RING_SIDES = 16;

/**
 * @typedef {object} OverlayArrow what the overlay draws for one relation
 * @property {Array<readonly [number, number, number, number]>} pieces line segments x0, y0, x1, y1
 *   (one for a solid line, the dashes for a dashed or dotted one)
 * @property {number[]|null} head the filled arrowhead at the target end (tip, then its two back
 *   corners), for an `arrow` end; null for the others
 * @property {Array<readonly [number, number, number, number]>} marks the stroked end marker: a
 *   ring touching the tip, a cross whose front arms reach it, or a bar across it (none for `arrow`)
 * @property {{x: number, y: number}} label where the state's label goes (the segment's middle)
 * @property {Readonly<LocateLook>} style
 */

/**
 * The arrow of one relation, observer → target: the line shifted by OVERLAY_OFFSET to its right and
 * inset by OVERLAY_INSET grid squares at both ends, in its state's dash pattern, with its state's
 * marker at the target end (`palette.mjs`: colour is never the only signal).
 * @param {Pick<Relation, "state"|"malformed"|"from"|"to">} relation
 * @param {number} grid the scene's grid size in pixels
 * @param {Readonly<Palette>} [palette]
 * @returns {OverlayArrow|null} null when the tokens are too close to draw a line between them
 */
export function overlayArrow(relation, grid, palette = PALETTES.standard) {
  const style = relationStyle(relation, palette);
  const segment = overlaySegment(relation.from, relation.to, { offset: OVERLAY_OFFSET, inset: grid * OVERLAY_INSET });
  if (!segment) return null;
  const { from, to } = segment;
  const length = Math.hypot(to.x - from.x, to.y - from.y);
  const ux = (to.x - from.x) / length;
  const uy = (to.y - from.y) / length;
  /** @param {number} back @param {number} side a point `back` px before the tip, `side` px to its right */
  const at = (back, side) => ({ x: to.x - ux * back - uy * side, y: to.y - uy * back + ux * side });
  // the ring sits in front of the line: the line stops at its back
  const shaftEnd = style.end === "ring" ? at(Math.min(2 * END_MARKERS.ring, length), 0) : to;
  const pieces = style.dash ? dashSegments(from, shaftEnd, { pattern: style.dash }) : [[from, shaftEnd]];
  /** @type {Array<readonly [number, number, number, number]>} */
  const marks = [];
  /** @param {{x: number, y: number}} a @param {{x: number, y: number}} b */
  const mark = (a, b) => marks.push(/** @type {const} */ ([a.x, a.y, b.x, b.y]));
  let head = null;
  if (style.end === "arrow") {
    const angle = Math.atan2(to.y - from.y, to.x - from.x);
    const { size, spread } = ARROW_HEAD;
    head = [
      to.x,
      to.y,
      to.x - size * Math.cos(angle - spread),
      to.y - size * Math.sin(angle - spread),
      to.x - size * Math.cos(angle + spread),
      to.y - size * Math.sin(angle + spread),
    ];
  } else if (style.end === "ring") {
    const r = END_MARKERS.ring;
    const ring = Array.from({ length: RING_SIDES + 1 }, (_, i) => {
      const t = (2 * Math.PI * i) / RING_SIDES;
      return at(r - r * Math.cos(t), r * Math.sin(t));
    });
    for (let i = 0; i < RING_SIDES; i++) mark(ring[i], ring[i + 1]);
  } else if (style.end === "cross") {
    const a = END_MARKERS.cross / Math.SQRT2;
    mark(at(0, a), at(2 * a, -a));
    mark(at(0, -a), at(2 * a, a));
  } else {
    mark(at(0, END_MARKERS.bar), at(0, -END_MARKERS.bar));
  }
  return {
    pieces: pieces.map(([a, b]) => /** @type {const} */ ([a.x, a.y, b.x, b.y])),
    head,
    marks,
    label: { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 },
    style,
  };
}

/**
 * @typedef {object} LegendRow one line of the overlay's legend
 * @property {string} label a localization key
 * @property {number} count
 * @property {string} swatch the CSS `border-top` of its sample: colour and solid, dashed or dotted
 * @property {string} marker the glyph of its line's end marker (`palette.END_GLYPHS`)
 */

/**
 * The overlay's legend as data: a row per locate state (always all three, worst last) and one for
 * unreadable rulings when there are any; "N of M shown" or "all M"; the focus hint.
 * @param {{shown: number, total: number, counts: Partial<Record<string, number>>, malformed: number, truncated: boolean, focused: boolean, palette?: Readonly<Palette>}} data
 * @returns {{title: string, rows: LegendRow[], summary: {key: string, data: Record<string, string>}, hint: string}}
 */
export function overlayLegend({ shown, total, counts, malformed, truncated, focused, palette = PALETTES.standard }) {
  /** @param {string} label @param {Readonly<LocateLook>} style @param {number} count @returns {LegendRow} */
  const row = (label, style, count) => ({
    label,
    count,
    swatch: `3px ${cssLineStyle(style.dash)} #${style.color.toString(16).padStart(6, "0")}`,
    marker: END_GLYPHS[style.end],
  });
  /** @param {LocateState|"malformed"} state */
  const look = (state) => locateLook(state, palette);
  const rows = LOCATE_STATES.map((state) => row(`VTTBRIDGE.Visibility.State.${state}`, look(/** @type {LocateState} */ (state)), counts[state] ?? 0));
  if (malformed) rows.push(row("VTTBRIDGE.Visibility.Legend.Malformed", look("malformed"), malformed));
  return {
    title: "VTTBRIDGE.Visibility.Legend.Title",
    rows,
    summary: truncated
      ? { key: "VTTBRIDGE.Visibility.Legend.Shown", data: { shown: String(shown), total: String(total) } }
      : { key: "VTTBRIDGE.Visibility.Legend.All", data: { total: String(total) } },
    hint: focused ? "VTTBRIDGE.Visibility.Legend.Focused" : "VTTBRIDGE.Visibility.Legend.Focus",
  };
}

// ---------------------------------------------------------------------------------------------
// The overlay's toggle among the token controls

/**
 * @typedef {object} OverlayToolSpec
 * @property {string} name
 * @property {string} title a localization key (core localizes tool titles)
 * @property {string} icon Font Awesome classes
 * @property {boolean} active pressed now
 * @property {(active: boolean) => void} onToggle
 */

/**
 * Add the overlay's toggle button to the token controls, in the shape the `getSceneControlButtons`
 * hook gives: v13+ an object of controls keyed by name whose `tools` is an object keyed by tool name
 * (`onChange(event, active)`, `order`); v12 an array of controls (`name: "token"`) whose `tools` is an
 * array (`onClick(toggled)`). The caller adds it for a GM only.
 * @param {unknown} controls
 * @param {OverlayToolSpec} spec
 * @returns {boolean} whether the token controls were found
 */
export function addOverlayTool(controls, { name, title, icon, active, onToggle }) {
  const base = { name, title, icon, toggle: true, active: !!active, visible: true };
  if (Array.isArray(controls)) {
    const token = controls.find((c) => c?.name === "token");
    if (!token || !Array.isArray(token.tools)) return false;
    token.tools.push({ ...base, onClick: (/** @type {unknown} */ toggled) => onToggle(!!toggled) });
    return true;
  }
  const tools = /** @type {any} */ (controls)?.tokens?.tools;
  if (!tools || typeof tools !== "object") return false;
  tools[name] = { ...base, order: Object.keys(tools).length, onChange: (/** @type {unknown} */ _event, /** @type {unknown} */ toggled) => onToggle(!!toggled) };
  return true;
}

/**
 * Set the pressed state of the overlay's tool in `ui.controls.controls` (either shape) after the
 * keybinding toggled it.
 * @param {unknown} controls
 * @param {string} name
 * @param {boolean} active
 * @returns {boolean} whether the tool was found
 */
export function setOverlayToolActive(controls, name, active) {
  /** @type {any} */
  let tool;
  if (Array.isArray(controls)) tool = controls.find((c) => c?.name === "token")?.tools?.find?.((/** @type {any} */ t) => t?.name === name);
  else tool = /** @type {any} */ (controls)?.tokens?.tools?.[name];
  if (!tool) return false;
  tool.active = !!active;
  return true;
}
