"""Typed, validated access to TOML tables with errors that name the file and the key.

Every machine, workload, sweep and experiment file is read through :class:`Table`, and every table
through its :class:`~meshsim.engine.validation.rules.Section`: the rules of its keys as data (type,
default, range, valid names), so a broken key always produces the same kind of message —
``machines/mesh32.toml key 'topology.dims': expected a list of integers, got '32x32'`` — and the
docs list the same rules (:func:`meshsim.engine.validation.formats.formats`)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError, where
from meshsim.engine.validation.rules import REQUIRED, Rule, Section, check_value
from meshsim.engine.validation.text import read_text

UNREAD = Section("(read by its parser)", (), open=True)
"""The section of a table whose reader chooses its rules (:meth:`Table.follow`), as a topology's
parser does for ``[topology]``."""


def load_toml(path: Path, section: Section) -> Table:
    """Read a TOML file whose top level follows ``section``; a missing or unreadable file, text that
    is not UTF-8, or a syntax error becomes a :class:`MeshsimError` naming the file."""
    text = read_text(path, "TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MeshsimError(f"{path}: invalid TOML ({exc})") from None
    except RecursionError:
        raise MeshsimError(f"{path}: invalid TOML (nested too deeply)") from None
    return Table(data, str(path), "", section)


class Table:
    """A TOML table, where it came from and the section of rules its keys follow."""

    def __init__(self, data: dict[str, Any], source: str, prefix: str, section: Section) -> None:
        self.data = data
        self.source = source
        self.prefix = prefix
        self.section = section

    def key(self, name: str) -> str:
        """The dotted key of ``name`` inside this table, for messages."""
        return f"{self.prefix}.{name}" if self.prefix else name

    def where(self, name: str) -> str:
        """``FILE key 'dotted.name'``: where a message says the problem is."""
        return where(self.source, key=self.key(name))

    def error(self, name: str, message: str) -> MeshsimError:
        """A :class:`MeshsimError` that names this file and key ``name``."""
        return MeshsimError(f"{self.where(name)}: {message}")

    def __contains__(self, name: str) -> bool:
        return name in self.data

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def get(self, name: str) -> Any:
        """The value of ``name`` held to its rule, or the rule's default when it is absent (a
        required key that is absent is an error)."""
        rule = self.section.rule(name)
        if name not in self.data:
            if rule.default is REQUIRED:
                raise self.error(name, "is required")
            return rule.default
        return check_value(rule, self.data[name], self.where(name))

    def follow(self, section: Section) -> Table:
        """This table under the rules of ``section``."""
        return Table(self.data, self.source, self.prefix, section)

    def table(self, name: str, section: Section = UNREAD) -> Table:
        """The sub-table ``name`` (empty when absent and not required), following ``section``. In
        an open section a table without a rule of its own is optional."""
        known = name in self.section.key_list() or not self.section.open
        rule = self.section.rule(name) if known else Rule(name, "table", {})
        value = self.data.get(name, {} if not rule.required else None)
        if value is None:
            raise self.error(name, "is required")
        check_value(rule, value, self.where(name))
        return Table(value, self.source, self.key(name), section)

    def tables(self, name: str, section: Section = UNREAD) -> list[Table]:
        """An array of tables (``[[name]]``), empty when absent, each following ``section``."""
        value = self.data.get(name, [])
        check_value(self.section.rule(name), value, self.where(name))
        return [
            Table(v, self.source, f"{self.key(name)}[{i}]", section) for i, v in enumerate(value)
        ]

    def raw(self, name: str) -> Any:
        """The value as TOML gave it, or the rule's default (for keys whose type depends on other
        keys; the caller checks it)."""
        rule = self.section.rule(name)
        if name not in self.data and rule.required:
            raise self.error(name, "is required")
        return self.data.get(name, rule.default)

    def reject_unknown(self) -> None:
        """Fail on a key the section has no rule for: a typo in a machine file must not be silently
        ignored. Open sections allow any key."""
        if self.section.open:
            return
        known = self.section.key_list()
        unknown = sorted(set(self.data) - set(known))
        if unknown:
            raise self.error(unknown[0], f"unknown key (valid: {', '.join(known)})")
