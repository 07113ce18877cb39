"""Every input and output boundary, one table row per kind of bad input (issue 19).

Each row runs one command line in this process (``meshsim.cli.main.main``) in a folder of
hand-made inputs and asserts the exit status, exactly one ``error:`` line on stderr naming what is
wrong, no traceback, and that no file in the folder changed, appeared or vanished. The kinds are
those the issue lists: outputs that would replace an input or another output, output paths that
cannot be written, values that are not finite or out of range (options, SWF fields and headers,
TOML and scenario keys), unknown names, undecodable files, resource limits, scenario actions that
cannot apply, damaged sweep results."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from meshsim.cli.main import main
from tests.conftest import DATA

ROW = "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1"
FLAT = '[machine]\nname = "m"\ntopology = "flat"\n[topology]\nnodes = 4\n'
MESH = '[machine]\nname = "g"\ntopology = "mesh"\ndefault_allocator = "first-fit"\n'
MESH += "[topology]\ndims = [4, 4]\n"
SCENARIO = {"schema": "meshsim.scenario/1", "options": {"machine": "flat:4", "workload": "t.swf"}}
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def scenario(*actions: dict) -> str:
    return json.dumps({**SCENARIO, "actions": list(actions)})


def spec(base: str) -> str:
    return f'[base]\nmachine = "flat:4"\nworkload = "t.swf"\n{base}\n[grid]\nseed = [1, 2]\n'


@dataclass(frozen=True)
class Case:
    """One bad input: files to add to the folder, the command line (``{d}`` is the folder), the
    exit status and what the error line must contain. ``prepare`` makes what plain files cannot
    (links, folders, permissions)."""

    name: str
    argv: tuple[str, ...]
    needle: str
    code: int = 1
    files: dict[str, str | bytes] = field(default_factory=dict)
    prepare: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)


def _link(name: str, target: str, *, hard: bool = False) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        (os.link if hard else os.symlink)(d / target, d / name)

    return make


def _folder(name: str) -> Callable[[Path], None]:
    return lambda d: (d / name).mkdir()


def _read_only(name: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        (d / name).mkdir()
        (d / name).chmod(0o555)

    return make


def _fifo(name: str) -> Callable[[Path], None]:
    return lambda d: os.mkfifo(d / name)


def _bomb(d: Path) -> None:
    (d / "bomb.swf.gz").write_bytes(gzip.compress(b"1 " * (2 << 20)))


RUN = ("run", "--machine", "flat:4", "--workload", "{d}/t.swf", "-q")
SWEEP_RESULTS = ("sweep", "{d}/p.toml", "--workers", "1", "-q", "--results")

CASES = [
    # --- outputs that would replace an input or another output
    Case("out-is-the-trace", (*RUN, "--out", "{d}/t.swf"), "same file as the input"),
    Case(
        "out-hard-link-to-trace",
        (*RUN, "--out", "{d}/h.swf"),
        "same file as the input",
        prepare=_link("h.swf", "t.swf", hard=True),
    ),
    Case(
        "out-symlink-to-trace",
        (*RUN, "--jobs-out", "{d}/l.swf"),
        "same file as the input",
        prepare=_link("l.swf", "t.swf"),
    ),
    Case("events-out-is-the-trace", (*RUN, "--events-out", "{d}/t.swf"), "--events-out"),
    Case(
        "swf-out-is-the-machine",
        ("run", "--machine", "{d}/m.toml", "--workload", "{d}/t.swf", "--swf-out", "{d}/m.toml"),
        "same file as the input",
    ),
    Case("two-outputs-one-file", (*RUN, "--out", "{d}/r", "--jobs-out", "{d}/r"), "same file as"),
    Case("convert-onto-itself", ("trace", "convert", "{d}/t.swf", "{d}/t.swf"), "same file as"),
    Case(
        "scenario-out-is-the-scenario",
        ("run", "--scenario", "{d}/s.json", "--out", "{d}/s.json", "-q"),
        "same file as the input",
        files={"s.json": scenario()},
    ),
    # --- output paths that cannot be written
    Case("out-missing-folder", (*RUN, "--out", "{d}/no/r.json"), "does not exist"),
    Case("out-is-a-folder", (*RUN, "--out", "{d}/sub"), "is a folder", prepare=_folder("sub")),
    Case(
        "report-out-is-a-file",
        (*RUN, "--report", "nqs", "--report-out", "{d}/t.swf"),
        "is a file, not a folder",
    ),
    Case(
        "compare-out-is-a-file",
        (
            "compare",
            "--machine",
            "flat:4",
            "--workload",
            "{d}/t.swf",
            "--config",
            "a:queue=fcfs",
            "--config",
            "b:queue=sjf",
            "--out",
            "{d}/t.swf",
            "--workers",
            "1",
        ),
        "is a file, not a folder",
    ),
    Case(
        "sweep-results-is-a-file",
        (*SWEEP_RESULTS, "{d}/t.swf"),
        "is a file, not a folder",
        files={"p.toml": spec("")},
    ),
    Case(
        "sweep-results-foreign-folder",
        (*SWEEP_RESULTS, "{d}"),
        "not a sweep results folder",
        files={"p.toml": spec("")},
    ),
    Case("out-socket-like-device", (*RUN, "--out", "/dev/full"), "No space left"),
    Case(
        "events-out-fifo-nobody-reads",
        (*RUN, "--events-out", "{d}/p"),
        "p: a pipe that nobody reads",
        prepare=_fifo("p"),
    ),
    Case(
        "workload-fifo-nobody-writes",
        ("trace", "info", "{d}/p"),
        "p: is empty",
        prepare=_fifo("p"),
    ),
    # --- options: finite, in range, named as the command line spells them
    Case("window-zero", (*RUN, "--discipline", "window", "--window", "0"), "--window: must be"),
    Case("load-factor-nan", (*RUN, "--load-factor", "nan"), "--load-factor: must be a finite"),
    Case("runtime-scale-inf", (*RUN, "--runtime-scale", "inf"), "--runtime-scale: must be"),
    Case("load-factor-tiny", (*RUN, "--load-factor", "1e-300"), "--load-factor 1e-300"),
    Case("seed-negative", (*RUN, "--seed", "-1"), "--seed: must be at least 0"),
    Case("bound-negative", (*RUN, "--bound", "-1"), "--bound: must be at least 0"),
    Case("procs-per-unit-zero", (*RUN, "--procs-per-unit", "0"), "--procs-per-unit: must be"),
    Case("window-not-a-number", (*RUN, "--window", "abc"), "'--window'", code=2),
    Case("first-negative", (*RUN, "--first", "-5"), "--first: must be at least 1, got -5"),
    Case("first-not-an-integer", (*RUN, "--first", "2.5"), "'--first'", code=2),
    Case("skip-negative", (*RUN, "--skip", "-1"), "--skip: must be at least 0, got -1"),
    Case(
        "skip-past-the-end", (*RUN, "--skip", "3"), "t.swf holds 3 records, so the cut holds none"
    ),
    Case(
        "first-of-a-generated-workload",
        ("run", "--machine", "flat:4", "--workload", "{d}/w.toml", "--first", "2"),
        "w.toml is a generated workload, not a trace or log",
        files={"w.toml": '[workload]\nkind = "flat-poisson"\njobs = 10\n'},
    ),
    Case(
        "compare-first-negative",
        (
            "compare",
            "--machine",
            "flat:4",
            "--workload",
            "{d}/t.swf",
            "--first",
            "-1",
            "--config",
            "a:queue=fcfs",
            "--config",
            "b:queue=sjf",
        ),
        "--first: must be at least 1, got -1",
    ),
    Case("tui-skip-negative", ("tui", "--skip", "-3"), "--skip: must be at least 0"),
    Case("unknown-option", (*RUN, "--bogus"), "--bogus", code=2),
    Case("unknown-queue", (*RUN, "--queue", "lifo"), "--queue: unknown queue order 'lifo'"),
    Case("alloc-wrong-topology", (*RUN, "--alloc", "mbs"), "--alloc: allocator 'mbs' does not"),
    Case("unknown-report", (*RUN, "--report", "nope"), "--report: unknown report 'nope'"),
    Case("io-share-needs-io", (*RUN, "--io-share", "2"), "--io-share: must be at most 1"),
    Case(
        "trace-info-processors",
        ("trace", "info", "{d}/t.swf", "--processors", "0"),
        "--processors: must be at least 1",
    ),
    Case(
        "convert-start-nan",
        ("trace", "convert", "{d}/t.swf", "{d}/o.swf", "--start", "nan"),
        "--start: must be a finite number",
    ),
    Case(
        "convert-bad-month",
        ("trace", "convert", "{d}/t.swf", "{d}/o.swf", "--month", "2009-13"),
        "--month '2009-13'",
    ),
    Case(
        "convert-start-after-end",
        ("trace", "convert", "{d}/t.swf", "{d}/o.swf", "--start", "10", "--end", "5"),
        "--start 10 must come before",
    ),
    Case("convert-unknown-format", ("trace", "convert", "{d}/t.swf", "{d}/o.txt"), "give --format"),
    Case(
        "contention-mesh-limit",
        ("contention", "--layout", "parallel", "--mesh", "100000"),
        "MESHSIM_MAX_CELLS",
    ),
    Case(
        "contention-route-limit",
        ("contention", "--layout", "parallel", "--mesh", "1000", "--size", "100000"),
        "MESHSIM_MAX_ROUTES",
    ),
    Case(
        "contention-bandwidth-inf",
        ("contention", "--layout", "parallel", "--link-mb-s", "inf"),
        "--link-mb-s: must be a finite number",
    ),
    Case(
        "compare-config-not-int",
        (
            "compare",
            "--machine",
            "flat:4",
            "--workload",
            "{d}/t.swf",
            "--config",
            "a:window=x",
            "--config",
            "b:queue=sjf",
        ),
        "window: expected an integer, got 'x'",
    ),
    Case(
        "compare-config-bool",
        (
            "compare",
            "--machine",
            "flat:4",
            "--workload",
            "{d}/t.swf",
            "--config",
            "a:rotate=maybe",
            "--config",
            "b:queue=sjf",
        ),
        "rotate: expected true or false",
    ),
    Case(
        "compare-workers-negative",
        ("compare", "--preset", "tang2010", "--workers", "-1"),
        "--workers: must be at least 0",
    ),
    Case(
        "sweep-workers-zero",
        (*SWEEP_RESULTS, "{d}/r", "--workers", "0"),
        "--workers: must be at least 1",
        files={"p.toml": spec("")},
    ),
    Case("plot-width-zero", ("plot", "{d}/r", "--terminal", "--width", "0"), "--width: must be"),
    Case("plot-format-gif", ("plot", "{d}/r", "--format", "gif"), "--format: expected one of"),
    # --- SWF: non-finite and out-of-range numbers, headers, overflow, decoding, limits
    Case(
        "swf-inf-runtime",
        ("run", "--machine", "flat:4", "--workload", "{d}/inf.swf"),
        "inf.swf line 2: field 4 (run_time) is not a finite number",
        files={"inf.swf": f"{ROW}\n{ROW.replace(' 10 2 ', ' inf 2 ', 1)}\n"},
    ),
    Case(
        "swf-nan-submit",
        ("trace", "info", "{d}/nan.swf"),
        "nan.swf line 1: field 2",
        files={"nan.swf": ROW.replace("1 0 ", "1 nan ", 1) + "\n"},
    ),
    Case(
        "swf-huge-time",
        ("trace", "info", "{d}/big.swf"),
        "big.swf line 1: field 2",
        files={"big.swf": ROW.replace("1 0 ", "1 1e300 ", 1) + "\n"},
    ),
    Case(
        "swf-header-inf",
        ("trace", "info", "{d}/h.swf"),
        "h.swf line 1: MaxProcs",
        files={"h.swf": f"; MaxProcs: inf\n{ROW}\n"},
    ),
    Case(
        "swf-header-start-1e300",
        ("run", "--machine", "flat:4", "--workload", "{d}/h.swf"),
        "h.swf line 2: UnixStartTime",
        files={"h.swf": f"; Version: 2\n; UnixStartTime: 1e300\n{ROW}\n"},
    ),
    Case(
        "swf-header-zone",
        ("trace", "info", "{d}/h.swf"),
        "unknown time zone",
        files={"h.swf": f"; TimeZoneString: Mars/Olympus\n{ROW}\n"},
    ),
    Case(
        "swf-underscore-number",
        ("trace", "info", "{d}/u.swf"),
        "u.swf line 1: field 1",
        files={"u.swf": ROW.replace("1 ", "1_0 ", 1) + "\n"},
    ),
    Case(
        "swf-corrupt-gzip",
        ("trace", "info", "{d}/c.swf.gz"),
        "broken gzip data",
        files={"c.swf.gz": gzip.compress(ROW.encode())[:-12]},
    ),
    Case(
        "swf-gzip-bomb",
        ("trace", "info", "{d}/bomb.swf.gz"),
        "MESHSIM_MAX_INPUT_BYTES",
        prepare=_bomb,
        env={"MESHSIM_MAX_INPUT_BYTES": "1000000"},
    ),
    Case(
        "swf-is-a-folder",
        ("trace", "info", "{d}/sub"),
        "sub: the folder holds no log files",  # a folder is read as PBS daily files
        prepare=_folder("sub"),
    ),
    Case("swf-missing", ("run", "--workload", "{d}/nope.swf"), "nope.swf: no such file"),
    # --- TOML files: decoding, types, ranges, names, limits, defaults as run uses them
    Case(
        "machine-not-utf8",
        ("machines", "validate", "{d}/b.toml"),
        "b.toml line 2: not UTF-8",
        files={"b.toml": b'[machine]\nname = "\xff"\n'},
    ),
    Case(
        "machine-value-with-control-characters",
        ("machines", "validate", "{d}/b.toml"),
        "/a\\nb\\x1b[2J.swf",
        files={"b.toml": FLAT.replace('"m"\n', '"m"\ndefault_workload = "a\\nb\\u001b[2J.swf"\n')},
    ),
    Case(
        "workload-name-with-a-line-break",
        ("run", "--machine", "flat:4", "--workload", "{d}/t\n.swf", "-q"),
        "t\\n.swf",
    ),
    Case(
        "machine-huge-mesh",
        ("machines", "validate", "{d}/b.toml"),
        "MESHSIM_MAX_CELLS",
        files={"b.toml": MESH.replace("[4, 4]", "[100000, 100000]")},
    ),
    Case(
        "machine-default-allocator",
        ("machines", "validate", "{d}/b.toml"),
        "key 'machine.default_allocator': unknown allocator 'nope'",
        files={"b.toml": MESH.replace('"first-fit"', '"nope"')},
    ),
    Case(
        "machine-allocator-topology",
        ("machines", "show", "{d}/b.toml"),
        "default_allocator': allocator 'mbs' does not work on flat",
        files={"b.toml": FLAT.replace('"flat"\n[', '"flat"\ndefault_allocator = "mbs"\n[', 1)},
    ),
    Case(
        "machine-default-queue",
        ("machines", "validate", "{d}/b.toml"),
        "key 'machine.default_queue': unknown queue order 'lifo'",
        files={"b.toml": FLAT.replace("[topology]", 'default_queue = "lifo"\n[topology]')},
    ),
    Case(
        "machine-default-workload-missing",
        ("machines", "validate", "{d}/b.toml"),
        "key 'machine.default_workload': no such file",
        files={"b.toml": FLAT.replace("[topology]", 'default_workload = "gone.toml"\n[topology]')},
    ),
    Case(
        "machine-default-workload-bad-key",
        ("machines", "validate", "{d}/b.toml"),
        "w.toml key 'workload.load': must be a finite number",
        files={
            "b.toml": FLAT.replace("[topology]", 'default_workload = "w.toml"\n[topology]'),
            "w.toml": '[workload]\nkind = "flat-poisson"\njobs = 10\nload = inf\n',
        },
    ),
    Case("tui-bad-seed", ("tui", "--seed", "-1"), "--seed: must be at least 0"),
    Case("tui-missing-workload", ("tui", "--workload", "{d}/nope.swf"), "nope.swf: no such file"),
    Case(
        "machine-bad-toml",
        ("run", "--machine", "{d}/b.toml"),
        "b.toml: invalid TOML",
        files={"b.toml": "[machine\n"},
    ),
    Case(
        "machine-float-nodes",
        ("run", "--machine", "{d}/b.toml"),
        "key 'topology.nodes'",
        files={"b.toml": FLAT.replace("nodes = 4", "nodes = nan")},
    ),
    Case(
        "workload-load-nan",
        ("run", "--machine", "flat:4", "--workload", "{d}/w.toml"),
        "w.toml key 'workload.load': must be a finite number",
        files={"w.toml": '[workload]\nkind = "flat-poisson"\njobs = 10\nload = nan\n'},
    ),
    Case(
        "workload-job-limit",
        ("run", "--machine", "flat:4", "--workload", "{d}/w.toml"),
        "MESHSIM_MAX_JOBS",
        files={"w.toml": '[workload]\nkind = "flat-poisson"\njobs = 1000000000\n'},
    ),
    Case(
        "workload-unknown-kind",
        ("run", "--machine", "flat:4", "--workload", "{d}/w.toml"),
        "unknown workload kind 'nope'",
        files={"w.toml": '[workload]\nkind = "nope"\n'},
    ),
    Case(
        "workload-not-utf8",
        ("run", "--machine", "flat:4", "--workload", "{d}/w.toml"),
        "w.toml line 1: not UTF-8",
        files={"w.toml": b"# \xc3\x28\n[workload]\n"},
    ),
    Case(
        "spec-nan-option",
        ("sweep", "{d}/p.toml", "--results", "{d}/r", "--workers", "1"),
        "p.toml key 'load-factor': must be a finite number",
        files={"p.toml": spec("load-factor = nan")},
    ),
    Case(
        "spec-first-not-an-integer",
        ("sweep", "{d}/p.toml", "--results", "{d}/r", "--workers", "1"),
        "p.toml key 'first': expected an integer, got 2.5",
        files={"p.toml": spec("first = 2.5")},
    ),
    Case(
        "spec-skip-negative",
        ("sweep", "{d}/p.toml", "--results", "{d}/r", "--workers", "1"),
        "p.toml key 'skip': must be at least 0",
        files={"p.toml": spec("skip = -4")},
    ),
    Case(
        "spec-not-utf8",
        ("sweep", "{d}/p.toml"),
        "p.toml line 1: not UTF-8",
        files={"p.toml": b"\xfe[base]\n"},
    ),
    Case(
        "spec-huge-replications",
        ("sweep", "{d}/p.toml"),
        "key 'sweep.replications'",
        files={"p.toml": "[sweep]\nreplications = 1000000000\n" + spec("").split("[grid]")[0]},
    ),
    Case(
        "spec-case-limit",
        ("sweep", "{d}/p.toml", "--results", "{d}/r"),
        "2,000,000 cases exceeds the limit of 100,000 cases",
        files={
            "p.toml": spec("").replace(
                "seed = [1, 2]",
                "seed = [1, 2]\n" + "\n".join(f"k{a} = {list(range(10))}" for a in range(6)),
            )
        },
    ),
    Case(
        "sweep-baseline-not-a-key",
        ("sweep", "{d}/p.toml", "--results", "{d}/r", "--baseline", "x=1"),
        "--baseline: 'x' is not a key of this sweep",
        files={"p.toml": spec("")},
    ),
    Case("experiment-unknown", ("reproduce", "nope"), "unknown experiment 'nope'"),
    # --- scenario files: decoding, types, names, actions against the machine and workload
    Case(
        "scenario-not-utf8",
        ("run", "--scenario", "{d}/s.json"),
        "s.json line 1: not UTF-8",
        files={"s.json": b'{"schema": "\xff"}'},
    ),
    Case(
        "scenario-nan-literal",
        ("run", "--scenario", "{d}/s.json"),
        "NaN is not a JSON value",
        files={"s.json": '{"schema": "meshsim.scenario/1", "position": NaN}'},
    ),
    Case(
        "scenario-option-range",
        ("run", "--scenario", "{d}/s.json"),
        "key 'options.window': must be at least 1",
        files={"s.json": json.dumps({**SCENARIO, "options": {"window": 0}})},
    ),
    Case(
        "scenario-unknown-unit",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "actions[0]: no unit 99 on machine 'flat:4'",
        files={"s.json": scenario({"action": "fail", "time": 1, "unit": "99"})},
    ),
    Case(
        "scenario-unknown-job",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "actions[0]: no job 42 in the workload",
        files={"s.json": scenario({"action": "hold", "time": 1, "job_id": 42})},
    ),
    Case(
        "scenario-unknown-policy",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].queue': unknown queue order 'lifo'",
        files={"s.json": scenario({"action": "set-policy", "time": 1, "queue": "lifo"})},
    ),
    Case(
        "scenario-policy-topology",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "actions[0].allocator: allocator 'mbs' does not work",
        files={"s.json": scenario({"action": "set-policy", "time": 1, "allocator": "mbs"})},
    ),
    Case(
        "scenario-bad-on-job",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].on_job': expected one of requeue, kill",
        files={"s.json": scenario({"action": "fail", "time": 1, "unit": 0, "on_job": "x"})},
    ),
    Case(
        "scenario-impossible-reservation",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].until': must come after 'time'",
        files={"s.json": scenario({"action": "reserve", "time": 5, "block": [0], "until": 1})},
    ),
    Case(
        "scenario-reservation-starts-in-the-past",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].start': must not come before 'time' (5), got 2",
        files={
            "s.json": scenario(
                {"action": "reserve", "time": 5, "block": [0], "start": 2, "until": 9}
            )
        },
    ),
    Case(
        "scenario-reservation-starts-after-its-end",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].until': must come after 'start' (20), got 9",
        files={
            "s.json": scenario(
                {"action": "reserve", "time": 5, "block": [0], "start": 20, "until": 9}
            )
        },
    ),
    Case(
        "scenario-reservation-unknown-unit",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "actions[0]: no unit 7 on machine 'flat:4'",
        files={
            "s.json": scenario(
                {"action": "reserve", "time": 5, "block": [7], "start": 6, "until": 9}
            )
        },
    ),
    Case(
        "scenario-reservation-bad-on-job",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].on_job': expected one of wait, kill, got 'requeue'",
        files={
            "s.json": scenario(
                {"action": "reserve", "time": 5, "block": [0], "until": 9, "on_job": "requeue"}
            )
        },
    ),
    Case(
        "scenario-wrong-type",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].size': expected an integer, got 'x'",
        files={"s.json": scenario({"action": "submit", "time": 1, "size": "x"})},
    ),
    Case(
        "scenario-submit-too-big",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "a job of 9 nodes does not fit",
        files={"s.json": scenario({"action": "submit", "time": 1, "size": 9})},
    ),
    Case(
        "scenario-unit-type",
        ("run", "--scenario", "{d}/s.json", "-q"),
        "key 'actions[0].unit': expected a unit name or a cell number",
        files={"s.json": scenario({"action": "repair", "time": 1, "unit": [1]})},
    ),
    Case(
        "scenario-deep-json",
        ("run", "--scenario", "{d}/s.json"),
        "s.json: invalid JSON",
        files={"s.json": "[" * 100000},
    ),
    # --- damaged results
    Case(
        "plot-not-results",
        ("plot", "{d}/sub", "--terminal"),
        "not a sweep results folder",
        prepare=_folder("sub"),
    ),
    Case(
        "plot-damaged-plan",
        ("plot", "{d}/r", "--terminal"),
        "sweep.json: unreadable",
        files={"r/sweep.json": '{"schema": "meshsim.sweep/1", "cas'},
    ),
    Case(
        "plot-plan-wrong-types",
        ("plot", "{d}/r", "--terminal"),
        "key 'cases'",
        files={
            "r/sweep.json": json.dumps(
                {
                    "schema": "meshsim.sweep/1",
                    "command": "run",
                    "keys": [],
                    "replicate": "seed",
                    "baseline": {},
                    "metrics": [],
                    "jobs": False,
                    "cases": 3,
                }
            )
        },
    ),
]
if not IS_ROOT:
    CASES += [
        Case(
            "out-read-only-folder",
            (*RUN, "--out", "{d}/ro/r.json"),
            "is not writable",
            prepare=_read_only("ro"),
        ),
        Case(
            "machine-unreadable",
            ("run", "--machine", "{d}/x.toml"),
            "cannot read",
            prepare=lambda d: (shutil.copy(d / "m.toml", d / "x.toml"), (d / "x.toml").chmod(0)),
        ),
    ]


def snapshot(folder: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``folder``: its kind and content hash (or link target)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            out[str(path)] = ("link", os.readlink(path))
        elif stat.S_ISDIR(mode):
            out[str(path)] = ("dir", "")
        elif not stat.S_ISREG(mode):
            out[str(path)] = ("special", f"mode {mode:o}")
        elif os.access(path, os.R_OK):
            out[str(path)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            out[str(path)] = ("file", f"mode {stat.S_IMODE(mode):o}")
    return out


def invoke(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``meshsim ARGV`` in this process; its exit status, stdout and stderr."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def make_world(tmp_path: Path, case: Case) -> Path:
    d = tmp_path / "w"
    d.mkdir()
    shutil.copy(DATA / "tiny.swf", d / "t.swf")
    (d / "m.toml").write_text(FLAT)
    for name, content in case.files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (d / name).write_bytes(content)
        else:
            (d / name).write_text(content)
    if case.prepare is not None:
        case.prepare(d)
    return d


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_error_line_and_changes_nothing(
    tmp_path, monkeypatch, capsys, signals_kept, case
):
    d = make_world(tmp_path, case)
    monkeypatch.chdir(d)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    before = snapshot(d)
    code, _, err = invoke([a.replace("{d}", str(d)) for a in case.argv], capsys)
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert code == case.code, err
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert case.needle in errors[0], errors[0]
    assert snapshot(d) == before
    if any(a.endswith("/dev/full") for a in case.argv):
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def run_json(d: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    """``meshsim run ARGS --out d/r.json`` in this process; the result, read as strict JSON."""
    code, _, err = invoke(["run", *args, "--out", str(d / "r.json"), "-q"], capsys)
    assert code == 0, err
    return json.loads((d / "r.json").read_text(), parse_constant=_not_json)


def _not_json(name: str) -> None:
    raise AssertionError(f"{name} in the result JSON")


def test_lenient_reads_count_every_skipped_line(tmp_path, capsys, signals_kept):
    bad = [ROW.replace(" 10 2 ", f" {v} 2 ", 1) for v in ("inf", "nan", "1e300")]
    (tmp_path / "t.swf").write_text("\n".join([ROW, *bad, "7 8 9", ROW]) + "\n")
    doc = run_json(
        tmp_path, capsys, "--machine", "flat:4", "--workload", str(tmp_path / "t.swf"), "--lenient"
    )
    assert doc["skipped"]["malformed_line"] == 4
    assert doc["metrics"]["jobs"] == 2


def test_a_job_beyond_any_machine_is_larger_than_machine_not_an_overflow(
    tmp_path, capsys, signals_kept
):
    huge = ROW.replace(" 10 2 ", " 10 100000000000000000000000 ", 1)
    huge = huge.replace(" -1 2 10 ", " -1 100000000000000000000000 10 ", 1)
    (tmp_path / "t.swf").write_text(f"{ROW}\n{huge}\n")
    doc = run_json(tmp_path, capsys, "--machine", "flat:4", "--workload", str(tmp_path / "t.swf"))
    assert doc["skipped"]["larger_than_machine"] == 1
    assert doc["metrics"]["jobs"] == 1
    assert 0 <= doc["metrics"]["utilization"] <= 1


def test_a_run_where_no_job_finishes_has_null_metrics(tmp_path, capsys, signals_kept):
    too_big = ROW.replace(" 10 2 ", " 10 9 ", 1).replace(" -1 2 10 ", " -1 9 10 ", 1)
    (tmp_path / "t.swf").write_text(too_big + "\n")
    doc = run_json(tmp_path, capsys, "--machine", "flat:4", "--workload", str(tmp_path / "t.swf"))
    assert doc["skipped"]["larger_than_machine"] == 1
    metrics = doc["metrics"]
    assert metrics["jobs"] == 0
    for key in (
        "avg_wait_s",
        "max_wait_s",
        "avg_bsld",
        "utilization",
        "loss_of_capacity",
        "expansion_factor",
        "makespan_s",
    ):
        assert metrics[key] is None, key


def test_actions_that_cannot_apply_are_rejected_with_a_reason(tmp_path, capsys, signals_kept):
    shutil.copy(DATA / "tiny.swf", tmp_path / "t.swf")
    actions = [
        {"action": "hold", "time": 100, "job_id": 1},
        {"action": "fail", "time": 0, "unit": 1},
        {"action": "fail", "time": 0, "unit": 1},
        {"action": "repair", "time": 2, "unit": 0, "after_event": 500},
        {"action": "fail", "time": 0, "unit": 3, "after_event": 6},
    ]
    options = {"machine": "flat:4", "workload": str(tmp_path / "t.swf")}
    (tmp_path / "s.json").write_text(
        json.dumps({**SCENARIO, "options": options, "actions": actions})
    )
    code, out, err = invoke(
        ["run", "--scenario", str(tmp_path / "s.json"), "--out", str(tmp_path / "r.json")], capsys
    )
    assert code == 0, err
    doc = json.loads((tmp_path / "r.json").read_text())
    reasons = {r["index"]: r["reason"] for r in doc["rejected_actions"]}
    assert reasons == {0: "job_ended", 2: "unit_down", 3: "time_passed", 4: "event_not_reached"}
    assert len(doc["inputs"]["actions"]) == len(actions)  # none dropped from the log either
    # job 2 asks all 4 nodes, 3 stay in service; job 3 waits behind it (strict FCFS)
    assert doc["unfinished"] == {"waiting": 2, "held": 0}
    assert "rejected actions: 1 job ended, 1 unit down, 1 time passed, 1 event not reached" in out
    assert "unfinished jobs: 2 waiting" in out


def test_outputs_to_a_device_are_written_in_place(tmp_path, capsys, signals_kept):
    shutil.copy(DATA / "tiny.swf", tmp_path / "t.swf")
    code, _, err = invoke(
        [
            "run",
            "--machine",
            "flat:4",
            "--workload",
            str(tmp_path / "t.swf"),
            "--out",
            "/dev/null",
            "-q",
        ],
        capsys,
    )
    assert code == 0, err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlinked_output_keeps_its_link(tmp_path, capsys, signals_kept):
    shutil.copy(DATA / "tiny.swf", tmp_path / "t.swf")
    (tmp_path / "real.json").write_text("old\n")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    code, _, err = invoke(
        [
            "run",
            "--machine",
            "flat:4",
            "--workload",
            str(tmp_path / "t.swf"),
            "--out",
            str(tmp_path / "link.json"),
            "-q",
        ],
        capsys,
    )
    assert code == 0, err
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["schema"] == "meshsim.result/1"
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob(".*.part"))
