"""Console benchmarks for ``meshsim bench --console`` (issue 7, "Speed").

Each scenario runs in a fresh interpreter (``python -m tui.bench NAME``) and prints one JSON object:
its raw measurements and ``figures``, rows of (figure, measured, target, met) that the command line
prints as they are. The console runs headless (``App.run_test``) at 160×50, so the figures include
Textual's layout and rendering but not a terminal's drawing. As in ``meshsim tui``, the console is
two processes: the UI, and the engine process it starts (:mod:`meshsim.tui.engine_process`).

- ``console-live``: Intrepid and its default synthetic workload, live at the fastest speed from the
  first event to the last: frames per second the engine published and the UI drew (the smaller of
  the two counts), events per second simulated (over three runs), next to the engine alone on the
  same run; the CPU time of each process.
- ``console-frame``: 50,000 waiting jobs on mesh32: one frame, i.e. a snapshot (with the result
  metrics), its encoding for the pipe, its decoding, the update of every pane, a layout pass and a
  full redraw of the screen, for each of the three lower tabs; the median of repeats, one event
  apart. All parts run here, one after the other (the pipe's own copy is not counted): the first two
  are the engine process's share of a frame, the rest the UI's.
- ``console-memory``: a 100,000-job live run (flat:1024, FCFS + EASY): the console's resident memory
  — the UI process's plus the engine process's, each read from ``/proc`` — at the first frame,
  halfway and at the end, and the growth of the memory Python holds for live objects in both
  processes together (the engine's counted by a command it runs), next to the same run without the
  console (``engine-memory``, in its own interpreter). The target and its allowance are those of the
  single-process console: the two processes together may grow less than
  :data:`MEMORY_SLACK_MB` beyond the engine alone's growth. The notes split the UI process's growth
  into Rich's text-width cache filling up and the rest.
- ``console-memory-by-length``: the UI process's share of that growth after runs of
  :data:`MEMORY_LENGTHS` jobs, each in its own interpreter: a reference that shows whether the share
  grows with the run or stops once the screen and the caches are full.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.registry import Registry
from meshsim.engine.tools.bench import Scenario
from meshsim.tui.requests import Request, handle

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
memory grows by less than this beyond what the same run grows by without the console (the engine
keeps a record per job, so its own memory grows with the run)."""

MEMORY_LENGTHS = (10_000, MEMORY_JOBS, 300_000)
"""Job counts of ``console-memory-by-length``: the ``console-memory`` run, shorter and longer."""

UI_BLOCKS = "ui-blocks"
"""Child command of ``console-memory-by-length``: ``python -m tui.bench ui-blocks JOBS``."""


def memory_workload(jobs: int) -> str:
    """The ``console-memory`` workload, flat-poisson at load 0.7, with ``jobs`` jobs."""
    return f"""[workload]
kind = "flat-poisson"
jobs = {jobs}
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


def rss_mb(pid: int | None = None) -> float:
    """The resident memory of process ``pid`` (this one by default) now, in MB (Linux ``/proc``; NaN
    elsewhere)."""
    statm = Path(f"/proc/{pid or 'self'}/statm")
    if not statm.exists():
        return math.nan
    import resource

    return int(statm.read_text().split()[1]) * resource.getpagesize() / 2**20


def cpu_s(pid: int) -> float:
    """The CPU time process ``pid`` has used, user and system, in seconds (Linux ``/proc``, in clock
    ticks; NaN elsewhere)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return math.nan
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _figure(name: str, value: float, unit: str, target: str, met: bool | None) -> list[str]:
    """A row of the printed table; ``met`` is None for a figure that has no target."""
    verdict = "" if met is None else "yes" if met else "NO"
    return [name, f"{value:,.1f} {unit}", target, verdict]


async def _nothing(pilot: Any) -> None:
    return None


