import assert from "node:assert/strict";
import { test } from "node:test";

import { LOCATE_STATES as STATE_NAMES, MODULE_ID } from "../../scripts/core/constants.mjs";
import { PALETTES } from "../../scripts/core/palette.mjs";
import {
  addOverlayTool,
  dashSegments,
  overlayArrow,
  overlayLegend,
  LOCATE_RANK,
  locateStateFor,
  MALFORMED_STATE,
  observersFor,
  OVERLAY_CAP,
  OVERLAY_STYLES,
  overlayRelations,
  overlaySegment,
  parseLocateState,
  presentationFor,
  relationStyle,
  setOverlayToolActive,
  speakerPresentation,
  tokenChangeKinds,
  visibilityFlagChanged,
  visibilityFlagOf,
} from "../../scripts/core/visibility.mjs";

/** @typedef {import("../../scripts/core/visibility.mjs").LocateState} LocateState */
const LOCATE_STATES = /** @type {LocateState[]} */ ([...STATE_NAMES]);

/** Every field that names or describes the token, or lets the user interact with it. */
const IDENTITY_FIELDS = ["art", "name", "bars", "effects", "tooltip", "targetMarkers", "turnMarker"];
const INTERACTION_FIELDS = ["hud", "hover", "control", "view", "drag", "targetable", "inCombatTracker"];

/** @param {any} p presentation @param {string} label */
function assertCore(p, label) {
  assert.equal(p.drawn, true, label);
  assert.equal(p.coreVisibility, true, label);
  assert.equal(p.silhouette, false, label);
  assert.equal(p.identityHidden, false, label);
  for (const f of [...IDENTITY_FIELDS, ...INTERACTION_FIELDS, "emitsLight"]) assert.equal(p[f], true, `${label}: ${f}`);
  assert.equal(p.border, "core", label);
}

/** @param {any} p presentation @param {boolean} isGM @param {string} label */
function assertApproximate(p, isGM, label) {
  assert.equal(p.state, "approximate", label);
  assert.equal(p.drawn, true, label);
  assert.equal(p.coreVisibility, false, `${label}: drawn even where Foundry's sight test fails`);
  assert.equal(p.silhouette, true, label);
  assert.equal(p.identityHidden, true, label);
  for (const f of IDENTITY_FIELDS) assert.equal(p[f], false, `${label}: ${f}`);
  for (const f of INTERACTION_FIELDS) assert.equal(p[f], f === "targetable" || isGM, `${label}: ${f}`);
  assert.equal(p.border, "neutral", label);
  assert.equal(p.emitsLight, true, label);
}

/** @param {any} p presentation @param {boolean} isGM @param {string} label */
function assertUnlocated(p, isGM, label) {
  assert.equal(p.state, "unlocated", label);
  assert.equal(p.drawn, false, label);
  assert.equal(p.silhouette, false, label);
  assert.equal(p.identityHidden, true, label);
  for (const f of IDENTITY_FIELDS) assert.equal(p[f], false, `${label}: ${f}`);
  for (const f of INTERACTION_FIELDS) assert.equal(p[f], isGM, `${label}: ${f}`);
  assert.equal(p.emitsLight, false, `${label}: its light would show where it is`);
}

// ---------------------------------------------------------------------------------------------

test("parseLocateState: the codes a and u, the three DET-4 states' names (older flags); anything else is malformed and counts as unlocated", () => {
  assert.deepEqual(parseLocateState("a"), { state: "approximate", malformed: false });
  assert.deepEqual(parseLocateState("u"), { state: "unlocated", malformed: false });
  for (const s of LOCATE_STATES) assert.deepEqual(parseLocateState(s), { state: s, malformed: false });
  assert.equal(MALFORMED_STATE, "unlocated");
  for (const bad of ["Pinpointed", "seen", "", " approximate", "p", "A", "toString", "__proto__", 1, null, undefined, true, {}, ["pinpointed"], ["a"]]) {
    assert.deepEqual(parseLocateState(bad), { state: "unlocated", malformed: true }, String(bad));
  }
  assert.deepEqual(Object.keys(LOCATE_RANK), [...LOCATE_STATES], "ranks follow the constants' best-to-worst order");
});

