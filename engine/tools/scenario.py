"""Scenario files: a run's options plus its operator action log, saved by the console and replayed
by ``meshsim run --scenario FILE``.

A run is fully defined by its inputs plus its action log (DESIGN.md, "Operator actions"), so a
:class:`Scenario` is exactly that: the simulation-defining options (:class:`RunOptions`), the
actions in the order they were applied, the event number the console was at (``position``) and a
name. The file is readable JSON (``"schema": "meshsim.scenario/1"``)::

    {
      "schema": "meshsim.scenario/1", "name": "midplane failure", "options": {"machine": "intrepid",
      "workload": "tests/data/intrepid-mini.swf"}, "position": 7, "actions": [
        {"action": "fail", "time": 150.0, "unit": "R00-M0", "on_job": "requeue", "after_event": 5}
      ]
    }

Each action carries ``after_event``, the number of events the run had processed when it was applied
(:class:`~meshsim.engine.kernel.actions.LoggedAction`; optional in hand-written files, default 0).
Only options that differ from their defaults are written; paths are kept as given (a relative path
is relative to the directory the scenario is replayed from). The contract with the console:
the console's "export results" is :func:`scenario_document` of its simulation run to the end, and
``meshsim run --scenario FILE --out x.json`` computes the same function on
``load_scenario(FILE).build()`` run to the end, so both give byte-identical result JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.kernel.actions import LoggedAction
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools import scenario_checks
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.tools.runcase import RunOptions, case_document, prepare
from meshsim.engine.tools.scenario_checks import SCHEMA
from meshsim.engine.validation.rules import check_value
from meshsim.engine.validation.text import read_text
from meshsim.engine.writing import write_file


@dataclass(frozen=True)
class Scenario:
    """Run options + action log + the console's position (event number) + a name. Plain actions in
    ``actions`` are taken as applied from the start (``after_event`` 0)."""

    options: RunOptions = field(default_factory=RunOptions)
    actions: tuple[LoggedAction, ...] = ()
    position: int = 0
    name: str = ""
    source: str = field(default="", compare=False)
    """The file it was read from (for messages), empty when made in memory."""

    @classmethod
    def of(cls, sim: Simulation, options: RunOptions, name: str) -> Scenario:
        """The scenario of a simulation built from ``options``: its action log and current event."""
        return cls(options, tuple(sim.logged_actions()), sim.events, name)

    def __post_init__(self) -> None:
        logged = tuple(
            a if isinstance(a, LoggedAction) else LoggedAction(0, a) for a in self.actions
        )
        object.__setattr__(self, "actions", logged)

    def build(
        self,
        *,
        log: Callable[[EventRecord], None] | None = None,
        recent: int = 0,
        history: bool = False,
    ) -> Simulation:
        """The simulation of this scenario with every action applied, at event 0 (run it, or
        ``run_to_event(self.position)`` to resume where the console was). The actions are first
        checked against the machine and workload (errors name the scenario file)."""
        return prepare(
            self.options,
            log=log,
            actions=self.actions,
            recent=recent,
            history=history,
            source=self.source,
        )

    def as_dict(self) -> dict[str, Any]:
        """The file's JSON object (only non-default options)."""
        defaults = RunOptions()
        options = {
            f.name: getattr(self.options, f.name)
            for f in fields(RunOptions)
            if getattr(self.options, f.name) != getattr(defaults, f.name)
        }
        return {
            "schema": SCHEMA,
            "name": self.name,
            "options": options,
            "position": self.position,
            "actions": [a.as_dict() for a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: Any, source: str) -> Scenario:
        """A scenario from its JSON object, every key held to its rule
        (:mod:`meshsim.engine.tools.scenario_checks`); errors are one line naming ``source``
        and the key."""
        if not isinstance(data, dict):
            raise MeshsimError(f"{source}: expected a JSON object, got {type(data).__name__}")
        top = scenario_checks.TOP
        unknown = sorted(set(data) - set(top.key_list()))
        if unknown:
            valid = ", ".join(top.key_list())
            raise MeshsimError(f"{where(source, key=unknown[0])}: unknown key (valid: {valid})")
        if "schema" not in data:
            raise MeshsimError(f"{where(source, key='schema')}: is required ('{SCHEMA}')")
        values = {
            rule.key: check_value(rule, data[rule.key], where(source, key=rule.key))
            for rule in top.rules
            if rule.key in data and rule.key not in ("options", "actions")
        }
        raw_actions = data.get("actions", [])
        if not isinstance(raw_actions, list):
            raise MeshsimError(f"{where(source, key='actions')}: expected a list of actions")
        actions = tuple(
            scenario_checks.read_action(item, source, k) for k, item in enumerate(raw_actions)
        )
        options = RunOptions.from_mapping(
            scenario_checks.read_options(data.get("options", {}), source)
        )
        return cls(
            options,
            actions,
            values.get("position", 0),
            values.get("name", Path(source).stem),
            source,
        )


def save_scenario(path: Path, scenario: Scenario) -> None:
    """Write ``scenario`` to ``path`` as JSON, atomically."""
    write_file(Path(path), dumps(scenario.as_dict()))


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file; a missing or unreadable file, text that is not UTF-8, bad JSON (with
    its line), a wrong schema, an unknown option or action, or a value of the wrong type or out of
    range is a one-line :class:`MeshsimError` naming the file and the key."""
    path = Path(path)
    text = read_text(path, "scenario")
    try:
        data = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise MeshsimError(
            f"{where(str(path), line=exc.lineno)}: invalid JSON ({exc.msg})"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise MeshsimError(f"{path}: invalid JSON ({exc})") from None
    return Scenario.from_dict(data, str(path))


def _not_json(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON, though Python's reader takes them."""
    raise ValueError(f"{name} is not a JSON value")


def scenario_document(sim: Simulation, scenario: Scenario) -> dict[str, Any]:
    """The result JSON of a finished run of ``scenario``: :func:`case_document` with
    ``inputs.scenario`` set to the scenario's name."""
    return case_document(sim, scenario.options, scenario=scenario.name)
