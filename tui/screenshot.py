"""``meshsim tui --screenshot FILE``: the console drawn headless at a fixed size and event, saved
as SVG without a terminal (the README's picture, ``docs/console.svg``).

The picture depends only on the run's inputs, the event and the size: the console is paused
(step mode), nothing on screen reads the wall clock, and Rich names the SVG's styles after a hash
of its content, so the same command writes the same bytes (a test runs it twice).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.writing import Target, check_targets, write_file
from meshsim.tui.app import MeshsimApp, make_app

SCREENSHOT_SIZE = (160, 50)
"""Columns and rows of the terminal the screenshot is drawn on."""


async def _capture(app: MeshsimApp, size: tuple[int, int]) -> str:
    async with app.run_test(size=size) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        await pilot.pause(0.1)  # the running table sizes its columns once its queue is idle
        await pilot.pause()
        return app.export_screenshot()


def save_screenshot(
    options: RunOptions,
    scenario: Path | None,
    path: Path,
    event: int,
    size: tuple[int, int] = SCREENSHOT_SIZE,
) -> None:
    """Draw the console on ``options`` (or ``scenario``) headless at ``event`` and write its SVG
    to ``path`` (atomically; a missing folder is refused before the console starts)."""
    check_targets([Target("--screenshot", path)])
    app = make_app(options, scenario=scenario, event=event)
    write_file(path, asyncio.run(_capture(app, size)))
