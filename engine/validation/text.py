"""Reading input files: at most :data:`~meshsim.engine.validation.limits.INPUT_BYTES` bytes,
gzip streams decompressed piece by piece under the same cap, and every failure — a missing file, a
folder, a read error, a corrupt or cut gzip stream, text that is not UTF-8 — one
:class:`MeshsimError` naming the file (and the line, for a bad byte)."""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path
from typing import BinaryIO

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.validation.limits import INPUT_BYTES

GZIP_MAGIC = b"\x1f\x8b"
_PIECE = 1 << 20


def read_bytes(path: Path) -> bytes | bytearray:
    """The bytes of ``path`` (decompressed when they start with the gzip magic), never more than
    the input limit."""
    limit = INPUT_BYTES.value()
    try:
        with open_for_reading(path) as fh:
            raw = _read_at_most(fh, limit + 1)
    except FileNotFoundError:
        raise MeshsimError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MeshsimError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise MeshsimError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if raw[:2] == GZIP_MAGIC:
        return _gunzip(path, raw, limit)
    if len(raw) > limit:
        INPUT_BYTES.refuse(str(path), f"more than {limit:,} bytes")
    return raw


def open_for_reading(path: Path) -> BinaryIO:
    """Open ``path`` without waiting for a writer: a FIFO nobody writes to reads as empty instead
    of blocking forever (the descriptor is made blocking again once open, so a FIFO that is being
    written is read to its end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _read_at_most(fh: BinaryIO, count: int) -> bytes:
    """Up to ``count`` bytes: a regular file in one read of its size, anything else (a pipe, a
    device) in pieces, so no buffer of the whole limit is ever set aside."""
    st = os.fstat(fh.fileno())
    if stat.S_ISREG(st.st_mode):
        return fh.read(min(st.st_size + 1, count))
    pieces = []
    total = 0
    while total < count:
        piece = fh.read(min(_PIECE, count - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return b"".join(pieces)


def _gunzip(path: Path, raw: bytes, limit: int) -> bytearray:
    """Decompress every gzip member of ``raw``, stopping as soon as the output passes ``limit``."""
    out = bytearray()
    data = raw
    while data:
        stream = zlib.decompressobj(wbits=31)
        pending = data
        try:
            while pending and not stream.eof:
                out += stream.decompress(pending, limit + 1 - len(out))
                if len(out) > limit:
                    INPUT_BYTES.refuse(f"{path} (decompressed)", f"more than {limit:,} bytes")
                pending = stream.unconsumed_tail
        except zlib.error as exc:
            raise MeshsimError(f"{path}: broken gzip data ({exc})") from None
        if not stream.eof:
            raise MeshsimError(f"{path}: broken gzip data (the stream is cut short)")
        data = stream.unused_data.lstrip(b"\0")
    return out


def read_text(path: Path, what: str) -> str:
    """The text of ``path`` as UTF-8 (``what`` names the format in the message when it is not)."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise MeshsimError(
            f"{path} line {line}: not UTF-8 text (byte {raw[exc.start]:#04x}); "
            f"a {what} file must be UTF-8"
        ) from None
