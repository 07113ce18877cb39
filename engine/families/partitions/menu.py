"""The partition menu: every allowed shape at every legal placement, with the midplanes and cable
segments each partition uses, and precomputed conflict bitsets.

Placements: along each axis a shape of extent e takes any e of the axis's positions (the wiring
passes through the skipped midplanes), or e ring-consecutive ones when the shape says
``contiguous``. A partition uses the segments of every line it spans with two or more midplanes
(:mod:`meshsim.engine.families.partitions.machine` explains the wiring model).

Bitsets are Python integers over partition indices: ``conflicts[p]`` has bit q set when p and q
share a midplane or a segment (p's own bit included), so the partitions still usable after taking p
are ``usable & ~conflicts[p]`` and "how many usable partitions does p block" is one ``bit_count``.
The menu is built once per machine and cached.

The neighbour of a partition (SL and PF, seed 000 §IV) is its buddy in the menu: the partition of
the same shape, shifted along the first axis of ``buddy_axes`` where the two together form an
allowed larger partition, aligned as in a buddy system (positions 2k and 2k+1, 4k..4k+3, ...)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from meshsim.engine.families.partitions.machine import PartitionSpec


@dataclass(frozen=True)
class Partition:
    """One entry of the menu."""

    index: int
    name: str
    label: str
    nodes: int
    extents: tuple[int, ...]
    midplanes: tuple[int, ...]
    segments: tuple[int, ...]
    positions: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, eq=False)
class Menu:
    """All partitions of a machine and their relations."""

    spec: PartitionSpec
    partitions: tuple[Partition, ...]
    conflicts: tuple[int, ...]
    by_midplane: tuple[int, ...]
    sizes: tuple[int, ...]
    by_size: dict[int, int]
    neighbour: tuple[int | None, ...]
    segment_names: tuple[str, ...]

    def size_for(self, nodes: int) -> int | None:
        """The smallest partition size that holds ``nodes``."""
        return next((s for s in self.sizes if s >= nodes), None)

    def counts(self) -> dict[str, int]:
        """Number of partitions per shape label, in menu order."""
        out: dict[str, int] = {}
        for p in self.partitions:
            out[p.label] = out.get(p.label, 0) + 1
        return out


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask`` (a bitset over partition indices), lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def size_label(nodes: int) -> str:
    """A partition size as Cobalt names it: ``512``, ``1K``, ``32K``."""
    return f"{nodes // 1024}K" if nodes >= 1024 and nodes % 1024 == 0 else str(nodes)


def _axis_choices(length: int, extent: int, contiguous: bool) -> list[tuple[int, ...]]:
    if not contiguous or extent in (1, length):
        return list(combinations(range(length), extent))
    return [tuple(sorted((s + k) % length for k in range(extent))) for s in range(length)]


@lru_cache(maxsize=8)
def build_menu(spec: PartitionSpec) -> Menu:
    """Enumerate the menu of ``spec`` (cached: a machine's menu never changes)."""
    dims = spec.dims
    lines: dict[tuple[int, tuple[int, ...]], int] = {}
    segment_names: list[str] = []

    def line_segments(axis: int, fixed: tuple[int, ...]) -> range:
        key = (axis, fixed)
        if key not in lines:
            lines[key] = len(segment_names)
            for k in range(dims[axis]):
                segment_names.append(f"{'xyz'[axis]}-line {fixed} segment {k}")
        start = lines[key]
        return range(start, start + dims[axis])

    raw = []
    for shape in spec.shapes:
        choices = [
            _axis_choices(d, e, shape.contiguous) for d, e in zip(dims, shape.extents, strict=True)
        ]
        for positions in product(*choices):
            cells = tuple(sorted(spec.index(c) for c in product(*positions)))
            segments: list[int] = []
            for axis in range(3):
                if len(positions[axis]) < 2:
                    continue
                others = [positions[a] for a in range(3) if a != axis]
                for fixed in product(*others):
                    segments.extend(line_segments(axis, fixed))
            raw.append((shape, positions, cells, tuple(sorted(segments))))
    raw.sort(key=lambda r: (len(r[2]), r[2]))
    names = [_name(spec, shape.label, cells) for shape, _, cells, _ in raw]
    seen = Counter(names)
    partitions = []
    for index, (shape, positions, cells, segments) in enumerate(raw):
        name = names[index]
        if seen[name] > 1:  # e.g. 4K 1x2x4 on rack pairs 0 and 3 vs 1x4x2 on z 0 and 3
            where = (f"{a}={','.join(map(str, q))}" for a, q in zip("xyz", positions, strict=True))
            name += f" [{' '.join(where)}]"
        partitions.append(
            Partition(
                index,
                name,
                shape.label,
                len(cells) * spec.midplane_nodes,
                shape.extents,
                cells,
                segments,
                positions,
            )
        )
    mid_bits = [0] * spec.midplanes
    seg_bits = [0] * len(segment_names)
    for p in partitions:
        bit = 1 << p.index
        for m in p.midplanes:
            mid_bits[m] |= bit
        for s in p.segments:
            seg_bits[s] |= bit
    conflicts = []
    for p in partitions:
        c = 0
        for m in p.midplanes:
            c |= mid_bits[m]
        for s in p.segments:
            c |= seg_bits[s]
        conflicts.append(c)
    sizes = tuple(sorted({p.nodes for p in partitions}))
    by_size = {s: 0 for s in sizes}
    for p in partitions:
        by_size[p.nodes] |= 1 << p.index
    lookup = {p.positions: p.index for p in partitions}
    neighbour = tuple(_neighbour(p, spec, lookup) for p in partitions)
    return Menu(
        spec,
        tuple(partitions),
        tuple(conflicts),
        tuple(mid_bits),
        sizes,
        by_size,
        neighbour,
        tuple(segment_names),
    )


def _name(spec: PartitionSpec, label: str, cells: tuple[int, ...]) -> str:
    """A midplane's own name, or the label and the first and last midplane (``2K R00-M0..R02-M1``);
    :func:`build_menu` appends the positions along x, y, z when two partitions would share it."""
    first, last = spec.names[cells[0]], spec.names[cells[-1]]
    return first if len(cells) == 1 else f"{label} {first}..{last}"


def _neighbour(p: Partition, spec: PartitionSpec, lookup: dict) -> int | None:
    for axis in spec.buddy_axes:
        pos = p.positions[axis]
        extent = len(pos)
        if pos != tuple(range(pos[0], pos[0] + extent)) or pos[0] % extent:
            continue
        start = ((pos[0] // extent) ^ 1) * extent
        if start < 0 or start + extent > spec.dims[axis]:
            continue
        shifted = list(p.positions)
        shifted[axis] = tuple(range(start, start + extent))
        union = list(p.positions)
        union[axis] = tuple(sorted(set(pos) | set(shifted[axis])))
        if tuple(shifted) in lookup and tuple(union) in lookup:
            return lookup[tuple(shifted)]
    return None
