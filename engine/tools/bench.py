"""Benchmark scenarios for ``meshsim bench``. Each runs in a fresh interpreter (``python -m
engine.bench NAME``) so start-up cost and peak memory are its own; the child prints one JSON object
with its measurements.

Figures reported: wall seconds end to end (interpreter start-up included, for the trace replay
scenario measured around a real ``meshsim run`` process), seconds spent in the simulation loop, jobs
and events per second of simulation, and peak resident memory."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meshsim.engine.core.bundled import bundled_file
from meshsim.engine.core.registry import Registry
from meshsim.engine.workloads.tracepath import find_trace

NASA_TRACE = "NASA-iPSC-1993-3.1-cln.swf"
"""The real trace the NASA benchmarks replay, found on the trace search path
(:mod:`meshsim.engine.workloads.tracepath`)."""


def simulation_seconds(r: dict[str, Any]) -> str:
    """The figure most targets are about: seconds in the simulation loop."""
    return f"{r['sim_s']:.3f} s of simulation"


def end_to_end_seconds(r: dict[str, Any]) -> str:
    """The best wall time of a whole ``meshsim run`` process, start-up included."""
    return f"{r['wall_s']:.3f} s end to end (best run; median {r['wall_s_median']:.3f} s)"


def simulation_rate(r: dict[str, Any]) -> str:
    return f"{r['jobs_per_s']:,.0f} jobs/s ({r['sim_s']:.2f} s of simulation)"


def peak_memory(r: dict[str, Any]) -> str:
    return f"{r['peak_rss_mb']:.0f} MB peak resident ({r['jobs_per_s']:,.0f} jobs/s)"


@dataclass(frozen=True)
class Scenario:
    """A named benchmark: what it runs, the target it is held to, and the figure of its
    measurements that the target is about (``meshsim bench --markdown`` writes it)."""

    name: str
    description: str
    target: str
    run: Callable[[], dict[str, Any]]
    heavy: bool = False
    figure: Callable[[dict[str, Any]], str] = simulation_seconds


SCENARIOS: Registry[Scenario] = Registry("benchmark")


def scenario(  # type: ignore[no-untyped-def]
    name: str,
    description: str,
    target: str,
    *,
    heavy: bool = False,
    figure: Callable[[dict[str, Any]], str] = simulation_seconds,
):
    """Register a benchmark function under ``name``."""

    def decorate(fn: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        SCENARIOS.register(name)(Scenario(name, description, target, fn, heavy, figure))
        return fn

    return decorate


def simulate(machine_name: str, workload: Any, **policy: Any) -> dict[str, Any]:
    """Run one simulation in this process and time the simulation loop alone."""
    from meshsim.engine.core.policy import Policy
    from meshsim.engine.kernel.simulation import Simulation
    from meshsim.engine.topology.machines import load_machine

    machine = load_machine(machine_name)
    jobs = workload(machine) if callable(workload) else workload
    sim = Simulation(machine, jobs, Policy(**policy))
    t0 = time.perf_counter()
    sim.run()
    elapsed = time.perf_counter() - t0
    metrics = sim.results().metrics
    return {
        "jobs": len(jobs),
        "events": sim.events,
        "sim_s": elapsed,
        "jobs_per_s": len(jobs) / elapsed,
        "events_per_s": sim.events / elapsed,
        "utilization": metrics["utilization"],
    }


@scenario(
    "nasa-easy",
    "NASA iPSC/860 trace (18,239 jobs) on flat:128, FCFS + EASY",
    "< 0.5 s end to end, interpreter start-up included",
    figure=end_to_end_seconds,
)
def nasa_easy() -> dict[str, Any]:
    trace = find_trace(NASA_TRACE)
    if trace is None:
        return {"skipped": f"{NASA_TRACE} is not on the trace search path (meshsim --traces DIR)"}
    command = [
        sys.executable,
        "-m",
        "meshsim",
        "run",
        "--machine",
        "flat:128",
        "--workload",
        str(trace),
        "--backfill",
        "easy",
        "--quiet",
    ]
    walls = _timed(command)
    engine_only = _timed([sys.executable, "-c", _ENGINE_ONLY.format(trace=str(trace))])
    from meshsim.engine.topology.machines import load_machine
    from meshsim.engine.workloads.generators import load_workload

    workload = load_workload(str(trace), load_machine("flat:128"))
    result = simulate("flat:128", workload, backfill="easy")
    result["wall_s"] = min(walls)
    result["wall_s_median"] = sorted(walls)[len(walls) // 2]
    result["engine_wall_s"] = min(engine_only)
    return result


_ENGINE_ONLY = """
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.simulation import Simulation
machine = load_machine("flat:128")
sim = Simulation(machine, load_workload({trace!r}, machine), Policy(backfill="easy"))
sim.run()
sim.results()
"""
"""``nasa-easy``'s run without the command line: its imports, reading the trace, the simulation."""


