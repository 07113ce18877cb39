"""Console benchmarks for ``meshsim bench --console`` (issue 7, "Speed").

Each scenario runs in a fresh interpreter (``python -m tui.bench NAME``) and prints one JSON
object: its raw measurements and ``figures``, rows of (figure, measured, target, met) that the
command line prints as they are. The console runs headless (``App.run_test``) at 160×50, so the
figures include Textual's layout and rendering but not a terminal's drawing.

- ``console-live``: Intrepid and its default synthetic workload, live at the fastest speed from
  the first event to the last: frames per second the driver published and the UI drew, events
  per second simulated (over three runs), next to the engine alone on the same run.
- ``console-frame``: 50,000 waiting jobs on mesh32: one frame, i.e. a snapshot (with the result
  metrics), the update of every pane, a layout pass and a full redraw of the screen, for each of
  the three lower tabs; the median of repeats, one event apart.
- ``console-memory``: a 100,000-job live run (flat:1024, FCFS + EASY): resident memory at the
  first frame, halfway and at the end, and the growth of the memory Python holds for live
  objects, next to the same run without the console (``engine-memory``, in its own
  interpreter).
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.bench import Scenario
from engine.registry import Registry

SIZE = (160, 50)
"""Terminal size the console benchmarks run at."""

POLL = 0.2
"""Seconds between two looks of a benchmark at a live run (each look wakes the UI)."""

LIVE_RUNS = 3
"""Live runs of ``console-live``; its figures are taken over all of them (one run is short)."""

LIVE_FPS = 10.0
LIVE_EVENTS = 20_000.0
FRAME_MS = 50.0
FRAME_REPEATS = 7
WAITING = 50_000
MEMORY_JOBS = 100_000
MEMORY_BLOCKS_SLACK = 0.10
"""``console-memory``: the console holds no more than this share of extra Python memory blocks,
beyond the engine's own growth, at the end of the run than at its first frame."""

MEMORY_SLACK_MB = 5.0
"""``console-memory`` counts as flat when, from the first frame to the end, the console's resident
memory grows by less than this beyond what the same run grows by without the console (the
engine keeps a record per job, so its own memory grows with the run)."""

MEMORY_WORKLOAD = f"""[workload]
kind = "flat-poisson"
jobs = {MEMORY_JOBS}
load = 0.7
seed = 2024
"""

CONSOLE_SCENARIOS: Registry[Scenario] = Registry("console benchmark")


