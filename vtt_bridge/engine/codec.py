"""The one Zstandard codec of the sidecar: every packed value is Zstandard frames at `PACK_LEVEL`,
each starting with `PACKED_MARK`. Two shapes of it:
- a stored value (a reply, an inverse or a snapshot in the store): one frame with its content size
  in its header and its content's checksum at its end (`frame`), read back whole and checked
  (`unpacked`, `unpacked_length`: `NotUnpacked` when it does not unpack as its header says);
- undo's ops in memory (`engine.history.JsonOps`): one frame per part, each made through a stream
  (`part_frames`) and read back part by part (`unpack_parts`).
Pure and thread-safe: Zstandard lets go of the interpreter while it works.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import zstandard

from vtt_bridge.errors import StoreError

PACK_LEVEL = 1
"""The Zstandard level of every packed value: its fastest standard one."""

PACKED_MARK = b"\x28\xb5\x2f\xfd"
"""The first bytes of every packed value (a Zstandard frame's magic number, RFC 8878 3.1.1); the
JSON text of a reply (`{`) or an inverse (`[`) never starts with them."""

LARGEST_UNPACKED = 1 << 30
"""A packed value claiming to unpack to more bytes than this is damaged (the sidecar never writes
one: a client's messages are bounded far below it)."""


class NotUnpacked(StoreError):
    """Packed bytes that do not unpack (a damaged row that still holds its checksum)."""


def frame(data: bytes) -> bytes:
    """`data` as one frame: its content size in its header, its content's checksum at its end."""
    return zstandard.ZstdCompressor(level=PACK_LEVEL, write_checksum=True, write_content_size=True).compress(
        data
    )


def is_packed(value: str | bytes | None) -> bool:
    """Whether a stored value (text, or bytes as read back) is packed (`frame`)."""
    return isinstance(value, bytes) and value[:4] == PACKED_MARK


def unpacked_length(value: bytes) -> int:
    """How many bytes a stored value (bytes as read back) unpacks to, read from a packed one's
    header (nothing unpacked); `NotUnpacked` when the header says none or too many."""
    if not is_packed(value):
        return len(value)
    try:
        length = zstandard.frame_content_size(value)
    except zstandard.ZstdError as exc:
        raise NotUnpacked(str(exc)) from None
    if not 0 < length <= LARGEST_UNPACKED:  # the store never packs an empty value
        raise NotUnpacked(f"its header names {length} bytes")
    return int(length)


def unpacked(value: bytes) -> bytes:
    """A stored value's UTF-8, read back as bytes: unpacked when packed (`frame`); `NotUnpacked`
    unless it is one whole frame that unpacks to the length its header names."""
    if not is_packed(value):
        return value
    length = unpacked_length(value)
    try:  # one frame, unpacked into one buffer of the length its header names (nothing after it)
        data = zstandard.ZstdDecompressor().decompress(value, allow_extra_data=False)
    except zstandard.ZstdError as exc:  # cut short, running on, or its own checksum failed
        raise NotUnpacked(str(exc)) from None
    if len(data) != length:
        raise NotUnpacked(f"it unpacks to {len(data)} bytes; its header names {length}")
    return data


def part_frames(parts: Iterable[bytes]) -> tuple[bytes, ...]:
    """Each part as a frame of its own (its content size in its header), made through a stream: its
    output comes in pieces of the frame's own size (`compress` would first take room for the whole
    part, and the small frames that stay alive in such room keep the heap from shrinking)."""
    packer = zstandard.ZstdCompressor(level=PACK_LEVEL)
    out = []
    for part in parts:
        stream = packer.compressobj(size=len(part))
        out.append(b"".join((stream.compress(part), stream.flush())))
    return tuple(out)


def unpack_parts(parts: Iterable[bytes]) -> Iterator[bytes]:
    """Each frame of `part_frames` unpacked, one at a time."""
    return map(zstandard.ZstdDecompressor().decompress, parts)
