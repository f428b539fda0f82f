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
from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.dice import Roller

Area = tuple[float, float, float]
"""An area as the wire writes it: `[x, y, r]`, its centre and radius in the tokens' coordinates."""

DEFAULT_SQUARES = 3
"""The radius of an area in squares when the world does not say (`settings.approximateSquares`)."""

Squares = Annotated[int, Field(strict=True, ge=1, le=100)]
"""`settings.approximateSquares`: an area's radius in grid squares (1..100)."""

DIGITS = 3
"""d10s per drawn number: each die is a decimal digit (10 reads as 0), so a number is one of 1,000."""

_STEPS = 1000
"""10 ** DIGITS."""


def area_radius(squares: int, grid_size: float) -> float:
    """An area's radius in canvas pixels: `squares` grid squares of `grid_size` pixels."""
    radius = squares * grid_size
    return int(radius) if radius == int(radius) else radius


def holds(area: Area, x: float, y: float) -> bool:
    """Whether the point (x, y) lies in the area (its edge included)."""
    dx, dy = x - area[0], y - area[1]
    return dx * dx + dy * dy <= area[2] * area[2]


_DIGIT = bytes(face % 10 for face in range(256))
"""A d10's face as a decimal digit (10 reads as 0; `bytes.translate`)."""

_ANGLES = tuple(2 * math.pi * (n + 0.5) / _STEPS for n in range(_STEPS))
_COS = tuple(math.cos(a) for a in _ANGLES)
_SIN = tuple(math.sin(a) for a in _ANGLES)
"""The angle each of the 1,000 three-digit numbers names (the middle of its step), its cosine and sine."""
_ROOT = tuple(math.sqrt((n + 0.5) / _STEPS) for n in range(_STEPS))
"""The square root of the fraction each three-digit number names: a uniform point of the disc."""

SHARED_PIXELS = 1 << 14
"""Whole-pixel centres in `0 <= v < SHARED_PIXELS` are shared int objects (`_PIXELS`)."""
_PIXELS = tuple(range(SHARED_PIXELS))
"""One int object per pixel of a map up to `SHARED_PIXELS` wide: a drawn centre's coordinates are
taken from here, so the hundreds of thousands of areas of a big scene share a few thousand ints
instead of holding two of their own each (equal values, less memory)."""


def _shared(n: float) -> float:
    return _PIXELS[n] if type(n) is int and 0 <= n < SHARED_PIXELS else n


def shared_area(area: Sequence[float]) -> Area:
    """The same area with its whole pixels taken from the shared table (`_PIXELS`): an area read
    back from JSON holds as little memory as a drawn one."""
    return (_shared(area[0]), _shared(area[1]), _shared(area[2]))


def draw_areas(points: Sequence[tuple[float, float]], radius: float, dice: Roller) -> list[Area]:
    """A new area of `radius` holding each point, in order: its centre drawn uniformly from the
    disc around the point, from `2 * DIGITS` dice (an angle and the square root of a fraction,
    each a number of `DIGITS` decimal digits, the middle of the step they name), so where the
    target stands within its area is as likely anywhere. The dice are taken at once from a
    `FaceSource` (a sync of a big scene draws hundreds of thousands). The centre is a whole pixel
    when the radius leaves room for the rounding (the drawn offset is then kept within `radius - 1`)."""
    count = 2 * DIGITS * len(points)
    faces = getattr(dice, "faces", None)
    rolled: bytes = faces(count) if faces is not None else bytes(dice.d10() for _ in range(count))
    digits = rolled.translate(_DIGIT)
    # each area's six digits, a column each: no slice made per area
    drawn = zip(points, *(digits[n :: 2 * DIGITS] for n in range(2 * DIGITS)), strict=True)
    cos, sin, root = _COS, _SIN, _ROOT
    if radius < 2:  # no room for a whole pixel: the centre as drawn
        exact: list[Area] = []
        for (x, y), a, b, c, e, f, g in drawn:
            turn = a * 100 + b * 10 + c
            reach = radius * root[e * 100 + f * 10 + g]
            exact.append((x + reach * cos[turn], y + reach * sin[turn], radius))
        return exact
    span = radius - 1
    pixels, top = _PIXELS, SHARED_PIXELS
    out: list[Area] = []
    append = out.append
    for (x, y), a, b, c, e, f, g in drawn:
        turn = a * 100 + b * 10 + c
        reach = span * root[e * 100 + f * 10 + g]
        cx, cy = round(x + reach * cos[turn]), round(y + reach * sin[turn])
        append((pixels[cx] if 0 <= cx < top else cx, pixels[cy] if 0 <= cy < top else cy, radius))
    return out


def draw_area(x: float, y: float, radius: float, dice: Roller) -> Area:
    """One area of `radius` holding the point (x, y) (`draw_areas`)."""
    return draw_areas([(x, y)], radius, dice)[0]


def still_holds(area: Area | None, x: float, y: float, radius: float) -> bool:
    """Whether an existing area stands for a target at (x, y): it exists, has the world's radius
    and holds the point. Otherwise a new one is drawn (or, for a pair no longer approximate, none)."""
    return area is not None and area[2] == radius and holds(area, x, y)


__all__ = [
    "DEFAULT_SQUARES",
    "Area",
    "Squares",
    "area_radius",
    "draw_area",
    "draw_areas",
    "holds",
    "shared_area",
    "still_holds",
]
