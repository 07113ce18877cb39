"""XY routing over the compute mesh plus the I/O column, and the traffic patterns."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.routing import FAMILIES, Link, LinkLoads, hops, link_space
from meshsim.engine.families.contention.traffic import (
    PATTERNS,
    Traffic,
    cell_coords,
    io_coords,
    job_traffic,
    mixed_traffic,
)

RNG = np.random.default_rng(0)


def walk(src: tuple[int, int], dst: tuple[int, int]) -> list[Link]:
    """Reference XY path: along x in the source row, then along y in the destination column."""
    (x, y), (dx, dy) = src, dst
    path = []
    while x != dx:
        step = 1 if dx > x else -1
        path.append(Link((x, y), (x + step, y)))
        x += step
    while y != dy:
        step = 1 if dy > y else -1
        path.append(Link((x, y), (x, y + step)))
        y += step
    return path


def loads_by_link(loads: LinkLoads) -> Counter[Link]:
    return Counter(
        {loads.space.link(int(i)): loads.values[i] for i in np.flatnonzero(loads.values)}
    )


def test_fig5_route() -> None:
    """Fig. 5: (2,0) -> (7,3) runs east along y = 0 to x = 7, then along y to 3."""
    space = link_space(8, 4)
    loads = LinkLoads(space, space.loads(np.array([[2, 0]]), np.array([[7, 3]]))[0])
    expected = [Link((x, 0), (x + 1, 0)) for x in range(2, 7)]
    expected += [Link((7, y), (7, y + 1)) for y in range(3)]
    assert loads_by_link(loads) == Counter(expected)


def test_every_link_index_round_trips() -> None:
    """Routing one hop over link i loads exactly flat index i, in the right family."""
    space = link_space(3, 4)
    assert space.count == 2 * 3 * 4 + 2 * 4 * 3
    for i in range(space.count):
        link = space.link(i)
        loads = space.loads(np.array([link.src]), np.array([link.dst]))[0]
        assert np.flatnonzero(loads).tolist() == [i]
        offset = space.offset(link.family)
        assert offset <= i < offset + int(np.prod(space.shape(link.family)))
    with pytest.raises(IndexError):
        space.link(space.count)


@settings(max_examples=40, deadline=None)
@given(
    w=st.integers(1, 6),
    h=st.integers(1, 6),
    data=st.data(),
)
def test_vectorised_loads_match_path_walk(w: int, h: int, data: st.DataObject) -> None:
    """The difference-array loads equal a hop-by-hop walk of every pair, per group."""
    point = st.tuples(st.integers(-1, w - 1), st.integers(0, h - 1))
    pairs = data.draw(st.lists(st.tuples(point, point, st.integers(0, 2)), max_size=25))
    space = link_space(w, h)
    src = np.array([p[0] for p in pairs]).reshape(-1, 2)
    dst = np.array([p[1] for p in pairs]).reshape(-1, 2)
    groups = np.array([p[2] for p in pairs], dtype=np.int64)
    weights = np.arange(1, len(pairs) + 1, dtype=float)
    got = space.loads(src, dst, weights, groups, n_groups=3)
    for g in range(3):
        expected: Counter[Link] = Counter()
        for (s, d, grp), wt in zip(pairs, weights, strict=True):
            if grp == g:
                for link in walk(s, d):
                    expected[link] += wt
        assert loads_by_link(LinkLoads(space, got[g])) == expected
    assert got.sum() == pytest.approx((hops(src, dst) * weights).sum())


def test_family_views_and_hotspot_order() -> None:
    space = link_space(2, 2)
    values = np.zeros(space.count)
    values[space.offset("-y")] = 5
    values[space.offset("+x") + 1] = 5
    loads = LinkLoads(space, values)
    assert loads.max == 5
    assert loads.hotspot() == space.link(1)
    assert loads.hotspot().family == "+x"
    assert [lk.family for lk in loads.hotspots()] == ["+x", "-y"]
    assert {f: loads.family(f).shape for f in FAMILIES} == {
        "+x": (2, 2),
        "-x": (2, 2),
        "+y": (3, 1),
        "-y": (3, 1),
    }
    assert LinkLoads(space, np.zeros(space.count)).hotspot() is None


@pytest.mark.parametrize(
    ("pattern", "n", "pairs", "messages"),
    [
        ("all-to-all", 5, 20, 20),
        ("all-to-all-broadcast", 5, 20, 20),
        ("transpose", 4, 12, 12),
        ("one-to-all", 5, 4, 4),
        ("circular-shift", 5, 5, 5),
        ("circular-shift", 1, 0, 0),
        ("nbody", 5, 5, 20),
        ("fft", 8, 24, 24),
        ("fft", 6, 14, 14),
        ("fft", 1, 0, 0),
        ("random-pairs", 7, 7, 7),
        ("io-write", 5, 15, 15),
        ("io-read", 5, 15, 15),
    ],
)
def test_pattern_sizes(pattern: str, n: int, pairs: int, messages: int) -> None:
    coords = np.array([[i, 0] for i in range(n)])
    ions = np.array([[-1, r] for r in range(3)])
    src, dst, mult = PATTERNS.get(pattern)(coords, ions, np.random.default_rng(3))
    assert len(src) == len(dst) == pairs
    assert mult.sum() == messages
    assert not (src == dst).all(axis=1).any()


def test_patterns_who_talks_to_whom() -> None:
    coords = np.array([[i, 0] for i in range(4)])
    ions = np.array([[-1, 0], [-1, 1]])
    src, dst, _ = PATTERNS.get("one-to-all")(coords, ions, RNG)
    assert (src == [0, 0]).all() and dst[:, 0].tolist() == [1, 2, 3]
    src, dst, _ = PATTERNS.get("circular-shift")(coords, ions, RNG)
    assert list(zip(src[:, 0], dst[:, 0], strict=True)) == [(0, 1), (1, 2), (2, 3), (3, 0)]
    src, dst, _ = PATTERNS.get("fft")(coords, ions, RNG)
    assert sorted(zip(src[:, 0], dst[:, 0], strict=True))[:4] == [(0, 1), (0, 2), (1, 0), (1, 3)]
    src, dst, _ = PATTERNS.get("io-read")(coords, ions, RNG)
    assert (src[:, 0] == -1).all() and (dst[:, 0] >= 0).all()
    a = PATTERNS.get("random-pairs")(coords, ions, np.random.default_rng(9))
    b = PATTERNS.get("random-pairs")(coords, ions, np.random.default_rng(9))
    assert (a[1] == b[1]).all()


def test_job_traffic_routes_once() -> None:
    layout = IOLayout.square(4, 4)
    cells = [0 * 4 + 1, 0 * 4 + 2]
    jt = job_traffic(layout, 7, cells, [Traffic("io-write", 2.0)], RNG)
    assert jt.key == 7 and jt.cells == (1, 2)
    assert jt.ion_pairs.tolist() == [2, 2, 2, 2]
    assert jt.ion_volume.tolist() == [4, 4, 4, 4]
    assert jt.pairs.sum() == sum(hops(np.array([[0, y]]), io_coords(layout)).sum() for y in (1, 2))
    assert np.allclose(jt.volume, 2 * jt.pairs)
    assert jt.max_hops == 3  # (0,1) -> I/O node (-1,3): one hop west, two along the column
    assert cell_coords([5], 4).tolist() == [[1, 1]]


def test_mixed_traffic_share() -> None:
    parts = mixed_traffic(0.25, 8.0, 5, 4)
    assert parts == (Traffic("io-write", 0.5), Traffic("all-to-all", 6.0, per_sender=True))
    assert mixed_traffic(1.0, 8.0, 5, 4) == (Traffic("io-write", 2.0),)
    assert mixed_traffic(0.0, 8.0, 1, 4) == ()
    layout = IOLayout.square(4, 4)
    jt = job_traffic(layout, 0, [0, 5, 10, 15, 3], parts, RNG)
    sent_to_ions = jt.ion_volume.sum()
    assert sent_to_ions == pytest.approx(0.25 * 8.0 * 5)
    with pytest.raises(MeshsimError, match="I/O share"):
        mixed_traffic(1.5, 1.0, 2, 2)
