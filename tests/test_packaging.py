"""meshsim installs as one import package and works as a library beside other tools.

The package's subpackages live in the repository's top-level folders, mapped under ``meshsim``
by ``pyproject.toml`` (docs/packaging.md). These tests hold that layout to its promises: one
top-level name in the wheel, no module under two names, the package list in step with the
folders, bundled data that a user's own folders cannot shadow, registries that fill themselves,
a fast ``--version`` and ``--help``, and an import-linter contract that runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import meshsim
from tests.conftest import NASA, ROOT, require_trace

GENERIC = ("engine", "cli", "tui", "machines", "traces", "experiments")
"""The folder names that must never be importable as top-level modules of meshsim."""


def python(code: str, *, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh interpreter in ``cwd``; its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_no_module_loads_under_two_names():
    """From the repository root (where ``engine/`` etc. are importable as top-level names), the
    console, the CLI and the catalog load only as ``meshsim.*``."""
    code = (
        "import sys\n"
        "import meshsim.tui.app, meshsim.cli.main, meshsim.engine.catalog\n"
        "from meshsim.cli.main import build_app\n"
        "for name in ('run', 'tui', 'sweep', 'trace', 'machines'):\n"
        "    build_app([name])\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {GENERIC!r})\n"
        "print(','.join(bad))\n"
    )
    assert python(code, cwd=ROOT).strip() == ""


def test_the_package_list_is_the_packages_on_disk():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    on_disk = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            on_disk.add(".".join((package, *relative)))
    assert set(setuptools["packages"]) == on_disk
    assert set(mapping) == {"meshsim", *(f"meshsim.{name}" for name in GENERIC)}


def test_registries_fill_on_first_use(tmp_path):
    """A plain script needs no side-effect import before asking a registry."""
    code = (
        "from meshsim.engine.topology.machines import load_machine\n"
        "from meshsim.engine.allocation.allocator import ALLOCATORS\n"
        "print(load_machine('mesh32').name, 'mbs' in ALLOCATORS)\n"
    )
    assert python(code, cwd=tmp_path).split() == ["mesh32", "True"]


def test_version_from_one_source(tmp_path):
    from importlib.metadata import version

    assert version("meshsim") == meshsim.__version__
    for flag in ("--version", "-V"):
        done = subprocess.run(
            [sys.executable, "-m", "meshsim", flag], capture_output=True, text=True, cwd=tmp_path
        )
        assert done.returncode == 0
        assert done.stdout == f"meshsim {meshsim.__version__}\n"


def test_help_and_version_import_neither_numpy_nor_textual(tmp_path):
    """``--help`` lists every command from its summary without importing the command modules."""
    code = (
        "import sys\n"
        "from meshsim.cli.main import main\n"
        "for argv in (['--version'], ['--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "top = {m.split('.')[0] for m in sys.modules}\n"
        "heavy = sorted(top & {'numpy', 'textual', 'simpy'})\n"
        "print('heavy:', ','.join(heavy))\n"
    )
    text = python(code, cwd=tmp_path)
    assert "heavy: \n" in text
    from meshsim.cli.main import COMMANDS

    for name in COMMANDS:
        assert f" {name} " in text


@pytest.mark.parametrize("name", sorted(__import__("meshsim.cli.main").cli.main.COMMANDS))
def test_help_summaries_are_the_commands_own(name):
    """The summary ``meshsim --help`` shows is the first paragraph of the command's own help."""
    import typer

    from meshsim.cli.main import COMMANDS, build_app

    command = typer.main.get_group(build_app([name])).get_command(None, name)
    first = " ".join((command.help or "").strip().split("\n\n")[0].split())
    assert COMMANDS[name].summary == first


