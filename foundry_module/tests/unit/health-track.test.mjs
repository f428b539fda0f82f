import assert from "node:assert/strict";
import { test } from "node:test";

import { touchesHealthFlags } from "../../scripts/foundry/health-canvas.mjs";
import {
  BOX_KINDS,
  canSeeHealth,
  conditionCounters,
  healthTrackLayout,
  healthTrackView,
  MAX_DRAWN_BOXES,
  statusTextKey,
  woundPenaltyText,
} from "../../scripts/core/health-track.mjs";
import { registerSettings, SETTINGS } from "../../scripts/foundry/settings.mjs";

/**
 * Every property a layout must have, whatever the input.
 * @param {import("../../scripts/core/health-track.mjs").TrackLayout} layout
 * @param {number} width
 * @param {string} where
 */
function checkGeometry(layout, width, where) {
  for (const box of layout.boxes) {
    assert.ok(Number.isInteger(box.x) && Number.isInteger(box.y) && Number.isInteger(box.size), `${where}: integer pixels`);
    assert.ok(box.size >= 1, `${where}: box ${box.index} has a size`);
    assert.ok(box.x >= 0 && box.x + box.size <= width, `${where}: box ${box.index} inside the token (${box.x}+${box.size} > ${width})`);
    assert.ok(box.y >= 0 && box.y + box.size <= layout.height, `${where}: box ${box.index} inside the track height`);
  }
  // no two boxes overlap
  for (let i = 0; i < layout.boxes.length; i++) {
    for (let j = i + 1; j < layout.boxes.length; j++) {
      const a = layout.boxes[i];
      const b = layout.boxes[j];
      const apart = a.x + a.size <= b.x || b.x + b.size <= a.x || a.y + a.size <= b.y || b.y + b.size <= a.y;
      assert.ok(apart, `${where}: boxes ${i} and ${j} overlap`);
    }
  }
  assert.ok(layout.width <= width, `${where}: track width ${layout.width} ≤ ${width}`);
}

/** @param {import("../../scripts/core/health-track.mjs").TrackLayout} layout */
function kindsInOrder(layout) {
  const ranks = layout.boxes.map((b) => BOX_KINDS.indexOf(b.kind));
  return ranks.every((r, i) => i === 0 || ranks[i - 1] <= r);
}

test("every box mix for max 0..12 on common token widths: count, order A>L>B>healthy, inside, no overlap", () => {
  let mixes = 0;
  for (const width of [50, 100, 150, 200]) {
    for (let max = 0; max <= 12; max++) {
      for (let a = 0; a <= max; a++) {
        for (let l = 0; a + l <= max; l++) {
          for (let b = 0; a + l + b <= max; b++) {
            const where = `w${width} max${max} A${a} L${l} B${b}`;
            const layout = healthTrackLayout({ max, aggravated: a, lethal: l, bashing: b, tempHp: 0, temporaryMax: {} }, { width });
            assert.equal(layout.boxes.length, max, `${where}: one box per point of max`);
            assert.deepEqual(layout.counts, { aggravated: a, lethal: l, bashing: b, healthy: max - a - l - b }, where);
            assert.deepEqual(
              layout.boxes.map((x) => x.kind),
              [...Array(a).fill("aggravated"), ...Array(l).fill("lethal"), ...Array(b).fill("bashing"), ...Array(max - a - l - b).fill("healthy")],
              where,
            );
            assert.ok(kindsInOrder(layout), where);
            assert.deepEqual(layout.boxes.map((x) => x.index), [...Array(max).keys()], where);
            checkGeometry(layout, width, where);
            mixes++;
          }
        }
      }
    }
  }
  assert.ok(mixes > 1000);
});

test("one row while boxes fit at the readable minimum, then rows wrap, left to right, top to bottom", () => {
  const one = healthTrackLayout({ max: 7 }, { width: 100 });
  assert.equal(one.rows, 1);
  assert.equal(new Set(one.boxes.map((b) => b.y)).size, 1);
  assert.ok(one.boxSize >= 8);
  // the same boxes on a narrow token wrap
  const narrow = healthTrackLayout({ max: 12 }, { width: 50 });
  assert.ok(narrow.rows > 1);
  assert.ok(narrow.boxSize >= 8, "boxes keep the readable minimum when rows are available");
  for (let i = 1; i < narrow.boxes.length; i++) {
    const prev = narrow.boxes[i - 1];
    const box = narrow.boxes[i];
    assert.ok(box.y > prev.y || (box.y === prev.y && box.x > prev.x), "reading order");
  }
  // full rows of `columns` boxes, the last one possibly shorter, and no more rows than needed
  /** @type {Map<number, number>} */
  const rows = new Map();
  for (const box of narrow.boxes) rows.set(box.y, (rows.get(box.y) ?? 0) + 1);
  const perRow = [...rows.values()];
  assert.equal(perRow.length, narrow.rows);
  assert.ok(perRow.slice(0, -1).every((n) => n === narrow.columns), JSON.stringify(perRow));
  assert.ok(/** @type {number} */ (perRow.at(-1)) <= narrow.columns);
  assert.equal(narrow.rows, Math.ceil(12 / narrow.columns));
  // boxes never grow past maxBox, and the row is centred on the token
  const big = healthTrackLayout({ max: 2 }, { width: 200, maxBox: 16 });
  assert.equal(big.boxSize, 16);
  const left = big.boxes[0].x;
  const right = 200 - (big.boxes[1].x + big.boxes[1].size);
  assert.ok(Math.abs(left - right) <= 1, `centred: ${left} vs ${right}`);
});

