"""The one output writer: every file meshsim writes goes through here (docs/boundaries.md).

Before a command computes anything, :func:`check_targets` holds every output path it was given to
the rules below, so a bad path costs nothing and changes nothing:

- the folder exists, is a folder, and can be written;
- the target is not a folder; an existing target is writable;
- the target is not the same file as any input (device and inode are compared, so hard and
  symbolic links count) nor as another output;
- an existing target that is not a regular file (a terminal, ``/dev/null``, a FIFO) is written in
  place, never replaced; one that is neither (a socket, a block device) is refused.

A regular file is written to a uniquely named temporary file beside it (``.NAME.XXXXXXXX.part``),
flushed, synced to disk and renamed over the target only when the whole output is ready, so a
reader sees the old file or the new one, never a mixture; on any failure (a full disk, an error,
Ctrl-C) the temporary file is removed. A :class:`Batch` holds the outputs of one command: they are
renamed together after all were written, so a failed or interrupted run leaves every earlier output
as it was. A symbolic link to a file is kept: the file it points to is replaced."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from meshsim.engine.core.errors import MeshsimError

TEMP_SUFFIX = ".part"
"""The suffix of temporary files; a sweep removes leftovers (a killed process leaves one)."""


@dataclass(frozen=True)
class Target:
    """An output path and the option (or argument) that named it, for messages. A ``folder``
    target is a folder the command writes files into (created with its parents when missing);
    ``files`` are the names it will write there, checked like file targets."""

    option: str
    path: Path
    folder: bool = False
    files: tuple[str, ...] = ()

    def label(self) -> str:
        return f"{self.option} {self.path}" if self.option else str(self.path)


def check_targets(targets: Iterable[Target | None], inputs: Iterable[Path | None] = ()) -> None:
    """Refuse every output that breaks a rule of the module docstring, with one error naming the
    option and the path. ``None`` entries (outputs not asked for, inputs not given) are ignored."""
    chosen = [t for t in targets if t is not None]
    input_ids = {}
    for path in inputs:
        if path is not None:
            ident = _identity(Path(path))
            if ident is not None:
                input_ids[ident] = Path(path)
    seen: dict[tuple[int, ...] | tuple[int, int, str], Target] = {}
    for target in chosen:
        if target.folder:
            checked = _check_folder(target)
            files = [Target(target.option, target.path / name) for name in target.files]
        else:
            checked = [_check_file(target)]
            files = []
        for file_target in files:
            checked.append(_check_file(file_target, need_folder=False))
        for key, shown in checked:
            if key in input_ids:
                raise MeshsimError(
                    f"{shown.label()}: is the same file as the input {input_ids[key]}; "
                    "an output never replaces an input"
                )
            if key in seen:
                raise MeshsimError(
                    f"{shown.label()}: the same file as {seen[key].label()}; "
                    "give each output its own path"
                )
            seen[key] = shown


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _check_file(
    target: Target, *, need_folder: bool = True
) -> tuple[tuple[int, ...] | tuple[int, int, str], Target]:
    """Check one file target; return the key that identifies the file it will write."""
    real = Path(os.path.realpath(target.path))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise MeshsimError(f"{target.label()}: cannot use it ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise MeshsimError(f"{target.label()}: is a folder; give a file name")
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise MeshsimError(f"{target.label()}: is not a regular file, a terminal or a pipe")
        if not os.access(real, os.W_OK):
            raise MeshsimError(f"{target.label()}: is not writable")
        if not stat.S_ISREG(st.st_mode):
            return (st.st_dev, st.st_ino), target
    folder = real.parent
    if need_folder or st is not None:
        _check_writable_folder(target, folder)
    if st is not None:
        return (st.st_dev, st.st_ino), target
    folder_st = os.stat(folder) if folder.is_dir() else None
    if folder_st is None:
        return (0, 0, str(real)), target
    return (folder_st.st_dev, folder_st.st_ino, real.name), target


def _check_writable_folder(target: Target, folder: Path) -> None:
    if not folder.exists():
        raise MeshsimError(f"{target.label()}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise MeshsimError(f"{target.label()}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MeshsimError(f"{target.label()}: the folder {folder} is not writable")


def _check_folder(target: Target) -> list[tuple[tuple[int, ...] | tuple[int, int, str], Target]]:
    """Check a folder target: an existing one must be a writable folder; a missing one needs a
    writable folder to be created in (its nearest existing ancestor)."""
    real = Path(os.path.realpath(target.path))
    if real.exists():
        if not real.is_dir():
            raise MeshsimError(f"{target.label()}: is a file, not a folder")
        if not os.access(real, os.W_OK | os.X_OK):
            raise MeshsimError(f"{target.label()}: the folder is not writable")
        st = os.stat(real)
        return [((st.st_dev, st.st_ino), target)]
    ancestor = real.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise MeshsimError(f"{target.label()}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise MeshsimError(f"{target.label()}: cannot create it ({ancestor} is not writable)")
    return [((0, 0, str(real)), target)]


def make_folder(path: Path) -> None:
    """Create an output folder (and its parents); a failure names the folder."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MeshsimError(f"{path}: cannot create the folder ({exc.strerror})") from None