def scenario(name: str, description: str, target: str):  # type: ignore[no-untyped-def]
    """Register a console benchmark function under ``name``."""

    def decorate(fn: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        CONSOLE_SCENARIOS.register(name)(Scenario(name, description, target, fn))
        return fn

    return decorate


def rss_mb() -> float:
    """This process's resident memory now, in MB (Linux ``/proc``; NaN elsewhere)."""
    statm = Path("/proc/self/statm")
    if not statm.exists():
        return math.nan
    import resource

    return int(statm.read_text().split()[1]) * resource.getpagesize() / 2**20


def _figure(name: str, value: float, unit: str, target: str, met: bool | None) -> list[str]:
    """A row of the printed table; ``met`` is None for a figure that has no target."""
    verdict = "" if met is None else "yes" if met else "NO"
    return [name, f"{value:,.1f} {unit}", target, verdict]


async def _live_run(app: Any, on_poll: Callable[[], None] = lambda: None) -> dict[str, float]:
    """Drive ``app`` headless: wait for the first frame, go live at the fastest speed, wait for
    the end of the run. From going live to the end: the wall time, events, frames, and the CPU
    time of the UI thread (this one) and of the whole process (the UI and the engine worker)."""
    driver = app.driver
    async with app.run_test(size=SIZE) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        events0, shown0 = app.frame.snapshot.event, driver.shown_frames
        t0, ui0, cpu0 = time.perf_counter(), time.thread_time(), time.process_time()
        await pilot.press("space")
        while True:
            on_poll()
            if app.frame.snapshot.done:
                break
            await pilot.pause(POLL)
        return {
            "wall_s": time.perf_counter() - t0,
            "ui_cpu_s": time.thread_time() - ui0,
            "process_cpu_s": time.process_time() - cpu0,
            "events": app.frame.snapshot.event - events0,
            "published": driver.live_frames,
            "shown": driver.shown_frames - shown0,
        }


@scenario(
    "console-live",
    "Intrepid, default synthetic workload, console live at the fastest speed (160x50)",
    f">= {LIVE_FPS:g} frames/s while >= {LIVE_EVENTS:,.0f} events/s",
)
def console_live() -> dict[str, Any]:
    import engine.catalog  # noqa: F401
    from engine.runcase import RunOptions
    from engine.session import Session
    from tui.app import MeshsimApp
    from tui.driver import ENGINE_RATIO, MIN_FPS

    options = RunOptions()
    alone = Session(options)
    t0, cpu0 = time.perf_counter(), time.process_time()
    alone.sim.run()
    engine_s, engine_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    engine_rate = alone.events / engine_s
    runs = []
    for _ in range(LIVE_RUNS):
        app = MeshsimApp(Session(options, inputs=(alone.machine, alone.workload)))
        runs.append(asyncio.run(_live_run(app)))
    live = {key: sum(r[key] for r in runs) for key in runs[0]}
    wall = live["wall_s"]
    frames, rate = min(live["shown"], live["published"]) / wall, live["events"] / wall
    ui_frame = live["ui_cpu_s"] / max(1, live["shown"])
    worker_rate = live["events"] / max(1e-9, live["process_cpu_s"] - live["ui_cpu_s"])
    period = max(app.driver.frame_seconds, min(ui_frame * (1 + ENGINE_RATIO), 1 / MIN_FPS))
    share = 1 - ui_frame / period
    return {
        **live,
        "jobs": len(alone.workload),
        "engine_s": engine_s,
        "engine_events_per_s": engine_rate,
        "ui_cpu_ms_per_frame": ui_frame * 1e3,
        "worker_events_per_cpu_s": worker_rate,
        "notes": [
            f"{live['events']:,} events in {wall:.2f} s live; the engine alone ran a run's "
            f"{alone.events:,} in {engine_s:.2f} s ({alone.events / engine_cpu:,.0f} events per "
            f"CPU second), so the console can go no faster than that",
            f"CPU while live: the process ran {live['process_cpu_s'] / wall:.0%} of the wall "
            f"time (one interpreter lock: 100% at most; less when other work holds the cores); "
            f"the UI spent {ui_frame * 1e3:.1f} ms per frame drawn, the engine worker "
            f"{worker_rate:,.0f} events per CPU second",
            f"with a core to itself the console would draw {1 / period:.1f} frames/s and leave "
            f"the engine {share:.0%} of the time: about {worker_rate * share:,.0f} events/s (a "
            f"projection from these CPU times and the driver's pacing, not a measurement)",
            f"{LIVE_RUNS} live runs, figures over all of them; events/s of each run: "
            + ", ".join(f"{r['events'] / r['wall_s']:,.0f}" for r in runs),
        ],
        "figures": [
            _figure(
                "live frames published and drawn",
                frames,
                "/s",
                f">= {LIVE_FPS:g}/s",
                frames >= LIVE_FPS,
            ),
            _figure(
                "events simulated, console live",
                rate,
                "/s",
                f">= {LIVE_EVENTS:,.0f}/s",
                rate >= LIVE_EVENTS,
            ),
            _figure(
                "events simulated, engine alone",
                engine_rate,
                "/s",
                "(the ceiling)",
                None,
            ),
        ],
    }


def waiting_session(waiting: int = WAITING) -> Any:
    """A mesh32 session at time 0 after the arrival of ``waiting`` + 1 jobs (seeded), each
    larger than half the machine: one runs, ``waiting`` wait."""
    import numpy as np

    import engine.catalog  # noqa: F401
    from engine.machines import load_machine
    from engine.runcase import RunOptions
    from engine.session import Session
    from engine.workload import from_columns

    machine = load_machine("mesh32")
    n = waiting + 1
    rng = np.random.default_rng(7)
    jobs = from_columns(
        "waiting",
        submit=np.zeros(n),
        size=rng.integers(machine.nodes // 2 + 1, machine.nodes, n),
        runtime=rng.uniform(1e5, 1e6, n),
    )
    session = Session(RunOptions(machine="mesh32"), inputs=(machine, jobs))
    session.run_until(0.0)
    return session


async def _frame_times(session: Any) -> dict[str, dict[str, float]]:
    """Median milliseconds of each part of one frame, per lower tab, each frame one event after
    the last (a job ends and the next starts, so the map, the tables and the queue change): the
    driver's frame (snapshot and result metrics), the app's frame handler (every pane updated),
    then Textual's layout pass and a full redraw of the screen (``Screen._refresh_layout`` and
    ``render_update(full=True)``, private Textual calls: what its refresh timer runs, done here
    at once so that no idle time is counted)."""
    from textual.widgets import TabbedContent

    from tui.app import FrameReady, MeshsimApp

    app = MeshsimApp(session)
    driver = app.driver
    parts: dict[str, dict[str, float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        for tab in ("tab-metrics", "tab-timeline", "tab-events"):
            app.query_one("#lower", TabbedContent).active = tab
            await pilot.pause(0.2)
            samples: dict[str, list[float]] = {"publish": [], "panes": [], "layout": [], "draw": []}
            for _ in range(FRAME_REPEATS):
                session.step(1)
                t0 = time.perf_counter()
                frame = driver.frame()
                t1 = time.perf_counter()
                app.show_frame(FrameReady(frame))
                t2 = time.perf_counter()
                app.screen._refresh_layout()
                t3 = time.perf_counter()
                app.screen._compositor.render_update(full=True)
                t4 = time.perf_counter()
                for key, dt in zip(samples, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                    samples[key].append(dt * 1e3)
                await pilot.pause(0.05)
            parts[tab] = {key: statistics.median(values) for key, values in samples.items()}
            parts[tab]["total"] = sum(parts[tab].values())
    return parts


@scenario(
    "console-frame",
    f"one frame with {WAITING:,} waiting jobs on mesh32 (snapshot + all panes + full redraw)",
    f"< {FRAME_MS:g} ms",
)
def console_frame() -> dict[str, Any]:
    session = waiting_session()
    waiting = len(session.sim.queue)
    parts = asyncio.run(_frame_times(session))
    worst = max(parts, key=lambda tab: parts[tab]["total"])
    figures = [
        _figure(
            f"one frame, {tab.removeprefix('tab-')} tab",
            p["total"],
            "ms",
            f"< {FRAME_MS:g} ms",
            p["total"] < FRAME_MS,
        )
        for tab, p in parts.items()
    ]
    notes = [
        f"{tab.removeprefix('tab-')} tab: snapshot and metrics {p['publish']:.1f} + panes "
        f"{p['panes']:.1f} + layout {p['layout']:.1f} + full redraw {p['draw']:.1f} ms"
        for tab, p in parts.items()
    ]
    return {
        "waiting": waiting,
        "parts_ms": parts,
        "worst_ms": parts[worst]["total"],
        "figures": figures,
        "notes": [f"{waiting:,} waiting jobs; medians of {FRAME_REPEATS} frames", *notes],
    }


def _memory_session() -> Any:
    """The ``console-memory`` run: flat:1024, FCFS + EASY, :data:`MEMORY_WORKLOAD`."""
    import engine.catalog  # noqa: F401
    from engine.runcase import RunOptions
    from engine.session import Session

    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "flat-100k.toml"
        spec.write_text(MEMORY_WORKLOAD, encoding="utf-8")
        return Session(RunOptions(machine="flat:1024", workload=str(spec), backfill="easy"))


def python_blocks() -> int:
    """Memory blocks Python's allocator holds for live objects, after a full collection: what
    the process keeps, unlike its resident memory, which also counts freed memory the allocator
    has not returned to the system."""
    import gc

    gc.collect()
    return sys.getallocatedblocks()


def _rss_at_thirds(samples: list[tuple[int, float]], events: int) -> dict[str, float]:
    """The resident memory sampled nearest the start, the middle and the end of a run."""

    def at(event: float) -> float:
        return min(samples, key=lambda s: abs(s[0] - event))[1]

    return {"start": at(0), "middle": at(events / 2), "end": at(events)}


@scenario(
    "engine-memory",
    "the console-memory run without the console (engine alone, the baseline)",
    "(reference for console-memory)",
)
def engine_memory() -> dict[str, Any]:
    session = _memory_session()
    samples = [(0, rss_mb())]
    blocks = python_blocks()
    while not session.done:
        session.sim.run(max_events=MEMORY_JOBS // 50)
        samples.append((session.events, rss_mb()))
    rss = _rss_at_thirds(samples, session.events)
    return {
        "events": session.events,
        "rss_mb": rss,
        "blocks_growth": python_blocks() - blocks,
        "figures": [_memory_figure("engine alone", rss, "", "")],
    }


def _memory_figure(who: str, rss: dict[str, float], target: str, met: str) -> list[str]:
    return [
        f"resident memory, {who}: start / middle / end",
        f"{rss['start']:.0f} / {rss['middle']:.0f} / {rss['end']:.0f} MB",
        target,
        met,
    ]


@scenario(
    "console-memory",
    f"{MEMORY_JOBS:,}-job live run (flat:1024, FCFS + EASY, flat-poisson load 0.7) in the console",
    f"flat: the console adds < {MEMORY_SLACK_MB:g} MB over the run beyond the engine's own growth",
)
def console_memory() -> dict[str, Any]:
    from tui.app import MeshsimApp

    app = MeshsimApp(_memory_session())
    samples: list[tuple[int, float]] = []
    blocks: list[int] = []

    def sample() -> None:
        snap = app.frame.snapshot
        samples.append((snap.event, rss_mb()))
        if not blocks or snap.done:
            blocks.append(python_blocks())

    live = asyncio.run(_live_run(app, sample))
    rss = _rss_at_thirds(samples, live["events"])
    engine = run_child("engine-memory")
    alone = engine["rss_mb"]
    extra = (rss["end"] - rss["start"]) - (alone["end"] - alone["start"])
    held, held_alone = blocks[-1] - blocks[0], engine["blocks_growth"]
    return {
        **live,
        "rss_mb": rss,
        "engine_rss_mb": alone,
        "blocks_growth": held,
        "engine_blocks_growth": held_alone,
        "notes": [
            f"{live['events']:,} events in {live['wall_s']:.1f} s live; growth from the first "
            f"frame to the end: console {rss['end'] - rss['start']:+.0f} MB, engine alone "
            f"{alone['end'] - alone['start']:+.0f} MB (its records of finished jobs)"
        ],
        "figures": [
            _memory_figure(
                "console",
                rss,
                f"console's growth - engine's < {MEMORY_SLACK_MB:g} MB",
                f"{'yes' if extra < MEMORY_SLACK_MB else 'NO'} ({extra:+.0f} MB)",
            ),
            _memory_figure("same run, engine alone", alone, "", ""),
            [
                "Python memory blocks held, growth over the run: console / engine alone",
                f"{held:+,} / {held_alone:+,}",
                f"console's within {MEMORY_BLOCKS_SLACK:.0%} of the engine's",
                "yes" if held <= held_alone * (1 + MEMORY_BLOCKS_SLACK) else "NO",
            ],
            _figure(
                "events simulated, console live", live["events"] / live["wall_s"], "/s", "", None
            ),
        ],
    }


def run_child(name: str) -> dict[str, Any]:
    """Run console scenario ``name`` in a fresh interpreter and return its measurements."""
    done = subprocess.run(
        [sys.executable, "-m", "tui.bench", name], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    """Child entry point: run one console scenario and print its JSON."""
    print(json.dumps(CONSOLE_SCENARIOS.get(argv[0]).run()))


if __name__ == "__main__":
    main(sys.argv[1:])
