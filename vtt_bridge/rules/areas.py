"""DET-4 on the map: an approximately located target is known as an area, never as its square.

An observer who locates a target approximately knows "its general direction but not its exact
position" (DET-4). The map shows that knowledge as a circle, the target's *area*: it holds the
target, its centre is drawn by dice around where the target stands (so the target is anywhere in it,
not at its middle), and its radius is the world's `approximateSquares` in squares. An area stays
where it is while the target stays inside it (a step inside tells the observer nothing); a target
that leaves it gets a new one drawn around where it now stands.

Pure: the dice are handed in (`Roller`), the coordinates are the tokens' own (canvas pixels).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import islice
from operator import itemgetter
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.dice import Roller

Pixel = int | float
"""A coordinate or radius in canvas pixels: a whole pixel stays an int (the wire writes `90`, not `90.0`)."""

Area = tuple[Pixel, Pixel, Pixel]
"""An area as the wire writes it: `[x, y, r]`, its centre and radius in the tokens' coordinates."""

DEFAULT_SQUARES = 3
"""The radius of an area in squares when the world does not say (`settings.approximateSquares`)."""

Squares = Annotated[int, Field(strict=True, ge=1, le=100)]
"""`settings.approximateSquares`: an area's radius in grid squares (1..100)."""

DIGITS = 3
"""d10s per drawn number: each die is a decimal digit (10 reads as 0), so a number is one of 1,000."""

_STEPS = 1000
"""10 ** DIGITS."""


def area_radius(squares: int, grid_size: float) -> Pixel:
    """An area's radius in canvas pixels: `squares` grid squares of `grid_size` pixels."""
    radius = squares * grid_size
    return int(radius) if radius == int(radius) else radius


def holds(area: Area, x: Pixel, y: Pixel) -> bool:
    """Whether the point (x, y) lies in the area (its edge included)."""
    dx, dy = x - area[0], y - area[1]
    return dx * dx + dy * dy <= area[2] * area[2]


_ANGLES = tuple(2 * math.pi * (n + 0.5) / _STEPS for n in range(_STEPS))
_COS = tuple(math.cos(a) for a in _ANGLES)
_SIN = tuple(math.sin(a) for a in _ANGLES)
"""The angle each of the 1,000 three-digit numbers names (the middle of its step), its cosine and sine."""
_ROOT = tuple(math.sqrt((n + 0.5) / _STEPS) for n in range(_STEPS))
"""The square root of the fraction each three-digit number names: a uniform point of the disc."""

SHARED_PIXELS = 1 << 14
"""Whole-pixel centres in `0 <= v < SHARED_PIXELS` are shared int objects (`_PIXELS`)."""
_PIXELS: tuple[Pixel, ...] = tuple(range(SHARED_PIXELS))
"""One int object per pixel of a map up to `SHARED_PIXELS` wide: a drawn centre's coordinates are
taken from here, so the hundreds of thousands of areas of a big scene share a few thousand ints
instead of holding two of their own each (equal values, less memory)."""


def _shared(n: Pixel) -> Pixel:
    return _PIXELS[n] if type(n) is int and 0 <= n < SHARED_PIXELS else n


