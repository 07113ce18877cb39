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
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import LoggedAction, logged_from_dict
from meshsim.engine.kernel.events import EventRecord
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.outputs import dumps, write_text
from meshsim.engine.tools.runcase import RunOptions, case_document, prepare

SCHEMA = "meshsim.scenario/1"
"""The ``schema`` of a scenario file."""

_KEYS = ("schema", "name", "options", "position", "actions")


@dataclass(frozen=True)
class Scenario:
    """Run options + action log + the console's position (event number) + a name. Plain actions in
    ``actions`` are taken as applied from the start (``after_event`` 0)."""

    options: RunOptions = field(default_factory=RunOptions)
    actions: tuple[LoggedAction, ...] = ()
    position: int = 0
    name: str = ""

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
        ``run_to_event(self.position)`` to resume where the console was)."""
        return prepare(self.options, log=log, actions=self.actions, recent=recent, history=history)

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
        """A scenario from its JSON object; errors are one line naming ``source`` and the key."""
        if not isinstance(data, dict):
            raise MeshsimError(f"{source}: expected a JSON object")
        schema = data.get("schema")
        if schema != SCHEMA:
            raise MeshsimError(f"{source}: 'schema' is {schema!r}, expected '{SCHEMA}'")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise MeshsimError(f"{source}: unknown key '{unknown[0]}'")
        name = data.get("name", Path(source).stem)
        if not isinstance(name, str):
            raise MeshsimError(f"{source}: 'name' must be a string")
        position = data.get("position", 0)
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise MeshsimError(f"{source}: 'position' must be a non-negative integer")
        raw_actions = data.get("actions", [])
        if not isinstance(raw_actions, list):
            raise MeshsimError(f"{source}: 'actions' must be a list")
        actions = tuple(
            _action(item, f"{source}: actions[{k}]") for k, item in enumerate(raw_actions)
        )
        return cls(_options(data.get("options", {}), source), actions, position, name)


def _options(raw: Any, source: str) -> RunOptions:
    if not isinstance(raw, dict):
        raise MeshsimError(f"{source}: 'options' must be an object")
    hints = typing.get_type_hints(RunOptions)
    for key, value in raw.items():
        if key not in hints:
            raise MeshsimError(f"{source}: unknown option 'options.{key}'")
        if not _fits(value, hints[key]):
            raise MeshsimError(f"{source}: option 'options.{key}' has the wrong type: {value!r}")
    return RunOptions.from_mapping(raw)


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a RunOptions field type (an int is a float; a bool is not an
    int)."""
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for t in allowed:
        if t is type(None) and value is None:
            return True
        if t is bool and isinstance(value, bool):
            return True
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if t is float and isinstance(value, int | float) and not isinstance(value, bool):
            return True
        if t is str and isinstance(value, str):
            return True
    return False


def _action(item: Any, source: str) -> LoggedAction:
    if not isinstance(item, dict):
        raise MeshsimError(f"{source}: expected an object")
    time = item.get("time")
    if not isinstance(time, int | float) or isinstance(time, bool):
        raise MeshsimError(f"{source}: 'time' must be a number")
    try:
        return logged_from_dict(item, source)
    except MeshsimError as exc:
        text = str(exc)
        raise MeshsimError(text if text.startswith(source) else f"{source}: {text}") from None


def save_scenario(path: Path, scenario: Scenario) -> None:
    """Write ``scenario`` to ``path`` as JSON, atomically."""
    write_text(Path(path), dumps(scenario.as_dict()))


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file; a missing file, bad JSON (with its line), a wrong schema, an unknown
    option or action, or a value of the wrong type is a one-line :class:`MeshsimError` naming the
    file and the key."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MeshsimError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MeshsimError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    return Scenario.from_dict(data, str(path))


def scenario_document(sim: Simulation, scenario: Scenario) -> dict[str, Any]:
    """The result JSON of a finished run of ``scenario``: :func:`case_document` with
    ``inputs.scenario`` set to the scenario's name."""
    return case_document(sim, scenario.options, scenario=scenario.name)
