"""Instructions a `damage` ruling spends in each of its parts, counted by Valgrind's callgrind in
this process (no sockets, no store): the world of `bench_roundtrip`, each damage prepared
(`World.prepare_action`), its result dumped and committed as the server does.

    valgrind --tool=callgrind --toggle-collect=groupby_next --callgrind-out-file=OUT \\
        python -m benchmarks.instr_damage [--damages 400] [--parts prepare|handler|finish|ruling]
    callgrind_annotate --inclusive=yes OUT | grep itertoolsmodule

Python's frames are not callgrind's functions, so each part measured is called through a C
iterator of its own (`itertools.groupby` for the outermost part, whose entry and exit switch the
count on and off; `starmap`, `filterfalse`, `dropwhile`, `takewhile` for the parts within it): the
inclusive count of `groupby_next`, `starmap_next` ... divided by the damages is that part's
instructions a damage. Each wrapper adds some 2-3k instructions to the part around it.
`--parts ruling` counts the whole ruling in `groupby_next` (no wrapper inside): prepared, its
result dumped (`dumped_result`), its ops made JSON (`_made`) and committed (`World.commit`). The
counts repeat within a fraction of a percent whatever the machine's load (docs/benchmarks.md, "A damage's
path, fifteenth session").
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import vtt_bridge.actions.health as damage_actions
import vtt_bridge.engine.world as worlds
from benchmarks.bench_roundtrip import _damage
from vtt_bridge.engine import patch
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.rules.health import MAX_HEALTH
from vtt_bridge.server.commit import _made, dumped_result

WARM_UP = 100

_ITERATORS: dict[str, Callable[[Callable[[Any], bool]], Iterator[Any]]] = {
    "groupby": lambda call: (group for _key, group in itertools.groupby([0], call)),
    "starmap": lambda call: itertools.starmap(call, [(0,)]),
    "filterfalse": lambda call: itertools.filterfalse(call, [0]),
    "dropwhile": lambda call: itertools.dropwhile(call, [0]),
    "takewhile": lambda call: itertools.takewhile(call, [0]),
}


def through(iterator: str, work: Callable[..., Any]) -> Callable[..., Any]:
    """`work`, called through the C iterator named (its `<name>_next` counts it in callgrind)."""
    make = _ITERATORS[iterator]

    def called(*args: Any, **kwargs: Any) -> Any:
        out: list[Any] = []

        def call(_: object) -> bool:
            out.append(work(*args, **kwargs))
            return False

        collections.deque(make(call), maxlen=0)
        return out[0]

    return called


def _swap(owner: object, name: str, iterator: str) -> None:
    """`owner.name` (a module's function or a class's method) called through `iterator` from now on."""
    setattr(owner, name, through(iterator, getattr(owner, name)))


def _wrap(parts: str, world: World) -> Callable[..., Any]:
    """Wrap the parts measured; returns the `prepare_action` to call."""
    handlers: dict[str, tuple[Any, Callable[..., Any]]] = getattr(worlds, "HANDLERS")  # noqa: B009
    kind, handler = handlers["damage"]
    if parts == "prepare":  # prepare_action: validation, the handler, _finish, the digest
        _swap(worlds, "_validated", "starmap")
        _swap(World, "_finish", "filterfalse")
        handlers["damage"] = (kind, through("dropwhile", handler))
        _swap(worlds, "payload_digest", "takewhile")
        return through("groupby", world.prepare_action)
    if parts == "handler":  # the damage handler: IWR-8, HEALTH-2 and the rest, HEALTH-6
        for name, iterator in (
            ("resolve_damage", "starmap"),
            ("take_damage", "filterfalse"),
            ("_summarized", "dropwhile"),
            ("derive_actor", "takewhile"),
        ):
            _swap(damage_actions, name, iterator)
        handlers["damage"] = (kind, through("groupby", handler))
        return world.prepare_action
    # finish: the diff, its inverse, detection's check, the log's payloads
    _swap(patch, "diff_states", "starmap")
    _swap(patch, "inverse_ops", "filterfalse")
    _swap(worlds, "reaches_detection", "dropwhile")
    _swap(worlds, "payloads", "takewhile")
    _swap(World, "_finish", "groupby")
    return world.prepare_action


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--damages", type=int, default=400)
    parser.add_argument("--parts", choices=("prepare", "handler", "finish", "ruling"), default="prepare")
    args = parser.parse_args()
    world, roller = World("bench"), SeededRoller(1)
    heroes = {f"hero{n}": {"name": f"Hero {n}", "health": {"max": MAX_HEALTH}} for n in range(3)}
    state = {
        "scene": {"id": "s", "round": 1},
        "actors": {**heroes, "foe": {"name": "Foe"}},
        "tokens": {"t1": {"actor": "hero0"}, "t2": {"actor": "foe", "x": 300}},
    }
    synced = world.prepare_sync({"state": state}, "s")
    world.commit(synced, b"{}")
    payloads = [json.loads(_damage(i))["payload"] for i in range(WARM_UP + args.damages)]

    def one(i: int, prepare: Callable[..., Any]) -> None:
        pending = prepare(f"d{i}", payloads[i], roller)
        dumped = dumped_result(pending.result)
        world.commit(pending, dumped.data, _made(pending)[0])

    for i in range(WARM_UP):
        one(i, world.prepare_action)
    if args.parts == "ruling":  # the whole of it: prepared, dumped, its ops made JSON, committed
        whole = through("groupby", one)
        for i in range(WARM_UP, WARM_UP + args.damages):
            whole(i, world.prepare_action)
        return
    prepare = _wrap(args.parts, world)
    for i in range(WARM_UP, WARM_UP + args.damages):
        one(i, prepare)


if __name__ == "__main__":
    main()