test("visibilityFlagOf reads flags.vtt-bridge.visibility and tolerates missing parts", () => {
  assert.deepEqual(visibilityFlagOf({ flags: { [MODULE_ID]: { visibility: { a: "approximate" } } } }), { a: "approximate" });
  assert.equal(visibilityFlagOf({ flags: {} }), undefined);
  assert.equal(visibilityFlagOf(null), undefined);
});

test("observersFor: a player's controlled tokens with sight, else the tokens they may observe, else none", () => {
  const tokens = [
    { id: "a", controlled: true, observable: true, hasSight: true },
    { id: "b", controlled: false, observable: true, hasSight: true },
    { id: "c", controlled: false, observable: false, hasSight: true },
  ];
  assert.deepEqual(observersFor({ isGM: false, tokens }), { source: "controlled", ids: ["a"] });
  const released = tokens.map((t) => ({ ...t, controlled: false }));
  assert.deepEqual(observersFor({ isGM: false, tokens: released }), { source: "owned", ids: ["a", "b"] });
  assert.deepEqual(observersFor({ isGM: false, tokens: [tokens[2]] }), { source: "none", ids: [] });
});

test("observersFor: a controlled token without sight is no observer; the player falls back to observed tokens with sight", () => {
  const tokens = [
    { id: "blind", controlled: true, observable: true, hasSight: false },
    { id: "b", observable: true, hasSight: true },
    { id: "noSight", observable: true, hasSight: false },
  ];
  assert.deepEqual(observersFor({ isGM: false, tokens }), { source: "owned", ids: ["b"] });
});

test("observersFor: hidden tokens look only for a GM; a GM controlling nothing with sight sees everything", () => {
  const tokens = [{ id: "h", controlled: true, observable: true, hasSight: true, hidden: true }];
  assert.deepEqual(observersFor({ isGM: false, tokens }), { source: "none", ids: [] });
  assert.deepEqual(observersFor({ isGM: true, tokens }), { source: "controlled", ids: ["h"] });
  assert.deepEqual(observersFor({ isGM: true, tokens: [{ id: "x", observable: true, hasSight: true }] }), { source: "all", ids: [] });
  assert.deepEqual(observersFor({ isGM: true, tokens: [{ id: "x", controlled: true, hasSight: false }] }), { source: "all", ids: [] });
});

test("observersFor: with token vision off on the scene sight is not required", () => {
  const tokens = [{ id: "a", controlled: true, hasSight: false }];
  assert.deepEqual(observersFor({ isGM: false, tokens, tokenVision: false }), { source: "controlled", ids: ["a"] });
  assert.deepEqual(observersFor({ isGM: false, tokens, tokenVision: true }), { source: "none", ids: [] });
});

test("locateStateFor: one observer reads its entry; an absent entry is pinpointed (the flag is sparse); no flag or no observers is no ruling", () => {
  for (const s of LOCATE_STATES) assert.equal(locateStateFor({ o: s }, ["o"]), s);
  assert.equal(locateStateFor(undefined, ["o"]), null);
  assert.equal(locateStateFor(null, ["o"]), null);
  assert.equal(locateStateFor({}, ["o"]), "pinpointed");
  assert.equal(locateStateFor({ other: "unlocated" }, ["o"]), "pinpointed");
  assert.equal(locateStateFor({ o: "unlocated" }, []), null);
});

test("locateStateFor: several observers, the best counts (pinpointed, absent included > approximate > unlocated)", () => {
  const cases = [
    [{ a: "unlocated", b: "approximate" }, "approximate"],
    [{ a: "unlocated", b: "pinpointed" }, "pinpointed"],
    [{ a: "approximate", b: "pinpointed" }, "pinpointed"],
    [{ a: "unlocated", b: "unlocated" }, "unlocated"],
    [{ a: "approximate", b: "approximate" }, "approximate"],
    [{ a: "unlocated" }, "pinpointed"], // b has no entry: b pinpoints it, so the token is drawn as core does
    [{ a: "approximate" }, "pinpointed"],
    [{ a: "pinpointed" }, "pinpointed"],
  ];
  for (const [flag, expected] of cases) {
    assert.equal(locateStateFor(flag, ["a", "b"]), expected, JSON.stringify(flag));
    assert.equal(locateStateFor(flag, ["b", "a"]), expected, `order does not matter: ${JSON.stringify(flag)}`);
  }
});