async def _live_run(
    app: Any,
    on_poll: Callable[[], None] = lambda: None,
    at_ends: Callable[[Any], Awaitable[None]] = _nothing,
) -> dict[str, float]:
    """Drive ``app`` headless: wait until the first frame is drawn, go live at the fastest speed,
    wait for the end of the run (``at_ends`` runs just before going live and once the run is done).
    From going live to the end: the wall time, events, frames published and drawn, and the CPU time
    of the UI thread (this one), of the UI process and of the engine process."""
    from meshsim.tui.app import SPEEDS

    engine = app.engine
    async with app.run_test(size=SIZE) as pilot:
        while app.frames_drawn == 0:
            await pilot.pause(0.05)
        await at_ends(pilot)
        await pilot.press(*["plus"] * len(SPEEDS))  # the fastest speed, as an operator sets it
        events0, shown0, published0 = app.frame.snapshot.event, app.frames_drawn, engine.live_frames
        t0, ui0, cpu0 = time.perf_counter(), time.thread_time(), time.process_time()
        engine0 = cpu_s(engine.pid)
        await pilot.press("space")
        while True:
            on_poll()
            if app.frame.snapshot.done:
                break
            await pilot.pause(POLL)
        measured = {
            "wall_s": time.perf_counter() - t0,
            "ui_cpu_s": time.thread_time() - ui0,
            "ui_process_cpu_s": time.process_time() - cpu0,
            "engine_cpu_s": cpu_s(engine.pid) - engine0,
            "events": app.frame.snapshot.event - events0,
            "published": engine.live_frames - published0,
            "shown": app.frames_drawn - shown0,
        }
        await at_ends(pilot)
        return measured


async def ask(pilot: Any, app: Any, question: Request, label: str) -> Any:
    """The engine's answer to ``question`` (a declared request), asked while the console is
    paused."""
    app.send(question, label)
    while app.frame.label != label:
        await pilot.pause(0.02)
    return app.frame.result


