"""Ctrl-C and SIGTERM: stop cleanly, say where, exit 130 or 143 (docs/boundaries.md).

:func:`install` makes both signals raise :class:`Interrupted` (a ``KeyboardInterrupt``, so code
that already stops cleanly on Ctrl-C — a sweep terminating its workers, an output batch removing
its temporary files — does the same on SIGTERM). When the signal arrives, the handler first asks
the innermost :func:`watching` block where the command is (``at event 12,345, simulated time
86,400 s``); :func:`report` prints that as one line and gives the exit status, 128 + the signal's
number. A second signal while the first is being handled is ignored, so the clean-up it triggered
is not cut short."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """Raised in the main thread by SIGINT or SIGTERM."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Stop:
    """The first signal received: its number, where the command was, and whether the command
    has reported it itself."""

    signum: int
    where: str
    reported: bool = False

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_watchers: list[Callable[[], str]] = []
_stop: list[Stop] = []


def install() -> None:
    """Let SIGINT and SIGTERM raise :class:`Interrupted` in this process."""
    _stop.clear()
    for signum in SIGNALS:
        signal.signal(signum, _handler)


def _handler(signum: int, frame: FrameType | None) -> None:
    if _stop:
        return
    _stop.append(Stop(signum, _describe()))
    raise Interrupted(signum)


def _describe() -> str:
    if not _watchers:
        return "before any work began"
    try:
        return _watchers[-1]()
    except Exception:  # a describer must never turn an interrupt into a crash
        return "in the middle of its work"


@contextmanager
def watching(describe: Callable[[], str]) -> Iterator[None]:
    """While the block runs, an interrupt is described by ``describe()`` (``"at event N, ..."``)."""
    _watchers.append(describe)
    try:
        yield
    finally:
        _watchers.pop()


def stopped() -> Stop | None:
    """The signal that stopped this command, if one did."""
    return _stop[0] if _stop else None


def mark_reported() -> int:
    """A command that prints its own line about the interrupt calls this; returns the exit
    status to use (130 after SIGINT, 143 after SIGTERM)."""
    stop = stopped()
    if stop is None:
        return 130
    stop.reported = True
    return stop.exit_code