test("locateStateFor: malformed entries count as unlocated; a better observer still wins", () => {
  assert.equal(locateStateFor({ o: "seen" }, ["o"]), "unlocated");
  assert.equal(locateStateFor({ o: 3 }, ["o"]), "unlocated");
  assert.equal(locateStateFor({ o: null }, ["o"]), "unlocated");
  assert.equal(locateStateFor({ o: { state: "pinpointed" } }, ["o"]), "unlocated");
  assert.equal(locateStateFor({ o: "seen", p: "approximate" }, ["o", "p"]), "approximate");
  // a flag that is not an object: every observer's ruling is unreadable
  assert.equal(locateStateFor("pinpointed", ["o"]), "unlocated");
  assert.equal(locateStateFor(["pinpointed"], ["o"]), "unlocated");
  assert.equal(locateStateFor(7, ["o"]), "unlocated");
  // inherited properties are not entries
  assert.equal(locateStateFor({}, ["toString"]), "pinpointed");
  assert.equal(locateStateFor(JSON.parse('{"__proto__": "unlocated"}'), ["__proto__"]), "unlocated");
});

/**
 * The whole decision on one client: a scene with an observer token O and a target T whose flag
 * says how O locates T. `role`: "gm", "owner" (a player who owns T) or "player" (owns O only).
 * `source`: how O is this user's observer: "controlled", "owned" (observed, not controlled), "none".
 * @param {{role: string, source: string, state: any}} input
 */
function decide({ role, source, state }) {
  const isGM = role === "gm";
  const o = { id: "O", controlled: source === "controlled", observable: source !== "none", hasSight: true };
  const t = { id: "T", controlled: false, observable: role !== "player", hasSight: true };
  const observers = observersFor({ isGM, tokens: [o, t] });
  // the owner also looks through T itself (it is theirs): drop it to test "owner" alone
  const ids = observers.ids.filter((id) => id !== "T");
  const flag = state === undefined ? undefined : { O: state };
  return presentationFor({
    state: ids.length ? locateStateFor(flag, ids) : null,
    isGM,
    isOwner: role !== "player",
    isControlled: false,
    isObserver: observers.ids.includes("T"),
  });
}

test("every locate state × GM/owner/player × controlled/owned/none observer", () => {
  for (const role of ["gm", "owner", "player"]) {
    for (const source of ["controlled", "owned", "none"]) {
      for (const state of [...LOCATE_STATES, undefined]) {
        const label = `${role}/${source}/${state}`;
        const p = decide({ role, source, state });
        // when does the ruling apply? a GM only through controlled tokens; a player through
        // controlled or observed tokens; an owner of T never (their own token)
        const applies = (role === "gm" && source === "controlled") || (role === "player" && source !== "none");
        if (!applies || state === undefined || state === "pinpointed") assertCore(p, label);
        else if (state === "approximate") assertApproximate(p, role === "gm", label);
        else assertUnlocated(p, role === "gm", label);
      }
    }
  }
});

test("a token the viewer controls, owns (player) or looks through is always drawn normally", () => {
  for (const state of LOCATE_STATES) {
    assertCore(presentationFor({ state, isGM: false, isControlled: true }), `controlled ${state}`);
    assertCore(presentationFor({ state, isGM: true, isControlled: true }), `GM controlled ${state}`);
    assertCore(presentationFor({ state, isGM: false, isOwner: true }), `owned ${state}`);
    assertCore(presentationFor({ state, isGM: false, isObserver: true }), `observer ${state}`);
    assert.equal(presentationFor({ state, isGM: false, isOwner: true }).state, null);
  }
  // a GM owns every document by role: ownership alone does not exempt a token from the GM's preview
  assertApproximate(presentationFor({ state: "approximate", isGM: true, isOwner: true }), true, "GM owner");
});