class Staged:
    """One output being written: to a temporary file beside a regular target, or in place for a
    terminal or pipe. Write with :meth:`write`; :meth:`finish` flushes and syncs, :meth:`replace`
    renames over the target, :meth:`discard` removes the temporary file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._real = Path(os.path.realpath(self.path))
        try:
            st = os.stat(self._real)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise self._error(exc) from None
        self._mode = _new_file_mode() if st is None else stat.S_IMODE(st.st_mode)
        self._in_place = st is not None and not stat.S_ISREG(st.st_mode)
        self._temp: Path | None = None
        try:
            if self._in_place:
                self._fh: IO[bytes] = _open_in_place(self._real)
            else:
                fd, name = tempfile.mkstemp(
                    dir=self._real.parent, prefix=f".{self._real.name}.", suffix=TEMP_SUFFIX
                )
                self._temp = Path(name)
                self._fh = os.fdopen(fd, "wb")
        except OSError as exc:
            raise self._error(exc) from None
        self._open = True

    @property
    def written(self) -> Path:
        """The file being written (the temporary file, or the target itself in place), for a
        check of the finished content before :meth:`replace`."""
        return self._temp or self._real

    def _error(self, exc: OSError) -> MeshsimError:
        return MeshsimError(f"{self.path}: cannot write ({exc.strerror or exc})")

    def write(self, data: bytes | str) -> None:
        """Append ``data`` (text is written as UTF-8)."""
        try:
            self._fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as exc:
            raise self._error(exc) from None

    def finish(self) -> None:
        """Flush and sync to disk: after this only the rename is left."""
        try:
            self._fh.flush()
            if not self._in_place:
                os.fsync(self._fh.fileno())
                os.fchmod(self._fh.fileno(), self._mode)
            self._fh.close()
        except OSError as exc:
            raise self._error(exc) from None
        finally:
            self._open = False

    def replace(self) -> None:
        """Rename the finished temporary file over the target (nothing to do in place)."""
        if self._temp is None:
            return
        try:
            os.replace(self._temp, self._real)
        except OSError as exc:
            raise self._error(exc) from None
        self._temp = None

    def discard(self) -> None:
        """Drop what was written: close, and remove the temporary file."""
        if self._open:
            self._open = False
            with contextlib.suppress(OSError):  # the temporary file goes anyway
                self._fh.close()
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None


def _open_in_place(path: Path) -> IO[bytes]:
    """Open a terminal, device or FIFO for writing without waiting: a FIFO that nobody reads is an
    error at once instead of a process blocked forever."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise MeshsimError(f"{path}: a pipe that nobody reads") from None
        raise
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


class Batch:
    """The outputs of one command, renamed together: use as a context manager, :meth:`stage` or
    :meth:`write` each output, then :meth:`commit`. Leaving the block without a commit (an error,
    an interrupt) removes every temporary file and changes no target."""

    def __init__(self) -> None:
        self._staged: list[Staged] = []
        self._made: list[Path] = []

    def folder(self, path: Path) -> Path:
        """Create the output folder ``path`` (and missing parents) for files of this batch; the
        folders it had to create are removed again when the batch is not committed."""
        missing = []
        probe = Path(path)
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        make_folder(Path(path))
        self._made.extend(missing)
        return Path(path)

    def stage(self, path: Path) -> Staged:
        """Start writing ``path``; the caller writes into the returned :class:`Staged`."""
        staged = Staged(path)
        self._staged.append(staged)
        return staged

    def write(self, path: Path, data: bytes | str) -> None:
        """Stage the whole content of ``path``."""
        self.stage(path).write(data)

    def commit(self) -> None:
        """Finish every output (so a full disk shows before any target changes), then rename them
        all."""
        for staged in self._staged:
            staged.finish()
        for staged in self._staged:
            staged.replace()
        self._staged.clear()
        self._made.clear()

    def __enter__(self) -> Batch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for staged in self._staged:
            staged.discard()
        self._staged.clear()
        for made in self._made:  # deepest first
            try:
                made.rmdir()
            except OSError:
                break  # not empty (another writer's files): leave it
        self._made.clear()


def write_file(path: Path, data: bytes | str) -> None:
    """Write one whole file atomically (a :class:`Batch` of one)."""
    with Batch() as batch:
        batch.write(path, data)
        batch.commit()


def remove_leftovers(folders: Sequence[Path]) -> None:
    """Remove the temporary files a killed writer left in ``folders``."""
    for folder in folders:
        if folder.is_dir():
            for leftover in folder.glob(f"*{TEMP_SUFFIX}"):
                leftover.unlink(missing_ok=True)


_MODE: int | None = None


def _new_file_mode() -> int:
    """The mode a new file gets from this process's umask (read once)."""
    global _MODE
    if _MODE is None:
        mask = os.umask(0)
        os.umask(mask)
        _MODE = 0o666 & ~mask
    return _MODE
