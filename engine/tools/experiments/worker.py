"""What runs on a worker: one task in, one :class:`Outcome` out (both picklable).

The worker checks the hash of every file the task reads, runs the command, and turns any exception
into a failed outcome with its message, so one bad case never stops a sweep. Only
``KeyboardInterrupt`` (and other non-``Exception`` signals) pass through, so Ctrl-C still stops an
in-process sweep."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.hashing import file_sha256
from meshsim.engine.tools.experiments.plan import Task
from meshsim.engine.tools.experiments.runners import RUNNERS


@dataclass(frozen=True)
class Outcome:
    """The result of one task: the document (and per-job CSV) or the error that stopped it.
    ``detail`` holds the traceback of an unexpected error (not of bad input)."""

    case_id: str
    document: dict[str, Any] | None = None
    jobs_csv: str | None = None
    error: str | None = None
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def execute_case(task: Task) -> Outcome:
    """Run one task (see the module docstring)."""
    try:
        for path, digest in task.files:
            if file_sha256(Path(path)) != digest:
                raise MeshsimError(
                    f"{path}: differs from the file the sweep was planned with "
                    "(workers must see the same input files)"
                )
        output = RUNNERS.get(task.command).execute(dict(task.options), task.jobs)
    except MeshsimError as exc:
        return Outcome(task.case_id, error=str(exc))
    except FileNotFoundError as exc:
        return Outcome(task.case_id, error=f"{exc.filename}: no such file")
    except Exception as exc:
        return Outcome(
            task.case_id, error=f"{type(exc).__name__}: {exc}", detail=traceback.format_exc()
        )
    return Outcome(task.case_id, output.document, output.jobs_csv)
