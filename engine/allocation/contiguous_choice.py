"""The contiguous allocators: how each chooses among the free boxes that
:class:`~meshsim.engine.allocation.contiguous.BoxAllocator` finds for a job (each candidate a box
and a boolean array over its start positions, true where the box is entirely free):

- ``first-fit``: the first free position in scan order (by z, then y, then x: row by row from the
  origin), trying the request's boxes in order;
- ``best-fit``: the position whose box touches the most busy cells and mesh walls across its faces
  (a contact-based best fit in the spirit of Das Sharma & Pradhan's busy-list scheme, seed 001 ref.
  [15]: hug what is already taken so the free space stays in large pieces); ties by scan order;
- ``mpl`` (maximum peripheral length, seed 001 §3.2 after Ababneh 2009): the position whose box
  boundary lies longest on the mesh periphery. We read "peripheral length" as the length of the
  box's sides that lie on the mesh's outer edges, which is the paper's count of periphery edges per
  node (a 2×1 box in the corner of M(5, 4) scores 3: its bottom side of length 2 plus its right side
  of length 1). When no candidate touches the periphery, the first suitable internal position in
  scan order is used. In 3D the score is the area of faces on the machine's outer faces; a torus has
  no periphery, so MPL there is first fit;
- ``max-free-box`` (Krevat et al., seed 002 §2): the position that leaves the largest free box
  (volume) in the machine; ties by scan order.

Complexity of a choice: first/best fit and MPL add O(cells) numpy work per candidate box to the
search (O(1) for a box the frontiers already answer; MPL on a 2D mesh without wrap-around reads its
pick from the free cells of the edges in O(extent) integer operations,
:mod:`~meshsim.engine.allocation.periphery`, and searches positions only when no edge position is
free); max-free-box adds, per candidate box, a search
over box shapes in decreasing volume, stopping when every position has found a shape that still
fits: on a machine small enough to keep a bit set of every placement
(:mod:`~meshsim.engine.allocation.box_bitsets`, BG/L's torus), O(placements × words) bit operations
in all; else O(cells) per shape for all candidate positions at once (how many free placements of
the shape each position overlaps, by a separable box sum)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from math import prod

import numpy as np

from meshsim.engine.allocation.allocator import ALLOCATORS
from meshsim.engine.allocation.box_bitsets import WORDS_KEPT, BoxBitsets, FreeRows, table_words
from meshsim.engine.allocation.boxes import (
    Box,
    overlapping_starts,
    scan_positions,
    scan_start,
    scan_view,
    summed_table,
    window_sums,
)
from meshsim.engine.allocation.contiguous import BoxAllocator
from meshsim.engine.allocation.free_bits import FreeBits
from meshsim.engine.allocation.periphery import best_on_periphery
from meshsim.engine.topology.machines import Machine


@ALLOCATORS.register("first-fit")
class FirstFit(BoxAllocator):
    """The first free box in scan order."""

    name = "first-fit"
    complexity = (
        "O(1) for a request or box already settled; else O(cells) numpy per box width "
        "(2D mesh) or per box, plus O(cells) per box that fits"
    )


@ALLOCATORS.register("best-fit")
class BestFit(BoxAllocator):
    """The free box touching the most busy cells and walls."""

    name = "best-fit"
    complexity = (
        "O(1) for a request or box already settled; else O(cells) numpy per box width "
        "(2D mesh) or per box, plus O(cells) per face of each box that fits"
    )

    def choose(
        self, candidates: list[tuple[Box, np.ndarray]], busy: np.ndarray
    ) -> tuple[Box, tuple[int, ...]]:
        best: tuple[int, int, Box, tuple[int, ...]] | None = None
        for order, (box, mask) in enumerate(candidates):
            positions = scan_positions(mask)
            score = contact(busy, box, positions, self.wrap)
            k = int(np.argmax(score))
            if best is None or score[k] > best[0]:
                best = (int(score[k]), order, box, tuple(positions[k].tolist()))
        assert best is not None
        return best[2], best[3]


def contact(busy: np.ndarray, box: Box, positions: np.ndarray, wrap: Sequence[bool]) -> np.ndarray:
    """For each position, the busy cells and walls adjacent to the box's faces (cells just outside
    each face; outside a mesh edge counts as a wall, on a torus it wraps)."""
    dims = np.array(busy.shape)
    offsets = []
    for axis in range(busy.ndim):
        ranges = [range(e) for e in box]
        for side in (-1, box[axis]):
            ranges[axis] = range(side, side + 1)
            offsets.extend(product(*ranges))
    coords = positions[:, None, :] + np.array(offsets)[None, :, :]
    outside = np.zeros(coords.shape[:2], dtype=bool)
    for axis, wraps in enumerate(wrap):
        if wraps:
            coords[..., axis] %= dims[axis]
        else:
            outside |= (coords[..., axis] < 0) | (coords[..., axis] >= dims[axis])
    inside = np.clip(coords, 0, dims - 1)
    taken = busy[tuple(inside[..., a] for a in range(busy.ndim))]
    return (taken | outside).sum(axis=1)


@ALLOCATORS.register("mpl")
class MaximumPeripheralLength(BoxAllocator):
    """Prefer the free box with the longest boundary on the mesh periphery (seed 001 §3.2)."""

    name = "mpl"
    complexity = (
        "O(1) for a request or box already settled; else O(cells) numpy per box width "
        "(2D mesh) or per box, plus O(cells) per box that fits (2D mesh: O(extent) integer "
        "operations unless no edge position is free)"
    )

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        self._periphery: dict[Box, np.ndarray] = {}
        """Each box's :func:`periphery_grid` in scan order, computed once."""
        self._bits: FreeBits | None = None
        """The free cells as integers for the current occupancy (None: not asked since it
        changed); on a 2D mesh without wrap-around only."""

    def _changed(self, *, taken: bool | None = None) -> None:
        super()._changed(taken=taken)
        self._bits = None

    def pick(self, boxes: list[Box], busy: np.ndarray) -> tuple[Box, tuple[int, ...]] | None:
        """:meth:`choose` among the free ``boxes``; on a 2D mesh without wrap-around read from the
        edges' free cells (:func:`~meshsim.engine.allocation.periphery.best_on_periphery`), and
        only when no box is free on the periphery from the first free box's free positions (its
        first in scan order: every position there scores 0). The same pick: the first box of the
        highest score, its first position of that score in scan order."""
        if not self._by_columns:
            return super().pick(boxes, busy)
        best: tuple[int, Box, tuple[int, int]] | None = None
        inner: Box | None = None
        for box in boxes:
            if not self._fits_box(box):
                continue
            if self._bits is None:
                self._bits = FreeBits(~busy)
            found = best_on_periphery(box, self.dims, self._bits)
            if found is not None:
                if best is None or found[0] > best[0]:
                    best = (found[0], box, found[1])
            elif best is None and inner is None:
                inner = box
        if best is not None:
            return best[1], best[2]
        if inner is None:
            return None
        mask = self._free_mask(inner)
        assert mask is not None
        return inner, scan_start(mask.shape, int(np.argmax(scan_view(mask))))

    def choose(
        self, candidates: list[tuple[Box, np.ndarray]], busy: np.ndarray
    ) -> tuple[Box, tuple[int, ...]]:
        best: tuple[int, Box, np.ndarray, int] | None = None
        for box, mask in candidates:
            grid = self._periphery.get(box)
            if grid is None:
                grid = self._periphery[box] = scan_view(
                    periphery_grid(box, self.dims, self.wrap)
                ).copy()
            score = np.where(scan_view(mask), grid, -1).ravel()
            k = int(np.argmax(score))
            if best is None or score[k] > best[0]:
                best = (int(score[k]), box, mask, k)
        assert best is not None
        return best[1], scan_start(best[2].shape, best[3])