def _timed(command: list[str], repeats: int = 5) -> list[float]:
    """Wall seconds of ``repeats`` runs of ``command`` in fresh processes."""
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(command, check=True)
        walls.append(time.perf_counter() - t0)
    return walls


def _flat_workload(n: int) -> Callable[[Any], Any]:
    def make(machine: Any) -> Any:
        from meshsim.engine.core.seeding import Stream, generator
        from meshsim.engine.workloads.synthetic_flat import flat_poisson_columns

        rng = generator(2024, Stream.WORKLOAD)
        return flat_poisson_columns(
            rng, machine.nodes, n, 0.7, machine.nodes, 0.25, 900.0, 1.5, 43200.0, 3.0, 100
        )

    return make


@scenario(
    "flat-200k",
    "200,000 synthetic jobs (flat-poisson, load 0.7) on flat:1024, FCFS + EASY",
    ">= 100,000 jobs/s of simulation",
    figure=simulation_rate,
)
def flat_200k() -> dict[str, Any]:
    t0 = time.perf_counter()
    result = simulate("flat:1024", _flat_workload(200_000), backfill="easy")
    result["wall_s"] = time.perf_counter() - t0
    return result


@scenario(
    "flat-1m",
    "1,000,000 synthetic jobs (flat-poisson, load 0.7) on flat:1024, FCFS + EASY",
    "completes within 1 GB of resident memory",
    heavy=True,
    figure=peak_memory,
)
def flat_1m() -> dict[str, Any]:
    t0 = time.perf_counter()
    result = simulate("flat:1024", _flat_workload(1_000_000), backfill="easy")
    result["wall_s"] = time.perf_counter() - t0
    return result


INTREPID_MONTH = """[workload]
kind = "intrepid"
months = 1
jobs_per_month = 10000
load = 0.75
seed = 2009
"""


