"""The machine map: layouts per topology, unit names, cursor keys and messages, SVG snapshots."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest
from textual.app import App, ComposeResult

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.core.policy import Policy
from meshsim.engine.kernel.records import Snapshot
from meshsim.engine.kernel.simulation import Simulation
from meshsim.engine.tools.runcase import RunOptions, load_inputs
from meshsim.engine.topology.machines import Machine, load_machine
from meshsim.engine.topology.units import unit_count
from meshsim.engine.workloads.workload import from_columns
from meshsim.tui.widgets.machine_map import MachineMap, unit_label
from meshsim.tui.widgets.map_layout import FLAT_SLOTS, Span, Text, build_layout, slot_owners

MACHINES = ["mesh32", "bgl", "intrepid", "ipsc860", "tflops", "paragon-sdsc", "flat:64"]


@cache
def machine(name: str) -> Machine:
    return load_machine(name)


@cache
def snapshot(name: str, steps: int) -> Snapshot:
    """A deterministic snapshot: ``steps`` events of the machine's default workload (seed 1); bgl,
    which has none, gets a fixed random workload on first-fit."""
    if name == "bgl":
        m = machine("bgl")
        rng = np.random.default_rng(1)
        n = 400
        jobs = from_columns(
            "bgl-test",
            submit=np.sort(rng.uniform(0, 3600, n)),
            size=rng.choice([1, 2, 4, 8, 16, 32], n),
            runtime=rng.uniform(600, 7200, n),
        )
        sim = Simulation(m, jobs, Policy.for_machine(m, allocator="first-fit"), 1, recent=50)
    else:
        opts = RunOptions(machine=name, seed=1)
        m, jobs = load_inputs(opts)
        sim = Simulation(m, jobs, opts.policy(m), opts.seed, recent=50)
    for _ in range(steps):
        sim.step()
    return sim.snapshot()


class Host(App[None]):
    """Mounts only the map and shows one snapshot; keeps the messages it posts."""

    def __init__(self, snap: Snapshot, cursor: int = 0) -> None:
        super().__init__()
        self.snap = snap
        self.start = cursor
        self.moved: list[int] = []
        self.selected: list[int] = []

    def compose(self) -> ComposeResult:
        yield MachineMap()

    def on_mount(self) -> None:
        game_map = self.query_one(MachineMap)
        game_map.show(self.snap)
        game_map.cursor = self.start

    def on_machine_map_cursor_moved(self, message: MachineMap.CursorMoved) -> None:
        self.moved.append(message.cell)

    def on_machine_map_unit_selected(self, message: MachineMap.UnitSelected) -> None:
        self.selected.append(message.cell)


# --------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("name", MACHINES)
@pytest.mark.parametrize("width", [38, 80, 160])
def test_every_unit_has_one_place_and_is_found_there(name: str, width: int) -> None:
    m = machine(name)
    layout = build_layout(m, width)
    assert layout.slots == min(unit_count(m), FLAT_SLOTS)
    positions = {(int(r), int(c)) for r, c in layout.where}
    assert len(positions) == layout.slots, "two units drawn at one place"
    for slot, (row, col) in enumerate(layout.where):
        assert layout.slot_at(int(row), int(col) + layout.cell_width - 1) == slot
    assert layout.slot_at(len(layout.rows) + 5, 0) is None


def test_mesh_is_drawn_x_across_y_down_like_machines_show() -> None:
    m = machine("mesh32")
    layout = build_layout(m, 38)
    assert layout.cell_width == 1
    origin = layout.where[m.spec.cell((0, 0))]
    assert tuple(layout.where[m.spec.cell((5, 0))]) == (origin[0], origin[1] + 5)
    assert tuple(layout.where[m.spec.cell((0, 7))]) == (origin[0] + 7, origin[1])
    assert layout.width <= 38
    wide = build_layout(m, 80)
    assert wide.cell_width == 2, "two columns per node when the mesh fits"
    x_ticks = wide.rows[0][0].text
    assert x_ticks.split() == ["0", "4", "8", "12", "16", "20", "24", "28"]


def test_3d_torus_planes_side_by_side_then_in_bands() -> None:
    m = machine("bgl")
    wide = build_layout(m, 200)
    row0 = wide.where[m.spec.cell((0, 0, 0))]
    row7 = wide.where[m.spec.cell((0, 0, 7))]
    assert row0[0] == row7[0] and row7[1] > row0[1], "all eight z-planes on one band"
    narrow = build_layout(m, 38)
    assert narrow.width <= 38
    assert narrow.where[m.spec.cell((0, 0, 7))][0] > narrow.where[m.spec.cell((0, 0, 0))][0]
    assert "┆" in "".join(i.text for i in narrow.rows[1] if isinstance(i, Text)), "wrap marks"


def test_intrepid_racks_hold_m1_over_m0_in_rows_of_eight() -> None:
    m = machine("intrepid")
    layout = build_layout(m, 38)
    names = list(m.spec.names)
    assert unit_label(m, 0) == "R00-M0" == names[0]
    m0, m1 = layout.where[names.index("R00-M0")], layout.where[names.index("R00-M1")]
    assert (m1[0] + 1, m1[1]) == (m0[0], m0[1]), "M1 directly above M0"
    r07 = layout.where[names.index("R07-M0")]
    assert r07[0] == m0[0] and r07[1] == m0[1] + 7 * 4
    r10 = layout.where[names.index("R10-M1")]
    assert r10[0] > m0[0] and r10[1] == m0[1], "machine row 1 below row 0"
    assert layout.width <= 38


def test_io_column_on_the_west_and_nqs_sets_on_the_east() -> None:
    io = build_layout(machine("tflops"), 80)
    marks = [i.text for row in io.rows for i in row if isinstance(i, Text) and i.role == "io"]
    assert marks.count("I ") == 32
    nqs = build_layout(machine("paragon-sdsc"), 80)
    labels = [i.text for row in nqs.rows for i in row if isinstance(i, Text) and i.role == "label"]
    assert any("16MB" in t for t in labels) and any("interactive" in t for t in labels)


def test_unit_labels_per_topology() -> None:
    assert unit_label(machine("mesh32"), machine("mesh32").spec.cell((3, 4))) == "(3,4)"
    assert unit_label(machine("bgl"), 1) == "(0,0,1)"
    assert unit_label(machine("intrepid"), 1) == "R00-M1"
    assert unit_label(machine("flat:64"), 5) == "node 5"


def test_a_large_flat_machine_is_drawn_in_buckets() -> None:
    m = load_machine("flat:100000")
    layout = build_layout(m, 80)
    assert layout.slots == FLAT_SLOTS
    for slot in (0, 1, 17, FLAT_SLOTS - 1):
        assert layout.slot_of(layout.unit_of(slot)) == slot
    assert layout.slot_of(layout.unit_of(17) + 1) == 17


def test_flat_owners_fill_nodes_in_running_order() -> None:
    snap = snapshot("ipsc860", 900)
    layout = build_layout(snap.machine, 40)
    owners = slot_owners(snap, layout)
    held = sum(r.placement.nodes for r in snap.running)
    assert int(np.count_nonzero(owners >= 0)) == held
    first = snap.running[0]
    assert (owners[: first.placement.nodes] == first.job.index).all()
    assert owners[held:].tolist() == [FREE] * (len(owners) - held)


def test_grid_spans_hold_rows_of_cells() -> None:
    m = machine("mesh32")
    layout = build_layout(m, 38)
    spans = [i for i in layout.rows[1] if isinstance(i, Span)]
    assert spans[0].slots.tolist() == [m.spec.cell((x, 0)) for x in range(32)]


# --------------------------------------------------------------------------- keys and messages


async def test_cursor_keys_move_on_screen_and_post_messages() -> None:
    snap = snapshot("mesh32", 700)
    cell = snap.machine.spec.cell
    app = Host(snap)
    async with app.run_test(size=(60, 40)) as pilot:
        game_map = app.query_one(MachineMap)
        game_map.focus()
        await pilot.press("right", "l", "down", "j")
        assert game_map.cursor == cell((2, 2))
        await pilot.press("up", "k", "left", "h", "left", "k")
        assert game_map.cursor == cell((0, 0)), "clamped at the edges"
        await pilot.press("enter")
        await pilot.pause()
        assert app.moved[-1] == cell((0, 0))
        assert cell((2, 2)) in app.moved
        assert app.selected == [cell((0, 0))]
        assert game_map.unit_label(game_map.cursor) == "(0,0)"


async def test_click_selects_the_unit_under_the_mouse() -> None:
    snap = snapshot("intrepid", 600)
    app = Host(snap)
    async with app.run_test(size=(40, 24)) as pilot:
        game_map = app.query_one(MachineMap)
        names = list(snap.machine.spec.names)
        row, col = (int(v) for v in game_map._layout.where[names.index("R03-M1")])
        await pilot.click(MachineMap, offset=(col + 1, row + 1))
        await pilot.pause()
        assert app.selected == [names.index("R03-M1")]
        assert game_map.cursor == names.index("R03-M1")


async def test_cursor_stays_visible_in_a_small_pane() -> None:
    snap = snapshot("mesh32", 700)
    app = Host(snap)
    async with app.run_test(size=(38, 9)) as pilot:
        game_map = app.query_one(MachineMap)
        game_map.focus()
        game_map.cursor = snap.machine.spec.cell((31, 31))
        await pilot.pause()
        row, col = (int(v) for v in game_map._layout.where[game_map.cursor])
        top, left = int(game_map.scroll_offset.y), int(game_map.scroll_offset.x)
        assert top <= row < top + game_map.size.height - 1
        assert left <= col < left + game_map.size.width


async def test_cursor_is_clamped_to_the_machine() -> None:
    snap = snapshot("intrepid", 600)
    app = Host(snap)
    async with app.run_test(size=(40, 24)):
        game_map = app.query_one(MachineMap)
        game_map.cursor = 10_000
        assert game_map.cursor == 79


# --------------------------------------------------------------------------- pictures


def with_out_of_service(snap: Snapshot) -> Snapshot:
    """The snapshot with two down units and a reserved block (as failures would leave it)."""
    owners = snap.owners.copy()
    spec = snap.machine.spec
    owners[[spec.cell((20, 20)), spec.cell((21, 20))]] = DOWN
    owners[[spec.cell((x, y)) for x in range(24, 30) for y in range(22, 26)]] = RESERVED
    owners.flags.writeable = False
    return dataclasses.replace(snap, owners=owners)


PICTURES = {
    "mesh32": (lambda: snapshot("mesh32", 700), (70, 40)),
    "bgl": (lambda: snapshot("bgl", 300), (50, 24)),
    "intrepid": (lambda: snapshot("intrepid", 600), (40, 27)),
    "flat": (lambda: snapshot("ipsc860", 900), (40, 10)),
    "down-reserved": (lambda: with_out_of_service(snapshot("mesh32", 700)), (70, 40)),
    "small-pane": (lambda: snapshot("mesh32", 700), (38, 9)),
}


@pytest.mark.parametrize("picture", sorted(PICTURES))
def test_picture(picture: str, snap_compare) -> None:  # type: ignore[no-untyped-def]
    make, size = PICTURES[picture]
    snap = make()
    cursor = 5 if picture != "small-pane" else snap.machine.spec.cell((20, 12))
    assert snap_compare(Host(snap, cursor), terminal_size=size)


def picture(game_map: MachineMap) -> list[str]:
    """Every line of the map as text with its styles (what a redraw would show)."""
    rows = game_map.virtual_size.height
    return ["".join(f"{s.text}|{s.style}" for s in game_map.render_line(y)) for y in range(rows)]


@pytest.mark.parametrize("name", ["mesh32", "intrepid"])
async def test_a_new_snapshot_redraws_changed_rows_like_a_fresh_map(name: str) -> None:
    opts = RunOptions(machine=name, seed=1)
    m, jobs = load_inputs(opts)
    sim = Simulation(m, jobs, opts.policy(m), opts.seed, recent=50)
    sim.run(max_events=300)
    before = sim.snapshot()
    sim.run(max_events=40)
    after = sim.snapshot()
    assert not np.array_equal(before.owners, after.owners)
    app = Host(before)
    async with app.run_test(size=(90, 60)):
        game_map = app.query_one(MachineMap)
        first = picture(game_map)
        game_map.show(after)
        updated = picture(game_map)
    fresh = Host(after)
    async with fresh.run_test(size=(90, 60)) as pilot:
        await pilot.pause()
        assert updated == picture(fresh.query_one(MachineMap))
    assert updated != first