test("approximate: a token the GM hid stays to Foundry's test for a player (never forced into view)", () => {
  const player = presentationFor({ state: "approximate", isGM: false, hidden: true });
  assert.equal(player.coreVisibility, true);
  assert.equal(player.silhouette, true, "if Foundry draws it at all, it is still a silhouette");
  assert.equal(presentationFor({ state: "approximate", isGM: true, hidden: true }).coreVisibility, false);
  assert.equal(presentationFor({ state: "approximate", isGM: false, hidden: false }).coreVisibility, false);
});

test("pinpointed and no ruling leave Foundry in charge, for every role", () => {
  for (const state of /** @type {Array<LocateState|null>} */ (["pinpointed", null])) {
    for (const isGM of [true, false]) assertCore(presentationFor({ state, isGM }), `${state} gm=${isGM}`);
  }
});

test("visibilityFlagChanged: nested, deletion syntaxes, dot paths; other flags are not ours", () => {
  assert.ok(visibilityFlagChanged({ flags: { [MODULE_ID]: { visibility: { o: "approximate" } } } }));
  assert.ok(visibilityFlagChanged({ flags: { [MODULE_ID]: { visibility: { "-=o": null } } } }));
  assert.ok(visibilityFlagChanged({ flags: { [MODULE_ID]: { "-=visibility": null } } }));
  assert.ok(visibilityFlagChanged({ flags: { [`-=${MODULE_ID}`]: null } }));
  assert.ok(visibilityFlagChanged({ flags: { [MODULE_ID]: null } }));
  assert.ok(visibilityFlagChanged({ [`flags.${MODULE_ID}.visibility.o`]: "unlocated" }));
  class ForcedDeletion {}
  assert.ok(visibilityFlagChanged({ flags: { [MODULE_ID]: { visibility: { o: new ForcedDeletion() } } } }));
  assert.ok(!visibilityFlagChanged({ flags: { [MODULE_ID]: { health: {} } } }));
  assert.ok(!visibilityFlagChanged({ flags: { other: { visibility: {} } } }));
  assert.ok(!visibilityFlagChanged({ x: 100 }));
  assert.ok(!visibilityFlagChanged(null));
});

test("tokenChangeKinds: position changes redraw the overlay; hidden/sight change who looks", () => {
  assert.deepEqual(tokenChangeKinds({ x: 1 }), { observers: false, position: true });
  assert.deepEqual(tokenChangeKinds({ hidden: true }), { observers: true, position: false });
  assert.deepEqual(tokenChangeKinds({ sight: { enabled: false } }), { observers: true, position: false });
  assert.deepEqual(tokenChangeKinds({ name: "x" }), { observers: false, position: false });
  assert.deepEqual(tokenChangeKinds(undefined), { observers: false, position: false });
});

// ---------------------------------------------------------------------------------------------
// overlay

/** @param {string} id @param {number} x @param {Record<string, unknown>} [visibility] */
const tok = (id, x, visibility) => ({ id, center: { x, y: 0 }, visibility });

test("overlayRelations: every ruled pair on the scene, observer → target, worst first", () => {
  const tokens = [
    tok("a", 0, { b: "pinpointed" }),
    tok("b", 100, { a: "approximate", c: "unlocated" }),
    tok("c", 200, { a: "pinpointed", gone: "unlocated", c: "unlocated" }),
  ];
  const { relations, total, counts, truncated, malformed } = overlayRelations(tokens);
  assert.equal(total, 4, "a stale observer and a self pair are skipped");
  assert.equal(truncated, false);
  assert.equal(malformed, 0);
  assert.deepEqual(counts, { pinpointed: 2, approximate: 1, unlocated: 1 });
  assert.deepEqual(
    relations.map((r) => `${r.observerId}>${r.targetId}:${r.state}`),
    ["c>b:unlocated", "a>b:approximate", "a>c:pinpointed", "b>a:pinpointed"],
  );
  assert.deepEqual(relations[0].from, { x: 200, y: 0 });
  assert.deepEqual(relations[0].to, { x: 100, y: 0 });
});

