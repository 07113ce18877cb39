"""``meshsim tui --screenshot FILE`` draws the console headless and deterministically (the
README's picture, docs/console.svg, is its output); ``--event N`` opens the console at an event."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import make_app

from .test_app import MESH, SIZE, until

ROOT = Path(__file__).resolve().parents[2]
README_PICTURE = ("--event", "300", "--screenshot")
"""The README's regeneration command is ``meshsim tui --event 300 --screenshot docs/console.svg``
(its examples test runs it too)."""


def meshsim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meshsim", *args], capture_output=True, text=True, check=False
    )


def test_screenshot_is_deterministic_and_the_committed_picture_is_current(tmp_path: Path) -> None:
    pictures = [tmp_path / "a.svg", tmp_path / "b.svg"]
    for picture in pictures:
        done = meshsim("tui", *README_PICTURE, str(picture))
        assert done.returncode == 0, done.stderr
    first, second = (p.read_bytes() for p in pictures)
    assert first == second, "two screenshots of the same inputs differ"
    assert first.startswith(b"<svg") and b"event 300" in first.replace(b"&#160;", b" ")
    committed = (ROOT / "docs" / "console.svg").read_bytes()
    assert committed == first, "docs/console.svg is stale: meshsim tui --event 300 --screenshot"


def test_screenshot_into_a_missing_folder_is_one_error_line(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "c.svg"
    done = meshsim("tui", "--screenshot", str(target))
    assert done.returncode == 1 and not target.parent.exists()
    assert done.stderr.strip().splitlines() == [
        f"error: --screenshot {target}: the folder {target.parent} does not exist"
    ]


async def test_console_opens_at_the_event_asked_for() -> None:
    app = make_app(RunOptions(machine=MESH.machine, workload=MESH.workload), event=7)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.frame is not None)
        assert app.frame.snapshot.event == 7
