"""Per-job and run-level contention (engine/families/contention/observer.py) and the traffic choice
of a run (``--pattern``, ``--io-traffic``, ``--io-share``), with hand-computed examples."""

from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.jobs import Job
from meshsim.engine.core.policy import Policy
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.observer import JOB_COLUMNS, ContentionObserver
from meshsim.engine.families.contention.routing import link_space
from meshsim.engine.families.contention.traffic import (
    COMM_PATTERNS,
    IO_TRAFFIC,
    JobStreams,
    Traffic,
    TrafficChoice,
    job_traffic,
    mixed_traffic,
    traffic_of,
    with_traffic,
)
from meshsim.engine.kernel.records import RunningJob
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.tools.runcase import RunOptions, load_inputs, prepare, run_case
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.workload import from_columns

ROOT = Path(__file__).resolve().parents[2]

MACHINE_2X2 = """
[machine]
name = "io2x2"
topology = "mesh"
procs_per_unit = 1
default_allocator = "paging"

[topology]
dims = [2, 2]

[io]
count = 2
link_mb_s = 100.0
node_mb_s = 100.0
"""


@pytest.fixture
def io2x2(tmp_path):
    path = tmp_path / "io2x2.toml"
    path.write_text(MACHINE_2X2)
    return load_machine(str(path))


def load(layout: IOLayout, routed) -> dict[str, float]:
    """Per-direction link loads of a routed job, keyed by the link's description."""
    space = link_space(layout.width, layout.height)
    return {
        space.link(int(i)).describe(): float(routed.volume[i])
        for i in np.flatnonzero(routed.volume)
    }


# ------------------------------------------------------------------ traffic of one job


def test_every_sender_sends_its_share_split_over_its_messages() -> None:
    """Ranks 0, 1, 2 on (0,0), (1,0), (2,0) of a 4 x 4 mesh, 6 MB per sender and iteration."""
    layout = IOLayout.square(4, 4)
    cells = [0, 4, 8]
    rng = np.random.default_rng(0)

    def route(pattern: str) -> dict[str, float]:
        parts = (Traffic(pattern, 6.0, per_sender=True),)
        return load(layout, job_traffic(layout, 0, cells, parts, rng))

    # circular shift: 0->1, 1->2, 2->0; each rank sends all 6 MB to the next
    assert route("circular-shift") == {
        "(0,0)->(1,0) [+x]": 6.0,
        "(1,0)->(2,0) [+x]": 6.0,
        "(2,0)->(1,0) [-x]": 6.0,
        "(1,0)->(0,0) [-x]": 6.0,
    }
    # one-to-all: rank 0 sends 3 MB to rank 1 and 3 MB to rank 2 (both over (0,0)->(1,0))
    assert route("one-to-all") == {"(0,0)->(1,0) [+x]": 6.0, "(1,0)->(2,0) [+x]": 3.0}
    # n-body: the ring pairs carry n - 1 = 2 blocks, still 6 MB per sender
    assert route("nbody") == route("circular-shift")
    # fft, n = 3: phase 0 pairs 0<->1, phase 1 pairs 0<->2; rank 0 sends 3 MB to each
    assert route("fft") == {
        "(0,0)->(1,0) [+x]": 6.0,
        "(1,0)->(2,0) [+x]": 3.0,
        "(1,0)->(0,0) [-x]": 12.0,
        "(2,0)->(1,0) [-x]": 6.0,
    }


def test_all_to_all_share_is_unchanged_by_per_sender_split() -> None:
    """(1 - s) · node_mb / (size - 1) per pair, bit for bit, as before per-sender splitting."""
    layout = IOLayout.square(4, 4)
    parts = mixed_traffic(0.3, 1.0, 5, 4)
    routed = job_traffic(layout, 0, [0, 5, 10, 15, 3], parts, np.random.default_rng(0))
    alone = job_traffic(
        layout, 0, [0, 5, 10, 15, 3], (Traffic("all-to-all", 0.7 / 4),), np.random.default_rng(0)
    )
    io = job_traffic(
        layout, 0, [0, 5, 10, 15, 3], (Traffic("io-write", 0.3 / 4),), np.random.default_rng(0)
    )
    assert np.array_equal(routed.volume, alone.volume + io.volume)


def test_mixed_traffic_names_and_read() -> None:
    assert mixed_traffic(0.5, 4.0, 3, 2, "fft", "read") == (
        Traffic("io-read", 1.0),
        Traffic("fft", 2.0, per_sender=True),
    )
    with pytest.raises(MeshsimError, match=r"unknown communication pattern 'ring'.*nbody"):
        mixed_traffic(0.5, 1.0, 3, 2, "ring")
    with pytest.raises(MeshsimError, match="unknown I/O traffic 'both' \\(valid: write, read\\)"):
        mixed_traffic(0.5, 1.0, 3, 2, io="both")


def test_registered_names() -> None:
    assert COMM_PATTERNS.names() == [
        "all-to-all",
        "all-to-all-broadcast",
        "transpose",
        "one-to-all",
        "circular-shift",
        "nbody",
        "fft",
        "random-pairs",
    ]
    assert IO_TRAFFIC.names() == ["write", "read"]


def test_with_traffic_sets_every_job_and_keeps_the_workload_share() -> None:
    w = from_columns("w", submit=np.zeros(3), runtime=np.ones(3), size=np.array([1, 2, 3]))
    assert with_traffic(w) is w
    assert traffic_of(w.attrs, 0) == TrafficChoice()
    fft = with_traffic(w, pattern="fft", io_share=0.25)
    assert traffic_of(fft.attrs, 2) == TrafficChoice("fft", "write", 0.25)
    assert traffic_of(fft.attrs, 7) == TrafficChoice()  # an operator-submitted job
    assert fft.transforms == ("traffic pattern fft, io_share 0.25",)
    read = with_traffic(fft, io="read")
    assert traffic_of(read.attrs, 1) == TrafficChoice("fft", "read", 0.25)
    with pytest.raises(MeshsimError, match="I/O share must lie in \\[0, 1\\], got 2"):
        with_traffic(w, io_share=2.0)
    with pytest.raises(MeshsimError, match="unknown communication pattern 'io-write'"):
        with_traffic(w, pattern="io-write")


def test_job_streams_do_not_depend_on_start_order() -> None:
    a, b = JobStreams(np.random.default_rng(4)), JobStreams(np.random.default_rng(4))
    first = a(3).integers(1000, size=5)
    b(1).integers(1000, size=9)
    assert (b(3).integers(1000, size=5) == first).all()
    assert not (a(2).integers(1000, size=5) == first).all()


# ------------------------------------------------------------------ the observer, by hand


def running(jobs: dict[int, tuple[Job, tuple[int, ...]]]) -> dict[int, RunningJob]:
    return {
        i: RunningJob(job, 0.0, Placement(cells, len(cells))) for i, (job, cells) in jobs.items()
    }


