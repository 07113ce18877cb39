"""Exact reproductions of Mache 1999 Ch. VI-VII: Tables 5 and 6, Fig. 37, Figs. 48 and 50."""

from math import isqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.layouts import LAYOUTS, analyze_layout
from meshsim.engine.families.contention.matrix import io_link_matrix
from meshsim.engine.families.contention.routing import Link, link_space
from meshsim.engine.families.contention.traffic import PATTERNS, io_coords

SIZES = (16, 64, 256)
RNG = np.random.default_rng(0)


def table5(n: int) -> dict[tuple[str, str], int]:
    """Table 5 (L1784-1792): max_contention for k = n = m."""
    r = isqrt(n)
    return {
        ("diagonal", "write"): n * n // 4,
        ("parallel", "write"): n * n // 4,
        ("block-center", "write"): n * (n - r) // 2,
        ("block-corner", "write"): n * (n - r),
        ("orthogonal", "write"): n * n,
        ("diagonal", "read"): n,
        ("parallel", "read"): n * n // 4,
        ("block-center", "read"): r * (n - r) // 2,
        ("block-corner", "read"): r * (n - r),
        ("orthogonal", "read"): n,
    }


def table6(n: int) -> dict[tuple[str, str], float]:
    """Table 6 (L1794-1812): B_NET in units of B_l for k = n = m."""
    r = isqrt(n)
    return {
        ("diagonal", "write"): 4,
        ("parallel", "write"): 4,
        ("block-center", "write"): 2 * r / (r - 1),
        ("block-corner", "write"): r / (r - 1),
        ("orthogonal", "write"): 1,
        ("diagonal", "read"): n,
        ("parallel", "read"): 4,
        ("block-center", "read"): 2 * n / (r - 1),
        ("block-corner", "read"): n / (r - 1),
        ("orthogonal", "read"): n,
    }


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("traffic", ["write", "read"])
@pytest.mark.parametrize("layout", LAYOUTS.names())
def test_table5_max_contention(n: int, traffic: str, layout: str) -> None:
    a = analyze_layout(n, layout, n, n, traffic)
    assert a.max_contention == table5(n)[layout, traffic]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("traffic", ["write", "read"])
@pytest.mark.parametrize("layout", LAYOUTS.names())
def test_table6_network_throughput(n: int, traffic: str, layout: str) -> None:
    a = analyze_layout(n, layout, n, n, traffic, link_mb_s=380.0, node_mb_s=64.0)
    assert a.network_mb_s == pytest.approx(table6(n)[layout, traffic] * 380.0)
    assert a.io_mb_s == pytest.approx(n * 64.0)
    assert a.throughput_mb_s == pytest.approx(min(a.network_mb_s, n * 64.0))


@pytest.mark.parametrize("n", SIZES)
def test_table5_and_6_ranks(n: int) -> None:
    """Ranks of Tables 5/6: write diagonal = parallel < block center < block corner < orthogonal;
    read diagonal = orthogonal < block center < block corner < parallel."""
    write = {lay: analyze_layout(n, lay, n, n, "write").max_contention for lay in LAYOUTS}
    read = {lay: analyze_layout(n, lay, n, n, "read").max_contention for lay in LAYOUTS}
    assert write["diagonal"] == write["parallel"] < write["block-center"]
    assert write["block-center"] < write["block-corner"] < write["orthogonal"]
    assert read["diagonal"] == read["orthogonal"] < read["block-center"]
    assert read["block-center"] < read["block-corner"] < read["parallel"]


def test_table5_hotspot_locations() -> None:
    """Where the hotspots are for n = m = k = 16 (extraction §8.6, the lost Fig. 42)."""
    corner = analyze_layout(16, "block-corner", 16, 16, "write")
    assert corner.hotspots == (Link((-1, 3), (-1, 4)),)
    orth = analyze_layout(16, "orthogonal", 16, 16, "write")
    assert orth.hotspots == (Link((0, 7), (-1, 7)),)
    diag = analyze_layout(16, "diagonal", 16, 16, "read")
    assert set(diag.hotspots) == {Link((-1, y), (0, y)) for y in range(16)}
    par = analyze_layout(16, "parallel", 16, 16, "write")
    assert set(par.hotspots) == {Link((-1, 7), (-1, 8)), Link((-1, 8), (-1, 7))}


