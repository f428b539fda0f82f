"""DET-4 on the map, the pure rule: an area holds its point, is drawn by the dice handed in, spreads
its centre over the disc, and stands while its point stays inside (`rules.areas`)."""

from __future__ import annotations

import math
import random

from vtt_bridge.rules.areas import area_radius, draw_area, draw_areas, draw_runs, holds, still_holds


class Dice:
    """d10s from a seeded generator (the rules take any roller)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.rolled = 0

    def d10(self) -> int:
        self.rolled += 1
        return self._random.randint(1, 10)


def test_DET_4_an_area_holds_the_point_it_was_drawn_around_and_has_the_radius_asked_for() -> None:
    dice = Dice(1)
    for n in range(2000):
        x, y = n * 37.5 % 4000, n * 91.25 % 3000
        for radius in (300, 150, 1.5, 0.25):
            area = draw_area(x, y, radius, dice)
            assert area[2] == radius
            assert holds(area, x, y), (x, y, area)
            assert still_holds(area, x, y, radius)


def test_DET_4_a_centre_is_a_whole_pixel_when_the_radius_leaves_room_and_costs_six_dice() -> None:
    dice = Dice(2)
    area = draw_area(1000.0, 500.0, 300, dice)
    assert dice.rolled == 6
    assert all(type(n) is int for n in area)
    small = draw_area(10.0, 10.0, 1.5, dice)
    assert small[2] == 1.5


def test_DET_4_the_point_lies_anywhere_in_its_area_not_at_its_middle() -> None:
    """Uniform over the disc: about a quarter of the centres within half the radius, about half
    beyond 0.71 of it (2000 draws; the bounds leave five standard deviations)."""
    dice = Dice(3)
    distances = [math.dist(draw_area(0, 0, 1001, dice)[:2], (0, 0)) / 1000 for _ in range(2000)]
    near = sum(d <= 0.5 for d in distances) / len(distances)
    far = sum(d > math.sqrt(0.5) for d in distances) / len(distances)
    assert 0.2 < near < 0.3
    assert 0.44 < far < 0.56
    angles = [math.atan2(*draw_area(0, 0, 1001, dice)[:2]) for _ in range(2000)]
    assert 0.44 < sum(a > 0 for a in angles) / len(angles) < 0.56


def test_DET_4_the_same_dice_draw_the_same_area() -> None:
    assert draw_area(100, 200, 300, Dice(9)) == draw_area(100, 200, 300, Dice(9))
    assert draw_area(100, 200, 300, Dice(9)) != draw_area(100, 200, 300, Dice(10))


def test_DET_4_an_area_no_longer_stands_when_its_point_leaves_or_its_radius_changes() -> None:
    area = (0, 0, 300)
    assert still_holds(area, 300, 0, 300)  # the edge is inside
    assert not still_holds(area, 301, 0, 300)
    assert not still_holds(area, 0, 0, 200)  # the world's radius changed
    assert not still_holds(None, 0, 0, 300)


def test_DET_4_the_radius_is_squares_times_the_grid_size() -> None:
    assert area_radius(3, 100) == 300 and type(area_radius(3, 100)) is int
    assert area_radius(2, 70.5) == 141.0


def test_DET_4_drawn_centres_share_their_whole_pixels_instead_of_holding_ints_of_their_own() -> None:
    points = [(1000.0 + 7 * n, 2000.0 - 3 * n) for n in range(400)]
    drawn = draw_areas(points, 300, Dice(5))
    numbers = [n for area in drawn for n in area[:2]]
    assert all(0 <= n < 1 << 14 for n in numbers)
    assert len({id(n) for n in numbers}) == len(set(numbers)) < len(numbers)


def _one_at_a_time(x: float, y: float, radius: float, faces: list[int]) -> tuple[float, float, float]:
    """The area six dice draw, worked out plainly (`draw_areas`' docstring): two numbers of three
    decimal digits (a face of 10 reads as 0), the middle of the step each names as an angle and as
    a fraction whose square root is the reach; within `radius - 1`, rounded, for a radius of 2 or more."""
    digits = [face % 10 for face in faces]
    turn = digits[0] * 100 + digits[1] * 10 + digits[2]
    fraction = digits[3] * 100 + digits[4] * 10 + digits[5]
    whole = radius >= 2
    reach = (radius - 1 if whole else radius) * math.sqrt((fraction + 0.5) / 1000)
    angle = 2 * math.pi * (turn + 0.5) / 1000
    cx, cy = x + reach * math.cos(angle), y + reach * math.sin(angle)
    return (round(cx), round(cy), radius) if whole else (cx, cy, radius)


class Recorded(Dice):
    """`Dice` that remember every face they gave."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.given: list[int] = []

    def d10(self) -> int:
        face = super().d10()
        self.given.append(face)
        return face


def test_DET_4_areas_drawn_at_once_are_each_what_its_six_dice_draw_alone() -> None:
    """Every face of every die in each of the six places, points near and beyond the shared pixels'
    edges (negative, past 16,384), whole and fractional radii: a batch gives, area by area, what
    the plain formula gives for the same dice, and takes six dice an area."""
    rng = random.Random(4)
    points = [(rng.uniform(-500, 17000), rng.uniform(-500, 17000)) for _ in range(3000)]
    points += [(float(n), float(16384 - n)) for n in range(0, 400, 7)]
    for radius in (300, 141.0, 2, 1.5, 0.25):
        dice = Recorded(int(radius * 100))
        drawn = draw_areas(points, radius, dice)
        assert len(dice.given) == 6 * len(points)
        expected = [
            _one_at_a_time(x, y, radius, dice.given[6 * n : 6 * n + 6]) for n, (x, y) in enumerate(points)
        ]
        assert drawn == expected
        assert [tuple(map(type, a)) for a in drawn] == [tuple(map(type, a)) for a in expected]
    assert draw_areas([], 300, Dice(1)) == []


def test_DET_4_areas_drawn_in_runs_of_one_point_are_the_areas_of_each_point_in_turn() -> None:
    rng = random.Random(8)
    runs = [((rng.uniform(-400, 17000), rng.uniform(-400, 17000)), rng.randrange(0, 40)) for _ in range(200)]
    runs += [((300.0, 16084.0), 50), ((299, 100), 50), ((16000, 16083), 50)]  # the shared pixels' edges
    for radius in (300, 2, 1.5):
        points = [point for point, n in runs for _ in range(n)]
        assert draw_runs(runs, radius, Dice(11)) == draw_areas(points, radius, Dice(11))
