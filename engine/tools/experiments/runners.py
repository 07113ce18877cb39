"""The commands a sweep case can run, by name: what a case executes and which files it reads.

A runner turns a case's options (parameter names → values, files already resolved to absolute paths)
into a :class:`~meshsim.engine.tools.runcase.CaseOutput`. ``run`` is ``meshsim run``
(:func:`meshsim.engine.tools.runcase.run_case`). Other commands (``contention``, the static layout
analysis) register here; a spec naming a command that is not registered is reported as needing it.

``input_files`` lists the files a case reads beyond the ones its options name directly — for
``run``, a bundled machine's file and the machine's default workload — so the content hash of a case
covers them too. Files that a workload file itself refers to are not followed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.registry import Registry
from meshsim.engine.tools.runcase import CaseOutput, RunOptions, run_case
from meshsim.engine.topology.machines import load_machine, machines_dir


@dataclass(frozen=True)
class Runner:
    """A command a case can be: how to execute it and which extra files it reads."""

    name: str
    execute: Callable[[Mapping[str, Any], bool], CaseOutput]
    input_files: Callable[[Mapping[str, Any]], list[Path]]


RUNNERS: Registry[Runner] = Registry("command")


def _execute_run(options: Mapping[str, Any], jobs: bool) -> CaseOutput:
    return run_case(RunOptions.from_mapping(dict(options)), jobs=jobs)


def _run_files(options: Mapping[str, Any]) -> list[Path]:
    name = str(options.get("machine", RunOptions.machine))
    files = []
    bundled = machines_dir() / f"{name}.toml"
    if not name.endswith(".toml") and bundled.is_file():
        files.append(bundled)
    if options.get("workload") is None:
        default = load_machine(name).default_workload_path()
        if default is not None:
            files.append(default)
    return files


RUNNERS.register("run")(Runner("run", _execute_run, _run_files))


def _execute_contention(options: Mapping[str, Any], jobs: bool) -> CaseOutput:
    """``meshsim contention`` as a case: the static layout analysis (seed 003 Ch. VI)."""
    from meshsim.engine.families.contention.layouts import analyze_layout

    mesh = int(options.get("mesh", 16))
    analysis = analyze_layout(
        mesh,
        str(options["layout"]),
        int(options.get("size") or mesh),
        int(options.get("io_nodes") or mesh),
        str(options.get("traffic", "write")),
        link_mb_s=float(options.get("link_mb_s", 380.0)),
        node_mb_s=float(options.get("node_mb_s", 64.0)),
    )
    return CaseOutput(analysis.to_dict(matrix=False), None)


RUNNERS.register("contention")(Runner("contention", _execute_contention, lambda options: []))
