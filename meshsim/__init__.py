"""meshsim: job scheduling and processor allocation on mesh- and torus-connected supercomputers.

As a library::

    import meshsim
    r = meshsim.run(machine="flat:128", workload="trace.swf", queue="fcfs", backfill="easy")
    r.metrics["avg_bsld"]      # the result JSON's "metrics" (an undefined metric is None)
    r.jobs                     # per-job records: a numpy structured array

    s = meshsim.start(machine="intrepid")   # a Session: step, peek, snapshot, apply, fork
    s.step(100)

The names below load on first use, so ``import meshsim`` (and ``meshsim --version``) imports
neither numpy nor the console. The package's subpackages live in the repository's top-level
folders (``engine/``, ``cli/``, ``tui/``, ``machines/``, ``traces/``, ``experiments/``), mapped
under ``meshsim`` by ``pyproject.toml`` (docs/architecture.md, "Packaging").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"
"""The one version source: ``pyproject.toml`` reads it, ``meshsim --version`` prints it and
every result JSON records it."""

__all__ = ["MeshsimError", "RunResult", "Session", "__version__", "run", "start"]

_LAZY = {
    "run": "meshsim.api",
    "start": "meshsim.api",
    "RunResult": "meshsim.api",
    "Session": "meshsim.engine.tools.session",
    "MeshsimError": "meshsim.engine.core.errors",
}

if TYPE_CHECKING:
    from meshsim.api import RunResult, run, start
    from meshsim.engine.core.errors import MeshsimError
    from meshsim.engine.tools.session import Session


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'meshsim' has no attribute '{name}'")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