@scenario(
    "intrepid-month",
    "10,000-job synthetic Intrepid month on intrepid (621-partition menu), WFP + EASY + Combo",
    "< 3 s (issue 4)",
    figure=end_to_end_seconds,
)
def intrepid_month() -> dict[str, Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "intrepid-10k.toml"
        spec.write_text(INTREPID_MONTH, encoding="utf-8")
        policy = ["--queue", "wfp", "--backfill", "easy", "--alloc", "combo"]
        command = [sys.executable, "-m", "meshsim", "run", "--machine", "intrepid"]
        walls = _timed([*command, "--workload", str(spec), *policy, "--quiet"], repeats=3)
        from meshsim.engine.topology.machines import load_machine
        from meshsim.engine.workloads.generators import load_workload

        t0 = time.perf_counter()
        machine = load_machine("intrepid")
        workload = load_workload(str(spec), machine)
        result = simulate("intrepid", workload, queue="wfp", backfill="easy", allocator="combo")
        result["engine_wall_s"] = time.perf_counter() - t0
    result["wall_s"] = min(walls)
    result["wall_s_median"] = sorted(walls)[len(walls) // 2]
    return result


@scenario(
    "mc-mesh32",
    "MC on a 32x32 mesh: 1,000 Table 7 jobs (mache-io, mean size 16, offered load 1.25), FCFS",
    "< 5 s (issue 5)",
)
def mc_mesh32() -> dict[str, Any]:
    def make(machine: Any) -> Any:
        from meshsim.engine.core.seeding import Stream, generator
        from meshsim.engine.core.toml_table import UNREAD, Table
        from meshsim.engine.workloads.generators import GENERATORS

        options = {"jobs": 1000, "mean_interarrival": 500.0, "mean_size": 16.0}
        table = Table({**options, "iterations": 40000.0}, "mc-mesh32", "workload", UNREAD)
        return GENERATORS.get("mache-io")(table, machine, generator(1, Stream.WORKLOAD))

    t0 = time.perf_counter()
    result = simulate("mesh32", make, allocator="mc")
    result["wall_s"] = time.perf_counter() - t0
    from meshsim.engine.families.contention.benchmarks import bench_allocator

    alone = bench_allocator("mc", 32, 32, jobs=1000, seed=1)
    result["allocator_only_s"] = alone.seconds
    result["allocator_decisions"] = alone.decisions
    return result


@scenario(
    "contention-50",
    "contention recomputation: 50 Random-placed jobs, all-to-all write I/O, 32x32 mesh, 32 I/O",
    "< 50 ms (issue 5)",
    figure=lambda r: (
        f"{r['wall_s'] * 1e3:.1f} ms (routing {r['route_ms']:.1f}, contention "
        f"{r['recompute_ms']:.1f}, runtimes {r['runtime_ms']:.1f})"
    ),
)
def contention_50() -> dict[str, Any]:
    from meshsim.engine.families.contention.benchmarks import bench_contention

    b = bench_contention(k=32, jobs=50, repeat=5)
    return {
        "jobs": b.jobs,
        "wall_s": b.total_ms / 1e3,
        "sim_s": (b.recompute_ms + b.runtime_ms) / 1e3,
        "route_ms": b.route_ms,
        "recompute_ms": b.recompute_ms,
        "runtime_ms": b.runtime_ms,
        "pairs": b.pairs,
    }


MESH32_UNIFORM = bundled_file("meshsim.traces", "mesh32-uniform.toml")
"""Seed 001's uniform workload (10,000 jobs, sides uniform over [1, 32], exponential service with
mean 1, seed 1) at 2.5 jobs per time unit, where FCFS saturates (Fig. 6)."""

OO_SATURATION_RATE = 3.0
"""Arrival rate (jobs per time unit) at which OO reaches its maximum utilization on mesh32 with
uniform sides (offered load 3.0 × 16.5² / 1024 ≈ 80 %; ``meshsim reproduce ababneh2010-fig6``)."""


def _mesh32_workload(rate: float | None = None) -> Callable[[Any], Any]:
    """The shipped ``traces/mesh32-uniform.toml``, optionally at another arrival rate."""

    def make(machine: Any) -> Any:
        from meshsim.engine.core.toml_table import load_toml
        from meshsim.engine.workloads.generators import ROOT, generate

        root = load_toml(MESH32_UNIFORM, ROOT)
        if rate is not None:
            root.data["workload"]["arrival_rate"] = rate
        return generate(root, machine, 0)

    return make


_MESH32_CASES = {
    "oo": ("OO", {"discipline": "oo"}, "< 3 s of simulation"),
    "window": ("Window-240", {"discipline": "window", "window": 240}, "< 5 s of simulation"),
    "easy": ("FCFS + EASY", {"backfill": "easy"}, "< 5 s of simulation"),
}


def _register_mesh32() -> None:
    for key, (label, policy, target) in _MESH32_CASES.items():
        for heavy in (False, True):
            rate = OO_SATURATION_RATE if heavy else None
            load = f"{OO_SATURATION_RATE:g} jobs/unit" if heavy else "2.5 jobs/unit"

            def run(policy: dict[str, Any] = policy, rate: float | None = rate) -> dict[str, Any]:
                t0 = time.perf_counter()
                result = simulate("mesh32", _mesh32_workload(rate), allocator="mpl", **policy)
                result["wall_s"] = time.perf_counter() - t0
                return result

            name = f"mesh32-{key}" + ("-heavy" if heavy else "")
            what = f"10,000 jobs, seed 001 uniform sides, {load}, mesh32, MPL, {label}"
            SCENARIOS.register(name)(Scenario(name, what, target, run, heavy))


_register_mesh32()

SATURATED_RATE = 10.0
"""Arrival rate (jobs per time unit) of the saturated out-of-order scenario: four times the offered
load at which FCFS saturates, so thousands of jobs wait and every pass of OO meets all of them."""


@scenario(
    "mesh32-oo-saturated",
    f"10,000 jobs, seed 001 uniform sides, {SATURATED_RATE:g} jobs/unit (thousands waiting), "
    "mesh32, MPL, OO",
    "< 3 s end to end (issue 23)",
    figure=end_to_end_seconds,
)
def mesh32_oo_saturated() -> dict[str, Any]:
    import tempfile

    text, changed = re.subn(
        r"(?m)^arrival_rate = .*$",
        f"arrival_rate = {SATURATED_RATE}",
        MESH32_UNIFORM.read_text(encoding="utf-8"),
    )
    if changed != 1:
        raise RuntimeError(f"{MESH32_UNIFORM}: expected one arrival_rate line, found {changed}")
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "mesh32-uniform-saturated.toml"
        spec.write_text(text, encoding="utf-8")
        command = [sys.executable, "-m", "meshsim", "run", "--machine", "mesh32"]
        policy = ["--alloc", "mpl", "--discipline", "oo"]
        walls = _timed([*command, "--workload", str(spec), *policy, "--quiet"], repeats=3)
        result = simulate(
            "mesh32", _mesh32_workload(SATURATED_RATE), allocator="mpl", discipline="oo"
        )
    result["wall_s"] = min(walls)
    result["wall_s_median"] = sorted(walls)[len(walls) // 2]
    return result


def run_child(name: str) -> dict[str, Any]:
    """Run scenario ``name`` in a fresh interpreter and return its measurements."""
    done = subprocess.run(
        [sys.executable, "-m", "meshsim.engine.tools.bench", name],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    """Child entry point: run one scenario and print its JSON."""
    result = SCENARIOS.get(argv[0]).run()
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
