"""The console benchmarks (``meshsim bench --console``) set up what they say; timings are not
asserted (they depend on the machine), the command's listing and table are."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from meshsim.tui.bench import (
    CONSOLE_SCENARIOS,
    TEXT_WIDTH_ENTRY_BLOCKS,
    _rss_at_thirds,
    _ui_share,
    rss_mb,
    text_width_entries,
    waiting_session,
)


def test_waiting_session_holds_the_asked_number_of_waiting_jobs_on_mesh32() -> None:
    session = waiting_session(300)
    snap = session.snapshot()
    assert snap.machine.name == "mesh32"
    assert len(snap.waiting) == 300
    assert len(snap.running) == 1
    assert snap.time == 0.0
    assert not snap.done


def test_memory_samples_are_read_nearest_start_middle_and_end() -> None:
    samples = [(0, 50.0), (40, 60.0), (90, 70.0), (120, 80.0), (200, 90.0)]
    assert _rss_at_thirds(samples, 200) == {"start": 50.0, "middle": 70.0, "end": 90.0}


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads Linux /proc")
def test_resident_memory_is_read_in_megabytes() -> None:
    before = rss_mb()
    ballast = bytearray(64 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])
    assert 10 < before < rss_mb() - 50


def test_bench_console_lists_the_console_scenarios_with_targets() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", "bench", "--console", "--list"],
        check=True,
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": ""},
    )
    for name in (
        "console-live",
        "console-frame",
        "console-memory",
        "engine-memory",
        "console-memory-by-length",
    ):
        assert name in done.stdout
        assert CONSOLE_SCENARIOS.get(name).target.split()[0] in done.stdout


def test_console_frame_scenario_prints_its_figures_as_json() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "meshsim.tui.bench", "console-frame"],
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(done.stdout)
    assert result["waiting"] == 50_000
    assert {row[0].split(",")[0] for row in result["figures"]} == {"one frame"}
    assert all(row[2] == "< 50 ms" and row[3] in ("yes", "NO") for row in result["figures"])
    assert set(result["parts_ms"]) == {"tab-metrics", "tab-timeline", "tab-events"}


def test_text_width_entries_count_what_rich_caches() -> None:
    from rich.cells import cell_len

    before = text_width_entries()
    for n in range(10):
        cell_len(f"a text never measured before {n} {id(before)}")
    assert text_width_entries() == min(before + 10, 4096)


def test_ui_share_splits_growth_into_rich_cache_and_the_rest() -> None:
    assert _ui_share(10_000, (255, 1255)) == (
        "Rich's text-width cache 255 -> 1,255 entries of 4,096 (+3,000 blocks), "
        "the rest of the UI +7,000 blocks"
    )


def test_ui_blocks_child_runs_the_memory_run_with_the_asked_number_of_jobs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "meshsim.tui.bench", "ui-blocks", "1000"],
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(done.stdout)
    assert result["jobs"] == 1000
    assert result["events"] == 2000
    assert result["shown"] >= 1
    first, last = result["text_width_entries"]
    assert 0 < first <= last <= 4096


def test_a_text_width_cache_entry_holds_the_blocks_the_bench_counts() -> None:
    from rich.cells import cached_cell_len, cell_len

    cached_cell_len.cache_clear()
    gc.collect()
    before = sys.getallocatedblocks()
    for n in range(1000):
        cell_len(f"{n * 7.31:14.2f} s")
    gc.collect()
    assert text_width_entries() == 1000
    per_entry = (sys.getallocatedblocks() - before) / 1000
    assert per_entry == pytest.approx(TEXT_WIDTH_ENTRY_BLOCKS, abs=0.05)
