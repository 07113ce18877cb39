"""How a golden case is run: exactly what ``meshsim run`` does, captured as text.

A case with options is ``meshsim run`` with those options; a case with a scenario file is ``meshsim
run --scenario FILE``. Both go through the functions the command uses
(:func:`meshsim.engine.tools.runcase.prepare` and
:func:`~meshsim.engine.tools.runcase.case_document`, or
:meth:`meshsim.engine.tools.scenario.Scenario.build` and
:func:`~meshsim.engine.tools.scenario.scenario_document`), with the event log written by the
command's own
:class:`~meshsim.engine.tools.outputs.EventLogWriter` and the document by
:func:`~meshsim.engine.tools.outputs.dumps`. Cases run from the repository root, so the paths they
name (and echo in ``inputs``) are relative to it. The result's ``meshsim_version`` is masked, so a
release does not rewrite the files."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from meshsim.engine.tools.outputs import EventLogWriter, dumps
from meshsim.engine.tools.runcase import RunOptions, case_document, prepare
from meshsim.engine.tools.scenario import load_scenario, scenario_document
from tests.golden.cases import GoldenCase

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: every path a case names is relative to it."""

EXPECTED = Path(__file__).resolve().parent / "expected"
"""Where the checked-in outputs live: ``NAME.result.json`` and ``NAME.events.jsonl``."""

VERSION_MASK = "<masked>"
"""What the result's ``meshsim_version`` reads in the golden files."""


class Outputs(NamedTuple):
    """A case's result JSON text (version masked) and its event log text (JSON lines)."""

    result: str
    events: str


def expected_paths(case: GoldenCase) -> Outputs:
    """The paths of a case's checked-in files, as an :class:`Outputs` of strings."""
    return Outputs(
        str(EXPECTED / f"{case.name}.result.json"), str(EXPECTED / f"{case.name}.events.jsonl")
    )


@contextmanager
def at_root() -> Iterator[None]:
    """Run with the repository root as the working directory (then go back)."""
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def outputs(case: GoldenCase) -> Outputs:
    """Run ``case`` to its end (from the repository root) and return its outputs."""
    lines = io.StringIO()
    log = EventLogWriter(lines)
    with at_root():
        if case.scenario is not None:
            scenario = load_scenario(Path(case.scenario))
            sim = scenario.build(log=log)
            sim.run()
            document = scenario_document(sim, scenario)
        else:
            options = RunOptions.from_mapping(case.options)
            sim = prepare(options, log=log)
            sim.run()
            document = case_document(sim, options)
    document["meshsim_version"] = VERSION_MASK
    return Outputs(dumps(document), lines.getvalue())
