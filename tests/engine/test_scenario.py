"""Scenario files: round trip, one-line errors naming the file and key, and the result JSON of a
scenario run (the console's export)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import Cancel, Fail, LoggedAction, Repair, Reserve, Submit
from meshsim.engine.tools.outputs import dumps
from meshsim.engine.tools.runcase import RunOptions, case_document, prepare
from meshsim.engine.tools.scenario import (
    SCHEMA,
    Scenario,
    load_scenario,
    save_scenario,
    scenario_document,
)
from tests.conftest import DATA

MESH = str(DATA / "mesh5x4.toml")
TINY = str(DATA / "tiny.swf")
OPTIONS = RunOptions(machine=MESH, workload=TINY, backfill="easy")


def test_round_trip(tmp_path):
    scenario = Scenario(
        OPTIONS,
        (
            LoggedAction(0, Fail(2.0, "1,1", "kill")),
            LoggedAction(3, Reserve(4.0, ("0,0", 5), 30.0, start=10.0, on_job="kill")),
            LoggedAction(3, Repair(6, "1,1")),
            LoggedAction(4, Submit(7.0, size=2, runtime=3.0)),
        ),
        position=4,
        name="what if",
    )
    path = tmp_path / "s.json"
    save_scenario(path, scenario)
    assert load_scenario(path) == scenario
    data = json.loads(path.read_text())
    assert data["schema"] == SCHEMA
    assert data["options"] == {"machine": MESH, "workload": TINY, "backfill": "easy"}
    assert data["actions"][1] == {
        "action": "reserve",
        "time": 4.0,
        "block": ["0,0", 5],
        "until": 30.0,
        "start": 10.0,
        "on_job": "kill",
        "after_event": 3,
    }
    assert not (tmp_path / "s.json.part").exists()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    window=st.integers(1, 500),
    rotate=st.booleans(),
    load=st.floats(0.1, 10, allow_nan=False),
    name=st.text(max_size=20),
    position=st.integers(0, 10**6),
    times=st.lists(st.floats(0, 1e9, allow_nan=False), max_size=5),
)
def test_round_trip_property(tmp_path_factory, seed, window, rotate, load, name, position, times):
    options = RunOptions(
        machine="flat:8", seed=seed, window=window, rotate=rotate, load_factor=load
    )
    actions = tuple(LoggedAction(k, Cancel(t, job_id=k)) for k, t in enumerate(times))
    scenario = Scenario(options, actions, position, name)
    path = tmp_path_factory.mktemp("s") / "s.json"
    save_scenario(path, scenario)
    assert load_scenario(path) == scenario


def test_plain_actions_and_missing_keys_default(tmp_path):
    assert Scenario(actions=(Cancel(1, job_id=2),)).actions == (LoggedAction(0, Cancel(1, 2)),)
    path = tmp_path / "hand-made.json"
    repair = {"action": "repair", "time": 1, "unit": 3}
    path.write_text(json.dumps({"schema": SCHEMA, "actions": [repair]}))
    loaded = load_scenario(path)
    assert loaded.name == "hand-made" and loaded.position == 0
    assert loaded.options == RunOptions()
    assert loaded.actions == (LoggedAction(0, Repair(1, 3)),)


BAD = [
    ('{\n  "schema": "meshsim.scenario/1",\n  oops\n}', r"s\.json line 3: invalid JSON"),
    ('{"schema": "meshsim.result/1"}', r"s\.json key 'schema': expected one of meshsim.scenario/1"),
    ("[1, 2]", r"s\.json: expected a JSON object"),
    ('{"schema": "meshsim.scenario/1", "extra": 1}', r"s\.json key 'extra': unknown key"),
    (
        '{"schema": "meshsim.scenario/1", "options": {"machin": "x"}}',
        r"s\.json key 'options\.machin': unknown option",
    ),
    (
        '{"schema": "meshsim.scenario/1", "options": {"window": "big"}}',
        r"s\.json key 'options\.window': expected an integer, got 'big'",
    ),
    (
        '{"schema": "meshsim.scenario/1", "options": {"rotate": 1}}',
        r"s\.json key 'options\.rotate': expected true or false, got 1",
    ),
    (
        '{"schema": "meshsim.scenario/1", "actions": [{"action": "explode", "time": 1}]}',
        r"s\.json key 'actions\[0\]\.action': unknown action 'explode'",
    ),
    (
        '{"schema": "meshsim.scenario/1", "actions": [{"action": "fail", "time": 1, "x": 2}]}',
        r"s\.json key 'actions\[0\]\.x': unknown key for action 'fail'",
    ),
    (
        '{"schema": "meshsim.scenario/1", "actions": [{"action": "fail", "time": "soon"}]}',
        r"s\.json key 'actions\[0\]\.time': expected a number",
    ),
    (
        '{"schema": "meshsim.scenario/1", "actions": [{"action": "fail", "time": 1, '
        '"after_event": -1}]}',
        r"s\.json key 'actions\[0\]\.after_event': must be at least 0",
    ),
    ('{"schema": "meshsim.scenario/1", "position": -3}', r"s\.json key 'position': must be"),
    ('{"schema": "meshsim.scenario/1", "name": 5}', r"s\.json key 'name': expected a string"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_files_give_one_line_errors_naming_file_and_key(tmp_path, text, message):
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(MeshsimError, match=message) as info:
        load_scenario(path)
    assert "\n" not in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(MeshsimError, match=r"nope\.json: no such file"):
        load_scenario(tmp_path / "nope.json")


def test_scenario_document_is_case_document_with_the_name():
    actions = (Fail(1, "0,0"), Reserve(2, "3,0 2x2", 12.0))
    scenario = Scenario(OPTIONS, actions, name="maintenance")
    sim = scenario.build(recent=10, history=True)
    sim.run()
    doc = scenario_document(sim, scenario)
    assert doc["inputs"]["scenario"] == "maintenance"
    assert [a["action"] for a in doc["inputs"]["actions"]] == ["fail", "reserve"]
    plain = prepare(OPTIONS, actions=actions)
    plain.run()
    expected = case_document(plain, OPTIONS)
    expected["inputs"]["scenario"] = "maintenance"
    assert dumps(doc) == dumps(expected)


def test_console_position_and_fork_export(tmp_path):
    """The console saves a scenario from a live run mid-way (actions applied after events) and
    exports a fork run to the end; the reloaded scenario run to the end gives the same bytes."""
    sim = prepare(OPTIONS, recent=50, history=True)
    sim.run_to_event(2)
    sim.apply(Fail(sim.now, "2,0"))
    sim.run_to_event(4)
    sim.apply(Repair(sim.now + 5, "2,0"))
    scenario = Scenario.of(sim, OPTIONS, "live")
    assert scenario.position == sim.events
    export = sim.fork()
    export.run()
    path = tmp_path / "live.json"
    save_scenario(path, scenario)
    replay = load_scenario(path).build()
    replay.run()
    assert dumps(scenario_document(replay, load_scenario(path))) == dumps(
        scenario_document(export, scenario)
    )
    resumed = load_scenario(path).build(recent=50)
    resumed.run_to_event(scenario.position)
    assert resumed.snapshot().running == sim.snapshot().running
