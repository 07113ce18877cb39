"""The figures of a run measured against its log, as data for ``meshsim plot RESULT.json``
(any renderer draws them: matplotlib files or the terminal renderer of
:mod:`meshsim.engine.tools.experiments.textplot`).

- **recorded against simulated wait**: one point per job, x = the wait the log recorded
  (``recorded_start − submit`` from the jobs CSV, ``meshsim run --jobs-out``), y = the simulated
  wait (the CSV's ``wait``), both axes logarithmic, with the line simulated = recorded. Waits
  shorter than 1 second are drawn at 1 second (a logarithmic axis has no 0), and the title counts
  them; jobs without a recorded start (no wait in the log, cancelled before they started) are not
  drawn and the title counts them too. Both waits are from the submit time here, whatever the fit
  used.
- **per-queue bars**: the mean recorded and the mean simulated wait (hours) of each queue of the
  result JSON's ``recorded.by_queue``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.tools.experiments.figures import BarChart, Figure, Series
from meshsim.engine.validation.text import read_text

FLOOR_S = 1.0
"""Waits below this many seconds are drawn at it on the logarithmic axes."""


def read_result(path: Path) -> Any:
    """The parsed result JSON at ``path``; an error naming the file (and the line) otherwise."""
    text = read_text(path, "result JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MeshsimError(f"{where(str(path), line=exc.lineno)}: not JSON ({exc.msg})") from None


def recorded_section(document: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    """The ``recorded`` section of a run's result JSON, with a fit; an error naming ``source``
    and saying why otherwise."""
    section = document.get("recorded") if isinstance(document, Mapping) else None
    if not isinstance(section, Mapping):
        raise MeshsimError(f"{source}: not a result of meshsim run (no 'recorded' section)")
    if not section.get("compared"):
        raise MeshsimError(f"{source}: no recorded schedule to draw: {section.get('reason')}")
    return section


def queue_bars(section: Mapping[str, Any]) -> BarChart:
    """Mean recorded and simulated wait per queue (hours), queues without a compared job left
    out (their jobs are counted in the section's ``not_compared``)."""
    queues = {k: v for k, v in section.get("by_queue", {}).items() if v["jobs"]}
    if not queues:
        raise MeshsimError("the result records no queues to draw (its log has no queue field)")
    recorded = tuple(v["mean_recorded_wait_s"] / 3600 for v in queues.values())
    simulated = tuple(v["mean_simulated_wait_s"] / 3600 for v in queues.values())
    return BarChart(
        "recorded-queues",
        "mean wait per queue, recorded and simulated",
        "hours",
        tuple(queues),
        ("recorded", "simulated"),
        (recorded, simulated),
    )


def wait_scatter(jobs_csv: Path) -> Figure:
    """Recorded against simulated wait, one point per job (module docstring)."""
    recorded, simulated, missing = _waits(jobs_csv)
    drawn = len(recorded)
    floored = int(((recorded < FLOOR_S) | (simulated < FLOOR_S)).sum())
    x = np.maximum(recorded, FLOOR_S)
    y = np.maximum(simulated, FLOOR_S)
    top = float(max(x.max(), y.max())) if drawn else FLOOR_S
    title = (
        f"recorded against simulated wait: {drawn:,} jobs ({floored:,} with a wait under "
        f"{FLOOR_S:g} s drawn at {FLOOR_S:g} s; {missing:,} without a recorded start not drawn)"
    )
    return Figure(
        "recorded-vs-simulated-wait",
        title,
        "recorded wait (s)",
        "simulated wait (s)",
        (
            Series("jobs", tuple(x.tolist()), tuple(y.tolist()), scatter=True),
            Series("simulated = recorded", (FLOOR_S, top), (FLOOR_S, top)),
        ),
        log_y=True,
        log_x=True,
    )


def _waits(path: Path) -> tuple[np.ndarray, np.ndarray, int]:
    """Recorded and simulated waits of the jobs with a recorded start, and how many have none."""
    reader = csv.DictReader(io.StringIO(read_text(path, "CSV"), newline=""))
    fields = reader.fieldnames or []
    if not {"submit", "wait", "recorded_start"} <= set(fields):
        raise MeshsimError(
            f"{path}: no recorded_start column (write it with meshsim run --jobs-out on a log "
            "that records waits)"
        )
    rows = [(r["submit"], r["wait"], r["recorded_start"]) for r in reader]
    recorded, simulated = [], []
    for line, (submit, wait, start) in enumerate(rows, start=2):
        if start == "":
            continue
        try:
            recorded.append(float(start) - float(submit))
            simulated.append(float(wait))
        except (TypeError, ValueError):  # a short row leaves a field None
            raise MeshsimError(
                f"{where(str(path), line=line)}: not a number in submit, wait or recorded_start"
            ) from None
    return np.array(recorded), np.array(simulated), len(rows) - len(recorded)
