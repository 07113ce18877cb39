"""Metrics: sparklines of utilization, queue length and loss of capacity over simulated time, with
their time axis, current value, minimum and maximum; then every metric by the name and in the unit
``meshsim run``'s summary uses (:data:`~meshsim.engine.kernel.metrics.METRIC_INFO`): the running
figures of the run so far, and the result's metrics over the jobs finished so far.

The pane scrolls (focus it with ``tab``, then the arrow keys), so every value is reachable however
small the terminal."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Label, Sparkline, Static

from meshsim.engine.kernel.metrics import SUMMARY, metric_info, metric_text
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.kernel.series import SeriesView
from meshsim.tui.format import clock, duration

SERIES = (("utilization", "utilization"), ("queue", "queue length"), ("loc", "loss of capacity"))


def series_value(key: str, value: float) -> str:
    """A point of a series: a share as a percentage, the queue in jobs."""
    return f"{value:.1f} jobs" if key == "queue" else f"{value:.1%}"


def series_title(key: str, title: str, data: list[float]) -> str:
    """A sparkline's label: its name, the last bucket's value, and the smallest and largest."""
    if not data:
        return title
    last = series_value(key, data[-1])
    low, high = (series_value(key, v).removesuffix(" jobs") for v in (min(data), max(data)))
    return f"{title}  {last} now · range {low} – {high}"


def axis_text(series: SeriesView | None, now: float, width: int) -> str:
    """The sparklines' time axis: the first bucket's time at the left, now at the right, and how
    long one bucket lasts between them."""
    if series is None or not len(series.times):
        return ""
    start = clock(float(series.times[0]))
    step = float(series.times[1] - series.times[0]) if len(series.times) > 1 else 0.0
    middle = f" 1 bar ≥ {duration(step)} " if step else " "
    end = clock(now)
    gap = max(1, width - len(start) - len(end) - len(middle))
    return start + "─" * (gap // 2) + middle + "─" * (gap - gap // 2) + end


class MetricsPane(VerticalScroll):
    """Three sparklines over the run so far, their axis, and a list of current values.

    An update lays the screen out again only when the number of values changes (a layout pass per
    frame would cost every pane a redraw); the values are one aligned text, which draws several
    times faster than a table."""

    DEFAULT_CSS = """
    MetricsPane { height: 1fr; }
    MetricsPane Sparkline { height: 2; margin: 0 0 0 0; }
    MetricsPane Label { color: $text-muted; width: 1fr; }
    MetricsPane #metric-values { height: auto; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows = -1
        self._axis: tuple[SeriesView | None, float] = (None, 0.0)

    def compose(self) -> ComposeResult:
        for key, title in SERIES:
            yield Label(title, id=f"label-{key}")
            yield Sparkline([], id=f"spark-{key}", summary_function=max)
        yield Label("", id="series-axis")
        yield Static(id="metric-values")

    def show(self, snapshot: Snapshot, results: dict[str, float | int] | None) -> None:
        """Render the series and values of ``snapshot`` (``results``: the result metrics)."""
        series = snapshot.series
        for key, title in SERIES:
            data = [] if series is None else getattr(series, key).tolist()
            self.query_one(f"#spark-{key}", Sparkline).data = data
            label = self.query_one(f"#label-{key}", Label)
            label.update(series_title(key, title, data), layout=False)
        self._axis = (series, snapshot.time)
        self._show_axis()
        rows: list[tuple[str, str]] = [("", "the run so far")]
        rows += [(metric_info(k).label, metric_text(k, v)) for k, v in snapshot.metrics.items()]
        if results:
            rows.append(("", "jobs finished so far (as meshsim run's summary)"))
            keys = [k for k in SUMMARY if k in results]
            keys += [k for k in results if k not in SUMMARY]
            rows += [(metric_info(k).label, metric_text(k, results[k])) for k in keys]
        name_width = max(len(name) for name, _ in rows) + 2
        value_width = max(len(value) for name, value in rows if name)
        text = Text(no_wrap=True)
        for k, (name, value) in enumerate(rows):
            text.append("\n" if k else "")
            if not name:
                text.append(value, style="bold")
                continue
            text.append(name.ljust(name_width), style="dim")
            text.append(value.rjust(value_width))
        values = self.query_one("#metric-values", Static)
        values.update(text, layout=len(rows) != self._rows)
        self._rows = len(rows)

    def _show_axis(self) -> None:
        series, now = self._axis
        axis = self.query_one("#series-axis", Label)
        axis.update(axis_text(series, now, self.scrollable_content_region.width), layout=False)

    def on_resize(self) -> None:
        self._show_axis()