test("overlayRelations: a focus token (hovered/controlled) keeps only its pairs, as observer or target", () => {
  const tokens = [tok("a", 0, { b: "pinpointed" }), tok("b", 100, { a: "approximate", c: "unlocated" }), tok("c", 200, { a: "pinpointed" })];
  const ids = (/** @type {any} */ focus) => overlayRelations(tokens, focus).relations.map((r) => `${r.observerId}>${r.targetId}`).sort();
  assert.deepEqual(ids("c"), ["a>c", "c>b"]);
  assert.deepEqual(ids(["b"]), ["a>b", "b>a", "c>b"]);
  assert.deepEqual(ids([]), ["a>b", "a>c", "b>a", "c>b"], "an empty focus is no focus");
});

test("overlayRelations: malformed rulings are drawn first and counted", () => {
  const { relations, malformed, counts } = overlayRelations([tok("a", 0, { b: "seen" }), tok("b", 9, { a: "unlocated" })]);
  assert.equal(malformed, 1);
  assert.equal(counts.unlocated, 2);
  assert.equal(relations[0].malformed, true);
  assert.equal(relationStyle(relations[0]), OVERLAY_STYLES.malformed);
  assert.equal(relationStyle(relations[1]), OVERLAY_STYLES.unlocated);
  assert.deepEqual(overlayRelations([tok("a", 0, /** @type {any} */ ("pinpointed"))]).relations, [], "an unreadable flag has no pairs to draw");
});

test("overlayRelations: 500 tokens ruling about each other are capped (worst kept), counts stay complete", () => {
  const n = 500;
  const states = ["pinpointed", "approximate", "unlocated"];
  const tokens = Array.from({ length: n }, (_, i) => {
    /** @type {Record<string, string>} */
    const visibility = {};
    for (let j = 0; j < n; j++) if (j !== i) visibility[`t${j}`] = states[(i + j) % 3];
    return tok(`t${i}`, i, visibility);
  });
  const { relations, total, truncated, counts } = overlayRelations(tokens);
  assert.equal(total, n * (n - 1));
  assert.equal(relations.length, OVERLAY_CAP);
  assert.ok(truncated);
  assert.equal(counts.pinpointed + counts.approximate + counts.unlocated, total);
  assert.ok(relations.every((r) => r.state === "unlocated"), "the cap keeps the worst states");
  assert.equal(overlayRelations(tokens, null, { cap: 10 }).relations.length, 10);
});

test("overlaySegment: shifted to the right of its direction so A→B and B→A are both visible, inset at both ends", () => {
  const ab = overlaySegment({ x: 0, y: 0 }, { x: 100, y: 0 }, { offset: 5, inset: 10 });
  assert.deepEqual(ab, { from: { x: 10, y: 5 }, to: { x: 90, y: 5 } });
  const ba = overlaySegment({ x: 100, y: 0 }, { x: 0, y: 0 }, { offset: 5, inset: 10 });
  assert.deepEqual(ba, { from: { x: 90, y: -5 }, to: { x: 10, y: -5 } });
  assert.equal(overlaySegment({ x: 0, y: 0 }, { x: 15, y: 0 }, { inset: 10 }), null, "tokens touching: nothing to draw");
  assert.equal(overlaySegment({ x: 0, y: 0 }, { x: 0, y: 0 }), null);
});

test("dashSegments: dashes of the given length with gaps, the last one clipped at the end", () => {
  const d = dashSegments({ x: 0, y: 0 }, { x: 50, y: 0 }, { dash: 10, gap: 10 });
  assert.deepEqual(
    d.map(([a, b]) => [a.x, b.x]),
    [
      [0, 10],
      [20, 30],
      [40, 50],
    ],
  );
  assert.deepEqual(dashSegments({ x: 0, y: 0 }, { x: 0, y: 0 }), []);
  assert.equal(OVERLAY_STYLES.approximate.dashed, true);
  assert.equal(OVERLAY_STYLES.pinpointed.dashed, false);
});

