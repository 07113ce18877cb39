"""Traffic patterns and the per-job traffic record used by every contention computation.

A pattern turns a job's nodes (in rank order: task i runs on ``cells[i]``, the order the allocator
gave) and the I/O nodes into sender-receiver pairs (Mache 1999, Ch. II L489-503, Ch. III L795-835).
Every pair is one unicast message; the patterns are:

- ``all-to-all``: all-to-all personalized (complete exchange), every ordered pair i != j (L495);
  ``transpose`` is the same pair set (the dissertation files matrix transpose and FFT data
  redistribution under complete exchange, L497);
- ``all-to-all-broadcast``: every node sends its one message to every other node, sent as unicasts,
  so the same pairs as ``all-to-all`` (only the message content differs, which link counting cannot
  see);
- ``one-to-all``: broadcast from rank 0, as direct unicasts to every other rank;
- ``circular-shift``: rank i sends to rank (i + 1) mod n (L503);
- ``nbody``: the systolic n-body ring: every block travels once around the ring, so the pairs of the
  circular shift each carry n - 1 messages;
- ``fft``: butterfly: in phase p = 0 … ceil(log2 n) - 1, rank i exchanges with i XOR 2^p when that
  rank exists (Ch. IV's FFT pattern, L1246-1248; phases are summed, barriers ignored);
- ``random-pairs``: each rank sends one message to a uniformly chosen other rank (drawn from the
  generator passed in, once per job);
- ``io-write`` / ``io-read``: complete bipartite K_{m,n} between the job's compute nodes and every
  I/O node (L833-835, L1612): write is compute -> I/O node, read is I/O node -> compute.

Every pattern but the two I/O ones is also in :data:`COMM_PATTERNS` (what ``meshsim run --pattern``
accepts); :data:`IO_TRAFFIC` names the two I/O directions (``--io-traffic``).

A job's traffic is a tuple of :class:`Traffic` components, each a pattern and the MB one pair (or
one sending rank) carries per iteration. :func:`job_traffic` routes it once, when the job starts,
into per-link arrays (pair counts for Mache's link_contention, MB for the runtime model), so
recomputing the contention of a running set only sums stored vectors. :class:`TrafficChoice` is what
a run's jobs do (pattern, I/O direction, I/O share), kept per job in the workload's ``attrs`` by
:func:`with_traffic`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.families.contention.io import IOLayout
from meshsim.engine.families.contention.routing import hops, link_space
from meshsim.engine.workloads.workload import Workload

Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Sender coordinates (k, 2), receiver coordinates (k, 2), messages per pair (k,)."""

PatternFn = Callable[[np.ndarray, np.ndarray, np.random.Generator], Pairs]

PATTERNS: Registry[PatternFn] = Registry("traffic pattern")
"""Traffic patterns by name: fn(job node coords (n, 2), I/O node coords (m, 2), rng) -> pairs."""

COMM_PATTERNS: Registry[PatternFn] = Registry("communication pattern")
"""Communication patterns among a job's own nodes: every pattern but ``io-write``, ``io-read``."""

IO_TRAFFIC: Registry[str] = Registry("I/O traffic")
"""Parallel I/O directions by name (``write``, ``read``), each naming its pattern."""


def _communication(name: str) -> Callable[[PatternFn], PatternFn]:
    """Register a communication pattern in :data:`PATTERNS` and :data:`COMM_PATTERNS`."""

    def decorate(fn: PatternFn) -> PatternFn:
        PATTERNS.register(name)(fn)
        return COMM_PATTERNS.register(name)(fn)

    return decorate


def _pairs(coords: np.ndarray, i: np.ndarray, j: np.ndarray, mult: np.ndarray | None) -> Pairs:
    weights = np.ones(len(i)) if mult is None else mult
    return coords[i], coords[j], weights


