"""The engine's own dice (DICE-6): a seeded source of d10 faces for the rules' `Roller`. It sits
beside the world it rolls for; the pure rules never roll, they take any `Roller`."""

from __future__ import annotations

import random

_FACES = bytes(byte % 10 + 1 if byte < 250 else 0 for byte in range(256))
"""A random byte as a d10: 0..249 give each face 25 ways; 250..255 (0 here) are dropped."""


class SeededRoller:
    """DICE-6: the engine's own dice, reproducible from a seed (the rules take any `Roller`). Dice
    are drawn as random bytes in blocks (`FaceSource`), each byte below 250 a face, so that a round's
    hundreds of thousands of dice cost a few C calls; `d10` takes the next of the same dice."""

    def __init__(self, seed: int | str | None = None, *, source: random.Random | None = None) -> None:
        """`seed`: the dice's seed (None: from the OS); `source`: draw from this generator instead."""
        self._random = source if source is not None else random.Random(seed)
        self._buffer = b""
        self._at = 0

    def faces(self, count: int) -> bytes:
        """The next `count` dice, as bytes of faces 1..10."""
        at = self._at
        end = at + count
        if end > len(self._buffer):
            blocks = [self._buffer[at:]]
            have = len(blocks[0])
            while have < count:  # joined once: a round asks for a million dice at a time
                block = self._random.randbytes(4096).translate(_FACES).replace(b"\0", b"")
                blocks.append(block)
                have += len(block)
            self._buffer, at, end = b"".join(blocks), 0, count
        self._at = end
        return self._buffer[at:end]

    def d10(self) -> int:
        """One die, 1..10."""
        return self.faces(1)[0]