def _keys(rolled: bytes) -> memoryview:
    """Each three dice of `rolled` (faces 1..10) as one unsigned int, the key `_TURN_OF` and
    `_ROOT_OF` know them by: the three bytes spread into a word of four, read natively."""
    words = bytearray(len(rolled) // 3 * 4)
    words[0::4], words[1::4], words[2::4] = rolled[0::3], rolled[1::3], rolled[2::3]
    return memoryview(words).cast("I")


_NUMBER_OF = {
    _keys(bytes((a, b, c)))[0]: a % 10 * 100 + b % 10 * 10 + c % 10
    for a in range(1, 11)
    for b in range(1, 11)
    for c in range(1, 11)
}
"""Three dice's key (`_keys`) -> the number of `DIGITS` decimal digits they read (10 reads as 0)."""
_TURN_OF = {key: (_COS[n], _SIN[n]) for key, n in _NUMBER_OF.items()}
_ROOT_OF = {key: _ROOT[n] for key, n in _NUMBER_OF.items()}
"""`_COS` and `_SIN`, and `_ROOT`, by three dice's key."""


@lru_cache(maxsize=8)
def _reaches(span: Pixel) -> Mapping[int, float]:
    """`_ROOT_OF` times `span` (an area's radius, less the pixel its rounding may need): the very
    products a draw would compute, made once per span (a world has one radius, a few at most)."""
    return {key: span * root for key, root in _ROOT_OF.items()}


def shared_area(area: Sequence[Pixel]) -> Area:
    """The same area with its whole pixels taken from the shared table (`_PIXELS`): an area read
    back from JSON holds as little memory as a drawn one."""
    return (_shared(area[0]), _shared(area[1]), _shared(area[2]))


def draw_areas(points: Sequence[tuple[Pixel, Pixel]], radius: Pixel, dice: Roller) -> list[Area]:
    """A new area of `radius` holding each point, in order (`draw_runs`, one point a run)."""
    return draw_runs([(point, 1) for point in points], radius, dice)


def draw_runs(runs: Iterable[tuple[tuple[Pixel, Pixel], int]], radius: Pixel, dice: Roller) -> list[Area]:
    """Per run `(point, count)`, `count` new areas of `radius` holding its point, run after run:
    each centre drawn uniformly from the disc around its point, from `2 * DIGITS` dice (an angle
    and the square root of a fraction, each a number of `DIGITS` decimal digits, the middle of the
    step they name), so where the target stands within its area is as likely anywhere. The dice are
    taken at once from a `FaceSource` (a sync of a big scene draws hundreds of thousands). The
    centre is a whole pixel when the radius leaves room for the rounding (the drawn offset is then
    kept within `radius - 1`), rounded by the float's own `__round__` (as `round` does)."""
    runs = list(runs)
    count = 2 * DIGITS * sum(map(itemgetter(1), runs))
    if not count:
        return []
    faces = getattr(dice, "faces", None)
    rolled: bytes = faces(count) if faces is not None else bytes(dice.d10() for _ in range(count))
    keys = _keys(rolled)
    numbers = zip(keys[0::2], keys[1::2], strict=True)  # each area's angle and fraction, as their dice's keys
    whole = radius >= 2  # else no room for a whole pixel: the centre as drawn
    span = radius - 1 if whole else radius
    reach_of = _reaches(span)  # each fraction's reach: `span` times its root
    turn_of, rounded, pixels, top = _TURN_OF, float.__round__, _PIXELS, SHARED_PIXELS
    out: list[Area] = []
    append = out.append
    for (x, y), n in runs:
        if n == 1:  # a run of one (most rows a move changes besides its own): no slice of the numbers
            turn, fraction = next(numbers)
            cos, sin = turn_of[turn]
            reach = reach_of[fraction]
            if not whole:
                append((x + reach * cos, y + reach * sin, radius))
                continue
            cx, cy = rounded(x + reach * cos), rounded(y + reach * sin)
            append((pixels[cx] if 0 <= cx < top else cx, pixels[cy] if 0 <= cy < top else cy, radius))
            continue
        drawn = islice(numbers, n)
        if not whole:
            for turn, fraction in drawn:
                cos, sin = turn_of[turn]
                reach = reach_of[fraction]
                append((x + reach * cos, y + reach * sin, radius))
        elif span < x < top - span - 1 and span < y < top - span - 1:  # every centre a shared pixel
            for turn, fraction in drawn:
                cos, sin = turn_of[turn]
                reach = reach_of[fraction]
                append((pixels[rounded(x + reach * cos)], pixels[rounded(y + reach * sin)], radius))
        else:
            for turn, fraction in drawn:
                cos, sin = turn_of[turn]
                reach = reach_of[fraction]
                cx, cy = rounded(x + reach * cos), rounded(y + reach * sin)
                append((pixels[cx] if 0 <= cx < top else cx, pixels[cy] if 0 <= cy < top else cy, radius))
    return out


def draw_area(x: Pixel, y: Pixel, radius: Pixel, dice: Roller) -> Area:
    """One area of `radius` holding the point (x, y) (`draw_areas`)."""
    return draw_areas([(x, y)], radius, dice)[0]


def still_holds(area: Area | None, x: Pixel, y: Pixel, radius: Pixel) -> bool:
    """Whether an existing area stands for a target at (x, y): it exists, has the world's radius
    and holds the point. Otherwise a new one is drawn (or, for a pair no longer approximate, none)."""
    return area is not None and area[2] == radius and holds(area, x, y)


__all__ = [
    "DEFAULT_SQUARES",
    "Area",
    "Pixel",
    "Squares",
    "area_radius",
    "draw_area",
    "draw_areas",
    "draw_runs",
    "holds",
    "shared_area",
    "still_holds",
]