test("addOverlayTool: v13+ controls object with tools object; v12 array of controls with tools arrays", () => {
  /** @type {boolean[]} */
  const toggles = [];
  const spec = { name: "vb", title: "VTTBRIDGE.Visibility.Tool", icon: "fa-solid fa-eye", active: false, onToggle: (/** @type {boolean} */ a) => toggles.push(a) };
  const v13 = { tokens: { tools: { select: { name: "select" }, target: { name: "target" } } }, walls: { tools: {} } };
  assert.ok(addOverlayTool(v13, spec));
  const tool = /** @type {any} */ (v13.tokens.tools).vb;
  assert.equal(tool.toggle, true);
  assert.equal(tool.order, 2);
  tool.onChange({}, true);
  const v12 = [{ name: "walls", tools: [] }, { name: "token", tools: [{ name: "select" }] }];
  assert.ok(addOverlayTool(v12, spec));
  const tool12 = /** @type {any} */ (v12[1].tools[1]);
  assert.equal(tool12.name, "vb");
  tool12.onClick(false);
  assert.deepEqual(toggles, [true, false]);
  assert.ok(!addOverlayTool({ walls: { tools: {} } }, spec), "no token controls: nothing added, nothing guessed");
  assert.ok(!addOverlayTool(null, spec));

  assert.ok(setOverlayToolActive(v13, "vb", true));
  assert.equal(tool.active, true);
  assert.ok(setOverlayToolActive(v12, "vb", true));
  assert.equal(tool12.active, true);
  assert.ok(!setOverlayToolActive(v12, "missing", true));
});

test("speakerPresentation: author and GMs see the speaker; others not when the token is identity-hidden for them", () => {
  /** @param {LocateState|null} state */
  const forPlayer = (state) => presentationFor({ state, isGM: false });
  // a player who did not write the message, by how their observers locate the speaking token
  assert.deepEqual(speakerPresentation({ presentation: forPlayer("pinpointed"), isGM: false, isAuthor: false }), { anonymous: false });
  assert.deepEqual(speakerPresentation({ presentation: forPlayer(null), isGM: false, isAuthor: false }), { anonymous: false }, "no ruling: as Foundry shows it");
  assert.deepEqual(speakerPresentation({ presentation: forPlayer("approximate"), isGM: false, isAuthor: false }), { anonymous: true });
  assert.deepEqual(speakerPresentation({ presentation: forPlayer("unlocated"), isGM: false, isAuthor: false }), { anonymous: true });
  const own = presentationFor({ state: "unlocated", isGM: false, isOwner: true });
  assert.deepEqual(speakerPresentation({ presentation: own, isGM: false, isAuthor: false }), { anonymous: false }, "the player's own token");
  // the author and GMs always see who spoke
  assert.deepEqual(speakerPresentation({ presentation: forPlayer("unlocated"), isGM: false, isAuthor: true }), { anonymous: false });
  const gmPreview = presentationFor({ state: "approximate", isGM: true });
  assert.equal(gmPreview.identityHidden, true, "a GM previewing through a token sees a silhouette…");
  assert.deepEqual(speakerPresentation({ presentation: gmPreview, isGM: true, isAuthor: false }), { anonymous: false }, "…but the chat names it");
  // a speaker that is not a token (an actor, a user, an alias), or not on the viewed scene
  assert.deepEqual(speakerPresentation({ presentation: null, isGM: false, isAuthor: false }), { anonymous: false });
  assert.deepEqual(speakerPresentation({ presentation: undefined, isGM: false, isAuthor: false }), { anonymous: false });
});

/** @param {unknown} value @returns {unknown} numbers rounded to 4 decimals, for float geometry */
const round4 = (value) =>
  typeof value === "number" ? Math.round(value * 1e4) / 1e4 : Array.isArray(value) ? value.map(round4) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round4(v)])) : value;

