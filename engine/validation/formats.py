"""Every input format and option set meshsim reads, with the rules of its keys, for the docs.

A :class:`Format` is a named list of :class:`~meshsim.engine.validation.rules.Section` objects: the
very sections the readers hold their input to. Modules that read a format add their sections where
they define them (a topology plug-in adds the ``[topology]`` keys of its topology), so the list is
complete once the registries are filled. :func:`formats` returns them all; a "file formats" page is
rendered from ``[f.describe() for f in formats()]``."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from meshsim.engine.core.registry import fill_registries
from meshsim.engine.validation.rules import Section


@dataclass(frozen=True)
class Format:
    """One kind of input: a file format or a command's option set, and its sections."""

    name: str
    doc: str
    sections: list[Section] = field(default_factory=list, compare=False)

    def add(self, section: Section) -> Section:
        """Add ``section`` (returned, so a reader keeps its own reference)."""
        if any(s.name == section.name for s in self.sections):
            raise ValueError(f"format '{self.name}' has section '{section.name}' twice")
        self.sections.append(section)
        return section

    def section(self, name: str) -> Section:
        for s in self.sections:
            if s.name == name:
                return s
        raise KeyError(f"format '{self.name}' has no section '{name}'")

    def describe(self) -> dict[str, Any]:
        return {
            "format": self.name,
            "doc": self.doc,
            "sections": [s.describe() for s in self.sections],
        }


MACHINE_FILE = Format(
    "machine file",
    "A machine definition (`machines/*.toml`, `--machine FILE.toml`): `[machine]`, `[topology]` "
    "with the keys of its topology, optional `[metrics]` and registered sections.",
)
WORKLOAD_FILE = Format(
    "workload file",
    "A workload generator's parameters (`--workload FILE.toml`): `[workload]` with `kind` and the "
    "keys of that generator.",
)
SWEEP_SPEC = Format(
    "sweep spec",
    "A parameter grid (`meshsim sweep SPEC.toml`); `[base]`, `[grid]`, `[[variant]]` and "
    "`[[exclude]]` hold the long option names of the swept command, checked as that command "
    "checks them.",
)
EXPERIMENT_FILE = Format(
    "experiment file",
    "A seed paper's experiment (`meshsim reproduce NAME`): a sweep spec plus what it reproduces "
    "and the paper's numbers.",
)
SCENARIO_FILE = Format(
    "scenario file",
    "A saved console scenario (`--scenario FILE`, JSON): run options, operator actions and the "
    "console's position.",
)
SWF_TRACE = Format(
    "SWF trace",
    "A workload log in the Standard Workload Format 2.2 (`.swf`, `.swf.gz`): header comments and "
    "18 numeric fields per job; a number that is not finite or out of its range makes the line "
    "malformed.",
)
OPTIONS = Format(
    "command-line options",
    "The options of each command that take numbers or names, as the command line spells them.",
)

FORMATS = (
    MACHINE_FILE,
    WORKLOAD_FILE,
    SWEEP_SPEC,
    EXPERIMENT_FILE,
    SCENARIO_FILE,
    SWF_TRACE,
    OPTIONS,
)
"""Every format, in the order the docs list them."""


SECTION_MODULES = (
    "meshsim.engine.families.contention.layouts",
    "meshsim.engine.kernel.reports",
    "meshsim.engine.tools.compare",
    "meshsim.engine.tools.experiments.reproduce",
    "meshsim.engine.tools.experiments.spec",
    "meshsim.engine.tools.scenario",
    "meshsim.engine.validation.options",
    "meshsim.engine.validation.swf_columns",
)
"""The modules that add sections to the formats, imported by name as
:mod:`meshsim.engine.catalog` imports the plug-ins (the validation layer sits below them)."""


def formats() -> tuple[Format, ...]:
    """Every format with all its sections (the modules that add sections are imported first)."""
    fill_registries()
    for name in SECTION_MODULES:
        import_module(name)
    return FORMATS
