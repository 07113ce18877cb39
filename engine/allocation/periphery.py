"""MPL's choice on a 2D mesh without wrap-around (seed 001 §3.2, after Ababneh 2009), read from
the free cells of the mesh's edge columns and rows (:class:`~meshsim.engine.allocation.free_bits.
FreeBits`) in O(extent) integer operations per box, instead of scoring every start position.

A w × h box on a W × H mesh has nx = W − w + 1 start positions along x and ny = H − h + 1 along y;
at (x, y) its peripheral length is h·ex + w·ey, with ex the count of x = 0 and x = nx − 1 that hold
(2 only when nx = 1) and ey likewise for y (:func:`~meshsim.engine.allocation.contiguous_choice.
peripheral_length`). Only positions on the edges of the start grid score above 0, in three tiers:

- the corners, h·ex + w·ey (the most);
- the other positions of the left and right edges (x = 0 or nx − 1), h·ex;
- the other positions of the bottom and top edges (y = 0 or ny − 1), w·ey.

MPL takes the free position of highest score, ties by scan order (y, then x): the first free corner
in scan order, else the first free position of the higher of the two edge tiers (of both, when they
score the same). Which positions of an edge are free is one integer: the run starts of the edge's
columns (or rows) ANDed together. The left and right edges settle the corners, so the rows are read
only when the bottom and top edges may win."""

from __future__ import annotations

from meshsim.engine.allocation.free_bits import FreeBits, all_set, lowest_bit, run_starts

Box = tuple[int, ...]


def best_on_periphery(
    box: Box, dims: tuple[int, ...], bits: FreeBits
) -> tuple[int, tuple[int, int]] | None:
    """The peripheral length and start of MPL's pick for ``box`` among its free positions on the
    edges of the start grid (see the module docstring); None when none of them is free."""
    w, h = box
    width, height = dims
    nx, ny = width - w + 1, height - h + 1
    far_x, far_y = nx - 1, ny - 1
    columns = bits.columns
    along_y = (1 << ny) - 1
    left = run_starts(all_set(columns[:w]), h) & along_y
    right = left if nx == 1 else run_starts(all_set(columns[far_x:]), h) & along_y
    ex = 2 if nx == 1 else 1
    ey = 2 if ny == 1 else 1
    for free, x, y in ((left, 0, 0), (right, far_x, 0), (left, 0, far_y), (right, far_x, far_y)):
        if free >> y & 1:
            return h * ex + w * ey, (x, y)
    side: tuple[int, int, int] | None = None  # (score, scan index, x) of the first free
    upright = (left | right) & ((1 << far_y) - 1) & ~1  # rows 1 … ny − 2 of the x edges
    if upright:
        y = lowest_bit(upright)
        x = 0 if left >> y & 1 else far_x
        side = (h * ex, y * nx + x, x)
    if side is not None and side[0] > w * ey:
        return side[0], (x, y)
    inner_x = ((1 << far_x) - 1) & ~1  # columns 1 … nx − 2 of the y edges
    flat: tuple[int, int, int] | None = None
    if inner_x:
        rows = bits.rows()
        bottom = run_starts(all_set(rows[:h]), w) & inner_x
        if bottom:
            x = lowest_bit(bottom)
            flat = (w * ey, x, x)
        elif ny > 1 and (top := run_starts(all_set(rows[far_y:]), w) & inner_x):
            x = lowest_bit(top)
            flat = (w * ey, far_y * nx + x, x)
    tiers = [t for t in (side, flat) if t is not None]
    if not tiers:
        return None
    score, scan, x = max(tiers, key=lambda t: (t[0], -t[1]))
    return score, (x, scan // nx)