def test_traces_search_path(tmp_path):
    """``trace:NAME`` is found through ``--traces`` or ``MESHSIM_TRACES`` and nowhere else: not
    beside the installation, even where ``../shared/traces`` exists."""
    nasa = require_trace(NASA)
    env = {k: v for k, v in os.environ.items() if k != "MESHSIM_TRACES"}
    env["MESHSIM_CACHE"] = str(tmp_path / "cache")
    base = [sys.executable, "-m", "meshsim"]
    run = ["run", "--machine", "flat:128", "--workload", f"trace:{nasa.name}", "--quiet"]
    missing = subprocess.run([*base, *run], capture_output=True, text=True, env=env)
    assert missing.returncode == 1
    assert missing.stderr.startswith(f"error: trace '{nasa.name}' not found")
    found = subprocess.run(
        [*base, "--traces", str(nasa.parent), *run], capture_output=True, text=True, env=env
    )
    assert found.returncode == 0, found.stderr
    by_env = subprocess.run(
        [*base, *run],
        capture_output=True,
        text=True,
        env={**env, "MESHSIM_TRACES": str(nasa.parent)},
    )
    assert by_env.returncode == 0, by_env.stderr


def _shadowing_project(folder: Path) -> Path:
    """A research project with its own ``cli``, ``machines``, ``experiments`` and ``engine``
    packages (and a ``machines/intrepid.toml`` of its own), as a user's working folder."""
    for name in ("cli", "machines", "experiments", "engine", "traces"):
        package = folder / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("raise ImportError('the user package was imported')\n")
    (folder / "cli" / "main.py").write_text("raise SystemExit('the user cli ran')\n")
    (folder / "machines" / "intrepid.toml").write_text("not toml at all [[[\n")
    return folder


def test_a_users_own_packages_shadow_nothing(tmp_path):
    """In a folder holding its own ``cli/``, ``machines/`` and ``experiments/`` packages, the
    command, ``python -m meshsim`` and the library all use meshsim's own, and the library's
    metrics equal the command's result JSON."""
    nasa = require_trace(NASA)
    project = _shadowing_project(tmp_path / "project")
    script = Path(sys.executable).parent / "meshsim"
    out = project / "r.json"
    options = ["--machine", "flat:128", "--workload", str(nasa), "--backfill", "easy"]
    done = subprocess.run(
        [str(script), "run", *options, "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    intrepid = subprocess.run(
        [sys.executable, "-m", "meshsim", "run", "--machine", "intrepid", "--quiet"],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert intrepid.returncode == 0, intrepid.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "meshsim", "reproduce", "--list"],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert listed.returncode == 0 and "krevat2002-fig1" in listed.stdout, listed.stderr
    code = (
        "import json, meshsim\n"
        f"r = meshsim.run(machine='flat:128', workload={str(nasa)!r}, backfill='easy')\n"
        "print(json.dumps(r.metrics))\n"
    )
    api = json.loads(python(code, cwd=project))
    assert api == json.loads(out.read_text())["metrics"]


UNBUILT = (
    ".git",
    ".venv*",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
)
"""What a copy of the checkout for a build leaves out: version control, environments, caches and
earlier builds."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel .`` builds from a copy of this checkout (a build writes ``build/``
    and ``*.egg-info`` beside its sources; the checkout is left as it was)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source") / "meshsim"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*UNBUILT))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (built,) = folder.glob("meshsim-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_holds_meshsim_alone(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {
        "meshsim",
        f"meshsim-{meshsim.__version__}.dist-info",
    }
    for data in (
        "meshsim/py.typed",
        "meshsim/__main__.py",
        "meshsim/machines/intrepid.toml",
        "meshsim/traces/intrepid-month.toml",
        "meshsim/experiments/workloads/mache-io.toml",
        "meshsim/tui/app.tcss",
    ):
        assert data in names


LAYERS_SMOKE = """
[importlinter]
root_packages =
    meshsim
include_external_packages = True
exclude_type_checking_imports = True

[importlinter:contract:front-ends-above-the-engine]
name = The console and the command line sit above the engine
type = layers
containers =
    meshsim
layers =
    cli
    tui
    engine
"""
"""A layers contract over ``meshsim.engine``, ``meshsim.tui`` and ``meshsim.cli``: the command
line may open the console, and neither is imported by the engine."""


@pytest.mark.slow
def test_an_import_linter_contract_runs(wheel, tmp_path):
    """import-linter (grimp) walks only the folder of a root package's ``__init__.py`` and takes
    no subpackage as a root, so the contract runs against the wheel installed in a temporary
    folder, where ``meshsim/`` holds every subpackage (docs/packaging.md)."""
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    config = tmp_path / "layers.ini"
    config.write_text(LAYERS_SMOKE)
    lint = Path(sys.executable).parent / "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [str(lint), str(config), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout
