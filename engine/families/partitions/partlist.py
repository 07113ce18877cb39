"""The partition menu's state now, as Cobalt's ``partlist`` shows it on a Blue Gene/P (issue 22,
item 4): per partition size, how many partitions are free, busy, blocked, down or reserved, and for
each idle midplane the largest partition it could join now and what blocks the next size.

A partition is *busy* when a job runs on it; *down* or *reserved* when one of its midplanes is
(down first); *blocked* when it shares a midplane or a cable segment with a busy partition (seed 000
§II-B: a partition in use makes every partition that needs its midplanes or its wiring unusable);
*free* otherwise, i.e. usable now. An idle midplane's blockers are the jobs whose partitions
conflict with every partition of the next size that contains it (those sharing a midplane with it
are named with that midplane, the others ``wiring``), and the units out of service inside those
partitions."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.allocation.free_space import FreeSpace, SpaceTable, unit_counts
from meshsim.engine.families.partitions.menu import bits, size_label

if TYPE_CHECKING:
    import numpy as np

    from meshsim.engine.families.partitions.allocator import LeastBlocking
    from meshsim.engine.families.partitions.menu import Partition

STATES = ("free", "busy", "blocked", "down", "reserved")
"""Partition states, in the order the table gives them."""

NAMED = 3
"""Blockers named at most per idle midplane."""


def partlist(allocator: LeastBlocking, job_id: Callable[[int], int]) -> FreeSpace:
    """The view of ``allocator``'s menu now; ``job_id`` names a job by its index."""
    menu = allocator.menu
    owners = allocator.owners()
    names = menu.spec.names
    busy = set(allocator.running_partitions.values())
    counts: dict[int, dict[str, int]] = {size: dict.fromkeys(STATES, 0) for size in menu.sizes}
    for p in menu.partitions:
        counts[p.nodes][_state(p, allocator, busy, owners)] += 1
    sizes = tuple(
        (size_label(size), f"{sum(row.values()):,}", *(f"{row[s]:,}" for s in STATES))
        for size, row in counts.items()
    )
    idle = tuple(
        (names[m], *_idle(m, allocator, job_id, owners))
        for m in range(len(owners))
        if owners[m] == FREE
    )
    return FreeSpace(
        "Partitions (partlist)",
        (unit_counts(owners) + " (midplanes)",),
        (
            SpaceTable("partitions by size", ("size", "all", *STATES), sizes),
            SpaceTable(
                "idle midplanes", ("midplane", "usable up to", "next size blocked by"), idle
            ),
        ),
    )


def _state(p: Partition, allocator: LeastBlocking, busy: set[int], owners: np.ndarray) -> str:
    if p.index in busy:
        return "busy"
    held = {int(owners[m]) for m in p.midplanes}
    if DOWN in held:
        return "down"
    if RESERVED in held:
        return "reserved"
    return "free" if allocator.usable >> p.index & 1 else "blocked"


def _idle(
    m: int, allocator: LeastBlocking, job_id: Callable[[int], int], owners: np.ndarray
) -> tuple[str, str]:
    """An idle midplane's largest usable partition size, and the blockers of the next size."""
    menu = allocator.menu
    usable_up_to = "-"
    for size in menu.sizes:
        around = menu.by_size[size] & menu.by_midplane[m]
        if not around:
            continue
        if not allocator.usable & around:
            return (
                usable_up_to,
                f"{size_label(size)}: {_blockers(around, allocator, job_id, owners)}",
            )
        usable_up_to = size_label(size)
    return usable_up_to, "-"


def _blockers(
    around: int, allocator: LeastBlocking, job_id: Callable[[int], int], owners: np.ndarray
) -> str:
    """The jobs and the withdrawn midplanes that make every partition of ``around`` unusable."""
    menu = allocator.menu
    names = menu.spec.names
    cells = {c for p in bits(around) for c in menu.partitions[p].midplanes}
    found = []
    for index, p in sorted(allocator.running_partitions.items()):
        if menu.conflicts[p] & around:
            shared = sorted(set(menu.partitions[p].midplanes) & cells)
            found.append(f"{job_id(index)} ({names[shared[0]] if shared else 'wiring'})")
    for c in sorted(cells):
        if owners[c] in (DOWN, RESERVED):
            found.append(f"{names[c]} {'down' if owners[c] == DOWN else 'reserved'}")
    more = f" and {len(found) - NAMED} more" if len(found) > NAMED else ""
    return ", ".join(found[:NAMED]) + more
