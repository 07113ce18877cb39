"""``meshsim contention`` (cli/contention.py) on a bare Typer app."""

import json

import pytest
import typer
from typer.testing import CliRunner

from meshsim.cli.contention import register
from meshsim.engine.core.errors import MeshsimError

app = typer.Typer()
register(app)


@app.command("noop")
def _noop() -> None:
    """A second command, so Typer keeps ``contention`` as a named subcommand."""


def run(*args: str):
    return CliRunner().invoke(app, ["contention", *args])


def test_json_reproduces_table5_row() -> None:
    r = run(
        "--mesh",
        "16",
        "--layout",
        "block-corner",
        "--size",
        "16",
        "--io-nodes",
        "16",
        "--traffic",
        "write",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["max_contention"] == 192
    assert out["hotspot"] == {"from": [-1, 3], "to": [-1, 4], "direction": "+y"}
    assert out["throughput_mb_s"] == pytest.approx(16 * 16 * 380 / 192)
    assert "link_contention" not in out


def test_json_with_matrix() -> None:
    r = run("--mesh", "4", "--layout", "parallel", "--json", "--matrix")
    out = json.loads(r.output)
    assert out["max_contention"] == 4
    assert out["link_contention"]["-x"] == [[4, 0, 0, 0]] * 4


def test_text_output() -> None:
    r = run("--mesh", "2", "--layout", "orthogonal", "--link-mb-s", "64", "--io-node-mb-s", "64")
    assert r.exit_code == 0
    assert "max_contention  4" in r.output
    assert "hotspot         (0,0)->(-1,0) [-x]" in r.output
    assert "throughput      64.0 MB/s (limited by the network)" in r.output
    assert "-x (westbound) links" in r.output
    quiet = run("--mesh", "2", "--layout", "orthogonal", "--no-matrix")
    assert "links:" not in quiet.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--layout", "zigzag"], "--layout: unknown spatial layout 'zigzag'"),
        (["--layout", "parallel", "--traffic", "append"], "--traffic: expected one of write"),
        (["--layout", "parallel", "--mesh", "4", "--size", "17"], "--size: must lie in 1..16"),
        (["--layout", "parallel", "--mesh", "4", "--io-nodes", "5"], "--io-nodes: must lie"),
        (["--layout", "parallel", "--mesh", "0"], "--mesh: must be at least 1"),
        (["--layout", "parallel", "--link-mb-s", "nan"], "--link-mb-s: must be a finite number"),
        (["--layout", "parallel", "--mesh", "100000"], "exceeds the limit of 1,048,576 cells"),
    ],
)
def test_bad_input_is_a_meshsim_error(args: list[str], message: str) -> None:
    r = run(*args)
    assert isinstance(r.exception, MeshsimError)
    assert message in str(r.exception)
