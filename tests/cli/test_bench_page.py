"""``meshsim bench --markdown FILE``: the generated benchmarks page, and the committed one."""

from pathlib import Path

from meshsim.engine.benchpage import GENERATED, Host, Measurement, render
from meshsim.engine.tools.bench import SCENARIOS
from tests.cli.test_cli import meshsim

ROOT = Path(__file__).resolve().parents[2]


def table_rows(text: str, first_cell: str) -> list[list[str]]:
    """The cells of the Markdown table whose header row starts with ``first_cell``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_cell} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_markdown_page_holds_scenario_target_figure_host_and_load(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    done = meshsim("bench", "contention-50", "--markdown", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert text.startswith(GENERATED + "\n# Benchmarks\n")
    assert f"`meshsim bench --markdown {page} contention-50`" in text
    host = dict(table_rows(text, "measured on"))
    assert set(host) == {"CPU", "cores", "Python", "commit"}
    assert host["Python"].startswith("3.") and int(host["cores"]) >= 1
    assert host["commit"] != "not a git checkout", "the tests run in a checkout"
    [row] = table_rows(text, "scenario")
    scenario, what, target, measured, load = row
    assert scenario == "`contention-50`" and target == SCENARIOS.get("contention-50").target
    assert what == SCENARIOS.get("contention-50").description
    assert measured.endswith(")") and " ms (routing " in measured
    before, after = (float(x) for x in load.split(" → "))
    assert before >= 0 and after >= 0


def test_markdown_into_a_missing_folder_is_one_error_line_and_runs_nothing(tmp_path: Path) -> None:
    page = tmp_path / "no-such-folder" / "benchmarks.md"
    done = meshsim("bench", "contention-50", "--markdown", str(page))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: --markdown {page}: the folder {page.parent} does not exist"
    ]
    assert "contention-50" not in done.stdout and not page.parent.exists()


def test_render_escapes_table_cells() -> None:
    row = Measurement("s", "a | b", "< 1 s", "2 s\nslow", 0.5, 1.25)
    text = render([row], Host("cpu", 2, "3.11.7", "abc"), "meshsim bench --markdown x.md s")
    assert "| `s` | a \\| b | < 1 s | 2 s slow | 0.50 → 1.25 |" in text


def test_committed_page_is_generated_for_every_default_scenario_and_current_targets() -> None:
    """docs/benchmarks.md is what ``meshsim bench --markdown`` wrote, for the scenarios
    ``meshsim bench`` runs by default, with their targets as registered today (a changed target
    or a new scenario means the page must be generated again)."""
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    assert text.startswith(GENERATED + "\n")
    rows = table_rows(text, "scenario")
    default = [n for n in SCENARIOS.names() if not SCENARIOS.get(n).heavy]
    assert [row[0].strip("`") for row in rows] == default
    for name, what, target, measured, _load in rows:
        scenario = SCENARIOS.get(name.strip("`"))
        assert (what, target) == (scenario.description, scenario.target)
        assert measured and not measured.startswith("skipped"), f"{name} was not measured"
    host = dict(table_rows(text, "measured on"))
    assert "uncommitted" not in host["commit"], "measure a committed tree"


def test_committed_console_page_has_every_console_scenario() -> None:
    """docs/console-benchmarks.md is what ``meshsim bench --console --markdown`` wrote: a row per
    figure, every console scenario among them."""
    from meshsim.tui.bench import CONSOLE_SCENARIOS

    text = (ROOT / "docs" / "console-benchmarks.md").read_text()
    assert text.startswith(GENERATED + "\n# Console benchmarks\n")
    measured = {row[0].strip("`") for row in table_rows(text, "scenario")}
    assert measured == set(CONSOLE_SCENARIOS.names())
    host = dict(table_rows(text, "measured on"))
    assert "uncommitted" not in host["commit"], "measure a committed tree"