def test_observer_two_jobs_by_hand(io2x2) -> None:
    """2 x 2 mesh, I/O nodes on rows 0 and 1 (B_l = B_0 = 100 MB/s), write I/O only.

    A = job 0 on (0,0), runs [0, 10]: pairs to (-1,0) over L1 = (0,0)->(-1,0) and to (-1,1) over L1
    then L2 = (-1,0)->(-1,1): L1 2, L2 1. B = job 1 on (1,0) and (1,1), runs [5, 15]: (1,0)->(0,0)
    2, L1 2, L2 1, (1,1)->(0,1) 2, (0,1)->(-1,1) 2, (-1,1)->(-1,0) 1. Together: L1 carries 4
    (max_contention); A and B share L1 and L2."""
    w = from_columns("two", submit=np.zeros(2), runtime=np.ones(2), size=np.array([1, 2]))
    a, b = w.job(0), w.job(1)
    obs = ContentionObserver(io2x2, w, seed=0)
    obs.observe(0.0, running({0: (a, (0,))}))
    obs.observe(5.0, running({0: (a, (0,)), 1: (b, (2, 3))}))
    obs.observe(10.0, running({1: (b, (2, 3))}))
    obs.observe(15.0, running({}))
    cols = obs.job_columns(np.array([0, 1]))
    assert list(cols) == list(JOB_COLUMNS)
    row = {k: v.tolist() for k, v in cols.items()}
    assert row["pairs"] == [2, 4]
    assert row["intra_contention"] == [2.0, 2.0]
    # A meets B's 2 pairs on L1 for 5 of its 10 s; B meets A's for 5 of its 10 s
    assert row["inter_contention"] == [1.0, 1.0]
    assert row["inter_contention_max"] == [2.0, 2.0]
    assert row["max_contention"] == [3.0, 3.0]  # (2·5 + 4·5) / 10 and (4·5 + 2·5) / 10
    # A: 2·100/2 = 100 alone, 2·100/4 = 50 together; B: 4·100/4 = 100, then min(4·100/2, 2·100)
    assert row["throughput_mb_s"] == [75.0, 150.0]
    # dispersal: B spans one column of two rows; balance around the link between rows 0 and 1
    assert row["nodes_affected"] == [1, 2]
    assert row["links_affected"] == [0, 1]
    assert row["summed_distance"] == [0, 2]
    assert row["average_distance"] == [0.0, 1.0]
    assert row["distance_from_center"] == [0, 1]
    assert row["diameter"] == [0, 1]
    assert row["balance"] == [-1, 0]
    m = obs.metrics()
    assert m["max_contention_time_mean"] == pytest.approx((2 * 5 + 4 * 5 + 2 * 5) / 15)
    assert m["max_contention_peak"] == 4
    assert m["balance_time_mean"] == pytest.approx((1 * 5 + 1 * 5 + 0 * 5) / 15)
    assert m["shared_links_time_mean"] == pytest.approx(2 * 5 / 15)
    assert m["network_throughput_mb_s_time_mean"] == pytest.approx((100 + 150 + 200) * 5 / 15)
    assert m["intra_contention_time_mean"] == pytest.approx(2.0)
    assert m["inter_contention_time_mean"] == pytest.approx(2 * 5 / 15)
    assert m["nodes_affected_time_mean"] == pytest.approx((1 * 5 + 1.5 * 5 + 2 * 5) / 15)
    assert m["nodes_affected_mean"] == pytest.approx(1.5)
    assert m["links_affected_mean"] == pytest.approx(0.5)


def test_io_node_bandwidth_caps_throughput(io2x2, tmp_path) -> None:
    """With B_0 = 10 MB/s the two I/O nodes deliver at most 20 MB/s: min(B_NET, m · B_0)."""
    path = tmp_path / "slow.toml"
    path.write_text(MACHINE_2X2.replace("node_mb_s = 100.0", "node_mb_s = 10.0"))
    w = from_columns("one", submit=np.zeros(1), runtime=np.ones(1), size=np.array([1]))
    obs = ContentionObserver(load_machine(str(path)), w, seed=0)
    obs.observe(0.0, running({0: (w.job(0), (0,))}))
    obs.observe(4.0, running({}))
    assert obs.job_columns(np.array([0]))["throughput_mb_s"].tolist() == [20.0]
    assert obs.metrics()["network_throughput_mb_s_time_mean"] == pytest.approx(20.0)


def test_a_job_that_lasts_no_time_keeps_its_values_at_start(io2x2) -> None:
    w = from_columns("one", submit=np.zeros(1), runtime=np.zeros(1), size=np.array([1]))
    obs = ContentionObserver(io2x2, w, seed=0)
    obs.observe(3.0, running({0: (w.job(0), (0,))}))
    obs.observe(3.0, running({}))
    row = {k: v.tolist() for k, v in obs.job_columns(np.array([0, 1])).items()}
    assert row["max_contention"] == [2.0, ""]  # job 1 never ran
    assert row["throughput_mb_s"] == [100.0, ""]


def test_communication_only_job_has_no_io_pairs(io2x2) -> None:
    """Share 0, circular shift between (0,0) and (1,0): two pairs on opposite links."""
    w = with_traffic(
        from_columns("one", submit=np.zeros(1), runtime=np.ones(1), size=np.array([2])),
        pattern="circular-shift",
        io_share=0.0,
    )
    obs = ContentionObserver(io2x2, w, seed=0)
    obs.observe(0.0, running({0: (w.job(0), (0, 2))}))
    obs.observe(1.0, running({}))
    row = {k: v.tolist() for k, v in obs.job_columns(np.array([0])).items()}
    assert row["pairs"] == [2] and row["intra_contention"] == [1.0]
    assert row["throughput_mb_s"] == [200.0]  # 2 pairs · 100 MB/s / 1, no I/O-node cap


# ------------------------------------------------------------------ whole runs


