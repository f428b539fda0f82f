"""Ranks (RANK-1..13): the ordered power grades of abilities and effects."""

from __future__ import annotations

from enum import StrEnum


class Rank(StrEnum):
    """RANK-1: six Ranks, ordered unranked < D < C < B < A < S. The value is the wire form."""

    UNRANKED = "unranked"
    D = "D"
    C = "C"
    B = "B"
    A = "A"
    S = "S"

    @property
    def number(self) -> int:
        """The Rank's number: unranked 0, D 1, C 2, B 3, A 4, S 5."""
        return _RANK_NUMBERS[self]

    @classmethod
    def from_number(cls, number: int) -> Rank:
        """The Rank with this number, clamped to unranked..S (nothing is above S, RANK-2)."""
        return _RANKS_BY_NUMBER[max(0, min(5, number))]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number < other.number

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number <= other.number

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number > other.number

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number >= other.number


_RANK_NUMBERS = {Rank.UNRANKED: 0, Rank.D: 1, Rank.C: 2, Rank.B: 3, Rank.A: 4, Rank.S: 5}
_RANKS_BY_NUMBER = {number: rank for rank, number in _RANK_NUMBERS.items()}
