// Generated from vtt_bridge/rules/steps.py by `make docs` (`vtt-bridge schema --step-fields`):
// do not edit. How each declared field of each step key is worded (`Wording` there);
// a count names the word it counts (`count:<word>`, `VTTBRIDGE.Step.Count.<word>`).
/** @type {Readonly<Record<string, Readonly<Record<string, string>>>>} */
export const STEP_FIELDS = Object.freeze({
  "BATCH.item": {
    "count": "number",
    "index": "number",
    "kind": "ruling-kind",
    "number": "number",
    "target": "subject"
  },
  "DET-1.anti": {
    "anti": "anti-detection",
    "antiDetection": "plain",
    "observer": "subject",
    "target": "subject"
  },
  "DET-10.damageHalved": {
    "after": "plain",
    "attacker": "subject",
    "before": "plain",
    "target": "subject"
  },
  "DET-10.full": {
    "attacker": "subject",
    "effectPoints": "count:effectPoint",
    "extraSuccesses": "count:extra",
    "guessedPositionOnly": "flag",
    "halved": "flag",
    "spell": "spell",
    "spellAllowed": "flag",
    "spellChance": "percent",
    "successes": "count:success",
    "target": "subject"
  },
  "DET-10.guessRight": {
    "attacker": "subject",
    "guessed": "flag",
    "right": "flag",
    "target": "subject"
  },
  "DET-10.guessWrong": {
    "attacker": "subject",
    "guessed": "flag",
    "right": "flag",
    "target": "subject"
  },
  "DET-10.guessed": {
    "attacker": "subject",
    "effectPoints": "count:effectPoint",
    "extraSuccesses": "count:extra",
    "guessedPositionOnly": "flag",
    "halved": "flag",
    "spell": "spell",
    "spellAllowed": "flag",
    "spellChance": "percent",
    "successes": "count:success",
    "target": "subject"
  },
  "DET-10.halved": {
    "attacker": "subject",
    "effectPoints": "count:effectPoint",
    "extraSuccesses": "count:extra",
    "guessedPositionOnly": "flag",
    "halved": "flag",
    "spell": "spell",
    "spellAllowed": "flag",
    "spellChance": "percent",
    "successes": "count:success",
    "target": "subject"
  },
  "DET-10.noGuess": {
    "attacker": "subject",
    "guessed": "flag",
    "right": "flag",
    "target": "subject"
  },
  "DET-10.noSpell": {
    "attacker": "subject",
    "effectPoints": "count:effectPoint",
    "extraSuccesses": "count:extra",
    "guessedPositionOnly": "flag",
    "halved": "flag",
    "spell": "spell",
    "spellAllowed": "flag",
    "spellChance": "percent",
    "successes": "count:success",
    "target": "subject"
  },
  "DET-10.noTarget": {
    "attacker": "subject",
    "guessed": "flag",
    "right": "flag"
  },
  "DET-10.spell": {
    "attacker": "subject",
    "effectPoints": "count:effectPoint",
    "extraSuccesses": "count:extra",
    "guessedPositionOnly": "flag",
    "halved": "flag",
    "spell": "spell",
    "spellAllowed": "flag",
    "spellChance": "percent",
    "successes": "count:success",
    "target": "subject"
  },
  "DET-2.versus": {
    "antiRank": "rank-number",
    "effectiveRank": "rank-number",
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-3.humanoid": {
    "means": "sense",
    "observer": "subject",
    "target": "subject"
  },
  "DET-4.area": {
    "holds": "flag",
    "observer": "subject",
    "r": "number",
    "squares": "number",
    "target": "subject",
    "x": "number",
    "y": "number"
  },
  "DET-4.attack": {
    "attacker": "subject",
    "locate": "locate",
    "target": "subject"
  },
  "DET-4.locate": {
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-4.summary": {
    "decidedBy": "text",
    "means": "sense-lead",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-5.distance": {
    "distance": "number",
    "observer": "subject",
    "target": "subject",
    "units": "text"
  },
  "DET-5.moved": {
    "changedPairs": "count:pair",
    "token": "subject"
  },
  "DET-5.outOfRange": {
    "distance": "number",
    "means": "sense",
    "observer": "subject",
    "range": "number",
    "target": "subject"
  },
  "DET-5.unusable": {
    "means": "sense",
    "observer": "subject",
    "target": "subject",
    "unusable": "condition"
  },
  "DET-6.best": {
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-6.exposed": {
    "exposed": "flag",
    "observer": "subject",
    "target": "subject"
  },
  "DET-6.means": {
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-7.best": {
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-7.versus": {
    "antiRank": "rank-number",
    "effectiveRank": "rank-number",
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-7.worst": {
    "means": "sense",
    "observer": "subject",
    "result": "locate",
    "target": "subject"
  },
  "DET-8.accepted": {
    "accepted": "flag",
    "observer": "subject",
    "target": "subject"
  },
  "DET-8.contest": {
    "hiderDice": "dice",
    "hiderPool": "count:dieWith",
    "hiderSuccesses": "count:success",
    "observer": "subject",
    "observerDice": "dice",
    "observerPool": "count:dieWith",
    "observerSuccesses": "count:success",
    "target": "subject"
  },
  "DET-8.held": {
    "held": "flag",
    "observer": "subject",
    "shown": "locate",
    "target": "subject"
  },
  "DET-8.lapsed": {
    "lapsed": "count:result"
  },
  "DET-8.lost": {
    "lostIn": "number",
    "observer": "subject",
    "result": "locate",
    "target": "subject",
    "thisRound": "flag"
  },
  "DET-8.lostThisRound": {
    "lostIn": "number",
    "observer": "subject",
    "result": "locate",
    "target": "subject",
    "thisRound": "flag"
  },
  "DET-8.noWin": {
    "observer": "subject",
    "target": "subject",
    "win": "flag"
  },
  "DET-8.refused": {
    "accepted": "flag",
    "observer": "subject",
    "target": "subject"
  },
  "DET-8.round": {
    "changed": "count:pair",
    "contests": "count:contest",
    "detailed": "number",
    "round": "number"
  },
  "DET-8.won": {
    "observer": "subject",
    "result": "locate",
    "round": "number",
    "target": "subject"
  },
  "DET-9.modifier": {
    "dp": "signed",
    "observer": "subject",
    "reason": "reason",
    "side": "side",
    "target": "subject"
  },
  "DICE-1.pool": {
    "actor": "subject",
    "base": "count:die",
    "traits": "roll-traits"
  },
  "DICE-1.result": {
    "actor": "subject",
    "successes": "count:success",
    "wins": "wins"
  },
  "DICE-1.rolled": {
    "actor": "subject",
    "dice": "dice",
    "successes": "count:success",
    "supplied": "flag"
  },
  "DICE-1.toRoll": {
    "actor": "subject",
    "pool": "count:die"
  },
  "DICE-2.again": {
    "actor": "subject",
    "again": "number",
    "rerolls": "count:reroll"
  },
  "DICE-2.noAgain": {
    "actor": "subject",
    "again": "plain",
    "rerolls": "count:reroll"
  },
  "DICE-3.extra": {
    "actor": "subject",
    "counted": "flag",
    "extra": "count:extra",
    "total": "count:success"
  },
  "DICE-3.noExtra": {
    "actor": "subject",
    "counted": "flag",
    "extra": "count:extra",
    "total": "number"
  },
  "DICE-4.modifiers": {
    "actor": "subject",
    "modifiers": "modifiers",
    "total": "signed-count:die"
  },
  "DICE-5.hidden": {
    "before": "locate",
    "observer": "subject",
    "observerWins": "flag",
    "result": "locate",
    "target": "subject",
    "tie": "flag"
  },
  "DICE-5.opposed": {
    "actor": "subject",
    "dc": "number",
    "opponent": "subject",
    "successes": "count:success",
    "wins": "wins"
  },
  "DICE-5.spotted": {
    "before": "locate",
    "observer": "subject",
    "observerWins": "flag",
    "result": "locate",
    "target": "subject",
    "tie": "flag"
  },
  "DICE-5.tie": {
    "before": "locate",
    "observer": "subject",
    "observerWins": "flag",
    "result": "locate",
    "target": "subject",
    "tie": "flag"
  },
  "DICE-6.rolled": {
    "actor": "subject",
    "dice": "dice",
    "successes": "count:success",
    "supplied": "flag"
  },
  "DICE-7.bonus": {
    "actor": "subject",
    "bonus": "count:die"
  },
  "EP-1.gained": {
    "actor": "subject",
    "category": "pool-kind",
    "keyAttributes": "attributes",
    "max": "number",
    "name": "text",
    "region": "text",
    "traits": "pool-classes"
  },
  "EP-2.annihilated": {
    "actor": "subject",
    "conflicts": "plain"
  },
  "EP-2.rejects": {
    "actor": "subject",
    "class": "pool-class",
    "holder": "text",
    "mode": "mode",
    "other": "text"
  },
  "EP-3.anchor": {
    "actor": "subject",
    "anchorSource": "text",
    "class": "pool-class",
    "name": "text"
  },
  "EP-3.anchored": {
    "actor": "subject",
    "anchorSource": "text",
    "class": "pool-class",
    "participants": "plain"
  },
  "EP-3.anchoredWith": {
    "actor": "subject",
    "anchorSource": "text",
    "class": "pool-class",
    "participants": "plain"
  },
  "EP-4.noBonus": {
    "actor": "subject",
    "before": "number",
    "bonus": "number",
    "gainedFrom": "text",
    "max": "number",
    "name": "text",
    "reopening": "number"
  },
  "EP-4.reopened": {
    "actor": "subject",
    "before": "number",
    "bonus": "number",
    "gainedFrom": "text",
    "max": "number",
    "name": "text",
    "reopening": "number"
  },
  "EP-5.max": {
    "actor": "subject",
    "current": "number",
    "lost": "number",
    "max": "number",
    "pool": "text"
  },
  "EP-5.restore": {
    "actor": "subject",
    "current": "number",
    "pool": "text",
    "restored": "number"
  },
  "EP-6.paid": {
    "actor": "subject",
    "classes": "pool-classes",
    "current": "number",
    "effectCost": "number",
    "paid": "number",
    "pool": "text"
  },
  "EP-6.reduced": {
    "actor": "subject",
    "cost": "number",
    "paid": "number",
    "reduction": "number"
  },
  "EP-6.spendAll": {
    "actor": "subject",
    "paid": "number",
    "spendAll": "flag"
  },
  "EP-7.substitute": {
    "actor": "subject",
    "classes": "pool-classes",
    "inPlaceOf": "text",
    "name": "text",
    "pool": "text"
  },
  "EP-7.variant": {
    "actor": "subject",
    "name": "text",
    "variantOf": "text"
  },
  "EP-8.untouched": {
    "actor": "subject",
    "attack": "flag",
    "name": "text",
    "pool": "text"
  },
  "EP-9.gained": {
    "actor": "subject",
    "current": "number",
    "gauge": "text",
    "max": "number"
  },
  "EP-9.gauge": {
    "actor": "subject",
    "current": "number",
    "gauge": "text"
  },
  "EP-9.max": {
    "actor": "subject",
    "current": "number",
    "gauge": "text",
    "lost": "number",
    "max": "number"
  },
  "EP-9.rejects": {
    "actor": "subject",
    "class": "pool-class",
    "holder": "text",
    "mode": "mode",
    "other": "text"
  },
  "HEALTH-10.healed": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "healed": "plain",
    "healthy": "number",
    "lethal": "number",
    "max": "number"
  },
  "HEALTH-10.nothing": {
    "actor": "subject",
    "healed": "plain"
  },
  "HEALTH-10.source": {
    "actor": "subject",
    "points": "plain",
    "source": "heal-source"
  },
  "HEALTH-11.absorb": {
    "absorbed": "plain",
    "actor": "subject",
    "tempHp": "number",
    "tempHpBefore": "number"
  },
  "HEALTH-11.gain": {
    "actor": "subject",
    "before": "number",
    "tempHp": "number"
  },
  "HEALTH-11.noStack": {
    "actor": "subject",
    "offered": "number",
    "tempHp": "number"
  },
  "HEALTH-11.unavoidable": {
    "actor": "subject",
    "unavoidable": "plain"
  },
  "HEALTH-12.change": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "delta": "signed",
    "effect": "text",
    "healthy": "number",
    "lethal": "number",
    "max": "number",
    "removed": "plain"
  },
  "HEALTH-12.ends": {
    "actor": "subject",
    "effect": "text",
    "reversed": "number"
  },
  "HEALTH-13.healed": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "healed": "plain",
    "healthy": "number",
    "lethal": "number",
    "max": "number"
  },
  "HEALTH-13.new": {
    "actor": "subject",
    "max": "count:healthyBoxWith"
  },
  "HEALTH-13.overflow": {
    "actor": "subject",
    "overflow": "plain"
  },
  "HEALTH-13.replaced": {
    "actor": "subject",
    "replaced": "flag"
  },
  "HEALTH-13.worsening": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "from": "text",
    "grade": "grade",
    "healthy": "number",
    "lethal": "number",
    "max": "number",
    "track": "track"
  },
  "HEALTH-2.damage": {
    "actor": "subject",
    "aggravated": "number",
    "amount": "number",
    "bashing": "number",
    "bashingUp": "number",
    "grade": "grade",
    "healthy": "number",
    "healthyTo": "number",
    "leftOver": "number",
    "lethal": "number",
    "lethalUp": "number",
    "max": "number",
    "track": "track"
  },
  "HEALTH-2.none": {
    "actor": "subject",
    "amount": "number"
  },
  "HEALTH-2.wasted": {
    "actor": "subject",
    "wasted": "plain"
  },
  "HEALTH-3.woken": {
    "actor": "subject",
    "woken": "flag"
  },
  "HEALTH-4.recheck": {
    "actor": "subject",
    "recheck": "flag"
  },
  "HEALTH-4.stabilized": {
    "actor": "subject",
    "stabilized": "flag"
  },
  "HEALTH-4.worsening": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "from": "text",
    "grade": "grade",
    "healthy": "number",
    "lethal": "number",
    "max": "number",
    "track": "track"
  },
  "HEALTH-5.notReturned": {
    "actor": "subject",
    "effect": "text",
    "notReturned": "number"
  },
  "HEALTH-6.status": {
    "actor": "subject",
    "conditions": "conditions",
    "status": "health-status"
  },
  "HEALTH-7.change": {
    "actor": "subject",
    "after": "negated",
    "before": "negated"
  },
  "HEALTH-7.penalty": {
    "actor": "subject",
    "penalty": "count:die"
  },
  "HEALTH-8.healed": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "healed": "plain",
    "healthy": "number",
    "lethal": "number",
    "max": "number"
  },
  "HEALTH-8.longRest": {
    "actor": "subject",
    "longRests": "count:longRest"
  },
  "HEALTH-8.nothing": {
    "actor": "subject",
    "healed": "plain"
  },
  "HEALTH-8.restCarried": {
    "actor": "subject",
    "grade": "grade",
    "periodHours": "count:hour",
    "restHours": "count:hour"
  },
  "HEALTH-8.source": {
    "actor": "subject",
    "points": "plain",
    "source": "heal-source"
  },
  "HEALTH-9.cost": {
    "actor": "subject",
    "aggravated": "count:aggravatedBox",
    "cost": "count:point"
  },
  "HEALTH-9.healed": {
    "actor": "subject",
    "aggravated": "number",
    "bashing": "number",
    "healed": "plain",
    "healthy": "number",
    "lethal": "number",
    "max": "number"
  },
  "HEALTH-9.nothing": {
    "actor": "subject",
    "healed": "plain"
  },
  "HEALTH-9.source": {
    "actor": "subject",
    "points": "plain",
    "source": "heal-source"
  },
  "IWR-1.blocked": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "immunity": "iwr-name",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-1.exception": {
    "actor": "subject",
    "exception": "iwr-name",
    "immunity": "iwr-name",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-2.blocked": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "immunity": "iwr-name",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-2.condition": {
    "actor": "subject",
    "condition": "condition"
  },
  "IWR-2.trait": {
    "actor": "subject",
    "immunity": "iwr-name",
    "trait": "damage-type"
  },
  "IWR-3.doubled": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-3.immune": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-4.blocked": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "immunity": "iwr-name",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-5.blocked": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "effect": "text",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-5.ended": {
    "actor": "subject",
    "ended": "text",
    "untilRound": "number"
  },
  "IWR-5.temporary": {
    "actor": "subject",
    "effect": "text",
    "untilRound": "number"
  },
  "IWR-6.weakness": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "index": "ordinal",
    "type": "damage-type",
    "value": "number",
    "weakness": "damage-type"
  },
  "IWR-7.resistance": {
    "actor": "subject",
    "after": "number",
    "before": "number",
    "index": "ordinal",
    "resistance": "damage-type",
    "type": "damage-type",
    "value": "number"
  },
  "IWR-7.unavoidable": {
    "actor": "subject",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-8.deals": {
    "actor": "subject",
    "amount": "number",
    "index": "ordinal",
    "type": "damage-type"
  },
  "IWR-8.instance": {
    "actor": "subject",
    "amount": "number",
    "grade": "grade",
    "index": "ordinal",
    "rank": "rank",
    "type": "damage-type"
  },
  "PIN.explain": {
    "by": "user",
    "observer": "subject",
    "result": "locate",
    "rules": "locate",
    "target": "subject",
    "until": "until"
  },
  "PIN.pinned": {
    "by": "user",
    "observer": "subject",
    "state": "locate",
    "target": "subject",
    "until": "until"
  },
  "PIN.released": {
    "observer": "subject",
    "released": "flag",
    "target": "subject"
  },
  "PIN.restart": {
    "observer": "subject",
    "target": "subject",
    "untilRound": "number"
  },
  "RANK-10.gains": {
    "actor": "subject",
    "gained": "flag",
    "immunity": "immunity"
  },
  "RANK-11.again": {
    "actor": "subject",
    "again": "number",
    "effectiveAgain": "number"
  },
  "RANK-12.points": {
    "actor": "subject",
    "kind": "point-kind",
    "points": "count:point",
    "total": "number"
  },
  "RANK-13.bonus": {
    "actor": "subject",
    "bonus": "count:die",
    "immunity": "immunity",
    "replaced": "immunity",
    "save": "save",
    "total": "number"
  },
  "RANK-13.sameSource": {
    "actor": "subject",
    "immunity": "immunity",
    "replaced": "immunity"
  },
  "RANK-3.rank": {
    "actor": "subject",
    "rank": "rank"
  },
  "RANK-4.blocks": {
    "actor": "subject",
    "after": "number",
    "amount": "number",
    "before": "number",
    "blocked": "flag",
    "casterLevel": "number",
    "condition": "condition",
    "effectRank": "rank-name",
    "immunity": "immunity",
    "index": "number",
    "kind": "point-kind",
    "type": "text",
    "what": "immunity-what"
  },
  "RANK-4.unstopped": {
    "actor": "subject",
    "after": "number",
    "amount": "number",
    "before": "number",
    "blocked": "flag",
    "casterLevel": "number",
    "condition": "condition",
    "effectRank": "rank-name",
    "immunity": "immunity",
    "index": "number",
    "kind": "point-kind",
    "type": "text",
    "what": "immunity-what"
  },
  "RANK-5.blocks": {
    "actor": "subject",
    "after": "number",
    "amount": "number",
    "before": "number",
    "blocked": "flag",
    "casterLevel": "number",
    "condition": "condition",
    "effectRank": "rank-name",
    "immunity": "immunity",
    "index": "number",
    "kind": "point-kind",
    "type": "text",
    "what": "immunity-what"
  },
  "RANK-5.condition": {
    "actor": "subject",
    "condition": "condition"
  },
  "RANK-5.points": {
    "actor": "subject",
    "kind": "point-kind",
    "points": "count:point",
    "total": "number"
  },
  "RANK-5.unstopped": {
    "actor": "subject",
    "after": "number",
    "amount": "number",
    "before": "number",
    "blocked": "flag",
    "casterLevel": "number",
    "condition": "condition",
    "effectRank": "rank-name",
    "immunity": "immunity",
    "index": "number",
    "kind": "point-kind",
    "type": "text",
    "what": "immunity-what"
  },
  "RANK-9.already": {
    "actor": "subject",
    "already": "flag",
    "immunity": "immunity"
  },
  "RANK-9.blocks": {
    "actor": "subject",
    "after": "number",
    "amount": "number",
    "before": "number",
    "blocked": "flag",
    "casterLevel": "number",
    "condition": "condition",
    "effectRank": "rank-name",
    "immunity": "immunity",
    "index": "number",
    "kind": "point-kind",
    "type": "text",
    "what": "immunity-what"
  },
  "RANK-9.gains": {
    "actor": "subject",
    "gained": "flag",
    "immunity": "immunity"
  },
  "ROUND.begins": {
    "round": "number"
  },
  "SYNC.synced": {
    "actors": "count:actor",
    "tokens": "count:token"
  },
  "UNDO.redone": {
    "action": "text",
    "key": "text",
    "kind": "ruling-kind",
    "rev": "number"
  },
  "UNDO.undone": {
    "action": "text",
    "key": "text",
    "kind": "ruling-kind",
    "rev": "number"
  },
  "UPSERT.set": {
    "new": "json",
    "old": "json",
    "path": "text"
  },
  "WP-1.full": {
    "actor": "subject",
    "recovered": "number"
  },
  "WP-1.recover": {
    "actor": "subject",
    "current": "number",
    "recovered": "number"
  },
  "WP-2.defense": {
    "actor": "subject",
    "bonus": "number",
    "current": "number",
    "paidFrom": "paid-from",
    "temporary": "number",
    "use": "text"
  },
  "WP-2.roll": {
    "actor": "subject",
    "bonus": "count:die",
    "current": "number",
    "paidFrom": "paid-from",
    "temporary": "number",
    "use": "text"
  },
  "WP-3.blow": {
    "actor": "subject",
    "lapse": "text"
  },
  "WP-3.hunger": {
    "actor": "subject",
    "bonus": "number",
    "current": "number",
    "paidFrom": "paid-from",
    "temporary": "number",
    "use": "text"
  },
  "WP-3.round": {
    "actor": "subject",
    "lapse": "text"
  },
  "WP-3.stayConscious": {
    "actor": "subject",
    "bonus": "number",
    "current": "number",
    "paidFrom": "paid-from",
    "temporary": "number",
    "use": "text"
  },
  "WP-4.lose": {
    "actor": "subject",
    "current": "number",
    "fromCurrent": "number",
    "fromTemporary": "number"
  },
  "WP-4.noStack": {
    "actor": "subject",
    "temporary": "number"
  },
  "WP-4.temporary": {
    "actor": "subject",
    "temporary": "number"
  },
  "WP-5.awake": {
    "actor": "subject",
    "unconscious": "flag"
  },
  "WP-5.unconscious": {
    "actor": "subject",
    "unconscious": "flag"
  },
  "WP-6.change": {
    "actor": "subject",
    "current": "number",
    "lost": "number",
    "max": "number"
  }
});
