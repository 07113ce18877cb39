"""The figures of a run against its log (engine/recorded_figures.py) and their text rendering."""

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.recorded_figures import queue_bars, recorded_section, wait_scatter
from meshsim.engine.tools.experiments.figures import BarChart
from meshsim.engine.tools.experiments.textplot import render, render_bars


def test_bars_are_proportional_and_labelled():
    chart = BarChart("b", "t", "hours", ("qa", "qb"), ("rec", "sim"), ((2.0, 1.0), (4.0, 0.0)))
    lines = render_bars(chart, width=41).splitlines()  # bars of up to 24 characters
    assert lines[0] == "t" and lines[1].split() == ["hours"]
    assert lines[2].startswith("qa rec ") and lines[4].startswith("qb rec ")
    full, half = lines[3].count("■"), lines[2].count("●")
    assert (full, half) == (24, 12)
    assert lines[2].endswith(" 2") and lines[5].endswith(" 0") and "■" not in lines[5]


def test_queue_bars_from_the_recorded_section():
    fit = {"jobs": 2, "mean_recorded_wait_s": 3600.0, "mean_simulated_wait_s": 7200.0}
    empty = {"jobs": 0, "mean_recorded_wait_s": None, "mean_simulated_wait_s": None}
    section = recorded_section(
        {"recorded": {"compared": True, "by_queue": {"a": fit, "b": empty}}}, "r.json"
    )
    chart = queue_bars(section)
    assert chart.categories == ("a",) and chart.values == ((1.0,), (2.0,))
    with pytest.raises(MeshsimError, match=r"r\.json: no recorded schedule to draw: why"):
        recorded_section({"recorded": {"compared": False, "reason": "why"}}, "r.json")


def test_the_scatter_floors_short_waits_and_counts_what_it_leaves_out(tmp_path):
    jobs = tmp_path / "j.csv"
    jobs.write_text(
        "job_id,submit,start,end,size,allocated,wait,bsld,location,recorded_start\n"
        "1,0,0,10,1,1,0,1,x,100\n"
        "2,0,50,60,1,1,50,1,x,\n"
        "3,10,1010,1020,1,1,1000,1,x,20\n"
    )
    figure = wait_scatter(jobs)
    assert figure.title.startswith("recorded against simulated wait: 2 jobs (1 with a wait under")
    assert "1 without a recorded start not drawn" in figure.title
    points = figure.series[0]
    assert points.scatter and points.x == (100.0, 10.0) and points.y == (1.0, 1000.0)
    text = render(figure, width=60)
    assert "(log scale)" in text and "points per character" in text
    jobs.write_text("job_id,submit,wait\n1,0,0\n")
    with pytest.raises(MeshsimError, match="no recorded_start column"):
        wait_scatter(jobs)
