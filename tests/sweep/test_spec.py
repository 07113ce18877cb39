"""Sweep specs: expansion order, variants, exclusions, replications, workload overrides, option
introspection and the one-line errors of bad specs."""

from pathlib import Path

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.tools.experiments.plan import plan_cases, toml_value
from meshsim.engine.tools.experiments.spec import expand, load_spec, varying_keys
from tests.sweep.helpers import TINY, run_schema, write


def test_grid_is_a_cartesian_product_last_key_fastest(tmp_path):
    spec = load_spec(
        write(
            tmp_path / "s.toml",
            '[base]\nmachine = "flat:4"\n[grid]\nbackfill = ["none", "easy"]\nseed = [1, 2, 3]\n',
        )
    )
    cases = expand(spec)
    assert [(c.as_dict()["backfill"], c.as_dict()["seed"]) for c in cases] == [
        ("none", 1), ("none", 2), ("none", 3), ("easy", 1), ("easy", 2), ("easy", 3),
    ]  # fmt: skip
    assert varying_keys(cases) == ["backfill", "seed"]
    assert len({c.case_id for c in cases}) == 6
    assert expand(spec)[0].case_id == cases[0].case_id  # ids are stable


def test_variants_cross_the_grid_and_exclusions_drop_cases(tmp_path):
    text = """
[sweep]
replications = 2
[base]
machine = "flat:4"
[grid]
load_factor = [1.0, 2.0]
[[variant]]
discipline = "fcfs"
[[variant]]
discipline = "window"
window = 10
[[exclude]]
discipline = "window"
load-factor = [2]
"""
    cases = expand(load_spec(write(tmp_path / "s.toml", text)))
    got = [
        (c.as_dict()["discipline"], c.as_dict()["load-factor"], c.as_dict()["seed"]) for c in cases
    ]
    assert got == [
        ("fcfs", 1.0, 1), ("fcfs", 1.0, 2), ("fcfs", 2.0, 1), ("fcfs", 2.0, 2),
        ("window", 1.0, 1), ("window", 1.0, 2),
    ]  # fmt: skip
    assert varying_keys(cases) == ["discipline", "load-factor", "seed", "window"]


def test_workload_subtable_becomes_override_keys_and_derived_files(tmp_path):
    write(tmp_path / "w.toml", '[workload]\nkind = "flat-poisson"\njobs = 50\nload = 0.5\n')
    text = '[base]\nmachine = "flat:8"\nworkload = "w.toml"\n[grid.workload]\nload = [0.5, 0.9]\n'
    spec = load_spec(write(tmp_path / "s.toml", text))
    cases = expand(spec)
    assert [c.as_dict()["workload.load"] for c in cases] == [0.5, 0.9]
    planned = plan_cases(spec, cases, run_schema(), tmp_path / "derived")
    paths = [dict(p.task.options)["workload"] for p in planned]
    assert paths[0] != paths[1]
    derived = Path(paths[1]).read_text()
    assert "load = 0.9" in derived and "jobs = 50" in derived
    assert planned[0].input_hash != planned[1].input_hash


def test_paths_are_relative_to_the_spec_and_hashed_by_content(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "t.swf", TINY.read_text())
    spec = load_spec(
        write(tmp_path / "sub" / "s.toml", '[base]\nmachine = "flat:4"\nworkload = "t.swf"\n')
    )
    first = plan_cases(spec, expand(spec), run_schema(), tmp_path / "d")[0]
    assert dict(first.task.options)["workload"] == str(tmp_path / "sub" / "t.swf")
    moved = tmp_path / "elsewhere"
    (tmp_path / "sub").rename(moved)
    spec2 = load_spec(moved / "s.toml")
    again = plan_cases(spec2, expand(spec2), run_schema(), tmp_path / "d")[0]
    assert again.input_hash == first.input_hash  # moving the inputs keeps the hash
    write(moved / "t.swf", TINY.read_text() + "4 9 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n")
    changed = plan_cases(spec2, expand(spec2), run_schema(), tmp_path / "d")[0]
    assert changed.input_hash != first.input_hash  # one more byte changes it


def test_schema_is_introspected_from_meshsim_run():
    schema = run_schema()
    keys = schema.keys()
    for key in ("machine", "workload", "queue", "discipline", "backfill", "alloc", "window",
                "bound", "rotate", "migrate", "procs-per-unit", "load-factor", "runtime-scale",
                "seed", "lenient"):  # fmt: skip
        assert key in keys
    for owned in ("out", "jobs-out", "events-out", "swf-out", "quiet"):
        assert owned not in keys
    assert schema.get("load_factor").kind == "float"
    assert schema.get("procs-per-unit").kind == "int"
    assert schema.get("rotate").kind == "bool"
    assert schema.get("procs-per-unit").param == "procs_per_unit"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[grid]\nsharpness = ["high"]\n', "'sharpness' is not an option of meshsim run"),
        ('[grid]\nalloc = ["quantum"]\n', "unknown allocator 'quantum' (valid: "),
        ('[base]\nseed = "one"\n', "key 'seed': expected an integer, got 'one'"),
        ("[base]\nseed = [1, 2]\n", "expected one value (lists belong in [grid])"),
        ("[grid]\nseed = []\n", "key 'grid.seed': expected a non-empty list"),
        ("[grid]\nseed = [1, 1]\n", "are the same case"),
        ('[base]\nworkload = "absent.swf"\n', "absent.swf: no such file"),
        ("[grid]\nseed = [1]\n[[exclude]]\nseed = 1\n", "the spec has no cases"),
        ("[sweep]\nreplications = 2\n[grid]\nseed = [1]\n", "grid already lists 'seed'"),
        ("[sweep]\nworkers = 2\n", "key 'sweep.workers': unknown key"),
        ("[basis]\nseed = 1\n", "key 'basis': unknown key"),
        ('[base]\n"workload.load" = 0.5\n', "needs a workload .toml file"),
    ],
)
def test_bad_specs_name_the_file_and_key(tmp_path, text, message):
    path = write(tmp_path / "bad.toml", text)
    with pytest.raises(MeshsimError, match=None) as info:
        spec = load_spec(path)
        plan_cases(spec, expand(spec), run_schema(), tmp_path / "d")
    assert message in str(info.value)
    assert "bad.toml" in str(info.value)


def test_toml_values_round_trip():
    import tomllib

    values = {"a": 1, "b": 2.5, "c": 'x"y', "d": [0.4, 0.2], "e": True, "f": {"g": "h"}}
    text = "\n".join(f"{k} = {toml_value(v)}" for k, v in values.items())
    assert tomllib.loads(text) == values


def test_compare_where_keeps_workload_parameter_names():
    from meshsim.engine.tools.experiments.reproduce import load_experiment

    first = load_experiment("mache1999-table9").comparisons[0]
    assert set(first.where) == {"alloc", "workload.io_share"}
    krevat = load_experiment("krevat2002-fig1a").comparisons[0]
    assert "machine" in krevat.where
    fig2 = [
        c for c in load_experiment("krevat2002-fig1b").comparisons if "runtime-scale" in c.where
    ]
    assert fig2 and all(c.where["runtime-scale"] == (1.0,) for c in fig2)
