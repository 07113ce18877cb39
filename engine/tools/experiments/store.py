"""The results folder of a sweep.

Layout::

    RESULTS/sweep.json              the plan: command, keys, baseline, every case and its input hash
    RESULTS/cases/ID.json           the result JSON, the very bytes `meshsim run --out` writes
    RESULTS/cases/ID.meta.json      status (ok or failed), error, the case's values and input hash
    RESULTS/cases/ID.jobs.csv       the per-job CSV, when the spec asks for it
    RESULTS/workloads/*.toml        workload files derived from ``workload.KEY`` overrides
    RESULTS/results.csv (.parquet)  one row per case; summary.csv and gains.csv (statistics)

Every file is written to a temporary name and renamed, so a crash or a kill never leaves a partial
file under a real name; leftover temporary files are removed when a sweep opens the folder. The meta
file is written last: a case is finished when its meta file says ``ok`` with the input hash the case
has now and its other files are present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.plan import PlannedCase
from meshsim.engine.tools.experiments.worker import Outcome
from meshsim.engine.tools.outputs import dumps, write_text

CASE_SCHEMA = "meshsim.case/1"
SWEEP_SCHEMA = "meshsim.sweep/1"
PART = ".part"


class ResultStore:
    """Reads and writes one results folder (layout in the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cases = folder / "cases"
        self.workloads = folder / "workloads"

    def open(self) -> None:
        """Create the folder and remove temporary files a killed sweep left behind."""
        self.cases.mkdir(parents=True, exist_ok=True)
        for folder in (self.folder, self.cases, self.workloads):
            if folder.is_dir():
                for leftover in folder.glob(f"*{PART}"):
                    leftover.unlink(missing_ok=True)

    def result_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.json"

    def meta_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.meta.json"

    def jobs_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.jobs.csv"

    def meta(self, case_id: str) -> dict[str, Any] | None:
        """The case's meta record, or None when there is none (or it is unreadable)."""
        try:
            data = json.loads(self.meta_path(case_id).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("schema") == CASE_SCHEMA else None

    def is_finished(self, case: PlannedCase) -> bool:
        """True when a stored result matches the case's current inputs (see module docstring)."""
        meta = self.meta(case.task.case_id)
        if meta is None or meta.get("status") != "ok":
            return False
        if meta.get("input_hash") != case.input_hash:
            return False
        cid = case.task.case_id
        return self.result_path(cid).is_file() and (
            not case.task.jobs or self.jobs_path(cid).is_file()
        )

    def record(self, case: PlannedCase, outcome: Outcome) -> None:
        """Store one outcome: result files first, the meta file last."""
        cid = case.task.case_id
        if outcome.ok:
            write_text(self.result_path(cid), dumps(outcome.document or {}))
            if outcome.jobs_csv is not None:
                write_bytes(self.jobs_path(cid), outcome.jobs_csv.encode("utf-8"))
        else:
            self.result_path(cid).unlink(missing_ok=True)
        meta = {
            "schema": CASE_SCHEMA,
            "case_id": cid,
            "command": case.task.command,
            "values": case.values.as_dict(),
            "input_hash": case.input_hash,
            "status": "ok" if outcome.ok else "failed",
            "error": outcome.error,
            "detail": outcome.detail,
        }
        write_text(self.meta_path(cid), dumps(meta))

    def document(self, case_id: str) -> dict[str, Any]:
        """The stored result JSON of a case."""
        return json.loads(self.result_path(case_id).read_text(encoding="utf-8"))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_text(self.folder / "sweep.json", dumps(manifest))

    def manifest(self) -> dict[str, Any]:
        """The plan stored by the last sweep into this folder."""
        path = self.folder / "sweep.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MeshsimError(
                f"{self.folder}: not a sweep results folder (no sweep.json)"
            ) from None
        except ValueError as exc:
            raise MeshsimError(f"{path}: unreadable ({exc})") from None
        if not isinstance(data, dict) or data.get("schema") != SWEEP_SCHEMA:
            raise MeshsimError(f"{path}: expected schema {SWEEP_SCHEMA}")
        return data


def write_bytes(path: Path, data: bytes) -> None:
    """Write atomically: to ``NAME.part``, then rename over ``NAME``."""
    tmp = path.with_name(path.name + PART)
    tmp.write_bytes(data)
    tmp.replace(path)
