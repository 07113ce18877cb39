"""The validation layer's data and the output writer (issue 19): the rules cover what the readers
read, limits are stated and raised by their variables, and the writer never leaves a target half
written or a temporary file behind."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.kernel.actions import ACTIONS
from meshsim.engine.rejections import REASONS, ActionRejected
from meshsim.engine.tools.experiments.reproduce import experiment_names, load_experiment
from meshsim.engine.tools.runcase import RunOptions
from meshsim.engine.tools.scenario_checks import ACTION_SECTIONS
from meshsim.engine.topology.machines import bundled_machines, load_machine
from meshsim.engine.validation.formats import formats
from meshsim.engine.validation.limits import CELLS, LIMITS
from meshsim.engine.validation.options import RUN, flag
from meshsim.engine.validation.rules import Rule, check_value
from meshsim.engine.writing import Batch, Staged, Target, check_targets


def test_every_format_lists_its_sections_as_plain_data():
    described = [f.describe() for f in formats()]
    json.dumps(described, allow_nan=False)
    names = {d["format"] for d in described}
    assert {"machine file", "workload file", "sweep spec", "scenario file", "SWF trace"} <= names
    for d in described:
        assert d["sections"], d["format"]
        for section in d["sections"]:
            for key in section["keys"]:
                assert key["type"] and isinstance(key["names"], list)


def test_run_rules_are_the_fields_of_run_options_with_their_defaults():
    defaults = RunOptions()
    assert RUN.key_list() == [flag(f.name) for f in dataclasses.fields(RunOptions)]
    for f in dataclasses.fields(RunOptions):
        assert RUN.rule(flag(f.name)).default == getattr(defaults, f.name), f.name


def test_every_action_kind_has_a_section_of_exactly_its_fields():
    assert sorted(ACTION_SECTIONS) == sorted(ACTIONS.names())
    for kind, section in ACTION_SECTIONS.items():
        fields = {f.name for f in dataclasses.fields(ACTIONS.get(kind))}
        assert set(section.key_list()) == fields | {"action", "after_event"}, kind


def test_rejection_reasons_are_checked():
    assert all(text for text in REASONS.values())
    with pytest.raises(ValueError):
        ActionRejected("bad luck", "x")


@pytest.mark.parametrize(
    ("rule", "value", "problem"),
    [
        (Rule("k", "float"), float("nan"), "must be a finite number"),
        (Rule("k", "float", above=0), 0, "must be greater than 0"),
        (Rule("k", "int", maximum=3), 4, "must be at most 3"),
        (Rule("k", "int"), True, "expected an integer, got True"),
        (Rule("k", "float list"), [1, float("inf")], "must be a finite number"),
        (Rule("k", "str", names="allocator"), "x", "unknown allocator 'x' (valid: "),
        (Rule("k", "str", choices=("a", "b")), "c", "expected one of a, b, got 'c'"),
    ],
)
def test_a_value_outside_its_rule_is_one_error_naming_where(rule, value, problem):
    with pytest.raises(MeshsimError, match=r"^f key 'k': ") as info:
        check_value(rule, value, "f key 'k'")
    assert problem in str(info.value)


def test_limits_are_read_from_their_variables(monkeypatch):
    for limit in LIMITS:
        assert limit.value() == limit.default and limit.variable.startswith("MESHSIM_MAX_")
    monkeypatch.setenv(CELLS.variable, "10")
    with pytest.raises(MeshsimError, match=r"exceeds the limit of 10 cells.*MESHSIM_MAX_CELLS"):
        load_machine("flat:11")
    monkeypatch.setenv(CELLS.variable, "lots")
    with pytest.raises(MeshsimError, match=r"MESHSIM_MAX_CELLS='lots': expected a positive"):
        load_machine("flat:4")


def test_the_default_limits_admit_every_bundled_machine_and_experiment():
    for name in bundled_machines():
        machine = load_machine(name)
        path = machine.default_workload_path()
        assert path is None or path.is_file(), name
    for name in experiment_names():
        assert load_experiment(name).spec.base is not None


def test_a_failed_batch_changes_no_target_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    (tmp_path / "a.json").write_text("old a\n")
    (tmp_path / "b.csv").write_text("old b\n")
    calls = []

    def failing_finish(self: Staged) -> None:
        calls.append(self.path)
        if len(calls) == 2:
            raise MeshsimError(f"{self.path}: cannot write (No space left on device)")
        original(self)

    original = Staged.finish
    monkeypatch.setattr(Staged, "finish", failing_finish)
    with pytest.raises(MeshsimError, match="No space left"), Batch() as batch:
        batch.write(tmp_path / "a.json", "new a\n")
        batch.folder(tmp_path / "reports" / "monthly")
        batch.write(tmp_path / "b.csv", "new b\n")
        batch.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.csv"]
    assert (tmp_path / "a.json").read_text() == "old a\n"
    assert (tmp_path / "b.csv").read_text() == "old b\n"


def test_a_committed_file_gets_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old\n")
    target.chmod(0o640)
    with Batch() as batch:
        batch.write(target, "new\n")
        batch.commit()
    assert target.read_text() == "new\n" and (os.stat(target).st_mode & 0o777) == 0o640


def test_outputs_are_checked_against_inputs_and_each_other(tmp_path: Path):
    trace = tmp_path / "t.swf"
    trace.write_text("x\n")
    with pytest.raises(MeshsimError, match=r"--out .*same file as the input"):
        check_targets([Target("--out", tmp_path / "." / "t.swf")], [trace])
    with pytest.raises(MeshsimError, match=r"--b .*the same file as --a"):
        check_targets([Target("--a", tmp_path / "r"), Target("--b", tmp_path / "x" / ".." / "r")])
    with pytest.raises(MeshsimError, match=r"--out .*same file as the input"):
        check_targets([Target("--out", tmp_path, folder=True, files=("t.swf",))], [trace])
    check_targets([Target("--out", tmp_path / "new" / "deeper", folder=True)], [trace])


def test_the_boundaries_page_states_every_limit_and_rejection_reason():
    page = (Path(__file__).resolve().parents[2] / "docs" / "boundaries.md").read_text()
    for limit in LIMITS:
        assert f"`{limit.variable}` | {limit.default:,} " in page, limit.variable
    for reason in REASONS:
        assert f"| `{reason}` |" in page, reason
