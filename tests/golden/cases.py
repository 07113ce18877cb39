"""The golden cases: small runs that together cover every machine family, queue order, start
discipline, backfilling policy, allocator, migration, the operator actions and the contention
runtime model.

Each case is ``meshsim run`` with some options (paths relative to the repository root), or ``meshsim
run --scenario FILE`` for the cases with operator actions. Inputs are the small workload files of
``tests/golden/inputs`` and ``tests/data``: busy enough that queues form, estimates overrun and
every policy has decisions to make, small enough that the whole set runs in seconds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INPUTS = "tests/golden/inputs"
SCENARIOS = "tests/golden/scenarios"
DATA = "tests/data"


@dataclass(frozen=True)
class GoldenCase:
    """One golden run: its file name, and either ``meshsim run`` options or a scenario file."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    scenario: str | None = None


def _family(prefix: str, base: dict[str, Any], variants: dict[str, dict[str, Any]]) -> list:
    """Cases ``prefix-KEY`` that share ``base`` options, each with its own ones."""
    return [GoldenCase(f"{prefix}-{key}", {**base, **own}) for key, own in variants.items()]


FLAT = {"machine": "flat:64", "workload": f"{INPUTS}/flat-busy.toml"}
MESH = {"machine": "mesh32", "workload": f"{INPUTS}/grid-busy.toml"}
SMALL_MESH = {"workload": f"{INPUTS}/grid-decreasing.toml"}
TORUS = {"machine": "bgl", "workload": f"{INPUTS}/torus-busy.toml"}
INTREPID = {"machine": "intrepid", "workload": f"{INPUTS}/intrepid-days.toml"}
PARAGON = {"machine": "paragon-sdsc", "workload": f"{INPUTS}/paragon-day.toml"}
IO = {"machine": "paragon-io", "workload": f"{INPUTS}/io-busy.toml"}

