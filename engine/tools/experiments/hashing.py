"""Content hashes: a case is finished when a stored result carries the hash of exactly the inputs
the case would read now.

The input hash of a case is SHA-256 over the meshsim version, the command, the case's options with
every file value replaced by the SHA-256 of the file's bytes, and the hashes of the extra files the
command reads (:mod:`meshsim.engine.tools.experiments.runners`). Moving or renaming input files
keeps the hash; changing one byte of them, an option, or the meshsim version changes it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from meshsim import __version__
from meshsim.engine.core.errors import MeshsimError

_CHUNK = 1 << 20


class FileHasher:
    """SHA-256 of files, each read once per (path, size, modification time)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int, int], str] = {}

    def __call__(self, path: Path) -> str:
        try:
            stat = path.stat()
        except FileNotFoundError:
            raise MeshsimError(f"{path}: no such file") from None
        if path.is_dir():
            return file_sha256(path)
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in self._cache:
            self._cache[key] = file_sha256(path)
        return self._cache[key]


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex (O(size), streamed); of a folder (a PBS server's daily
    files), of its files' names and hashes in name order, hidden files left out."""
    digest = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
            digest.update(f"{file.name}\0{file_sha256(file)}\n".encode())
        return digest.hexdigest()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def input_hash(command: str, options: Mapping[str, Any], extra_files: Iterable[str]) -> str:
    """The hash of a case's inputs: ``options`` must already carry file hashes in place of file
    paths; ``extra_files`` are the hashes of the other files it reads."""
    text = json.dumps(
        [__version__, command, sorted(options.items()), sorted(extra_files)],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()
