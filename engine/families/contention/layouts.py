"""Static I/O contention of the five spatial layouts (Mache 1999, Ch. VI, Tables 5 and 6).

One job of n compute nodes on a k × k mesh exchanges data with m I/O nodes in the west column
(K_{m,n}: write = every compute node to every I/O node, read = the reverse, L1612, L1820). The
analysis counts, for every directed link, the sender-receiver pairs whose XY path uses it
(link_contention), takes the hotspot and max_contention, and the throughputs (L1641-1667):

    B_NET = m · n · B_l / max_contention,   B_ION = m · B_0,   realizable = min(B_NET, B_ION)

The five layouts (L1568, Fig. 39 is lost) are generalised from the k = n geometry that reproduces
Tables 5 and 6 exactly (extraction §3.11) to any 1 <= n <= k²:

- ``block-corner``: an s × s block, s = ceil(sqrt(n)), in the corner at x = 0, y = 0 next to the I/O
  column, filled row by row;
- ``block-center``: the same block centred, its corner at ((k - s) // 2, (k - s) // 2);
- ``orthogonal``: whole rows (perpendicular to the I/O column), r = ceil(n / k) rows starting at row
  (k - r) // 2, filled row by row from x = 0;
- ``parallel``: whole columns (parallel to the I/O column) from x = 0; a partial last column is
  centred vertically;
- ``diagonal``: node i at (i mod k, (i mod k + i div k) mod k): the main diagonal, then its cyclic
  shifts.

I/O nodes that do not fill the column are centred (``placement = "center"``). Cost O(m · n) with
numpy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import isqrt

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.routing import Link, LinkLoads, link_space
from meshsim.engine.families.contention.traffic import PATTERNS, io_coords
from meshsim.engine.validation.limits import CELLS, ROUTES
from meshsim.engine.validation.options import CONTENTION, check_options

LayoutFn = Callable[[int, int], np.ndarray]

LAYOUTS: Registry[LayoutFn] = Registry("spatial layout")
"""Spatial layouts by name: fn(k, n) -> (n, 2) array of (x, y)."""

TRAFFIC_KINDS = ("write", "read")
"""Directions of the complete bipartite I/O traffic."""


def _side(n: int) -> int:
    s = isqrt(n)
    return s if s * s == n else s + 1


def _block(n: int, x0: int, y0: int) -> np.ndarray:
    s = _side(n)
    i = np.arange(n)
    return np.stack((x0 + i % s, y0 + i // s), axis=1)


@LAYOUTS.register("block-corner")
def block_corner(k: int, n: int) -> np.ndarray:
    """s × s block in the corner next to the I/O column."""
    return _block(n, 0, 0)


@LAYOUTS.register("block-center")
def block_center(k: int, n: int) -> np.ndarray:
    """s × s block in the middle of the mesh."""
    s = _side(n)
    return _block(n, (k - s) // 2, (k - s) // 2)


@LAYOUTS.register("orthogonal")
def orthogonal(k: int, n: int) -> np.ndarray:
    """Whole rows, perpendicular to the I/O column (Fig. 40a's worst case)."""
    rows = -(-n // k)
    i = np.arange(n)
    return np.stack((i % k, (k - rows) // 2 + i // k), axis=1)


@LAYOUTS.register("parallel")
def parallel(k: int, n: int) -> np.ndarray:
    """Whole columns, parallel to the I/O column (Fig. 40b's best case)."""
    i = np.arange(n)
    x, offset = np.divmod(i, k)
    last = n - (n - 1) // k * k
    start = np.where(x == (n - 1) // k, (k - last) // 2, 0)
    return np.stack((x, start + offset), axis=1)


@LAYOUTS.register("diagonal")
def diagonal(k: int, n: int) -> np.ndarray:
    """The main diagonal, continued on its cyclic shifts."""
    i = np.arange(n)
    x = i % k
    return np.stack((x, (x + i // k) % k), axis=1)


@dataclass(frozen=True, eq=False)
class LayoutAnalysis:
    """Link contention of one layout: every number behind a row of Tables 5 and 6."""

    mesh: int
    layout: str
    size: int
    io_nodes: int
    traffic: str
    link_mb_s: float
    node_mb_s: float
    io_rows: tuple[int, ...]
    nodes: tuple[tuple[int, int], ...]
    loads: LinkLoads
    max_contention: int
    hotspots: tuple[Link, ...]
    network_mb_s: float
    io_mb_s: float

    @property
    def hotspot(self) -> Link:
        """The first hotspot link in flat order (+x, -x, +y, -y)."""
        return self.hotspots[0]

    @property
    def throughput_mb_s(self) -> float:
        """Realizable I/O throughput min(B_NET, B_ION)."""
        return min(self.network_mb_s, self.io_mb_s)

    def to_dict(self, *, matrix: bool = False) -> dict[str, object]:
        """A JSON-ready summary; with ``matrix`` also every family's link contention."""
        h = self.hotspot
        out: dict[str, object] = {
            "mesh": self.mesh,
            "layout": self.layout,
            "size": self.size,
            "io_nodes": self.io_nodes,
            "traffic": self.traffic,
            "link_mb_s": self.link_mb_s,
            "node_mb_s": self.node_mb_s,
            "max_contention": self.max_contention,
            "hotspot": {"from": list(h.src), "to": list(h.dst), "direction": h.family},
            "hotspot_links": len(self.hotspots),
            "network_mb_s": self.network_mb_s,
            "io_mb_s": self.io_mb_s,
            "throughput_mb_s": self.throughput_mb_s,
        }
        if matrix:
            out["link_contention"] = {
                fam: self.loads.family(fam).astype(int).T.tolist() for fam in _FAMILY_TEXT
            }
        return out


def analyze_layout(
    mesh: int,
    layout: str,
    size: int,
    io_nodes: int,
    traffic: str,
    *,
    link_mb_s: float = 380.0,
    node_mb_s: float = 64.0,
) -> LayoutAnalysis:
    """Route K_{m,n} for ``layout`` on a ``mesh`` × ``mesh`` mesh and measure its contention. The
    options are held to their rules (:data:`~meshsim.engine.validation.options.CONTENTION`) and
    the mesh to the cell limit before anything is routed."""
    check_options(
        CONTENTION,
        {
            "--layout": layout,
            "--mesh": mesh,
            "--size": size,
            "--io-nodes": io_nodes,
            "--traffic": traffic,
            "--link-mb-s": link_mb_s,
            "--io-node-mb-s": node_mb_s,
        },
    )
    CELLS.check(mesh * mesh, f"--mesh {mesh}")
    if not 1 <= size <= mesh * mesh:
        raise MeshsimError(f"--size: must lie in 1..{mesh * mesh} for a {mesh}x{mesh} mesh")
    if not 1 <= io_nodes <= mesh:
        raise MeshsimError(f"--io-nodes: must lie in 1..{mesh} (one west column of {mesh} rows)")
    ROUTES.check(io_nodes * size, f"--io-nodes {io_nodes} x --size {size}")
    place = LAYOUTS.get(layout)
    io = IOLayout.square(mesh, io_nodes, link_mb_s=link_mb_s, node_mb_s=node_mb_s)
    coords = place(mesh, size)
    src, dst, _ = PATTERNS.get(f"io-{traffic}")(coords, io_coords(io), np.random.default_rng(0))
    space = link_space(mesh, mesh)
    loads = LinkLoads(space, space.loads(src, dst)[0])
    top = int(loads.max)
    return LayoutAnalysis(
        mesh=mesh,
        layout=layout,
        size=size,
        io_nodes=io_nodes,
        traffic=traffic,
        link_mb_s=link_mb_s,
        node_mb_s=node_mb_s,
        io_rows=io.rows,
        nodes=tuple((int(x), int(y)) for x, y in coords),
        loads=loads,
        max_contention=top,
        hotspots=tuple(loads.hotspots()),
        network_mb_s=io_nodes * size * link_mb_s / top,
        io_mb_s=io_nodes * node_mb_s,
    )


_FAMILY_TEXT = {
    "-x": "-x (westbound) links: column x is the link from x to x-1; x = 0 enters the I/O column",
    "+x": "+x (eastbound) links: column x is the link from x-1 to x; x = 0 leaves the I/O column",
    "+y": "+y links: row y is the link from y to y+1; column io is the I/O column",
    "-y": "-y links: row y is the link from y+1 to y; column io is the I/O column",
}


def render_layout_analysis(a: LayoutAnalysis, *, matrix: bool | None = None) -> str:
    """Plain text: the layout picture and link matrices (when ``matrix``, by default for meshes up
    to 32 wide), the hotspot, max_contention and the throughputs."""
    show = a.mesh <= 32 if matrix is None else matrix
    m, n = a.io_nodes, a.size
    lines = [
        f"{a.mesh}x{a.mesh} compute mesh, {m} I/O nodes in the west column "
        f"(rows {a.io_rows[0]}-{a.io_rows[-1]}), {a.layout} layout of {n} compute nodes, "
        f"{a.traffic} traffic",
        f"B_l = {a.link_mb_s:g} MB/s per link and direction, B_0 = {a.node_mb_s:g} MB/s per "
        f"I/O node (f = {a.link_mb_s / a.node_mb_s:.2f})",
    ]
    if show:
        lines += ["", "layout (I = I/O node, # = compute node of the job, y = 0 at the top):"]
        lines += _picture(a)
        for fam, text in _FAMILY_TEXT.items():
            grid = a.loads.family(fam)
            if grid.any():
                lines += ["", text + ":"]
                lines += _matrix(fam, grid)
    extra = len(a.hotspots) - 1
    ties = f" (and {extra} more link{'s' if extra > 1 else ''} at the maximum)" if extra else ""
    limit = "network" if a.network_mb_s < a.io_mb_s else "I/O nodes"
    lines += [
        "",
        f"max_contention  {a.max_contention}",
        f"hotspot         {a.hotspot.describe()}{ties}",
        f"B_NET           m*n*B_l/max_contention = {m}*{n}*{a.link_mb_s:g}/{a.max_contention}"
        f" = {a.network_mb_s:.1f} MB/s",
        f"B_ION           m*B_0 = {m}*{a.node_mb_s:g} = {a.io_mb_s:.1f} MB/s",
        f"throughput      {a.throughput_mb_s:.1f} MB/s (limited by the {limit})",
    ]
    return "\n".join(lines)


def _picture(a: LayoutAnalysis) -> list[str]:
    grid = [["."] * a.mesh for _ in range(a.mesh)]
    for x, y in a.nodes:
        grid[y][x] = "#"
    rows = set(a.io_rows)
    return [("I" if y in rows else "|") + " " + "".join(grid[y]) for y in range(a.mesh)]


def _matrix(fam: str, grid: np.ndarray) -> list[str]:
    values = grid.astype(int)
    width = max(len(str(values.max())), 2) + 1
    if fam in ("+x", "-x"):
        labels = [str(x) for x in range(values.shape[0])]
    else:
        labels = ["io"] + [str(x) for x in range(values.shape[0] - 1)]
    head = "   y " + "".join(label.rjust(width) for label in labels)
    body = [
        f"{y:>4} " + "".join(str(v).rjust(width) for v in values[:, y])
        for y in range(values.shape[1])
    ]
    return [head, *body]
