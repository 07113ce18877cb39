"""A real-terminal smoke test: ``meshsim tui`` inside tmux, driven by keys, read back with
``capture-pane``. CI installs tmux (``.ci/run``); elsewhere the test says why it is skipped."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.tmux import tmux, wait_for

ROOT = Path(__file__).resolve().parents[2]
MESHSIM = Path(sys.executable).with_name("meshsim")

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None and not os.environ.get("CI"),
    reason="tmux is not installed (CI installs it in .ci/run)",
)


def test_console_in_a_real_terminal(tmp_path: Path) -> None:
    session = f"meshsim-smoke-{os.getpid()}"
    status = tmp_path / "exit-status"
    command = (
        f"cd {ROOT} && {MESHSIM} tui --machine tests/data/mesh5x4.toml "
        f"--workload tests/data/mesh-sides-small.toml; echo $? > {status}"
    )
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
    try:
        text = wait_for(session, r"event 0\b", "meshsim tui")
        for pane in ("machine", "running", "waiting queue", "Metrics", "Timeline", "Events"):
            assert pane in text, f"pane {pane!r} missing"
        tmux("send-keys", "-t", session, "n")
        wait_for(session, r"event 1\b", "meshsim tui")
        tmux("send-keys", "-t", session, "N")
        wait_for(session, r"event 11\b", "meshsim tui")
        tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + 20
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status.exists(), "meshsim tui did not exit on q"
        assert status.read_text().strip() == "0"
    finally:
        tmux("kill-session", "-t", session)