test("40 boxes on a 50 px token: several rows, all inside 50 px, no overlap, readable size", () => {
  const layout = healthTrackLayout({ max: 40, aggravated: 5, lethal: 10, bashing: 12 }, { width: 50 });
  assert.equal(layout.boxes.length, 40);
  assert.ok(layout.rows >= 5, `rows ${layout.rows}`);
  assert.ok(layout.boxSize >= 8);
  checkGeometry(layout, 50, "40 on 50");
  assert.ok(kindsInOrder(layout));
  assert.deepEqual(layout.counts, { aggravated: 5, lethal: 10, bashing: 12, healthy: 13 });
});

test("large tracks and odd widths stay inside; beyond MAX_DRAWN_BOXES nothing is drawn", () => {
  for (const width of [1, 3, 7, 8, 9, 17, 33.7, 99, 256, 1000]) {
    for (const max of [1, 2, 5, 13, 25, 41, 64, 99, MAX_DRAWN_BOXES]) {
      const layout = healthTrackLayout({ max, lethal: Math.floor(max / 3) }, { width });
      assert.equal(layout.boxes.length, max, `w${width} max${max}`);
      checkGeometry(layout, Math.floor(width), `w${width} max${max}`);
    }
  }
  const huge = healthTrackLayout({ max: MAX_DRAWN_BOXES + 1, tempHp: 2 }, { width: 100 });
  assert.deepEqual(huge.boxes, []);
  assert.equal(huge.tooMany, true);
  assert.equal(huge.tempHp, 2);
});

test("0 boxes, 1 box, and malformed or missing data draw nothing rather than throw", () => {
  assert.deepEqual(healthTrackLayout({ max: 0 }, { width: 100 }).boxes, []);
  const one = healthTrackLayout({ max: 1, aggravated: 1 }, { width: 100 });
  assert.equal(one.boxes.length, 1);
  assert.equal(one.boxes[0].kind, "aggravated");
  assert.equal(one.rows, 1);
  for (const bad of [undefined, null, 7, "7", [], {}, { max: -1 }, { max: 2.5 }, { max: "7" }, { max: Infinity }, { max: NaN }]) {
    const layout = healthTrackLayout(bad, { width: 100 });
    assert.deepEqual(layout.boxes, [], JSON.stringify(bad));
    assert.equal(layout.height, 0);
  }
  for (const width of [0, -5, NaN, Infinity, /** @type {any} */ ("100"), /** @type {any} */ (undefined)]) {
    assert.deepEqual(healthTrackLayout({ max: 7 }, { width }).boxes, [], String(width));
  }
  // bad counts are read as 0; counts over max (the sidecar never sends them) keep the heavier grades
  const junk = healthTrackLayout({ max: 4, bashing: "2", lethal: -1, aggravated: 1.5 }, { width: 100 });
  assert.deepEqual(junk.counts, { aggravated: 0, lethal: 0, bashing: 0, healthy: 4 });
  const over = healthTrackLayout({ max: 3, bashing: 3, lethal: 2, aggravated: 2 }, { width: 100 });
  assert.deepEqual(over.counts, { aggravated: 2, lethal: 1, bashing: 0, healthy: 0 });
});

test("temporary max is already counted in max; temporary Health is a counter, not boxes", () => {
  // HEALTH-12: +3 temporary recorded in temporaryMax, applied to max by the sidecar (8 → 11)
  const layout = healthTrackLayout({ max: 11, temporaryMax: { bless: 3 }, tempHp: 2 }, { width: 100 });
  assert.equal(layout.boxes.length, 11);
  assert.equal(layout.tempHp, 2);
  assert.deepEqual(conditionCounters({ health: { max: 11, tempHp: 2 } }), [{ kind: "tempHp", id: "tempHp", value: 2 }]);
});

test("status text key and the wound penalty text", () => {
  for (const status of ["unharmed", "lightly", "moderately", "badly", "dying", "dead"]) {
    assert.equal(statusTextKey(status), `VTTBRIDGE.HealthTrack.Status.${status}`);
  }
  assert.equal(statusTextKey("hurt"), null);
  assert.equal(statusTextKey(undefined), null);
  assert.equal(woundPenaltyText(2), "\u22122");
  assert.equal(woundPenaltyText(0), null);
  assert.equal(woundPenaltyText(undefined), null);
  assert.equal(woundPenaltyText(-1), null);
  assert.equal(woundPenaltyText("3"), null);
});

