"""Driving a program in a real terminal: tmux sessions, typed keys, and the screen read back with
``capture-pane`` (the console's terminal test and the docs' console examples)."""

from __future__ import annotations

import re
import subprocess
import time


def tmux(*args: str) -> str:
    """Run a tmux command; its standard output."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def screen(session: str) -> str:
    """What the session's pane shows now."""
    return tmux("capture-pane", "-p", "-t", session)


def wait_for(session: str, pattern: str, what: str, timeout: float = 30.0) -> str:
    """The screen once ``pattern`` (a regular expression) appears on it; an AssertionError naming
    ``what`` and showing the screen when it does not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = screen(session)
        if re.search(pattern, text):
            return text
        time.sleep(0.2)
    raise AssertionError(f"{what}: {pattern!r} never appeared; the screen was:\n{screen(session)}")


def settle(session: str, quiet: float = 0.4, timeout: float = 15.0) -> None:
    """Wait until the screen has not changed for ``quiet`` seconds (at most ``timeout``): the
    program has taken the last key, so the next one reaches the widget it was typed for (on a
    loaded host a dialog may open seconds after its key; a live run never settles and waits the
    whole ``timeout``)."""
    deadline = time.monotonic() + timeout
    last = screen(session)
    still = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = screen(session)
        if now != last:
            last, still = now, time.monotonic()
        elif time.monotonic() - still >= quiet:
            return
