"""Properties of the input readers (issue 19): whatever bytes a trace or a TOML file holds, a read
either yields values that meet every rule, or one error naming the file and the line or key —
never a crash, never a value silently dropped."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.plan import toml_key, toml_value
from meshsim.engine.tools.scenario import load_scenario
from meshsim.engine.tools.scenario_checks import ACTION_SECTIONS, SCHEMA
from meshsim.engine.topology.machines import HEAD, load_machine
from meshsim.engine.validation.swf_columns import COLUMNS
from meshsim.engine.workloads.generators import load_workload
from meshsim.engine.workloads.swf import read_swf
from meshsim.engine.workloads.synthetic_flat import FLAT_POISSON

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

NUMBERS = st.one_of(
    st.integers(-5, 10**6),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([-1, 0, 1, 1e300, -1e300, 2.0**53, 1e11, 1e11 + 1]),
)
TOKENS = st.one_of(
    NUMBERS.map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1_0", "x", "0x10", "1e999", "--1", ""]),
)


def good_row(draw: st.DrawFn) -> list[str]:
    return [repr(draw(NUMBERS)) for _ in range(18)]


@st.composite
def trace_lines(draw: st.DrawFn) -> list[str]:
    """Data lines: 18 numbers (any of them possibly out of range), or lines of the wrong shape."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["row", "row", "row", "short", "tokens", "comment"]))
        if kind == "row":
            lines.append(" ".join(good_row(draw)))
        elif kind == "short":
            lines.append(" ".join(good_row(draw)[: draw(st.integers(1, 17))]))
        elif kind == "tokens":
            lines.append(" ".join(draw(st.lists(TOKENS, min_size=18, max_size=18))))
        else:
            lines.append("; a comment between jobs")
    return lines


def expected(line: str) -> list[float] | None:
    """The oracle: the record a data line must give, or None when it must be reported."""
    parts = line.split(";", 1)[0].split()
    if len(parts) != 18 or any("_" in p for p in parts):
        return None
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    for rule, v in zip(COLUMNS.rules, values, strict=True):
        low = -math.inf if rule.minimum is None else rule.minimum
        high = math.inf if rule.maximum is None else rule.maximum
        if not (math.isfinite(v) and low <= v <= high):
            return None
    return values


@SETTINGS
@given(lines=trace_lines())
def test_every_swf_line_is_a_valid_record_or_reported_with_its_number(tmp_path, lines):
    path = tmp_path / "t.swf"
    path.write_text("; Version: 2.2\n" + "\n".join(lines) + "\n")
    data = [(n, line) for n, line in enumerate(lines, start=2) if not line.startswith(";")]
    want = [(n, expected(line)) for n, line in data]
    good = [values for _, values in want if values is not None]
    bad = [n for n, values in want if values is None]
    if not good:
        with pytest.raises(MeshsimError, match=r"t\.swf"):
            read_swf(path, lenient=True)
        return
    trace = read_swf(path, lenient=True)
    assert [m.line for m in trace.malformed] == bad
    assert np.array_equal(trace.records, np.array(good).reshape(-1, 18))
    assert np.isfinite(trace.records).all()
    if bad:
        with pytest.raises(MeshsimError, match=rf"t\.swf line {bad[0]}: "):
            read_swf(path)
    else:
        assert np.array_equal(read_swf(path).records, trace.records)


VALUES = st.one_of(
    NUMBERS,
    st.booleans(),
    st.text(max_size=8),
    st.lists(st.integers(-3, 3), max_size=3),
    st.sampled_from(["flat", "mesh", "first-fit", "fcfs", "easy", "window", "nope"]),
)


def toml_text(table: str, values: dict[str, object]) -> str:
    return f"[{table}]\n" + "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in values.items())


def assert_names_key(error: MeshsimError, path: Path) -> None:
    message = str(error)
    assert message.startswith(str(path)) and "\n" not in message
    assert " key '" in message or " line " in message or message.startswith(f"{path}:")


@SETTINGS
@given(values=st.dictionaries(st.sampled_from(HEAD.key_list()), VALUES, max_size=6))
def test_a_machine_file_loads_within_its_rules_or_names_the_key(tmp_path, values):
    path = tmp_path / "m.toml"
    head = {"name": "m", "topology": "flat", **values}
    path.write_text(toml_text("machine", head) + "[topology]\nnodes = 4\n")
    try:
        machine = load_machine(str(path))
    except MeshsimError as error:
        assert_names_key(error, path)
        return
    assert machine.procs_per_unit >= 1 and machine.nodes == 4
    assert isinstance(machine.name, str) and isinstance(machine.description, str)


@SETTINGS
@given(values=st.dictionaries(st.sampled_from(FLAT_POISSON.key_list()[2:]), VALUES, max_size=5))
def test_a_workload_file_generates_finite_jobs_or_names_the_key(tmp_path, values):
    path = tmp_path / "w.toml"
    table = {"kind": "flat-poisson", "jobs": 20, **values}
    if isinstance(table["jobs"], int) and table["jobs"] > 1000:
        table["jobs"] = 1000
    path.write_text(toml_text("workload", table))
    try:
        workload = load_workload(str(path), load_machine("flat:64"))
    except MeshsimError as error:
        assert_names_key(error, path)
        return
    for column in (workload.submit, workload.runtime, workload.estimate):
        assert np.isfinite(column).all()
    assert ((workload.size >= 1) & (workload.size <= 64)).all()


ACTION_KEYS = sorted({key for s in ACTION_SECTIONS.values() for key in s.key_list()})


@SETTINGS
@given(
    kind=st.sampled_from([*ACTION_SECTIONS, "explode"]),
    values=st.dictionaries(st.sampled_from(ACTION_KEYS), VALUES, max_size=5),
)
def test_a_scenario_action_loads_within_its_rules_or_names_the_key(tmp_path, kind, values):
    path = tmp_path / "s.json"
    action = {"time": 1.0, **values, "action": kind}
    path.write_text(json.dumps({"schema": SCHEMA, "actions": [action]}))
    try:
        loaded = load_scenario(path).actions[0]
    except MeshsimError as error:
        message = str(error)
        assert "\n" not in message
        assert message.startswith((f"{path} key 'actions[0]", f"{path}: invalid JSON ("))
        return
    section = ACTION_SECTIONS[kind]
    assert loaded.after_event >= 0 and loaded.action.kind == kind
    for field in dataclasses.fields(loaded.action):
        rule = section.rule(field.name)
        value = getattr(loaded.action, field.name)
        if rule.kind == "float":
            assert math.isfinite(value)
        if rule.minimum is not None and isinstance(value, int | float):
            assert value >= rule.minimum
