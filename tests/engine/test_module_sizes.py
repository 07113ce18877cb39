"""The size rules of the project (issue 20): no module in ``engine/`` over 600 lines, and the
``Simulation`` façade class at most 300 lines."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"

MODULE_LINES = 600
FACADE_LINES = 300


def test_no_engine_module_is_over_600_lines():
    sizes = {
        str(path.relative_to(ENGINE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in ENGINE.rglob("*.py")
    }
    assert len(sizes) > 100
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES} == {}


def test_the_simulation_facade_is_at_most_300_lines():
    tree = ast.parse((ENGINE / "kernel" / "simulation.py").read_text(encoding="utf-8"))
    (facade,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Simulation"]
    assert facade.end_lineno - facade.lineno + 1 <= FACADE_LINES
