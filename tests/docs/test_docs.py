"""The README and docs/: every example runs (tests/docs/examples.py says how each kind of block
is checked), every inline ``meshsim`` command names a real command and real options, the site
builds with ``mkdocs build --strict``, and the README stays a five-minute read."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.docs.examples import PAGES, ROOT, Block, PageRun, blocks

README = ROOT / "README.md"
README_LINES = 200


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs_and_shows_what_it_prints(page: Path, tmp_path: Path) -> None:
    run = PageRun(page, tmp_path)
    run.run()
    if run.skipped:
        pytest.skip(f"{page.name}: ran {run.ran} blocks; skipped: " + "; ".join(run.skipped))


# ---------------------------------------------------------------------- inline commands

_INLINE = re.compile(r"(?<!`)`(meshsim (?:-[-\w]+|[a-z][a-z-]*\b)[^`]*)`(?!`)")
"""An inline command: ``meshsim`` then an option or a lower-case word (``meshsim X.Y.Z`` is an
output, not a command)."""
_GROUP_OPTIONS = {"--traces": 1, "--version": 0, "-V": 0}


@cache
def help_text(*command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "meshsim", *command, "--help"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, f"meshsim {' '.join(command)} --help: {done.stderr}"
    return done.stdout


def _subcommands(help_output: str) -> set[str]:
    """The commands a ``--help`` lists in its Commands panel."""
    panel = help_output.split("Commands", 1)
    if len(panel) == 1:
        return set()
    return set(re.findall(r"^│ (\S+)\s", panel[1], re.M))


def inline_commands() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _INLINE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.relative_to(ROOT)} line {line}", match.group(1)))
    return found


@pytest.mark.parametrize(("where", "command"), inline_commands(), ids=lambda x: x)
def test_inline_command_names_a_command_and_its_options(where: str, command: str) -> None:
    """An inline ``meshsim ...`` in prose or a table: its command path exists and every
    ``--option`` it uses is one that command lists in ``--help``."""
    rest = shlex.split(command.replace("…", ""))[1:]
    while rest and rest[0].split("=")[0] in _GROUP_OPTIONS:
        option = rest.pop(0)
        if "=" not in option:
            del rest[: _GROUP_OPTIONS[option]]
    path: list[str] = []
    while rest and rest[0] in _subcommands(help_text(*path)):
        path.append(rest.pop(0))
    assert path or not rest or rest[0].startswith("-"), f"{where}: `{command}`: no such command"
    text = help_text(*path)
    for word in rest:
        if word.startswith("--"):
            option = word.split("=")[0].rstrip(",.;:)")
            listed = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)
            assert listed, f"{where}: `{command}`: {option} is not an option of it"


# ---------------------------------------------------------------------- the site


def test_mkdocs_builds_the_site_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict``: every page in the nav, every link and anchor resolves, no
    warning; the generated tables (docs/hooks) fill in."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    formats = (tmp_path / "site" / "formats" / "index.html").read_text(encoding="utf-8")
    assert "generated:" not in formats and "--load-factor" in formats


# ---------------------------------------------------------------------- the README


def test_readme_is_short_and_carries_no_clock_times_or_dates() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_LINES
    assert not re.search(r"\b\d{1,2}:\d{2}(:\d{2})? ?UTC\b", text), "a clock time"
    assert not re.search(r"\b(19|20)\d\d-\d\d-\d\d\b", text), "a date"


def _marked(note: str) -> Block:
    [block] = [b for b in blocks(README) if note in b.notes]
    return block


def test_readme_second_command_is_what_ci_runs() -> None:
    command = _marked("ci").text.strip()
    assert command.startswith("python3.11 -m venv .venv && ")
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_readme_first_command_sets_up_and_opens_the_console() -> None:
    command = _marked("fresh-clone").text.strip()
    assert command.startswith("python3.11 -m venv .venv && .venv/bin/pip install")
    assert command.endswith(".venv/bin/meshsim tui")


# ---------------------------------------------------------------------- generated tables


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("generated", ROOT / "docs/hooks/generated.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _dotted(data: dict[str, Any], prefix: str = "") -> set[str]:
    """Every key of a TOML document, dotted, arrays of tables as ``name[]``."""
    keys = set()
    for key, value in data.items():
        name = f"{prefix}{key}"
        keys.add(name)
        if isinstance(value, dict):
            keys |= _dotted(value, f"{name}.")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                keys |= _dotted(item, f"{name}[].")
    return keys


def test_machine_table_lists_every_key_of_every_bundled_machine() -> None:
    """The recorder sees every key the bundled machine files use (so none goes undocumented)."""
    shown = set(re.findall(r"^\| `([^`]+)` \|", _generator().TABLES["machine-toml"](), re.M))
    for path in sorted((ROOT / "machines").glob("*.toml")):
        missing = _dotted(tomllib.loads(path.read_text(encoding="utf-8"))) - shown
        assert not missing, f"{path.name}: {sorted(missing)} not in the machine-toml table"


def test_run_option_table_has_a_row_per_option_with_the_registries_names() -> None:
    from meshsim.engine.scheduling.disciplines import DISCIPLINES
    from meshsim.engine.tools.runcase import RunOptions

    rows = _generator().TABLES["run-options"]().splitlines()[2:]
    assert len(rows) == len(fields(RunOptions))
    [discipline] = [r for r in rows if r.startswith("| `--discipline` |")]
    assert ", ".join(DISCIPLINES.names()) in discipline


def test_an_unknown_generated_table_stops_the_build() -> None:
    with pytest.raises(ValueError, match="unknown generated table 'nope'"):
        _generator().on_page_markdown("<!-- generated: nope -->\n")


def test_reproduction_figures_are_committed_svg_of_both_machines() -> None:
    """docs/reproductions.md shows seed 002's Figs. 1 and 2 as files ``meshsim plot`` wrote (the
    page gives the commands): every figure it links exists, is SVG, and draws the torus and the
    flat machine side by side."""
    text = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
    linked = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.svg)\)", text)
    assert len(linked) == 4, linked
    for name in linked:
        figure = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert figure.lstrip().startswith("<?xml") and "<svg" in figure, name
        assert "machine=bgl" in figure and "machine=flat:128" in figure, name
