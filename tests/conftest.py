"""Shared fixtures: where the real traces are, and tiny hand-written inputs.

The real traces in ``../shared/traces`` are put on meshsim's trace search path
(``MESHSIM_TRACES``) for the tests and every process they start; shipped code never looks there
by itself (:mod:`meshsim.engine.workloads.tracepath`).
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
SHARED_TRACES = ROOT.parent / "shared" / "traces"
NASA = SHARED_TRACES / "NASA-iPSC-1993-3.1-cln.swf"
LUBLIN = SHARED_TRACES / "lublin_256.swf"

os.environ.setdefault("MESHSIM_TRACES", str(SHARED_TRACES))


def require_trace(path: Path) -> Path:
    """Skip (with the reason) when the shared traces are not beside the project."""
    if not path.exists():
        pytest.skip(f"{path} is absent: the real traces live in ../shared/traces")
    return path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``live`` run first: they wait minutes on a real scheduler, mostly asleep, so
    under ``-n auto`` one worker waits while the others run the rest of the suite, instead of the
    whole suite waiting for them at its end."""
    items.sort(key=lambda item: item.get_closest_marker("live") is None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """State what the tests measured (their ``measured`` properties, such as the live Slurm check's
    agreement), passed or failed, in the summary of every run."""
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, "user_properties", ()):
                if key == "measured":
                    terminalreporter.write_line(f"measured: {value}")