def io_options(**given) -> RunOptions:
    base = {
        "machine": "paragon-io",
        "workload": str(ROOT / "traces" / "mache-io.toml"),
        "alloc": "mbs",
        "runtime_model": "contention",
    }
    return RunOptions(**{**base, **given})


@pytest.fixture(scope="module")
def short_mache(tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "mache.toml"
    path.write_text(
        '[workload]\nkind = "mache-io"\njobs = 60\nmean_interarrival = 300\n'
        "iterations = 20000\nio_share = 1.0\nseed = 2\n"
    )
    return str(path)


def test_the_observer_reads_the_run_and_agrees_with_the_model(short_mache) -> None:
    """The engine's observer sees every change of the running set: its figures join the results, the
    model's own keys keep the model's values and agree with the observer's, and a run on the same
    machine without I/O nodes schedules the same."""
    sim = prepare(io_options(workload=short_mache))
    sim.run()
    observer = sim.recorder(ContentionObserver)
    assert observer is not None
    metrics = sim.results().metrics
    seen = observer.metrics()
    assert set(seen) <= set(metrics)
    assert seen["max_contention_time_mean"] == pytest.approx(metrics["max_contention_time_mean"])
    assert seen["balance_time_mean"] == pytest.approx(metrics["balance_time_mean"])
    assert metrics["inter_contention_time_mean"] == seen["inter_contention_time_mean"]
    trace_runtimes = replace(sim.policy, runtime_model=None)
    watched = Simulation(sim.machine, sim.workload, trace_runtimes)
    blind = Simulation(replace(sim.machine, extras={}), sim.workload, trace_runtimes)
    watched.run()
    blind.run()
    assert blind.recorder(ContentionObserver) is None
    assert watched.recorder(ContentionObserver) is not None
    assert "inter_contention_time_mean" not in blind.results().metrics
    assert watched.start_times().tolist() == blind.start_times().tolist()


def test_run_case_reports_contention_and_is_deterministic(short_mache) -> None:
    first = run_case(io_options(workload=short_mache), jobs=True)
    again = run_case(io_options(workload=short_mache), jobs=True)
    assert dumps(first.document) == dumps(again.document)
    assert first.jobs_csv == again.jobs_csv
    header = first.jobs_csv.splitlines()[0].split(",")
    assert header[-len(JOB_COLUMNS) :] == list(JOB_COLUMNS)
    m = first.document["metrics"]
    assert m["inter_contention_time_mean"] > 0 and m["nodes_affected_mean"] >= 1


def test_pattern_and_share_reach_the_model(short_mache) -> None:
    """Pure communication: the pattern decides the traffic, so the service times differ."""
    runtimes = {}
    for pattern in ("all-to-all", "circular-shift"):
        doc = run_case(io_options(workload=short_mache, pattern=pattern, io_share=0.0)).document
        runtimes[pattern] = doc["metrics"]["avg_runtime_s"]
        assert f"traffic pattern {pattern}, io_share 0.0" in doc["inputs"]["transforms"]
    assert runtimes["circular-shift"] < runtimes["all-to-all"]
    read = run_case(io_options(workload=short_mache, io_traffic="read")).document["metrics"]
    write = run_case(io_options(workload=short_mache)).document["metrics"]
    assert read["max_contention_time_mean"] != write["max_contention_time_mean"]


def test_traffic_options_need_io_nodes_and_valid_names() -> None:
    with pytest.raises(MeshsimError, match=r"need a machine with I/O nodes.*'mesh32' has none"):
        load_inputs(RunOptions(machine="mesh32", pattern="fft"))
    with pytest.raises(MeshsimError, match="unknown communication pattern 'ring' \\(valid: all-"):
        load_inputs(io_options(pattern="ring"))
    options = RunOptions.from_mapping({**asdict(io_options()), "io_share": 0.5, "pattern": "fft"})
    _, w = load_inputs(options)
    assert traffic_of(w.attrs, 0) == TrafficChoice("fft", "write", 0.5)


def test_plain_machines_are_not_observed() -> None:
    sim = Simulation(
        load_machine("mesh32"),
        from_columns("one", submit=np.zeros(1), runtime=np.ones(1), size=np.array([4])),
        Policy(),
    )
    assert sim.recorder(ContentionObserver) is None