def periphery_grid(box: Box, dims: Sequence[int], wrap: Sequence[bool]) -> np.ndarray:
    """Peripheral length of ``box`` at every start position (an array over start positions)."""
    starts = [d if w else d - e + 1 for d, e, w in zip(dims, box, wrap, strict=True)]
    positions = np.argwhere(np.ones(starts, dtype=bool))
    return peripheral_length(box, positions, dims, wrap).reshape(starts)


def peripheral_length(
    box: Box, positions: np.ndarray, dims: Sequence[int], wrap: Sequence[bool]
) -> np.ndarray:
    """Length (2D) or area (3D) of the box's sides lying on the machine's outer boundary."""
    score = np.zeros(len(positions), dtype=np.int64)
    for axis, (extent, dim, wraps) in enumerate(zip(box, dims, wrap, strict=True)):
        if wraps:
            continue
        side = int(np.prod([e for a, e in enumerate(box) if a != axis]))
        score += side * (positions[:, axis] == 0)
        score += side * (positions[:, axis] + extent == dim)
    return score


@ALLOCATORS.register("max-free-box")
class MaxFreeBox(BoxAllocator):
    """Leave the largest free box (Krevat et al., seed 002 §2)."""

    name = "max-free-box"
    complexity = (
        "O(cells) per candidate box, plus O(placements x words) bit operations to rank "
        "positions where the placements' table is kept (box_bitsets), else O(shapes x cells); "
        "O(cells) for a busy mask and request already answered"
    )
    remembers = True
    _bitsets: BoxBitsets | None = None
    _rows: FreeRows | None = None
    """The placements free on the current occupancy (None: not asked since it changed)."""

    def _changed(self, *, taken: bool | None = None) -> None:
        super()._changed(taken=taken)
        self._rows = None

    def _placement_bits(self) -> BoxBitsets | None:
        """The bit sets of every placement (:mod:`~meshsim.engine.allocation.box_bitsets`), built
        on first use; None on a machine too large to keep them."""
        if self._bitsets is None and table_words(self.dims, self.wrap) <= WORDS_KEPT:
            self._bitsets = BoxBitsets(self.dims, self.wrap, self._shapes_by_volume())
        return self._bitsets

    def _free_starts(self, box: Box) -> np.ndarray:
        """Where ``box`` is entirely free now: the free flags of its placements' rows, where the
        bit sets are kept."""
        bitsets = self._placement_bits()
        if bitsets is None:
            return super()._free_starts(box)
        if self._rows is None:
            self._rows = bitsets.on(self.busy())
        return self._rows.starts(box)

    def choose(
        self, candidates: list[tuple[Box, np.ndarray]], busy: np.ndarray
    ) -> tuple[Box, tuple[int, ...]]:
        best: tuple[int, int, int, Box, tuple[int, ...]] | None = None
        volumes_left = self._volumes_left(busy)
        for order, (box, mask) in enumerate(candidates):
            positions = scan_positions(mask)
            volumes = volumes_left(box, positions)
            k = int(np.argmax(volumes))
            if best is None or volumes[k] > best[0]:
                best = (int(volumes[k]), order, k, box, tuple(positions[k].tolist()))
        assert best is not None
        return best[3], best[4]

    def _volumes_left(self, busy: np.ndarray) -> Callable[[Box, np.ndarray], np.ndarray]:
        """For the busy mask ``busy``: a box and its start positions (k × d) to the volume of the
        largest free box left after it at each, by the bit sets of every placement
        (:mod:`~meshsim.engine.allocation.box_bitsets`) on a machine small enough to keep them,
        else by :meth:`_remaining_largest` (the same volumes)."""
        free = busy.size - int(busy.sum())
        bitsets = self._placement_bits()
        if bitsets is not None:
            rows = bitsets.on(busy)
            return lambda box, positions: rows.largest_left(
                box, positions, min(free - prod(box), rows.largest)
            )
        table = summed_table(busy, self.wrap)
        ceiling = self.largest_free_box(busy, table)[1]
        free_starts: dict[Box, tuple[np.ndarray, int]] = {}
        return lambda box, positions: self._remaining_largest(
            busy, table, ceiling, box, positions, free_starts
        )

    def _remaining_largest(
        self,
        busy: np.ndarray,
        table: np.ndarray,
        ceiling: int,
        box: Box,
        positions: np.ndarray,
        free_starts: dict[Box, tuple[np.ndarray, int]],
    ) -> np.ndarray:
        """For each position of ``box``, the volume of the largest free box left after it (no more
        than ``ceiling``, the largest free box before placing it).

        Shapes are tried largest first; a position is settled by the first shape with a free
        placement that ``box`` at that position does not overlap. Whether one exists is a count:
        the free placements of the shape that overlap the position are those starting in a box of
        extents b + s - 1 around it (cyclic on wrapping axes), summed for every position at once by
        :func:`overlapping_starts`, O(cells) per shape; the position keeps one free placement
        exactly when that count is below the shape's number of free placements. The free
        placements of each shape on ``busy`` are kept in ``free_starts``, shared by the candidate
        boxes of one choice."""
        result = np.zeros(len(positions), dtype=np.int64)
        open_ = np.ones(len(positions), dtype=bool)
        free = min(busy.size - int(busy.sum()) - int(np.prod(box)), ceiling)
        at = tuple(positions.T)
        for shape, volume in self._shapes_by_volume():
            if not open_.any():
                break
            if volume > free:
                continue
            known = free_starts.get(shape)
            if known is None:
                starts = window_sums(table, self.dims, shape, self.wrap) == 0
                known = free_starts[shape] = (starts, int(starts.sum()))
            starts, total = known
            if total == 0:
                continue
            counts = overlapping_starts(starts, self.dims, box, shape, self.wrap)
            hit = open_ & (counts[at] < total)
            result[hit] = volume
            open_ &= ~hit
        return result
