import assert from "node:assert/strict";
import { test } from "node:test";

import { healthAudience, healthDetail, shownStatuses } from "../../scripts/core/health-track.mjs";

const gm = { id: "gm", isGM: true };
const owner = { id: "alice", isGM: false };
const other = { id: "bob", isGM: false };
const users = [gm, owner, other];
// alice owns the NPC "npc"; nobody but the GM owns "boss"
const isOwner = (/** @type {string} */ id, /** @type {{id: string}} */ user) => id === "npc" && user.id === "alice";
const statuses = ["prone", "unconscious", "worsening", "dying", "dead"];

test("HEALTH-6 'Owners and GM': a player who does not own an NPC sees no dying/unconscious/worsening icon, its owner and the GM do; dead stays public", () => {
  const seen = (/** @type {{id: string, isGM: boolean}} */ user) => shownStatuses(statuses, healthDetail({ setting: "owner", isGM: user.isGM, isOwner: isOwner("npc", user) }));
  assert.deepEqual(seen(other), ["prone", "dead"]);
  assert.deepEqual(seen(owner), statuses);
  assert.deepEqual(seen(gm), statuses);
});

test("HEALTH-6 'Everyone': every user sees every icon; 'GM only': even the owner sees no private Health icon", () => {
  for (const user of users) assert.deepEqual(shownStatuses(statuses, healthDetail({ setting: "everyone", isGM: user.isGM, isOwner: false })), statuses);
  assert.deepEqual(shownStatuses(statuses, healthDetail({ setting: "gm", isGM: false, isOwner: true })), ["prone", "dead"]);
  assert.deepEqual(shownStatuses(statuses, healthDetail({ setting: "gm", isGM: true, isOwner: false })), statuses);
});

test("HEALTH-6 what each setting value shows a non-owner: everyone boxes, owner the status words, gm nothing", () => {
  assert.equal(healthDetail({ setting: "everyone", isGM: false, isOwner: false }), "boxes");
  assert.equal(healthDetail({ setting: "owner", isGM: false, isOwner: false }), "words");
  assert.equal(healthDetail({ setting: "gm", isGM: false, isOwner: false }), "none");
  assert.equal(healthDetail({ setting: "surprise", isGM: false, isOwner: false }), "words"); // unknown: as "owner"
  assert.equal(healthDetail({ setting: "surprise", isGM: false, isOwner: true }), "boxes");
});

test("HEALTH-6 a public card about an NPC under 'Owners and GM': the detail goes to its owner and the GM only, a public line with words", () => {
  assert.deepEqual(healthAudience({ named: ["npc"], users, setting: "owner", isOwner }), { split: true, detailTo: ["gm", "alice"], words: true });
  // naming an NPC alice does not own too: only the GM reads the detail
  assert.deepEqual(healthAudience({ named: ["npc", "boss"], users, setting: "owner", isOwner }).detailTo, ["gm"]);
  assert.deepEqual(healthAudience({ named: ["npc"], users, setting: "gm", isOwner }), { split: true, detailTo: ["gm"], words: false });
});

test("HEALTH-6 'Everyone', or every user an owner: one public card with everything", () => {
  assert.equal(healthAudience({ named: ["npc", "boss"], users, setting: "everyone", isOwner }).split, false);
  assert.equal(healthAudience({ named: ["npc"], users: [gm, owner], setting: "owner", isOwner }).split, false);
  assert.equal(healthAudience({ named: [], users, setting: "owner", isOwner }).split, false);
});
