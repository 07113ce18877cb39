"""NQS queues are matched by name, never by number (engine/nqs/queue_map.py): the machine queue of
the same name, ``--queue-map NAME=QUEUE``, or the paper's naming rule q[f]<nodes><s|m|l>; each
placement under another name is reported with its jobs; over-limit jobs kept when the machine says
so."""

import re
from pathlib import Path

import numpy as np
import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.nqs.queue_map import parse_queue_map
from meshsim.engine.topology.machines import load_machine
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.swf import read_swf
from tests.conftest import DATA, SHARED_TRACES, require_trace

PARAGON_1996 = SHARED_TRACES / "SDSC-Par-1996-3.1-cln.swf.gz"


def swf(path: Path, queues: dict[int, str], rows: list[tuple[int, int, int, int]]) -> str:
    """A small SWF: header ``Queue:`` lines and rows (queue number, size, runtime, partition)."""
    head = "".join(f"; Queue: {n} {name}\n" for n, name in queues.items())
    lines = [
        f"{k + 1} {10 * k} 5 {runtime} {size} -1 -1 {size} -1 -1 1 1 1 -1 {queue} {part} -1 -1"
        for k, (queue, size, runtime, part) in enumerate(rows)
    ]
    path.write_text(head + "\n".join(lines) + "\n")
    return str(path)


def test_the_logs_q256s_is_not_the_1995_machines_q256m():
    """Queue 10 of the 1996 log is q256s; the 1995 machine's queue 10 is q256m, and the naming
    rule has no thin short queue of 256 nodes there: an error naming q256s, not a silent move."""
    require_trace(PARAGON_1996)
    machine = load_machine("paragon-sdsc")
    assert machine.extras["nqs"].queue_by_number()[10].name == "q256m"
    with pytest.raises(MeshsimError, match="queue 10 'q256s' is not an NQS queue") as caught:
        load_workload(str(PARAGON_1996), machine)
    assert "--queue-map q256s=QUEUE" in str(caught.value)


def test_every_queue_of_the_1996_log_is_a_queue_of_its_machine():
    require_trace(PARAGON_1996)
    machine = load_machine("paragon-sdsc-1996")
    w = load_workload(str(PARAGON_1996), machine)
    assert w.queue_mapping == ()
    by_number = machine.extras["nqs"].queue_by_number()
    names = {by_number[q].name for q in np.unique(w.queue).tolist()}
    assert {"q1ll", "q256s", "q256l", "q320m", "interactive", "standby"} <= names
    assert len(w) == 32135
    assert "811 jobs over their queue's limits kept in their queue" in w.transforms


def test_the_naming_rule_places_a_queue_by_size_time_and_memory(tmp_path):
    """qf16m (32 MB nodes, 16 nodes, 4 hours) goes to qf32m, the smallest fat medium queue that
    holds 16 nodes; q24s to q32s; a queue no rule places is an error naming it."""
    machine = load_machine("paragon-sdsc")
    path = swf(
        tmp_path / "rule.swf",
        {3: "qf16m", 4: "q24s"},
        [(3, 16, 60, 2), (3, 8, 60, 2), (4, 20, 60, 2)],
    )
    w = load_workload(path, machine)
    by_number = machine.extras["nqs"].queue_by_number()
    assert [by_number[q].name for q in w.queue.tolist()] == ["qf32m", "qf32m", "q32s"]
    assert [m.as_dict() for m in w.queue_mapping] == [
        {"trace_queue": "qf16m", "machine_queue": "qf32m", "rule": "name rule", "jobs": 2},
        {"trace_queue": "q24s", "machine_queue": "q32s", "rule": "name rule", "jobs": 1},
    ]
    path = swf(tmp_path / "big.swf", {5: "q512s"}, [(5, 8, 60, 2)])
    with pytest.raises(MeshsimError, match="queue 5 'q512s' is not an NQS queue"):
        load_workload(path, machine)