def test_fig37_row_versus_column_layout() -> None:
    """Fig. 37 (L1544-1554): 2 compute nodes, 2 I/O nodes, B_0 = B_l = 64 MB/s, 256 MB per pair:
    the row layout has max_contention 4 (16 s, 64 MB/s), the column layout 2 (8 s, 128 MB/s)."""
    row = analyze_layout(2, "orthogonal", 2, 2, "write", link_mb_s=64, node_mb_s=64)
    column = analyze_layout(2, "parallel", 2, 2, "write", link_mb_s=64, node_mb_s=64)
    assert (row.max_contention, column.max_contention) == (4, 2)
    assert row.hotspot == Link((0, 0), (-1, 0))
    assert row.max_contention * 256 / 64 == 16 and column.max_contention * 256 / 64 == 8
    assert (row.throughput_mb_s, column.throughput_mb_s) == (64.0, 128.0)


FIG50_ROW_MINIMA = {1: 14, 2: 26, 3: 36, 4: 44, 5: 50, 6: 54, 7: 56, 8: 56, 9: 56}
FIG50_ROW_MINIMA |= {10: 54, 11: 50, 12: 44, 13: 36, 14: 26, 15: 14}


def test_fig50_matrix() -> None:
    """Fig. 50 (k = m = 16, n = 14): row l_8 as printed and every row minimum."""
    mat = io_link_matrix(16, 14)
    assert mat.shape == (15, 15)
    assert mat[7].tolist() == [112, 104, 96, 88, 80, 72, 64, 56, 64, 72, 80, 88, 96, 104, 112]
    assert {i + 1: int(v) for i, v in enumerate(mat.min(axis=1))} == FIG50_ROW_MINIMA
    assert int(np.argmin(mat[7])) == 7


def test_fig48_matrix() -> None:
    """Fig. 48 (k = m = n = 4)."""
    assert io_link_matrix(4, 4).tolist() == [[4, 3, 6, 9, 12], [8, 6, 4, 6, 8], [12, 9, 6, 3, 4]]


@pytest.mark.parametrize(("m", "n"), [(4, 4), (16, 14)])
def test_link_matrix_matches_routing(m: int, n: int) -> None:
    """Every entry equals the larger of the two directions of I/O link l_i when s of the job's nodes
    sit above it, counted by XY routing on the k = m mesh."""
    k = m
    layout = IOLayout.square(k, m)
    space = link_space(k, k)
    mat = io_link_matrix(m, n)
    for i in range(1, m):
        high_rows = range(m - i, k)
        low_rows = range(m - i)
        high = [(x, y) for y in high_rows for x in range(k)]
        low = [(x, y) for y in low_rows for x in range(k)]
        for s in range(n + 1):
            if s > len(high) or n - s > len(low):
                continue
            coords = np.array(high[:s] + low[: n - s]).reshape(-1, 2)
            src, dst, _ = PATTERNS.get("io-write")(coords, io_coords(layout), RNG)
            loads = space.loads(src, dst)[0]
            up = space.family(loads, "+y")[0, m - i - 1]
            down = space.family(loads, "-y")[0, m - i - 1]
            assert max(up, down) == mat[i - 1, s]


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(1, 5),
    data=st.data(),
)
def test_theorem1_write_bounds(half: int, data: st.DataObject) -> None:
    """Theorem 1 (L1673-1711) for write traffic, m = k even: m·n/4 <= max_contention <= m·n."""
    k = m = 2 * half
    cells = data.draw(st.sets(st.integers(0, k * k - 1), min_size=1, max_size=k * k))
    coords = np.array([divmod(c, k) for c in sorted(cells)])
    src, dst, _ = PATTERNS.get("io-write")(coords, io_coords(IOLayout.square(k, m)), RNG)
    top = link_space(k, k).loads(src, dst)[0].max()
    n = len(cells)
    assert m * n / 4 <= top <= m * n


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 8), data=st.data())
def test_layouts_are_valid_for_any_size(k: int, data: st.DataObject) -> None:
    """Every layout places n distinct nodes inside the k × k mesh for any 1 <= n <= k²."""
    n = data.draw(st.integers(1, k * k))
    m = data.draw(st.integers(1, k))
    layout = data.draw(st.sampled_from(LAYOUTS.names()))
    traffic = data.draw(st.sampled_from(["read", "write"]))
    a = analyze_layout(k, layout, n, m, traffic)
    assert len(set(a.nodes)) == n
    assert all(0 <= x < k and 0 <= y < k for x, y in a.nodes)
    assert a.network_mb_s == pytest.approx(m * n * a.link_mb_s / a.max_contention)
    assert 1 <= a.max_contention <= m * n
    assert a.loads.values.sum() == sum(
        abs(x + 1) + abs(y - r) for x, y in a.nodes for r in a.io_rows
    )
