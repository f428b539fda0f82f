"""Damage types and their groups (IWR-1..8, RANK-9): what an instance of damage is made of.

A module of its own, below both `immunities` (an immunity to a damage type) and `iwr` (the damage
pipeline), so neither has to import the other for it.
"""

from __future__ import annotations

from enum import StrEnum


class DamageType(StrEnum):
    """Damage types: pf2e's current slugs plus the rulebook's own (ballistic, pure energy, lightning,
    radiant). RANK-9 lists the rulebook's; `electricity` is pf2e's, `lightning` the rulebook's.
    """

    BLUDGEONING = "bludgeoning"
    PIERCING = "piercing"
    SLASHING = "slashing"
    BLEED = "bleed"
    ACID = "acid"
    COLD = "cold"
    ELECTRICITY = "electricity"
    FIRE = "fire"
    SONIC = "sonic"
    FORCE = "force"
    VITALITY = "vitality"
    VOID = "void"
    SPIRIT = "spirit"
    MENTAL = "mental"
    POISON = "poison"
    UNTYPED = "untyped"
    BALLISTIC = "ballistic"
    PURE_ENERGY = "pure-energy"
    LIGHTNING = "lightning"
    RADIANT = "radiant"

    @property
    def english(self) -> str:
        """The English name, e.g. `pure energy`."""
        return str(self).replace("-", " ")  # its value, without the enum's `value` property


DAMAGE_TYPE_SLUGS: frozenset[str] = frozenset(member.value for member in DamageType)

D = DamageType
DAMAGE_GROUPS: dict[str, frozenset[DamageType]] = {
    "physical": frozenset({D.BLUDGEONING, D.PIERCING, D.SLASHING, D.BLEED, D.BALLISTIC}),
    "energy": frozenset(
        {
            D.ACID,
            D.COLD,
            D.ELECTRICITY,
            D.FIRE,
            D.SONIC,
            D.FORCE,
            D.VITALITY,
            D.VOID,
            D.PURE_ENERGY,
            D.LIGHTNING,
            D.RADIANT,
        }
    ),
    "all-damage": frozenset(DamageType),
}
"""pf2e's groups (physical incl. bleed as in the pf2e system; energy incl. force, vitality, void), with
the rulebook's ballistic in physical and pure energy, lightning, radiant in energy. Spirit, mental,
poison and untyped are in neither (docs/rules/ranks-dice-iwr.md)."""
del D


def is_damage_type_or_group(slug: str) -> bool:
    """A damage type or group slug (matched on the instance's type only, never on its traits)."""
    return slug in DAMAGE_TYPE_SLUGS or slug in DAMAGE_GROUPS
