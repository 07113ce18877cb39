"""Issue 22, item 5: the queue's keys in the console — ``o``/``O`` sort by any column, ``/``
filters (the pane's title shows it), ``U`` shows the totals per user."""

from __future__ import annotations

from meshsim.engine.tools.runcase import RunOptions
from meshsim.tui.app import make_app
from meshsim.tui.screens.form import FormScreen
from meshsim.tui.widgets.queue_list import QueueList

from .test_app import fill, until

SMALL = (100, 30)


def text(queue: QueueList) -> list[str]:
    return ["".join(s.text for s in queue.render_line(y)) for y in range(queue.size.height)]


async def test_sort_filter_and_user_totals_from_the_keyboard() -> None:
    app = make_app(RunOptions(), event=3000)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.frame is not None)
        queue = app.query_one(QueueList)
        queue.focus()
        await pilot.press("o", "o", "o")
        await pilot.pause(0.2)
        assert queue.sort == "size" and "size▲" in text(queue)[0]
        sizes = [job.size for job in queue._jobs]
        assert sizes == sorted(sizes)
        await pilot.press("O")
        await pilot.pause(0.2)
        assert "size▼" in text(queue)[0] and "by size ▼" in queue.border_title
        await pilot.press("slash")
        await fill(pilot, app, {"filter": "colour=red"})
        await pilot.pause()
        assert "unknown field 'colour'" in str(app.screen.query_one("#form-error").render())
        await pilot.press("escape")
        user = app.frame.snapshot.waiting[0].user
        await pilot.press("slash")
        await fill(pilot, app, {"filter": f"user={user}"})
        await until(pilot, lambda: not isinstance(app.screen, FormScreen))
        assert f"filter user={user}" in queue.border_title
        assert {job.user for job in queue._jobs} == {user}
        await pilot.press("U")
        await pilot.pause(0.2)
        lines = text(queue)
        assert lines[0].split() == ["user", "waiting", "nodes", "held", "running", "nodes"]
        assert len(lines[1].split()) == 6
