"""Where real traces are looked for: one search path for the CLI, sweeps and benchmarks.

Whole workload logs are never shipped with meshsim (their sizes forbid it; one 1,000-job
excerpt is, :mod:`meshsim.traces`); a spec names one as ``trace:NAME`` and a benchmark by its file
name, and the file is looked up, in order, in:

1. the folders given with ``meshsim --traces DIR`` (the option prepends them to
   ``MESHSIM_TRACES`` for the process and everything it starts, sweep workers included);
2. the folders in the environment variable ``MESHSIM_TRACES``, separated by ``os.pathsep``;
3. the cache ``meshsim trace fetch`` downloads into
(:func:`meshsim.engine.workloads.fetch.cache_dir`).

No folder is derived from where meshsim is installed.
"""

from __future__ import annotations

import os
from pathlib import Path

from meshsim.engine.core.errors import MeshsimError

TRACE_PREFIX = "trace:"
"""``trace:NAME`` names the file NAME on the search path (in specs and ``--workload``)."""

TRACES_VARIABLE = "MESHSIM_TRACES"
"""The environment variable holding the trace folders."""


def trace_dirs() -> list[Path]:
    """The search path, in order (see the module docstring)."""
    from meshsim.engine.workloads.fetch import cache_dir

    dirs = [Path(p) for p in os.environ.get(TRACES_VARIABLE, "").split(os.pathsep) if p]
    dirs.append(cache_dir())
    return dirs


def add_trace_dirs(folders: list[Path]) -> None:
    """Put ``folders`` first on the search path of this process and of every process it starts
    (what ``meshsim --traces`` does)."""
    old = [p for p in os.environ.get(TRACES_VARIABLE, "").split(os.pathsep) if p]
    os.environ[TRACES_VARIABLE] = os.pathsep.join([*(str(f) for f in folders), *old])


def find_trace(name: str) -> Path | None:
    """The first file called ``name`` on the search path, or None."""
    for folder in trace_dirs():
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def require_trace(name: str) -> Path:
    """The file called ``name`` on the search path; a :class:`MeshsimError` saying where it was
    looked for and how to add a folder when it is not there."""
    found = find_trace(name)
    if found is None:
        places = ", ".join(str(d) for d in trace_dirs())
        raise MeshsimError(
            f"trace '{name}' not found (looked in {places}; add a folder with "
            f"'meshsim --traces DIR' or {TRACES_VARIABLE}, or fetch it with 'meshsim trace fetch')"
        )
    return found