CASES: list[GoldenCase] = [
    # The flat machine: every queue order, discipline and backfilling policy.
    *_family(
        "flat",
        FLAT,
        {
            "fcfs": {},
            "fcfs-easy": {"backfill": "easy"},
            "fcfs-conservative": {"backfill": "conservative"},
            "sjf": {"queue": "sjf"},
            "sjf-easy": {"queue": "sjf", "backfill": "easy"},
            "sjf-conservative": {"queue": "sjf", "backfill": "conservative"},
            "wfp-easy": {"queue": "wfp", "backfill": "easy"},
            "wfp-conservative": {"queue": "wfp", "backfill": "conservative"},
            "oo": {"discipline": "oo"},
            "window-easy": {"discipline": "window", "window": 4, "backfill": "easy"},
            "oocb": {"discipline": "oocb", "bound": 3},
            "window": {"discipline": "window", "window": 4},
            "window-sjf": {"discipline": "window", "window": 4, "queue": "sjf"},
            "scaled-easy": {"backfill": "easy", "load_factor": 1.3, "runtime_scale": 0.8},
        },
    ),
    GoldenCase(
        "flat-tiny-easy", {"machine": "flat:4", "workload": f"{DATA}/tiny.swf", "backfill": "easy"}
    ),
    # EASY with a job without an estimate beside a head reserved for now (a node-count machine, and
    # the planner of a mesh).
    GoldenCase(
        "flat-zero-estimate-easy",
        {"machine": "flat:4", "workload": f"{INPUTS}/zero-estimate.swf", "backfill": "easy"},
    ),
    GoldenCase(
        "line4-zero-estimate-easy",
        {
            "machine": f"{DATA}/line4.toml",
            "workload": f"{INPUTS}/zero-estimate.swf",
            "alloc": "first-fit",
            "backfill": "easy",
        },
    ),
    GoldenCase(
        "ipsc860-easy",
        {
            "machine": "ipsc860",
            "workload": f"{INPUTS}/flat-busy.toml",
            "backfill": "easy",
            "seed": 4,
        },
    ),
    # Contiguous allocation on 2D meshes and tori, with backfilling planned on the grid.
    *_family(
        "mesh32",
        MESH,
        {
            "mpl": {},
            "first-fit": {"alloc": "first-fit"},
            "best-fit": {"alloc": "best-fit"},
            "mpl-easy": {"backfill": "easy"},
            "first-fit-conservative": {"alloc": "first-fit", "backfill": "conservative"},
            "mpl-oo": {"discipline": "oo"},
            "mpl-window": {"discipline": "window", "window": 6},
            "mpl-delay": {"discipline": "delay"},
            "mpl-wfp-easy": {"queue": "wfp", "backfill": "easy"},
            "mpl-migrate": {"migrate": True},
            "first-fit-rotate": {"alloc": "first-fit", "rotate": True},
            "flat": {"alloc": "flat"},
        },
    ),
    GoldenCase(
        "mesh5x4-first-fit-oocb",
        {**SMALL_MESH, "machine": f"{DATA}/mesh5x4.toml", "discipline": "oocb", "bound": 2},
    ),
    GoldenCase(
        "blue-horizon-max-free-box",
        {
            "machine": "blue-horizon",
            "workload": f"{INPUTS}/grid-busy.toml",
            "alloc": "max-free-box",
            "procs_per_unit": 1,
        },
    ),
    GoldenCase(
        "torus4x4-max-free-box-migrate",
        {**SMALL_MESH, "machine": f"{DATA}/torus4x4.toml", "migrate": True, "backfill": "easy"},
    ),
    GoldenCase(
        "paragon-batch-shape-paragon",
        {
            "machine": "paragon-batch",
            "workload": f"{INPUTS}/torus-busy.toml",
            "shape": "paragon",
            "backfill": "easy",
        },
    ),
    GoldenCase(
        "blue-horizon-shape-square",
        {
            "machine": "blue-horizon",
            "workload": f"{INPUTS}/torus-busy.toml",
            "shape": "square",
            "procs_per_unit": 1,
        },
    ),
    # Non-contiguous allocation on a 2D mesh.
    *_family(
        "mesh32",
        {**MESH, "workload": f"{INPUTS}/grid-decreasing.toml"},
        {
            "m2db": {"alloc": "m2db"},
            "mbs": {"alloc": "mbs"},
            "mbs-easy": {"alloc": "mbs", "backfill": "easy"},
            "mc": {"alloc": "mc"},
            "mc-elongated": {"alloc": "mc-elongated"},
            "paging": {"alloc": "paging"},
            "paging-conservative": {"alloc": "paging", "backfill": "conservative"},
            "plas": {"alloc": "plas"},
            "random": {"alloc": "random", "seed": 2},
        },
    ),
    # A mesh with I/O nodes: the contention observer, and the contention runtime model.
    *_family(
        "io",
        IO,
        {
            "m2db": {},
            "mc-contention": {"alloc": "mc", "runtime_model": "contention"},
            "plas-contention": {"alloc": "plas", "runtime_model": "contention"},
            "mbs-contention-easy": {
                "alloc": "mbs",
                "runtime_model": "contention",
                "backfill": "easy",
            },
            "random-transpose-read": {
                "alloc": "random",
                "pattern": "transpose",
                "io_traffic": "read",
                "io_share": 0.3,
            },
            "mc-nbody-contention": {
                "alloc": "mc",
                "pattern": "nbody",
                "io_share": 0.0,
                "runtime_model": "contention",
            },
        },
    ),
    # The 3D torus of BG/L: boxes, migration.
    *_family(
        "bgl",
        TORUS,
        {
            "max-free-box": {},
            "max-free-box-easy": {"backfill": "easy"},
            "max-free-box-migrate": {"migrate": True, "workload": f"{INPUTS}/torus-short.toml"},
            "max-free-box-migrate-easy": {
                "migrate": True,
                "backfill": "easy",
                "workload": f"{INPUTS}/torus-short.toml",
            },
            "first-fit-conservative": {"alloc": "first-fit", "backfill": "conservative"},
            "flat": {"alloc": "flat"},
        },
    ),
    # Intrepid's partition menu: every partition allocator, WFP and FCFS, EASY and conservative.
    *_family(
        "intrepid",
        INTREPID,
        {
            "least-blocking": {},
            "sl": {"alloc": "sl"},
            "pf": {"alloc": "pf"},
            "combo": {"alloc": "combo"},
            "adjest": {"alloc": "adjest"},
            "actrun": {"alloc": "actrun"},
            "fcfs-conservative": {"queue": "fcfs", "backfill": "conservative"},
            "pf-conservative": {"alloc": "pf", "backfill": "conservative"},
        },
    ),
    # The SDSC Paragon's NQS: queue priorities with aging, blocking, node sets, prime time.
    *_family(
        "paragon-sdsc",
        PARAGON,
        {
            "nqs": {},
            "sjf-oo": {"queue": "sjf", "discipline": "oo"},
            "fcfs-easy": {"queue": "fcfs", "discipline": "fcfs", "backfill": "easy"},
        },
    ),
]

# Operator actions (scenario files, as ``meshsim run --scenario`` replays them).
CASES += [
    GoldenCase(name, scenario=f"{SCENARIOS}/{name}.json")
    for name in (
        "flat-actions",
        "mesh32-actions",
        "bgl-actions",
        "intrepid-actions",
        "io-actions",
        "paragon-sdsc-actions",
        "reserve-ahead-flat",
        "reserve-ahead-mesh32",
        "reserve-ahead-intrepid",
    )
]
