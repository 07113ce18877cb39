"""Named registries for pluggable policies (queue orders, disciplines, backfilling, allocators,
topologies, workload generators).

Policies are chosen by name from a registry, never by ``if name == ...`` chains. An unknown name
raises :class:`~meshsim.engine.core.errors.MeshsimError` listing the valid names, so every front end
gives the same helpful message.

Registries fill themselves: the first lookup (``get``, ``names``, ``in``, iteration) of any registry
imports :mod:`meshsim.engine.catalog`, the one list of modules that register something, so no caller
needs an import for its side effect."""

from collections.abc import Callable, Iterator
from importlib import import_module
from typing import Generic, TypeVar

from meshsim.engine.core.errors import MeshsimError

T = TypeVar("T")

CATALOG = "meshsim.engine.catalog"
"""The module that imports every plug-in module (by name: the registries sit below everything that
registers into them, so they find their plug-ins as a plug-in system does, not by an import)."""

_filled = False

_BY_KIND: dict[str, "Registry"] = {}
"""Every registry by its kind (``"allocator"``), for rules that name where their valid names come
from (:mod:`meshsim.engine.validation.rules`)."""


def fill_registries() -> None:
    """Import every registering module once (:mod:`meshsim.engine.catalog`). Lookups call this; it
    returns at once after the first call, also when a registering module is being imported and looks
    a name up itself."""
    global _filled
    if not _filled:
        _filled = True
        import_module(CATALOG)


class Registry(Generic[T]):
    """A mapping from stable names to registered objects (usually classes)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        _BY_KIND[kind] = self

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@ALLOCATORS.register("first-fit")``. A name may be registered once."""

        def decorate(item: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} '{name}' is registered twice")
            self._items[name] = item
            return item

        return decorate

    def get(self, name: str) -> T:
        """The object registered under ``name``; an unknown name lists the valid ones."""
        fill_registries()
        try:
            return self._items[name]
        except KeyError:
            valid = ", ".join(self.names())
            raise MeshsimError(f"unknown {self.kind} '{name}' (valid: {valid})") from None

    def names(self) -> list[str]:
        """Registered names in registration order (which is the order the docs list them)."""
        fill_registries()
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        fill_registries()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        fill_registries()
        return iter(self._items)


def registry_of(kind: str) -> Registry:
    """The registry of ``kind`` (``"allocator"``, ``"queue order"``, ...), filled."""
    fill_registries()
    return _BY_KIND[kind]
