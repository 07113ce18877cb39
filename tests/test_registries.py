"""Every registered name and the public Python API stay as they are (issue 20 reorganised the
engine into subpackages by role: names users type and code imports from ``meshsim`` must not move).

The lists are the registries' names on main before the split (885b7b2), each registry found where
it lives now; the
plug-in recorders' registry is new with the issue (the contention observer became a plug-in)."""

import json
import subprocess
import sys

import meshsim

REGISTRIES = {
    "meshsim.engine.kernel.actions:ACTIONS": [
        "submit", "hold", "release", "cancel", "set-policy", "fail", "repair", "reserve",
    ],
    "meshsim.engine.allocation.allocator:ALLOCATORS": [
        "first-fit", "best-fit", "mpl", "max-free-box", "flat", "m2db", "mbs", "mc",
        "mc-elongated", "paging", "plas", "random", "nqs", "least-blocking", "sl", "pf", "combo",
        "adjest", "actrun", "recorded",
    ],
    "meshsim.engine.topology.machines:TOPOLOGIES": ["flat", "mesh", "torus", "partitions"],
    "meshsim.engine.topology.machines:SECTIONS": ["io", "nqs"],
    "meshsim.engine.workloads.shapes:SHAPE_RULES": ["square", "paragon", "box", "given"],
    "meshsim.engine.families.contention.traffic:PATTERNS": [
        "all-to-all", "all-to-all-broadcast", "transpose", "one-to-all", "circular-shift",
        "nbody", "fft", "random-pairs", "io-write", "io-read",
    ],
    "meshsim.engine.families.contention.traffic:COMM_PATTERNS": [
        "all-to-all", "all-to-all-broadcast", "transpose", "one-to-all", "circular-shift",
        "nbody", "fft", "random-pairs",
    ],
    "meshsim.engine.families.contention.traffic:IO_TRAFFIC": ["write", "read"],
    "meshsim.engine.families.contention.layouts:LAYOUTS": [
        "block-corner", "block-center", "orthogonal", "parallel", "diagonal",
    ],
    "meshsim.engine.kernel.runtime_models:RUNTIME_MODELS": ["contention"],
    "meshsim.engine.kernel.recorders:RECORDERS": ["contention"],
    "meshsim.engine.workloads.fetch:KNOWN_TRACES": [
        "ANL-Intrepid-2009-1", "SDSC-Par-1995", "SDSC-Par-1996", "NASA-iPSC-1993",
    ],
    "meshsim.engine.workloads.generators:GENERATORS": [
        "mache-io", "paragon-nqs", "intrepid", "mesh-sides", "flat-poisson",
    ],
    "meshsim.engine.workloads.generators:ADAPTERS": ["nqs"],
    "meshsim.engine.scheduling.disciplines:DISCIPLINES": [
        "fcfs", "oo", "oocb", "window", "delay", "nqs",
    ],
    "meshsim.engine.scheduling.orders:QUEUE_ORDERS": ["fcfs", "sjf", "wfp", "nqs"],
    "meshsim.engine.scheduling.backfill:BACKFILLS": ["none", "easy", "conservative"],
    "meshsim.engine.kernel.reports:REPORTS": ["nqs"],
    "meshsim.engine.tools.compare:PRESETS": ["tang2010"],
    "meshsim.engine.tools.experiments.runners:RUNNERS": ["run", "contention"],
    "meshsim.engine.tools.bench:SCENARIOS": [
        "nasa-easy", "flat-200k", "flat-1m", "intrepid-month", "mc-mesh32", "contention-50",
        "mesh32-oo", "mesh32-oo-heavy", "mesh32-window", "mesh32-window-heavy", "mesh32-easy",
        "mesh32-easy-heavy", "mesh32-oo-saturated",
    ],
    "meshsim.tui.bench:CONSOLE_SCENARIOS": [
        "console-live", "console-frame", "engine-memory", "console-memory",
        "console-memory-by-length",
    ],
}  # fmt: skip


_NAMES = """
import json, sys
from importlib import import_module
from meshsim.engine.core.registry import fill_registries
fill_registries()
names = {}
for where in sys.argv[1:]:
    module, name = where.split(":")
    names[where] = getattr(import_module(module), name).names()
print(json.dumps(names))
"""


def test_registered_names_are_unchanged():
    """In a fresh interpreter (the names' order is their registration order, which other tests'
    imports would change), every registry lists the same names in the same order."""
    done = subprocess.run(
        [sys.executable, "-c", _NAMES, *REGISTRIES], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == REGISTRIES


def test_the_public_api_is_unchanged():
    names = ["MeshsimError", "RunResult", "Session", "__version__", "run", "start"]
    assert meshsim.__all__ == names
    from meshsim.engine.core.errors import MeshsimError
    from meshsim.engine.tools.session import Session

    assert meshsim.Session is Session
    assert meshsim.MeshsimError is MeshsimError
