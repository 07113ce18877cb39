"""The import layers of docs/architecture.md hold: the contracts in ``pyproject.toml``
(``[tool.importlinter]``), checked by import-linter on the installed package.

The contracts' root packages are ``meshsim.engine``, ``meshsim.cli`` and ``meshsim.tui``: grimp
walks only the folder of a root package's ``__init__.py``, and those subpackages live in folders of
their own (``engine/``, ``cli/``, ``tui/``), not under ``meshsim/``. grimp 3 refuses a subpackage of
a regular package as a root (``NotATopLevelModule``); the check runs in a child interpreter that
lifts that refusal, and nothing else changes in how import-linter builds the graph."""

import subprocess
import sys

from tests.conftest import ROOT

_LINT = """
import sys
from grimp.adaptors.packagefinder import ImportLibPackageFinder
from importlinter.cli import lint_imports

ImportLibPackageFinder._has_a_non_namespace_parent = lambda finder, spec: False
sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))
"""


def test_the_import_layers_hold():
    done = subprocess.run(
        [sys.executable, "-c", _LINT, str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    report = done.stdout.split("Contracts", 1)[-1]
    assert done.returncode == 0, report
    assert "2 kept, 0 broken" in report