test("canSeeHealth: the GM always; 'gm' nobody else, 'owner' owners, 'everyone' everyone; unknown = 'owner'", () => {
  const table = [
    // setting, isGM, isOwner, sees
    ["gm", true, false, true],
    ["gm", false, true, false],
    ["gm", false, false, false],
    ["owner", true, false, true],
    ["owner", false, true, true],
    ["owner", false, false, false],
    ["everyone", true, false, true],
    ["everyone", false, true, true],
    ["everyone", false, false, true],
    [undefined, false, true, true],
    [undefined, false, false, false],
    ["bogus", false, false, false],
    ["bogus", true, false, true],
  ];
  for (const [setting, isGM, isOwner, sees] of table) {
    assert.equal(canSeeHealth({ setting, isGM: !!isGM, isOwner: !!isOwner }), sees, `${setting} gm=${isGM} owner=${isOwner}`);
  }
});

test("condition counters: non-zero only, temporary Health, then conditions, then emotions, each by id", () => {
  const flags = {
    health: { max: 7, tempHp: 0 },
    conditionPoints: { poison: 3, bleeding: 1, frightened: 0 },
    emotionPoints: { fear: 2, anger: 0 },
  };
  assert.deepEqual(conditionCounters(flags), [
    { kind: "condition", id: "bleeding", value: 1 },
    { kind: "condition", id: "poison", value: 3 },
    { kind: "emotion", id: "fear", value: 2 },
  ]);
  // the same id as a condition and an emotion stays two counters
  assert.equal(conditionCounters({ conditionPoints: { fear: 1 }, emotionPoints: { fear: 1 } }).length, 2);
  for (const bad of [undefined, null, "x", { conditionPoints: [1, 2] }, { conditionPoints: { a: -1, b: "2", c: 1.5 } }, { health: null }]) {
    assert.deepEqual(conditionCounters(bad), [], JSON.stringify(bad));
  }
});

test("healthTrackView: everything one token shows, null without a health flag", () => {
  assert.equal(healthTrackView(undefined, { width: 100 }), null);
  assert.equal(healthTrackView({ status: "badly" }, { width: 100 }), null);
  const view = healthTrackView(
    { health: { max: 7, lethal: 5 }, status: "badly", woundPenalty: 2, conditionPoints: { poison: 3 } },
    { width: 100 },
  );
  assert.ok(view);
  assert.equal(view.layout.boxes.length, 7);
  assert.equal(view.statusKey, "VTTBRIDGE.HealthTrack.Status.badly");
  assert.equal(view.penalty, "\u22122");
  assert.deepEqual(view.counters, [{ kind: "condition", id: "poison", value: 3 }]);
});

test("the 'who sees Health boxes' world setting: choices, default owner, no resync on change", () => {
  const def = SETTINGS.find((s) => s.key === "healthVisibility");
  assert.ok(def);
  assert.equal(def.scope, "world");
  assert.equal(def.default, "owner");
  assert.deepEqual(Object.keys(def.choices ?? {}), ["gm", "owner", "everyone"]);
  /** @type {Record<string, any>} */
  const registered = {};
  /** @type {string[]} */
  const changed = [];
  registerSettings({ register: (_ns, key, config) => (registered[key] = config) }, (group) => {
    if (group !== "display") changed.push(group);
  });
  assert.equal(registered.healthVisibility.name, "VTTBRIDGE.HealthTrack.Setting.Name");
  assert.deepEqual(registered.healthVisibility.choices, def.choices);
  registered.healthVisibility.onChange();
  assert.deepEqual(changed, [], "a display setting does not resync the sidecar (main.mjs tells the drawing: SETTING_CHANGED_HOOK)");
});

test("touchesHealthFlags: the hook change shapes that redraw the track", () => {
  assert.ok(touchesHealthFlags({ flags: { "vtt-bridge": { health: { lethal: 2 } } } }));
  assert.ok(touchesHealthFlags({ "flags.vtt-bridge.health.lethal": 2 }));
  assert.ok(touchesHealthFlags({ "flags.vtt-bridge.-=conditionPoints": null }));
  assert.ok(touchesHealthFlags({ flags: { "vtt-bridge": { "conditionPoints.-=poison": null } } }));
  assert.ok(touchesHealthFlags({ flags: { "-=vtt-bridge": null } }));
  assert.ok(touchesHealthFlags({ delta: { flags: { "vtt-bridge": { status: "badly" } } } }));
  assert.ok(!touchesHealthFlags({ flags: { "vtt-bridge": { detection: [] } } }));
  assert.ok(!touchesHealthFlags({ "flags.vtt-bridge.visibility.tok1": "approximate" }));
  assert.ok(!touchesHealthFlags({ x: 100, y: 200 }));
  assert.ok(!touchesHealthFlags(undefined));
});
