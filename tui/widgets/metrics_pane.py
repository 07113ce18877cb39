"""Metrics: sparklines of utilization, queue length and loss of capacity over simulated time, and
the current value of every metric (the running capacity figures, and the result JSON's metrics over
the jobs finished so far)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Sparkline, Static

from meshsim.engine.kernel.records import Snapshot
from meshsim.tui.format import number

SERIES = (("utilization", "utilization"), ("queue", "queue length"), ("loc", "loss of capacity"))


class MetricsPane(Vertical):
    """Three sparklines over the run so far and a table of current values.

    Panes are fixed in size, so an update lays the screen out again only when the number of values
    changes (a layout pass per frame would cost every pane a redraw); the values are one aligned
    text, which draws several times faster than a table."""

    DEFAULT_CSS = """
    MetricsPane { height: 1fr; }
    MetricsPane Sparkline { height: 2; margin: 0 0 0 0; }
    MetricsPane Label { color: $text-muted; width: 1fr; }
    MetricsPane #metric-values { height: 1fr; overflow-y: auto; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows = -1

    def compose(self) -> ComposeResult:
        for key, title in SERIES:
            yield Label(title, id=f"label-{key}")
            yield Sparkline([], id=f"spark-{key}", summary_function=max)
        yield Static(id="metric-values")

    def show(self, snapshot: Snapshot, results: dict[str, float | int] | None) -> None:
        """Render the series and values of ``snapshot`` (``results``: the result metrics)."""
        series = snapshot.series
        for key, title in SERIES:
            data = [] if series is None else getattr(series, key).tolist()
            self.query_one(f"#spark-{key}", Sparkline).data = data
            last = data[-1] if data else 0.0
            shown = f"{last:.1%}" if key != "queue" else f"{last:.1f} jobs"
            label = self.query_one(f"#label-{key}", Label)
            label.update(f"{title}  {shown} (last bucket)", layout=False)
        rows = [(key, number(value)) for key, value in snapshot.metrics.items()]
        rows += [(k, number(v)) for k, v in (results or {}).items() if k not in snapshot.metrics]
        name_width = max((len(key) for key, _ in rows), default=0) + 2
        value_width = max((len(value) for _, value in rows), default=0)
        text = Text(no_wrap=True)
        for k, (key, value) in enumerate(rows):
            text.append(("\n" if k else "") + key.ljust(name_width), style="dim")
            text.append(value.rjust(value_width))
        values = self.query_one("#metric-values", Static)
        values.update(text, layout=len(rows) != self._rows)
        self._rows = len(rows)