def _all_pairs(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    n = len(coords)
    i, j = np.divmod(np.arange(n * n), n)
    keep = i != j
    return _pairs(coords, i[keep], j[keep], None)


_communication("all-to-all")(_all_pairs)
_communication("all-to-all-broadcast")(_all_pairs)
_communication("transpose")(_all_pairs)


@_communication("one-to-all")
def _one_to_all(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    j = np.arange(1, len(coords))
    return _pairs(coords, np.zeros_like(j), j, None)


def _ring(n: int) -> tuple[np.ndarray, np.ndarray]:
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    i = np.arange(n)
    return i, (i + 1) % n


@_communication("circular-shift")
def _circular_shift(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    i, j = _ring(len(coords))
    return _pairs(coords, i, j, None)


@_communication("nbody")
def _nbody(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    n = len(coords)
    i, j = _ring(n)
    return _pairs(coords, i, j, np.full(len(i), float(n - 1)))


@_communication("fft")
def _fft(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    n = len(coords)
    ranks = np.arange(n)
    src, dst = [], []
    for p in range(max(n - 1, 0).bit_length()):
        partner = ranks ^ (1 << p)
        ok = partner < n
        src.append(ranks[ok])
        dst.append(partner[ok])
    if not src:
        return _pairs(coords, ranks[:0], ranks[:0], None)
    return _pairs(coords, np.concatenate(src), np.concatenate(dst), None)


@_communication("random-pairs")
def _random_pairs(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    n = len(coords)
    if n < 2:
        return _pairs(coords, np.zeros(0, np.int64), np.zeros(0, np.int64), None)
    i = np.arange(n)
    j = rng.integers(0, n - 1, size=n)
    j = j + (j >= i)
    return _pairs(coords, i, j, None)


def _bipartite(coords: np.ndarray, ions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c, r = np.divmod(np.arange(len(coords) * len(ions)), len(ions))
    return coords[c], ions[r]


@PATTERNS.register("io-write")
def _io_write(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    s, d = _bipartite(coords, ions)
    return s, d, np.ones(len(s))


@PATTERNS.register("io-read")
def _io_read(coords: np.ndarray, ions: np.ndarray, rng: np.random.Generator) -> Pairs:
    s, d = _bipartite(coords, ions)
    return d, s, np.ones(len(s))


IO_TRAFFIC.register("write")("io-write")
IO_TRAFFIC.register("read")("io-read")


class Traffic(NamedTuple):
    """One component of a job's traffic: a pattern and the MB it carries per iteration.

    ``mb_per_pair`` is what each pair carries (times the pattern's multiplicity); with
    ``per_sender`` it is instead what each sending rank sends in all, split over its pairs in
    proportion to their multiplicities."""

    pattern: str
    mb_per_pair: float = 1.0
    per_sender: bool = False


def mixed_traffic(
    io_share: float,
    node_mb: float,
    size: int,
    io_nodes: int,
    pattern: str = "all-to-all",
    io: str = "write",
) -> tuple[Traffic, ...]:
    """Parallel I/O plus a communication pattern, ``io_share`` of every node's bytes being I/O.

    Ambiguity 9 of the extraction (what the "percentage of I/O traffic" counts, L2421) is decided
    here as a share of bytes: every compute node moves ``node_mb`` MB per iteration; the share
    ``io_share`` it exchanges with the ``io_nodes`` I/O nodes, ``io_share · node_mb / io_nodes``
    with each (it writes them for ``io = "write"``, L2262, and reads them for ``"read"``, L835); the
    rest, ``(1 - io_share) · node_mb``, every rank that sends in ``pattern`` sends, split over its
    messages (all-to-all: to each of the other ``size - 1`` ranks, Ch. VII's communication part,
    L957; circular shift: all to the next rank; one-to-all: rank 0 to each other rank, the others
    send nothing). Every job has the same share unless the workload gives one per job (L2665 asks
    for per-job ratios as future work)."""
    if not 0.0 <= io_share <= 1.0:
        raise MeshsimError(f"I/O share must lie in [0, 1], got {io_share}")
    COMM_PATTERNS.get(pattern)
    parts = []
    if io_share > 0:
        parts.append(Traffic(IO_TRAFFIC.get(io), io_share * node_mb / io_nodes))
    if io_share < 1 and size > 1:
        parts.append(Traffic(pattern, (1 - io_share) * node_mb, per_sender=True))
    return tuple(parts)


@dataclass(frozen=True)
class TrafficChoice:
    """What one job's traffic is made of: see :func:`mixed_traffic`."""

    pattern: str = "all-to-all"
    io: str = "write"
    io_share: float = 1.0

    def parts(self, size: int, io_nodes: int, node_mb: float) -> tuple[Traffic, ...]:
        """The job's traffic components for ``size`` nodes and ``io_nodes`` I/O nodes."""
        return mixed_traffic(self.io_share, node_mb, size, io_nodes, self.pattern, self.io)


TRAFFIC_ATTRS = {"pattern": "pattern", "io": "io_traffic", "io_share": "io_share"}
""":class:`TrafficChoice` field -> the per-job column of ``Workload.attrs`` that holds it."""


def traffic_of(attrs: Mapping[str, np.ndarray], index: int) -> TrafficChoice:
    """Job ``index``'s traffic from a workload's per-job columns; a missing column (or a job beyond
    it, e.g. one an operator submitted) takes the :class:`TrafficChoice` default."""
    given = {}
    for name, column in TRAFFIC_ATTRS.items():
        values = attrs.get(column)
        if values is not None and index < len(values):
            given[name] = values[index].item()
    return TrafficChoice(**given)


def with_traffic(
    workload: Workload,
    *,
    pattern: str | None = None,
    io: str | None = None,
    io_share: float | None = None,
) -> Workload:
    """The workload with every job's traffic set (``meshsim run --pattern/--io-traffic/
    --io-share``); what is not given keeps the workload's own column (the ``mache-io`` generator's
    ``io_share``) or the :class:`TrafficChoice` default. Unknown names and shares outside [0, 1] are
    a :class:`MeshsimError` listing what is valid."""
    if pattern is None and io is None and io_share is None:
        return workload
    if pattern is not None:
        COMM_PATTERNS.get(pattern)
    if io is not None:
        IO_TRAFFIC.get(io)
    if io_share is not None and not 0.0 <= io_share <= 1.0:
        raise MeshsimError(f"I/O share must lie in [0, 1], got {io_share}")
    n = len(workload)
    attrs = dict(workload.attrs)
    notes = []
    for column, value in (("pattern", pattern), ("io_traffic", io), ("io_share", io_share)):
        if value is not None:
            attrs[column] = np.full(n, value)
            notes.append(f"{column} {value}")
    note = "traffic " + ", ".join(notes)
    return replace(workload, attrs=attrs, transforms=(*workload.transforms, note))


class JobStreams:
    """One random stream per job, drawn from a run's runtime stream once, so a job's random traffic
    (``random-pairs``) depends on the seed and the job, not on the order jobs start in:
    the runtime model and the run's contention observer route the same pairs."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.entropy = int(rng.integers(2**63))

    def __call__(self, index: int) -> np.random.Generator:
        """The generator of job ``index``."""
        return np.random.default_rng((self.entropy, index))


def cell_coords(cells: Sequence[int], height: int) -> np.ndarray:
    """(x, y) of flat cell indices of a grid with ``height`` rows (cell = x · H + y)."""
    c = np.asarray(cells, dtype=np.int64)
    return np.stack(np.divmod(c, height), axis=1)


def io_coords(layout: IOLayout) -> np.ndarray:
    """(x, y) of the I/O nodes: x = -1, y = their rows."""
    rows = np.asarray(layout.rows, dtype=np.int64)
    return np.stack((np.full(len(rows), -1), rows), axis=1)


@dataclass(frozen=True, eq=False)
class JobTraffic:
    """A running job's traffic, routed once: per-link and per-I/O-node loads.

    ``pairs`` counts sender-receiver pairs per link (Mache's link_contention, L1621; a pair that
    several components produce counts once per component); ``volume`` is MB per iteration per link;
    ``ion_pairs`` / ``ion_volume`` are the same per I/O node (as sender or receiver); ``max_hops``
    is the longest XY path of the job's pairs; ``pair_count`` the number of pairs (of which
    ``ion_pairs.sum()`` have an I/O node at one end)."""

    key: int
    cells: tuple[int, ...]
    pairs: np.ndarray
    volume: np.ndarray
    ion_pairs: np.ndarray
    ion_volume: np.ndarray
    max_hops: int
    pair_count: int


def job_traffic(
    layout: IOLayout,
    key: int,
    cells: Sequence[int],
    traffic: Sequence[Traffic],
    rng: np.random.Generator,
) -> JobTraffic:
    """Route a job's traffic over ``layout``: O(pairs + links) with numpy."""
    space = link_space(layout.width, layout.height)
    coords = cell_coords(cells, layout.height)
    ions = io_coords(layout)
    m = layout.count
    src_parts, dst_parts, cnt_parts, vol_parts = [], [], [], []
    for component in traffic:
        s, d, mult = PATTERNS.get(component.pattern)(coords, ions, rng)
        src_parts.append(s)
        dst_parts.append(d)
        cnt_parts.append(np.ones(len(s)))
        if component.per_sender:
            _, sender = np.unique((s[:, 0] + 1) * layout.height + s[:, 1], return_inverse=True)
            sent = np.bincount(sender, mult)
            vol_parts.append(mult * (component.mb_per_pair / sent[sender]))
        else:
            vol_parts.append(mult * component.mb_per_pair)
    if src_parts:
        src = np.concatenate(src_parts)
        dst = np.concatenate(dst_parts)
        counts = np.concatenate(cnt_parts)
        volume = np.concatenate(vol_parts)
    else:
        src = dst = np.zeros((0, 2), np.int64)
        counts = volume = np.zeros(0)
    both = space.loads(
        np.concatenate((src, src)),
        np.concatenate((dst, dst)),
        np.concatenate((counts, volume)),
        np.repeat(np.array([0, 1]), len(src)),
        n_groups=2,
    )
    ion_index = np.full(layout.height, -1, np.int64)
    ion_index[list(layout.rows)] = np.arange(m)
    at_ion = np.concatenate((src[:, 0] == -1, dst[:, 0] == -1))
    ion_rows = np.concatenate((src[:, 1], dst[:, 1]))[at_ion]
    which = ion_index[ion_rows]
    ion_pairs = np.bincount(which, np.concatenate((counts, counts))[at_ion], minlength=m)
    ion_volume = np.bincount(which, np.concatenate((volume, volume))[at_ion], minlength=m)
    return JobTraffic(
        key=key,
        cells=tuple(int(c) for c in cells),
        pairs=both[0],
        volume=both[1],
        ion_pairs=ion_pairs.astype(np.float64),
        ion_volume=ion_volume,
        max_hops=int(hops(src, dst).max()) if len(src) else 0,
        pair_count=len(src),
    )