test("overlayArrow: a solid line inset 0.3 grid from both centres, 5 px to its right, a 10 px head at the target", () => {
  // east, grid 100: ends 30 px from each centre, shifted +5 in y (right of east in canvas coordinates)
  const arrow = overlayArrow({ state: "pinpointed", malformed: false, from: { x: 0, y: 0 }, to: { x: 200, y: 0 } }, 100);
  assert.deepEqual(round4(arrow), {
    pieces: [[30, 5, 170, 5]],
    // tip, then 10 px back at ±0.4 rad: 10·cos 0.4 = 9.2106, 10·sin 0.4 = 3.8942
    head: [170, 5, 160.7894, 8.8942, 160.7894, 1.1058],
    marks: [],
    label: { x: 100, y: 5 },
    style: { color: 0x43a047, dash: null, dashed: false, end: "arrow", width: 2 },
  });
});

test("overlayArrow: an approximate line is dashed (12 on, 8 off, the last dash clipped), points south, and ends in a ring", () => {
  // south, grid 100: from (-5, 30) to (-5, 70), 40 px; the ring (radius 7) touches the tip, the line
  // stops at its back (-5, 56): dashes 0-12 and 20-26
  const arrow = overlayArrow({ state: "approximate", malformed: false, from: { x: 0, y: 0 }, to: { x: 0, y: 100 } }, 100);
  assert.ok(arrow);
  assert.deepEqual(round4(arrow.pieces), [
    [-5, 30, -5, 42],
    [-5, 50, -5, 56],
  ]);
  assert.equal(arrow.head, null, "no filled head: the ring is the end");
  assert.deepEqual(arrow.style, { color: 0xffb300, dash: [12, 8], dashed: true, end: "ring", width: 2 });
  assert.deepEqual(arrow.label, { x: -5, y: 50 });
  // the ring: a closed 16-gon around (-5, 63), radius 7, from the tip round to the tip
  assert.equal(arrow.marks.length, 16);
  for (const [x0, y0, x1, y1] of arrow.marks) {
    assert.ok(Math.abs(Math.hypot(x0 + 5, y0 - 63) - 7) < 1e-9 && Math.abs(Math.hypot(x1 + 5, y1 - 63) - 7) < 1e-9);
  }
  assert.deepEqual(round4(arrow.marks[0].slice(0, 2)), [-5, 70]);
  assert.deepEqual(round4(arrow.marks[15].slice(2)), [-5, 70]);
  assert.deepEqual(round4(arrow.marks[8].slice(0, 2)), [-5, 56], "its back meets the line");
  // an unreadable ruling is drawn in its own style whatever its state
  assert.deepEqual(overlayArrow({ state: "unlocated", malformed: true, from: { x: 0, y: 0 }, to: { x: 0, y: 100 } }, 100)?.style, {
    color: 0xd500f9,
    dash: [12, 5, 3, 5],
    dashed: true,
    end: "bar",
    width: 3,
  });
});

test("overlayArrow: unlocated is dotted and ends in a cross; an unreadable ruling dash-dotted with a bar across its end", () => {
  const from = { x: 0, y: 0 };
  const to = { x: 200, y: 0 };
  const unlocated = overlayArrow({ state: "unlocated", malformed: false, from, to }, 100);
  assert.ok(unlocated);
  // 140 px of 3 on, 5 off: dots starting every 8 px, 18 of them, the line running to the tip
  assert.equal(unlocated.pieces.length, 18);
  assert.deepEqual(round4(unlocated.pieces[1]), [38, 5, 41, 5]);
  assert.deepEqual(round4(unlocated.pieces[17]), [166, 5, 169, 5]);
  assert.equal(unlocated.head, null);
  // the cross: half-diagonal 9 (9/√2 = 6.364 each way), its front arms at the tip
  assert.deepEqual(round4(unlocated.marks), [
    [170, 11.364, 157.2721, -1.364],
    [170, -1.364, 157.2721, 11.364],
  ]);
  const malformed = overlayArrow({ state: "pinpointed", malformed: true, from, to }, 100);
  assert.ok(malformed);
  // 12 on, 5 off, 3 on, 5 off
  assert.deepEqual(round4(malformed.pieces.slice(0, 3)), [
    [30, 5, 42, 5],
    [47, 5, 50, 5],
    [55, 5, 67, 5],
  ]);
  assert.deepEqual(malformed.marks, [[170, 13, 170, -3]], "a bar 16 px across the tip");
});

