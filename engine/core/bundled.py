"""Files shipped inside meshsim (machines, workloads, experiment specs, stylesheets), found
through :mod:`importlib.resources` of meshsim's own packages, so a user's folder of the same
name (a ``machines/`` package in their project) can never shadow them.

A bundled file refers to another by a package-qualified reference, ``PACKAGE:NAME``, for example
``default_workload = "meshsim.traces:intrepid-month.toml"`` in a machine file (resource traversal
cannot follow ``..``). The package name must contain a dot, so a Windows drive (``C:``) is never
taken for one. Anything else is a path, relative to the referring file's folder.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from meshsim.engine.core.errors import MeshsimError

PACKAGE_REFERENCE = re.compile(r"^(?P<package>[A-Za-z_]\w*(?:\.\w+)+):(?P<name>[^:/\\][^:]*)$")
"""``PACKAGE:NAME``: a file NAME in the installed package PACKAGE."""


def bundled_folder(package: str) -> Path:
    """The folder of one of meshsim's data packages (``meshsim.machines``, ...)."""
    return Path(str(resources.files(package)))


def bundled_file(package: str, name: str) -> Path:
    """The file ``name`` shipped in ``package``."""
    return bundled_folder(package) / name


def resolve_reference(text: str, base: Path | None = None) -> Path:
    """The file ``text`` names: a package-qualified reference, else a path (relative ones taken
    relative to ``base`` when given)."""
    match = PACKAGE_REFERENCE.match(text)
    if match:
        try:
            return bundled_file(match["package"], match["name"])
        except ModuleNotFoundError:
            raise MeshsimError(f"'{text}': no package '{match['package']}'") from None
    path = Path(text).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    return path
