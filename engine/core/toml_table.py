"""Typed, validated access to TOML tables with errors that name the file and the key.

Every machine, workload and sweep file is read through :class:`Table`, so a broken key always
produces the same kind of message: ``machines/mesh32.toml key 'topology.dims': expected a list of
positive integers, got "32x32"``."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from meshsim.engine.core.errors import MeshsimError, where

_MISSING = object()


def load_toml(path: Path) -> Table:
    """Read a TOML file; a missing file or a syntax error becomes a :class:`MeshsimError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MeshsimError(f"{path}: no such file") from None
    except OSError as exc:
        raise MeshsimError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MeshsimError(f"{path}: invalid TOML ({exc})") from None
    return Table(data, str(path), "")


class Table:
    """A TOML table plus where it came from; getters check types and record which keys were read."""

    def __init__(self, data: dict[str, Any], source: str, prefix: str) -> None:
        self.data = data
        self.source = source
        self.prefix = prefix
        self._seen: set[str] = set()

    def key(self, name: str) -> str:
        """The dotted key of ``name`` inside this table, for messages."""
        return f"{self.prefix}.{name}" if self.prefix else name

    def error(self, name: str, message: str) -> MeshsimError:
        """A :class:`MeshsimError` that names this file and key ``name``."""
        return MeshsimError(f"{where(self.source, key=self.key(name))}: {message}")

    def __contains__(self, name: str) -> bool:
        return name in self.data

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def _raw(self, name: str, default: Any) -> Any:
        self._seen.add(name)
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            raise self.error(name, "is required")
        return default

    def table(self, name: str, *, required: bool = False) -> Table:
        """The sub-table ``name`` (empty when absent and not required)."""
        value = self._raw(name, _MISSING if required else {})
        if not isinstance(value, dict):
            raise self.error(name, f"expected a table, got {_show(value)}")
        return Table(value, self.source, self.key(name))

    def tables(self, name: str) -> list[Table]:
        """An array of tables (``[[name]]``), empty when absent."""
        value = self._raw(name, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(name, f"expected an array of tables, got {_show(value)}")
        return [Table(v, self.source, f"{self.key(name)}[{i}]") for i, v in enumerate(value)]

    def str(self, name: str, default: Any = _MISSING, *, choices: list[str] | None = None) -> str:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {_show(value)}")
        if choices is not None and value not in choices:
            raise self.error(name, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def int(self, name: str, default: Any = _MISSING, *, minimum: int | None = None) -> int:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected an integer, got {_show(value)}")
        if minimum is not None and value < minimum:
            raise self.error(name, f"must be at least {minimum}, got {value}")
        return value

    def float(self, name: str, default: Any = _MISSING, *, minimum: float | None = None) -> float:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(name, f"expected a number, got {_show(value)}")
        if minimum is not None and value < minimum:
            raise self.error(name, f"must be at least {minimum}, got {value}")
        return float(value)

    def bool(self, name: str, default: Any = _MISSING) -> bool:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {_show(value)}")
        return value

    def int_list(
        self, name: str, default: Any = _MISSING, *, minimum: int | None = None
    ) -> list[int]:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        ok = isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        )
        if not ok or (minimum is not None and any(v < minimum for v in value)):
            what = "integers" if minimum is None else f"integers of at least {minimum}"
            raise self.error(name, f"expected a list of {what}, got {_show(value)}")
        return list(value)

    def float_list(self, name: str, default: Any = _MISSING) -> list[float]:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        ok = isinstance(value, list) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        )
        if not ok:
            raise self.error(name, f"expected a list of numbers, got {_show(value)}")
        return [float(v) for v in value]

    def str_list(self, name: str, default: Any = _MISSING) -> list[str]:
        value = self._raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(name, f"expected a list of strings, got {_show(value)}")
        return list(value)

    def raw(self, name: str, default: Any = None) -> Any:
        """The value as TOML gave it (for keys whose type depends on other keys)."""
        return self._raw(name, default)

    def reject_unknown(self) -> None:
        """Fail on keys nobody read: a typo in a machine file must not be silently ignored."""
        unknown = sorted(set(self.data) - self._seen)
        if unknown:
            raise self.error(unknown[0], "unknown key")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