@scenario(
    "console-live",
    "Intrepid, default synthetic workload, console live at the fastest speed (160x50)",
    f">= {LIVE_FPS:g} frames/s while >= {LIVE_EVENTS:,.0f} events/s",
)
def console_live() -> dict[str, Any]:
    from meshsim.engine.tools.runcase import RunOptions
    from meshsim.engine.tools.session import Session
    from meshsim.tui.app import make_app

    options = RunOptions()
    alone = Session(options)
    t0, cpu0 = time.perf_counter(), time.process_time()
    alone.run()
    engine_s, engine_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    engine_rate = alone.events / engine_s
    runs, starts = [], []
    for _ in range(LIVE_RUNS):
        t0 = time.perf_counter()
        app = make_app(options)
        starts.append(time.perf_counter() - t0)
        runs.append(asyncio.run(_live_run(app)))
    live = {key: sum(r[key] for r in runs) for key in runs[0]}
    wall = live["wall_s"]
    frames, rate = min(live["shown"], live["published"]) / wall, live["events"] / wall
    ui_frame = live["ui_cpu_s"] / max(1, live["shown"])
    engine_per_cpu = live["events"] / max(1e-9, live["engine_cpu_s"])
    return {
        **live,
        "jobs": len(alone.workload),
        "engine_s": engine_s,
        "engine_events_per_s": engine_rate,
        "ui_cpu_ms_per_frame": ui_frame * 1e3,
        "engine_process_events_per_cpu_s": engine_per_cpu,
        "start_s": starts,
        "notes": [
            f"{live['events']:,} events in {wall:.2f} s live; the engine alone ran a run's "
            f"{alone.events:,} in {engine_s:.2f} s ({alone.events / engine_cpu:,.0f} events per "
            f"CPU second), so the console can go no faster than that",
            f"CPU while live: the engine process ran {live['engine_cpu_s'] / wall:.0%} of the "
            f"wall time ({engine_per_cpu:,.0f} events per CPU second, its frames included), the "
            f"UI process {live['ui_process_cpu_s'] / wall:.0%} (its UI thread "
            f"{ui_frame * 1e3:.1f} ms per frame drawn; {live['shown']:,} frames drawn, "
            f"{live['published']:,} live frames published)",
            f"{LIVE_RUNS} live runs, figures over all of them; events/s of each run: "
            + ", ".join(f"{r['events'] / r['wall_s']:,.0f}" for r in runs)
            + "; seconds from make_app to its first frame (engine process started, session "
            "built): " + ", ".join(f"{s:.2f}" for s in starts),
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
    """A mesh32 session at time 0 after the arrival of ``waiting`` + 1 jobs (seeded), each larger
    than half the machine: one runs, ``waiting`` wait."""
    import numpy as np

    from meshsim.engine.tools.runcase import RunOptions
    from meshsim.engine.tools.session import Session
    from meshsim.engine.topology.machines import load_machine
    from meshsim.engine.workloads.workload import from_columns

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


FRAME_PARTS = ("publish", "encode", "decode", "panes", "layout", "draw")
"""The parts of one frame ``console-frame`` times: the engine process's (the driver's frame, its
bytes for the pipe), then the UI's (the frame back from the bytes, every pane, layout, redraw)."""


async def _frame_times(session: Any) -> tuple[dict[str, dict[str, float]], float]:
    """Median milliseconds of each part of one frame (:data:`FRAME_PARTS`), per lower tab, each
    frame one event after the last (a job ends and the next starts, so the map, the tables and the
    queue change): the driver's frame (snapshot and result metrics), its encoding and decoding, the
    app's frame handler (every pane updated), then Textual's layout pass and a full redraw of the
    screen (``Screen._refresh_layout`` and ``render_update(full=True)``, private Textual calls: what
    its refresh timer runs, done here at once so that no idle time is counted). The frames come from
    ``session`` here, not from the app's own engine process (which stays paused on the same
    machine). They cross one encoder and decoder, as in a running console, which has already sent
    its first frame: the wire sends each waiting job once (:mod:`meshsim.tui.wire`). The first
    frame's encoding and decoding, which carry every waiting job, are timed apart
    (``first_wire_ms``)."""
    from textual.widgets import TabbedContent

    from meshsim.engine.tools.runcase import RunOptions
    from meshsim.tui.app import FrameReady, make_app
    from meshsim.tui.driver import Driver
    from meshsim.tui.wire import FrameDecoder, FrameEncoder

    app = make_app(RunOptions(machine=session.machine.name))
    driver = Driver(session, lambda frame: None)
    encoder, decoder = FrameEncoder(), FrameDecoder()
    t0 = time.perf_counter()
    decoder.decode(encoder.encode(driver.frame()))
    first = (time.perf_counter() - t0) * 1e3
    parts: dict[str, dict[str, float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        while app.frame is None:
            await pilot.pause(0.05)
        for tab in ("tab-metrics", "tab-timeline", "tab-events"):
            app.query_one("#lower", TabbedContent).active = tab
            await pilot.pause(0.2)
            samples: dict[str, list[float]] = {part: [] for part in FRAME_PARTS}
            for _ in range(FRAME_REPEATS):
                session.step(1)
                clock = [time.perf_counter()]
                frame = driver.frame()
                clock.append(time.perf_counter())
                data = encoder.encode(frame)
                clock.append(time.perf_counter())
                frame = decoder.decode(data)
                clock.append(time.perf_counter())
                app.show_frame(FrameReady(frame))
                clock.append(time.perf_counter())
                app.screen._refresh_layout()
                clock.append(time.perf_counter())
                app.screen._compositor.render_update(full=True)
                clock.append(time.perf_counter())
                for key, t0, t1 in zip(samples, clock, clock[1:], strict=False):
                    samples[key].append((t1 - t0) * 1e3)
                await pilot.pause(0.05)
            parts[tab] = {key: statistics.median(values) for key, values in samples.items()}
            parts[tab]["total"] = sum(parts[tab].values())
    return parts, first


@scenario(
    "console-frame",
    f"one frame with {WAITING:,} waiting jobs on mesh32 (snapshot + all panes + full redraw)",
    f"< {FRAME_MS:g} ms",
)
def console_frame() -> dict[str, Any]:
    session = waiting_session()
    waiting = session.waiting
    parts, first = asyncio.run(_frame_times(session))
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
        f"{tab.removeprefix('tab-')} tab: engine process: snapshot and metrics "
        f"{p['publish']:.1f} + encoding {p['encode']:.1f}; UI process: decoding "
        f"{p['decode']:.1f} + panes {p['panes']:.1f} + layout {p['layout']:.1f} + full redraw "
        f"{p['draw']:.1f} ms"
        for tab, p in parts.items()
    ]
    return {
        "waiting": waiting,
        "parts_ms": parts,
        "first_wire_ms": first,
        "worst_ms": parts[worst]["total"],
        "figures": figures,
        "notes": [
            f"{waiting:,} waiting jobs; medians of {FRAME_REPEATS} frames",
            *notes,
            f"first frame (every waiting job on the wire): encoding and decoding {first:.1f} ms",
        ],
    }


def _memory_options(folder: str, jobs: int = MEMORY_JOBS) -> Any:
    """The ``console-memory`` run: flat:1024, FCFS + EASY, :func:`memory_workload` (written to
    ``folder``, which must outlive the building of the session)."""
    from meshsim.engine.tools.runcase import RunOptions

    spec = Path(folder) / f"flat-{jobs}.toml"
    spec.write_text(memory_workload(jobs), encoding="utf-8")
    return RunOptions(machine="flat:1024", workload=str(spec), backfill="easy")


@dataclass(frozen=True)
class EngineBlocks(Request):
    """Asks the engine process for :func:`python_blocks` there."""


@handle.register(EngineBlocks)
def _engine_blocks(request: EngineBlocks, driver: Any) -> int:
    return python_blocks()


def python_blocks() -> int:
    """Memory blocks Python's allocator holds for live objects, after a full collection: what the
    process keeps, unlike its resident memory, which also counts freed memory the allocator has not
    returned to the system."""
    import gc

    gc.collect()
    return sys.getallocatedblocks()


TEXT_WIDTH_ENTRY_BLOCKS = 3
"""Python blocks one entry of Rich's text-width cache holds: its link, its key and the text
(measured: 3,000 new texts measured once add 3,003 blocks)."""


def text_width_entries() -> int:
    """Entries in Rich's text-width cache (``rich.cells.cached_cell_len``, an ``lru_cache``):
    every distinct text the console draws passes through it, because Textual measures each segment
    it crops or divides."""
    from rich.cells import cached_cell_len

    return cached_cell_len.cache_info().currsize


def _ui_share(growth: int, entries: Sequence[int]) -> str:
    """How much of the UI process's block growth is Rich's text-width cache filling up."""
    from rich.cells import cached_cell_len

    added = (entries[1] - entries[0]) * TEXT_WIDTH_ENTRY_BLOCKS
    return (
        f"Rich's text-width cache {entries[0]:,} -> {entries[1]:,} entries of "
        f"{cached_cell_len.cache_info().maxsize:,} (+{added:,} blocks), the rest of the UI "
        f"{growth - added:+,} blocks"
    )


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
    from meshsim.engine.tools.session import Session

    with tempfile.TemporaryDirectory() as folder:
        session = Session(_memory_options(folder))
    samples = [(0, rss_mb())]
    blocks = python_blocks()
    while not session.done:
        session.run(max_events=MEMORY_JOBS // 50)
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
    from meshsim.tui.app import make_app
    from meshsim.tui.bench import EngineBlocks as Blocks  # by its module's name, even as __main__

    with tempfile.TemporaryDirectory() as folder:
        app = make_app(_memory_options(folder))
    pid = app.engine.pid
    samples: list[tuple[int, float, float]] = []
    blocks: list[tuple[int, int]] = []
    entries: list[int] = []

    def sample() -> None:
        samples.append((app.frame.snapshot.event, rss_mb(), rss_mb(pid)))

    async def count_blocks(pilot: Any) -> None:
        label = f"blocks {len(blocks)}"
        blocks.append((python_blocks(), await ask(pilot, app, Blocks(), label)))
        entries.append(text_width_entries())

    live = asyncio.run(_live_run(app, sample, count_blocks))
    ui = _rss_at_thirds([(e, u) for e, u, _ in samples], live["events"])
    engine_side = _rss_at_thirds([(e, x) for e, _, x in samples], live["events"])
    rss = _rss_at_thirds([(e, u + x) for e, u, x in samples], live["events"])
    engine = run_child("engine-memory")
    alone = engine["rss_mb"]
    extra = (rss["end"] - rss["start"]) - (alone["end"] - alone["start"])
    (ui0, engine0), (ui1, engine1) = blocks
    held, held_alone = (ui1 - ui0) + (engine1 - engine0), engine["blocks_growth"]
    return {
        **live,
        "rss_mb": rss,
        "ui_rss_mb": ui,
        "engine_process_rss_mb": engine_side,
        "engine_rss_mb": alone,
        "blocks_growth": held,
        "ui_blocks_growth": ui1 - ui0,
        "engine_process_blocks_growth": engine1 - engine0,
        "engine_blocks_growth": held_alone,
        "notes": [
            f"{live['events']:,} events in {live['wall_s']:.1f} s live; growth from the first "
            f"frame to the end: console {rss['end'] - rss['start']:+.0f} MB, engine alone "
            f"{alone['end'] - alone['start']:+.0f} MB (its records of finished jobs)",
            "the console is two processes, its figures their sums: UI process "
            f"{ui['start']:.0f} / {ui['middle']:.0f} / {ui['end']:.0f} MB and "
            f"{ui1 - ui0:+,} blocks, engine process {engine_side['start']:.0f} / "
            f"{engine_side['middle']:.0f} / {engine_side['end']:.0f} MB and "
            f"{engine1 - engine0:+,} blocks",
            f"UI process: {_ui_share(ui1 - ui0, entries)}",
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


@scenario(
    "console-memory-by-length",
    "the console-memory run at "
    + ", ".join(f"{jobs:,}" for jobs in MEMORY_LENGTHS)
    + " jobs: the UI process's Python blocks",
    "(reference for console-memory: does the UI's share grow with the run?)",
)
def console_memory_by_length() -> dict[str, Any]:
    runs = [run_child(UI_BLOCKS, str(jobs)) for jobs in MEMORY_LENGTHS]
    return {
        "runs": runs,
        "figures": [
            [
                f"UI process's Python blocks, growth over a {r['jobs']:,}-job run",
                f"{r['ui_blocks_growth']:+,}",
                "",
                "",
            ]
            for r in runs
        ],
        "notes": [
            f"{r['jobs']:,} jobs, {r['shown']} frames drawn: "
            f"{_ui_share(r['ui_blocks_growth'], r['text_width_entries'])}"
            for r in runs
        ],
    }


def ui_blocks(jobs: int) -> dict[str, Any]:
    """The ``console-memory`` run with ``jobs`` jobs, UI process only: its growth in Python blocks
    from the first frame to the end, the frames it drew and Rich's text-width cache."""
    from meshsim.tui.app import make_app

    with tempfile.TemporaryDirectory() as folder:
        app = make_app(_memory_options(folder, jobs))
    ends: list[tuple[int, int]] = []

    async def count_blocks(pilot: Any) -> None:
        ends.append((python_blocks(), text_width_entries()))

    live = asyncio.run(_live_run(app, at_ends=count_blocks))
    (blocks0, entries0), (blocks1, entries1) = ends
    return {
        "jobs": jobs,
        "events": live["events"],
        "shown": live["shown"],
        "ui_blocks_growth": blocks1 - blocks0,
        "text_width_entries": (entries0, entries1),
    }


def run_child(name: str, *args: str) -> dict[str, Any]:
    """Run console scenario ``name`` (or the :data:`UI_BLOCKS` command with its ``args``) in a fresh
    interpreter and return its measurements."""
    done = subprocess.run(
        [sys.executable, "-m", "meshsim.tui.bench", name, *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    """Child entry point: run one console scenario (or :data:`UI_BLOCKS`) and print its JSON."""
    if argv[0] == UI_BLOCKS:
        print(json.dumps(ui_blocks(int(argv[1]))))
    else:
        print(json.dumps(CONSOLE_SCENARIOS.get(argv[0]).run()))


if __name__ == "__main__":
    main(sys.argv[1:])
