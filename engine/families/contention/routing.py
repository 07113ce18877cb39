"""Directed links of a W × H mesh plus its west I/O column, and XY routing over them.

Routing (Mache 1999, L436, L861-863): minimal dimension-ordered XY routing; a message from (sx, sy)
to (dx, dy) first travels along x in row sy to column dx, then along y in column dx to row dy. Each
pair of neighbouring routers is joined by two unidirectional links (L1221), counted separately. The
I/O column is x = -1 (see :mod:`meshsim.engine.families.contention.io`).

Links are grouped in four families by direction: ``+x`` (east), ``-x`` (west), ``+y`` and ``-y``
(Mache's north and south: his y grows upward, L839). A family's loads form a 2D array indexed like
the grid, ``[x, y]``, on the extended grid whose column 0 is the I/O column:

- ``+x[e, y]``: the link from extended column e to e + 1 in row y (e = 0 leaves the I/O column);
- ``-x[e, y]``: the link from extended column e + 1 to e in row y (e = 0 enters the I/O column);
- ``+y[e, t]``: the link from row t to t + 1 in extended column e;
- ``-y[e, t]``: the link from row t + 1 to t in extended column e.

Loads are computed with difference arrays: each routed pair adds its weight at the start of its
horizontal and vertical segment and subtracts it at the end, and a cumulative sum along each line
gives every link's load. Cost O(pairs + links) per call, fully vectorised (numpy ``bincount``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

FAMILIES = ("+x", "-x", "+y", "-y")
"""Link directions, in the order used for flat link indices and for tie-breaking hotspots."""


class Link(NamedTuple):
    """One directed link between two routers, in compute coordinates (I/O column at x = -1)."""

    src: tuple[int, int]
    dst: tuple[int, int]

    @property
    def family(self) -> str:
        """``+x``, ``-x``, ``+y`` or ``-y``."""
        if self.src[1] == self.dst[1]:
            return "+x" if self.dst[0] > self.src[0] else "-x"
        return "+y" if self.dst[1] > self.src[1] else "-y"

    def describe(self) -> str:
        """``(x,y)->(x,y) [dir]``; x = -1 is the I/O column."""
        (a, b), (c, d) = self.src, self.dst
        return f"({a},{b})->({c},{d}) [{self.family}]"


@dataclass(frozen=True)
class LinkSpace:
    """The directed links of a ``width`` × ``height`` compute mesh with a west I/O column."""

    width: int
    height: int

    @property
    def columns(self) -> int:
        """Columns of the extended grid (the I/O column plus the compute columns)."""
        return self.width + 1

    def shape(self, family: str) -> tuple[int, int]:
        """Shape of one family's load array."""
        if family in ("+x", "-x"):
            return (self.columns - 1, self.height)
        return (self.columns, self.height - 1)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of links per family, in :data:`FAMILIES` order."""
        return tuple(int(np.prod(self.shape(f))) for f in FAMILIES)

    @property
    def count(self) -> int:
        """Number of directed links."""
        return sum(self.sizes)

    def offset(self, family: str) -> int:
        """Flat index of the family's first link."""
        i = FAMILIES.index(family)
        return sum(self.sizes[:i])

    def family(self, loads: np.ndarray, family: str) -> np.ndarray:
        """One family's loads as a 2D ``[x, y]`` array (a view of a flat load vector)."""
        start = self.offset(family)
        size = int(np.prod(self.shape(family)))
        return loads[..., start : start + size].reshape(*loads.shape[:-1], *self.shape(family))

    def link(self, index: int) -> Link:
        """The link with flat index ``index``."""
        for fam in FAMILIES:
            start = self.offset(fam)
            rows, cols = self.shape(fam)
            if index < start + rows * cols:
                e, t = divmod(index - start, cols)
                x = e - 1
                if fam == "+x":
                    return Link((x, t), (x + 1, t))
                if fam == "-x":
                    return Link((x + 1, t), (x, t))
                if fam == "+y":
                    return Link((x, t), (x, t + 1))
                return Link((x, t + 1), (x, t))
        raise IndexError(f"link index {index} out of range ({self.count} links)")

    def loads(
        self,
        src: np.ndarray,
        dst: np.ndarray,
        weights: np.ndarray | None = None,
        groups: np.ndarray | None = None,
        n_groups: int = 1,
    ) -> np.ndarray:
        """Per-link load of XY-routed pairs: shape ``(n_groups, count)``.

        ``src`` and ``dst`` are ``(k, 2)`` integer arrays of compute coordinates (x = -1 for the I/O
        column); ``weights`` defaults to 1 per pair (Mache's link_contention counts pairs, L1621);
        ``groups`` assigns each pair to a row of the result (e.g. its job)."""
        src = np.asarray(src, dtype=np.int64).reshape(-1, 2)
        dst = np.asarray(dst, dtype=np.int64).reshape(-1, 2)
        w = np.ones(len(src)) if weights is None else np.asarray(weights, dtype=np.float64)
        g = np.zeros(len(src), np.int64) if groups is None else np.asarray(groups, np.int64)
        cols, h = self.columns, self.height
        plane = cols * h
        sx, sy = src[:, 0] + 1, src[:, 1]
        dx, dy = dst[:, 0] + 1, dst[:, 1]
        base = g * (4 * plane)
        east, west = dx > sx, dx < sx
        north, south = dy > sy, dy < sy
        # each segment adds +w at its low end and -w at its high end of the diff line
        idx = (
            (base + sx * h + sy)[east],
            (base + dx * h + sy)[east],
            (base + plane + dx * h + sy)[west],
            (base + plane + sx * h + sy)[west],
            (base + 2 * plane + dx * h + sy)[north],
            (base + 2 * plane + dx * h + dy)[north],
            (base + 3 * plane + dx * h + dy)[south],
            (base + 3 * plane + dx * h + sy)[south],
        )
        signs = (w[east], -w[east], w[west], -w[west], w[north], -w[north], w[south], -w[south])
        diff = np.bincount(
            np.concatenate(idx), np.concatenate(signs), minlength=n_groups * 4 * plane
        ).reshape(n_groups, 4, cols, h)
        xs = np.cumsum(diff[:, :2], axis=2)[:, :, : cols - 1, :]
        ys = np.cumsum(diff[:, 2:], axis=3)[:, :, :, : h - 1]
        return np.concatenate((xs.reshape(n_groups, -1), ys.reshape(n_groups, -1)), axis=1)


