"""The store's CRC-32 (`store.rows.crc32`, ISA-L's) is the value `zlib.crc32` gives, byte for byte
and run on from any start value: a row written by any version (each checksummed with zlib's) reads
back the same, and a row written now verifies with zlib's."""

from __future__ import annotations

import random
import zlib

from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.store.pages import part_checksum
from vtt_bridge.store.rows import checksum, crc32


@given(st.binary(max_size=5000), st.integers(min_value=0, max_value=0xFFFFFFFF))
def test_the_stores_crc32_is_zlibs(data: bytes, start: int) -> None:
    assert crc32(data) == zlib.crc32(data)
    assert crc32(data, start) == zlib.crc32(data, start)
    assert crc32(bytearray(data), start) == zlib.crc32(data, start)
    assert crc32(memoryview(data)[1:], start) == zlib.crc32(data[1:], start)


def test_a_rows_checksum_is_zlibs_over_its_fields_in_turn() -> None:
    """`checksum` of a move-sized row (its reply and inverse tens of kB) and `part_checksum` of a
    part: zlib's CRC-32 over the fields as layout 6 and layout 10 define them."""
    rng = random.Random(7)
    reply, inverse = rng.randbytes(18_000), rng.randbytes(17_000)
    key, action_id, digest, kind, target = 5 << 40 | 81, "m81", "d" * 32, "move", None
    head = f"{key}\0{action_id}\0{digest}\0".encode()
    expected = zlib.crc32(reply, zlib.crc32(head))
    expected = zlib.crc32(inverse, zlib.crc32(f"{kind}\0\0".encode(), expected))
    assert checksum(key, action_id, reply, digest, kind, target, inverse) == expected
    assert checksum(key, action_id, reply.decode("latin-1"), digest) == zlib.crc32(
        reply.decode("latin-1").encode(), zlib.crc32(head)
    )
    part = rng.randbytes(3000)
    assert part_checksum(key, 1, 0, 10, 12, "round", part) == zlib.crc32(
        part, zlib.crc32(f"{key}\0{1}\0{0}\0{10}\0{12}\0round\0".encode())
    )
