"""The machine's free space now, as an operator reads it (issue 22, item 4; the console's machine
view, ``m``): how many units are free, busy, down or reserved, and

- on a mesh or torus, the largest free boxes and how fragmented the free cells are: the share of
  the free cells outside the largest free box (0 when every free cell lies in one box), a measure
  of the external fragmentation of contiguous allocation (free processors no job of a given shape
  can use, seed 001 §1);
- on a partition menu, the family's own view, Cobalt's ``partlist``
  (:mod:`meshsim.engine.families.partitions.partlist`, through
  :meth:`~meshsim.engine.allocation.allocator.Allocator.free_space`);
- on a count-only pool, the counts alone.

Records of text only, so the console renders them as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from meshsim.engine.allocation.allocator import DOWN, FREE, RESERVED
from meshsim.engine.allocation.boxes import Box, summed_table, window_sums

LARGEST = 6
"""Free box shapes listed at most: largest volume first, each fitting in none listed before it
(in any orientation), so the list shows the different ways the free cells can be used."""


@dataclass(frozen=True)
class SpaceTable:
    """One table of the view: a title, column titles and rows of cells."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FreeSpace:
    """The view: a title, lines of figures, then tables."""

    title: str
    lines: tuple[str, ...]
    tables: tuple[SpaceTable, ...] = ()


def unit_counts(owners: np.ndarray) -> str:
    """``80 units: 20 free, 58 busy, 1 down, 1 reserved`` from per-unit owners."""
    free = int(np.count_nonzero(owners == FREE))
    down = int(np.count_nonzero(owners == DOWN))
    reserved = int(np.count_nonzero(owners == RESERVED))
    busy = len(owners) - free - down - reserved
    return (
        f"{len(owners):,} units: {free:,} free, {busy:,} busy, {down:,} down, {reserved:,} reserved"
    )


def count_space(nodes: int, free: int) -> FreeSpace:
    """A count-only pool: its nodes free and taken (withdrawn nodes count as taken)."""
    return FreeSpace("Free nodes", (f"{nodes:,} nodes: {free:,} free, {nodes - free:,} taken",))


def box_space(owners: np.ndarray, dims: Sequence[int], wrap: Sequence[bool]) -> FreeSpace:
    """A mesh or torus of ``dims`` (wrapping along ``wrap``) whose cells have ``owners``: the
    counts, the largest free boxes (:data:`LARGEST`) with how many positions each has, and the
    fragmentation. Box shapes are tried largest volume first until enough are found:
    O(shapes × cells) numpy at worst, on request only."""
    busy = (owners != FREE).reshape(tuple(dims))
    free = int(busy.size - busy.sum())
    table = summed_table(busy, wrap)
    found: list[tuple[Box, int, int]] = []
    seen: set[Box] = set()
    for box in sorted(product(*(range(1, d + 1) for d in dims)), key=lambda b: (-np.prod(b), b)):
        volume = int(np.prod(box))
        if len(found) >= LARGEST:
            break
        if volume > free:
            continue
        canonical = tuple(sorted(box, reverse=True))
        if any(all(e <= f for e, f in zip(canonical, known, strict=True)) for known in seen):
            continue
        positions = int(np.count_nonzero(window_sums(table, dims, box, wrap) == 0))
        if positions:
            seen.add(canonical)
            found.append((box, volume, positions))
    largest = found[0][1] if found else 0
    scattered = 1.0 - largest / free if free else 0.0
    lines = (
        unit_counts(owners),
        f"largest free box {_shape(found[0][0]) if found else 'none'} ({largest:,} cells); "
        f"fragmentation {scattered:.0%} (free cells outside it)",
    )
    rows = tuple((_shape(box), f"{volume:,}", f"{positions:,}") for box, volume, positions in found)
    return FreeSpace(
        "Free boxes",
        lines,
        (SpaceTable("largest free boxes", ("box", "cells", "positions"), rows),),
    )


def _shape(box: Box) -> str:
    return "x".join(map(str, box))