@cache
def link_space(width: int, height: int) -> LinkSpace:
    """The (shared, immutable) link space of a mesh size."""
    return LinkSpace(width, height)


def hops(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """XY path length of each pair: |dx| + |dy| (Manhattan, L1127)."""
    d = np.abs(np.asarray(dst) - np.asarray(src))
    return d.sum(axis=-1)


@dataclass(frozen=True, eq=False)
class LinkLoads:
    """A load value per directed link, with the link space that names them."""

    space: LinkSpace
    values: np.ndarray

    @property
    def max(self) -> float:
        """The largest load (max_contention when loads count pairs)."""
        return float(self.values.max()) if self.values.size else 0.0

    def family(self, family: str) -> np.ndarray:
        """One direction's loads as a 2D ``[x, y]`` array (see the module docstring)."""
        return self.space.family(self.values, family)

    def hotspots(self) -> list[Link]:
        """Every link carrying the maximal load, in flat-index order (+x, -x, +y, -y)."""
        if not self.values.size or self.max <= 0:
            return []
        return [self.space.link(int(i)) for i in np.flatnonzero(self.values == self.max)]

    def hotspot(self) -> Link | None:
        """The first hotspot link in flat-index order, or None when nothing is loaded."""
        top = self.hotspots()
        return top[0] if top else None
