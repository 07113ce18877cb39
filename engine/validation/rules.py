"""Rules as data: one :class:`Rule` per key of a file or per command-line option, one
:class:`Section` per table, and :func:`check_value`, the one function that holds a value to its
rule.

A rule states the key as it is written (``dims``, ``--window``), the value's kind, its default
(:data:`REQUIRED` when it has none), its range (``minimum`` and ``maximum`` inclusive, ``above``
exclusive) and where its valid names come from: fixed ``choices``, or ``names``, the kind of a
registry (``"allocator"``, ``"queue order"``), read when the value is checked so plug-ins count.
Numbers must be finite: TOML and JSON readers accept ``nan`` and ``inf``, which no key of meshsim
means. The docs list every rule from the same objects (:mod:`meshsim.engine.validation.formats`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import registry_of


class _Required:
    """The default of a key that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a rule whose key must be given."""

KINDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "int list": "a list of integers",
    "float list": "a list of numbers",
    "str list": "a list of strings",
    "table": "a table",
    "tables": "an array of tables",
    "value": "a value",
}
"""Every kind of value a rule can ask for, with its wording in messages. ``value`` is checked by
the code that reads it (its type depends on another key, as ``wrap`` on ``dims``)."""

_SCALAR = {"int": "int", "float": "float", "str": "str", "bool": "bool"}
_ITEM = {"int list": "int", "float list": "float", "str list": "str"}


@dataclass(frozen=True)
class Rule:
    """One key or option: how it is written, its kind, default, range and valid names."""

    key: str
    kind: str
    default: Any = REQUIRED
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None
    names: str | None = None
    choices: tuple[str, ...] = ()
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"rule '{self.key}': unknown kind '{self.kind}'")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def valid_names(self) -> tuple[str, ...]:
        """The names a value may take (empty when any is allowed)."""
        if self.names is not None:
            return tuple(registry_of(self.names).names())
        return self.choices

    def range_text(self) -> str:
        """The range as the docs write it: ``≥ 1``, ``> 0, ≤ 1``, or empty."""
        parts = []
        if self.above is not None:
            parts.append(f"> {bound(self.above)}")
        if self.minimum is not None:
            parts.append(f"≥ {bound(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"≤ {bound(self.maximum)}")
        return ", ".join(parts)

    def describe(self) -> dict[str, Any]:
        """The rule as plain data for the docs (the names of a registry are listed as they are
        now)."""
        return {
            "key": self.key,
            "type": KINDS[self.kind],
            "default": "required" if self.required else self.default,
            "range": self.range_text(),
            "names": list(self.valid_names()),
            "doc": self.doc,
        }


@dataclass(frozen=True)
class Section:
    """The rules of one table (or one option set): its keys in documentation order. A section
    that is ``open`` allows keys beyond its rules (checked elsewhere, as a sweep's option keys)."""

    name: str
    rules: tuple[Rule, ...]
    doc: str = ""
    open: bool = False

    def __post_init__(self) -> None:
        keys = [r.key for r in self.rules]
        if len(set(keys)) != len(keys):
            raise ValueError(f"section '{self.name}' lists a key twice")

    def rule(self, key: str) -> Rule:
        """The rule of ``key`` (a programming error when the section has none)."""
        for r in self.rules:
            if r.key == key:
                return r
        raise KeyError(f"section '{self.name}' has no rule for '{key}'")

    def key_list(self) -> list[str]:
        """The keys of the section, in documentation order."""
        return [r.key for r in self.rules]

    def describe(self) -> dict[str, Any]:
        return {
            "section": self.name,
            "doc": self.doc,
            "open": self.open,
            "keys": [r.describe() for r in self.rules],
        }


def check_value(rule: Rule, value: Any, where: str) -> Any:
    """``value`` held to ``rule``; a :class:`MeshsimError` ``"{where}: {problem}"`` otherwise.
    Returns the value in its canonical type (a float for ``float``, a list for lists)."""
    problem = problem_of(rule, value)
    if problem is not None:
        raise MeshsimError(f"{where}: {problem}")
    if rule.kind == "float":
        return float(value)
    if rule.kind == "float list":
        return [float(v) for v in value]
    if rule.kind in _ITEM:
        return list(value)
    return value


def problem_of(rule: Rule, value: Any) -> str | None:
    """What is wrong with ``value`` under ``rule``, or None."""
    kind = rule.kind
    if kind in _SCALAR:
        return _scalar_problem(rule, _SCALAR[kind], value, KINDS[kind])
    if kind in _ITEM:
        if not isinstance(value, list):
            return f"expected {KINDS[kind]}, got {show(value)}"
        for item in value:
            problem = _scalar_problem(rule, _ITEM[kind], item, KINDS[kind])
            if problem is not None:
                return problem
        return None
    if kind == "table" and not isinstance(value, dict):
        return f"expected a table, got {show(value)}"
    if kind == "tables" and not (
        isinstance(value, list) and all(isinstance(v, dict) for v in value)
    ):
        return f"expected an array of tables, got {show(value)}"
    return None


def _scalar_problem(rule: Rule, kind: str, value: Any, expected: str) -> str | None:
    if not _has_type(kind, value):
        return f"expected {expected}, got {show(value)}"
    if kind in ("int", "float"):
        return _range_problem(rule, value)
    if kind == "str":
        valid = rule.valid_names()
        if valid and value not in valid:
            if rule.names is None:
                return f"expected one of {', '.join(valid)}, got {value!r}"
            return f"unknown {rule.names} {value!r} (valid: {', '.join(valid)})"
    return None


def _has_type(kind: str, value: Any) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if isinstance(value, bool):
        return False
    if kind == "int":
        return isinstance(value, int)
    return isinstance(value, int | float)


def _range_problem(rule: Rule, value: float) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if rule.above is not None and not value > rule.above:
        return f"must be greater than {bound(rule.above)}, got {value}"
    if rule.minimum is not None and value < rule.minimum:
        return f"must be at least {bound(rule.minimum)}, got {value}"
    if rule.maximum is not None and value > rule.maximum:
        return f"must be at most {bound(rule.maximum)}, got {value}"
    return None


def bound(value: float) -> str:
    """A range bound as messages and docs write it: whole numbers in full (``2,147,483,648``),
    others in the shortest form (``0.01``, ``1e+300``)."""
    if float(value).is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    return f"{value:g}"


def show(value: Any) -> str:
    """A value as a message quotes it, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
