"""The six per-job dispersal metrics of Mache 1999, Ch. IV (L1041-1186).

For a job on j nodes with coordinate extremes min_x … max_y and count_x / count_y distinct x / y
coordinates (L1069, L1103), and Manhattan distance d (= XY path length, L1127):

- nodes_affected = (max_x - min_x + 1) · (max_y - min_y + 1)                    (L1071)
- links_affected = (max_x - min_x) · count_y + (max_y - min_y) · count_x         (L1105)
- summed_distance = Σ_l Σ_m d(l, m) over ordered pairs                          (L1149)
- average_distance = summed_distance / (j · (j - 1)), 0 for a one-node job       (L1147)
- distance_from_center = min_l Σ_m d(l, m), l an allocated node                  (L1151)
- diameter = max_{l, m} d(l, m)                                                  (L1153)

links_affected counts undirected links. Meshes only (the Lee-distance variant for k-ary n-cubes,
L1182, is not needed by any allocator here). Cost O(j²) time and memory with numpy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from meshsim.engine.families.contention.traffic import cell_coords


@dataclass(frozen=True)
class Dispersal:
    """The six dispersal metrics of one job."""

    nodes_affected: int
    links_affected: int
    average_distance: float
    summed_distance: int
    distance_from_center: int
    diameter: int


def dispersal(coords: np.ndarray) -> Dispersal:
    """The dispersal metrics of a job on nodes at ``coords`` ((j, 2) array of (x, y))."""
    c = np.asarray(coords, dtype=np.int64).reshape(-1, 2)
    if len(c) == 0:
        raise ValueError("dispersal of a job without nodes")
    lo, hi = c.min(axis=0), c.max(axis=0)
    count_x = len(np.unique(c[:, 0]))
    count_y = len(np.unique(c[:, 1]))
    d = np.abs(c[:, None, :] - c[None, :, :]).sum(axis=2)
    row_sums = d.sum(axis=1)
    j = len(c)
    summed = int(row_sums.sum())
    return Dispersal(
        nodes_affected=int((hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1)),
        links_affected=int((hi[0] - lo[0]) * count_y + (hi[1] - lo[1]) * count_x),
        average_distance=summed / (j * (j - 1)) if j > 1 else 0.0,
        summed_distance=summed,
        distance_from_center=int(row_sums.min()),
        diameter=int(d.max()),
    )


def cell_dispersal(cells: Sequence[int], height: int) -> Dispersal:
    """:func:`dispersal` of flat cell indices of a grid with ``height`` rows."""
    return dispersal(cell_coords(cells, height))