def test_an_explicit_mapping_wins_and_is_reported(tmp_path):
    machine = load_machine("paragon-sdsc")
    path = swf(tmp_path / "m.swf", {10: "q256s", 30: "q1ll"}, [(10, 200, 60, 2), (30, 1, 60, 2)])
    w = load_workload(path, machine, queue_map={"q256s": "q256m", "q1ll": "q1l"})
    assert [(m.trace_queue, m.machine_queue, m.rule, m.jobs) for m in w.queue_mapping] == [
        ("q256s", "q256m", "--queue-map", 1),
        ("q1ll", "q1l", "--queue-map", 1),
    ]


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"q256s": "q256m", "q9x": "q1l"}, "--queue-map q9x=q1l: no job of .* is in a queue 'q9x'"),
        ({"q256s": "q256x"}, "--queue-map q256s=q256x: the machine has no NQS queue 'q256x'"),
    ],
)
def test_a_mapping_that_names_nothing_is_an_error(tmp_path, mapping, message):
    machine = load_machine("paragon-sdsc")
    path = swf(tmp_path / "e.swf", {10: "q256s"}, [(10, 200, 60, 2)])
    with pytest.raises(MeshsimError, match=message):
        load_workload(path, machine, queue_map=mapping)


def test_queue_map_text():
    assert parse_queue_map(None) == {}
    assert parse_queue_map("a=b, c = d,") == {"a": "b", "c": "d"}
    with pytest.raises(MeshsimError, match="--queue-map 'a': expected NAME=QUEUE"):
        parse_queue_map("a")
    with pytest.raises(MeshsimError, match="maps 'a' twice"):
        parse_queue_map("a=b,a=c")


def test_a_queue_map_needs_a_machine_with_named_queues():
    with pytest.raises(MeshsimError, match="--queue-map needs a machine with named queues"):
        load_workload(str(DATA / "tiny.swf"), load_machine("flat:4"), queue_map={"batch": "x"})


def test_over_limit_jobs_are_kept_when_the_machine_says_so(tmp_path):
    text = (DATA / "nqs-small.toml").read_text()
    keep = tmp_path / "keep.toml"
    keep.write_text(
        text.replace('node_allocator = "flat"', 'node_allocator = "flat"\nover_limit = "keep"')
    )
    path = swf(tmp_path / "o.swf", {8: "short"}, [(8, 6, 60, 2), (8, 2, 7200, 2), (8, 2, 60, 2)])
    with pytest.raises(MeshsimError, match="job 1 in queue short: 6 nodes exceed its 4"):
        load_workload(path, load_machine(str(DATA / "nqs-small.toml")))
    w = load_workload(path, load_machine(str(keep)))
    assert w.queue.tolist() == [3, 3, 3]
    assert w.transforms == ("2 jobs over their queue's limits kept in their queue",)
    moved = load_workload(path, load_machine(str(keep)), requeue=True)
    assert moved.transforms == ("2 jobs requeued",)


def test_the_1996_machine_is_the_one_its_log_describes():
    """The header: 'MaxNodes: 400 (48 interactive, 352 batch, 6 service, 10 I/O)' and 34 queues;
    the rule-named queues have the rule's node and time limits."""
    header = read_swf(require_trace(PARAGON_1996)).header
    assert header.get("MaxNodes") == "400 (48 interactive, 352 batch, 6 service, 10 I/O)"
    machine = load_machine("paragon-sdsc-1996")
    config = machine.extras["nqs"]
    assert machine.nodes == 416 and config.interactive.nodes == 48
    assert sum(s.rect.nodes for s in config.node_sets) == 352
    assert {q.number: q.name for q in config.queues} == {
        n: name.split()[0] for n, name in header.queues.items()
    }
    hours = {"t": 0.25, "s": 1, "m": 4, "l": 12}
    for q in config.queues:
        rule = re.fullmatch(r"q(f?)(\d+)([tsml])", q.name)
        if rule:
            assert q.max_nodes == int(rule.group(2))
            assert q.time_limit_s == hours[rule.group(3)] * 3600
    assert config.over_limit == "keep"
