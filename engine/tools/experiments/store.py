"""The results folder of a sweep.

Layout::

    RESULTS/sweep.json              the plan: command, keys, baseline, every case and its input hash
    RESULTS/cases/ID.json           the result JSON, the very bytes `meshsim run --out` writes
    RESULTS/cases/ID.meta.json      status (ok or failed), error, the case's values and input hash
    RESULTS/cases/ID.jobs.csv       the per-job CSV, when the spec asks for it
    RESULTS/workloads/*.toml        workload files derived from ``workload.KEY`` overrides
    RESULTS/results.csv (.parquet)  one row per case; summary.csv and gains.csv (statistics)

Every file is written to a temporary name and renamed (:mod:`meshsim.engine.writing`), so a crash
or a kill never leaves a partial file under a real name; leftover temporary files are removed when a
sweep opens the folder. The meta file is written last: a case is finished when its meta file says
``ok`` with the input hash the case has now and its other files are present and readable — a stored
file cut short or damaged by anything else is reported and its case computed again."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.plan import PlannedCase
from meshsim.engine.tools.experiments.worker import Outcome
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.writing import Target, check_targets, make_folder, remove_leftovers, write_file

CASE_SCHEMA = "meshsim.case/1"
SWEEP_SCHEMA = "meshsim.sweep/1"
TABLE_FILES = (
    "sweep.json",
    "results.csv",
    "results.parquet",
    "summary.csv",
    "gains.csv",
)
"""The files a sweep writes at the top of its results folder."""


class ResultStore:
    """Reads and writes one results folder (layout in the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cases = folder / "cases"
        self.workloads = folder / "workloads"

    def open(self) -> None:
        """Create the folder and remove temporary files a killed sweep left behind."""
        make_folder(self.cases)
        remove_leftovers([self.folder, self.cases, self.workloads])

    def result_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.json"

    def meta_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.meta.json"

    def jobs_path(self, case_id: str) -> Path:
        return self.cases / f"{case_id}.jobs.csv"

    def meta(self, case_id: str) -> dict[str, Any] | None:
        """The case's meta record, or None when there is none or it cannot be read."""
        return self._meta(case_id)[0]

    def _meta(self, case_id: str) -> tuple[dict[str, Any] | None, str | None]:
        """The meta record and, when a meta file exists but cannot be read, what is wrong."""
        path = self.meta_path(case_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, None
        except (OSError, ValueError) as exc:
            return None, f"{path.name}: cannot be read ({_short(exc)})"
        if not isinstance(data, dict) or data.get("schema") != CASE_SCHEMA:
            return None, f"{path.name}: not a meshsim case record"
        return data, None

    def damage(self, case_id: str) -> str | None:
        """What is wrong with a case's stored files, or None when they are whole: a meta file that
        cannot be read, or the files of an ``ok`` case missing, cut short or changed (their
        SHA-256 is recorded in the meta file; records without one are parsed instead)."""
        meta, problem = self._meta(case_id)
        if problem is not None or meta is None or meta.get("status") != "ok":
            return problem
        digests = meta.get("sha256") or {}
        paths = {"result": self.result_path(case_id), "jobs": self.jobs_path(case_id)}
        for name, path in paths.items():
            if name not in digests and name != "result":
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                return f"{path.name}: cannot be read ({exc.strerror or exc})"
            if name in digests:
                if hashlib.sha256(data).hexdigest() != digests[name]:
                    return f"{path.name}: changed or cut short since it was written"
            else:
                try:
                    json.loads(data)
                except ValueError as exc:
                    return f"{path.name}: cannot be read ({_short(exc)})"
        return None

    def is_finished(self, case: PlannedCase) -> bool:
        """True when a stored result matches the case's current inputs and its files are whole
        (see module docstring)."""
        meta = self.meta(case.task.case_id)
        if meta is None or meta.get("status") != "ok":
            return False
        if meta.get("input_hash") != case.input_hash:
            return False
        cid = case.task.case_id
        if case.task.jobs and not self.jobs_path(cid).is_file():
            return False
        return self.damage(cid) is None

    def record(self, case: PlannedCase, outcome: Outcome) -> None:
        """Store one outcome: result files first, the meta file (with their SHA-256) last."""
        cid = case.task.case_id
        digests = {}
        if outcome.ok:
            result = dumps(outcome.document or {}).encode("utf-8")
            write_file(self.result_path(cid), result)
            digests["result"] = hashlib.sha256(result).hexdigest()
            if outcome.jobs_csv is not None:
                jobs = outcome.jobs_csv.encode("utf-8")
                write_file(self.jobs_path(cid), jobs)
                digests["jobs"] = hashlib.sha256(jobs).hexdigest()
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
            "sha256": digests,
        }
        write_file(self.meta_path(cid), dumps(meta))

    def document(self, case_id: str) -> dict[str, Any]:
        """The stored result JSON of a case (a damaged file is a :class:`MeshsimError` naming
        it)."""
        path = self.result_path(case_id)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MeshsimError(f"{path}: cannot be read ({_short(exc)})") from None
        if not isinstance(data, dict):
            raise MeshsimError(f"{path}: not a result document")
        return data

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_file(self.folder / "sweep.json", dumps(manifest))

    def manifest(self) -> dict[str, Any]:
        """The plan stored by the last sweep into this folder."""
        path = self.folder / "sweep.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MeshsimError(
                f"{self.folder}: not a sweep results folder (no sweep.json)"
            ) from None
        except (OSError, ValueError) as exc:
            raise MeshsimError(f"{path}: unreadable ({_short(exc)})") from None
        if not isinstance(data, dict) or data.get("schema") != SWEEP_SCHEMA:
            raise MeshsimError(f"{path}: expected schema {SWEEP_SCHEMA}")
        _check_manifest(data, path)
        return data


_MANIFEST = {
    "command": str,
    "keys": list,
    "replicate": str,
    "baseline": dict,
    "metrics": list,
    "jobs": bool,
    "cases": list,
}
_CASE = {"case_id": str, "values": dict, "input_hash": str}


def check_results_folder(folder: Path, option: str, inputs: list[Path]) -> None:
    """Refuse a results folder before a sweep starts: it must be a folder that can be written (or
    be created), not an input, and, when it exists and holds anything, a results folder already
    (``sweep.json``), so a sweep never writes its tables among someone else's files."""
    check_targets([Target(option, folder, folder=True, files=TABLE_FILES)], inputs)
    if folder.is_dir() and any(folder.iterdir()) and not (folder / "sweep.json").is_file():
        raise MeshsimError(
            f"{option} {folder}: holds files but is not a sweep results folder (no sweep.json); "
            "give a new or empty folder"
        )


def _check_manifest(data: dict[str, Any], path: Path) -> None:
    """The keys later readers rely on, with their types (a damaged plan is an error naming the
    file and key, not a crash further on)."""
    for key, kind in _MANIFEST.items():
        if not isinstance(data.get(key), kind):
            raise MeshsimError(f"{path} key '{key}': missing or not a {kind.__name__}")
    for k, case in enumerate(data["cases"]):
        for key, kind in _CASE.items():
            if not isinstance(case, dict) or not isinstance(case.get(key), kind):
                raise MeshsimError(
                    f"{path} key 'cases[{k}].{key}': missing or not a {kind.__name__}"
                )


def _short(exc: Exception) -> str:
    return str(getattr(exc, "strerror", None) or exc).split("\n")[0][:80]