test("overlayArrow: the colour-blind palette changes the colours only, never the pattern or the end", () => {
  const relation = { state: /** @type {const} */ ("unlocated"), malformed: false, from: { x: 0, y: 0 }, to: { x: 200, y: 0 } };
  const standard = overlayArrow(relation, 100);
  const okabeIto = overlayArrow(relation, 100, PALETTES.okabeIto);
  assert.ok(standard && okabeIto);
  assert.equal(okabeIto.style.color, 0xd55e00);
  assert.deepEqual({ ...okabeIto, style: { ...okabeIto.style, color: 0 } }, { ...standard, style: { ...standard.style, color: 0 } });
});

test("overlayArrow: tokens closer than the two insets get no arrow", () => {
  assert.equal(overlayArrow({ state: "unlocated", malformed: false, from: { x: 0, y: 0 }, to: { x: 60, y: 0 } }, 100), null);
  assert.notEqual(overlayArrow({ state: "unlocated", malformed: false, from: { x: 0, y: 0 }, to: { x: 61, y: 0 } }, 100), null);
});

test("overlayLegend: a row per locate state with its count, swatch and end marker; unreadable rulings only when there are any", () => {
  assert.deepEqual(overlayLegend({ shown: 3, total: 3, counts: { pinpointed: 2, approximate: 1 }, malformed: 0, truncated: false, focused: false }), {
    title: "VTTBRIDGE.Visibility.Legend.Title",
    rows: [
      { label: "VTTBRIDGE.Visibility.State.pinpointed", count: 2, swatch: "3px solid #43a047", marker: "➤" },
      { label: "VTTBRIDGE.Visibility.State.approximate", count: 1, swatch: "3px dashed #ffb300", marker: "○" },
      { label: "VTTBRIDGE.Visibility.State.unlocated", count: 0, swatch: "3px dotted #e53935", marker: "✕" },
    ],
    summary: { key: "VTTBRIDGE.Visibility.Legend.All", data: { total: "3" } },
    hint: "VTTBRIDGE.Visibility.Legend.Focus",
  });
  const capped = overlayLegend({ shown: 2, total: 5, counts: { pinpointed: 1, approximate: 1, unlocated: 3 }, malformed: 1, truncated: true, focused: true });
  assert.deepEqual(
    capped.rows.map((r) => [r.label, r.count, r.swatch, r.marker]),
    [
      ["VTTBRIDGE.Visibility.State.pinpointed", 1, "3px solid #43a047", "➤"],
      ["VTTBRIDGE.Visibility.State.approximate", 1, "3px dashed #ffb300", "○"],
      ["VTTBRIDGE.Visibility.State.unlocated", 3, "3px dotted #e53935", "✕"],
      ["VTTBRIDGE.Visibility.Legend.Malformed", 1, "3px dashed #d500f9", "⊣"],
    ],
  );
  assert.deepEqual(capped.summary, { key: "VTTBRIDGE.Visibility.Legend.Shown", data: { shown: "2", total: "5" } });
  assert.equal(capped.hint, "VTTBRIDGE.Visibility.Legend.Focused");
  // the colour-blind palette: Okabe-Ito's sky blue, yellow, vermillion; the same patterns and markers
  const okabeIto = overlayLegend({ shown: 1, total: 1, counts: {}, malformed: 0, truncated: false, focused: false, palette: PALETTES.okabeIto });
  assert.deepEqual(
    okabeIto.rows.map((r) => [r.swatch, r.marker]),
    [
      ["3px solid #56b4e9", "➤"],
      ["3px dashed #f0e442", "○"],
      ["3px dotted #d55e00", "✕"],
    ],
  );
});
