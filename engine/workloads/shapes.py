"""Size-to-shape conversion: which box a job of n nodes asks for on a mesh or torus.

Rules, registered by name (``--shape``):

- ``square`` (seed 001 §5.4): n = w·h with w ≤ W, h ≤ H, |w − h| minimal and w ≤ h; when n cannot be
  shaped on the mesh, the smallest larger n that can (17 becomes 18 = 3×6 on 12×12). If no w ≤ h
  fits because W < H is too small, the transposed box is used.
- ``paragon`` (seed 001 §5.4, after Bunde et al.): a multiple of 16 becomes w×16 (n = 16w); other
  sizes use the square rule with w ≥ h.
- ``box`` (seed 002 §2, for 3D tori and meshes): every box a×b×c = n that fits the machine is a
  candidate; the allocator tries them all. When none fits, n is increased step by step until one
  does. On 2D machines it means every w×h = n. On 3D machines the allocator also grows a job whose
  boxes are all taken *now* to the next volume with a free box
  (:meth:`meshsim.engine.allocation.contiguous.BoxAllocator._grown`).
- ``given``: the workload gives the shapes (its ``shapes`` column); jobs without one fall back to
  ``square`` (2D) or ``box`` (3D).

A :class:`ShapeRequest` lists the candidate boxes (all of one volume, the allocated size, which is ≥
the requested size: the difference is internal fragmentation)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import permutations
from math import isqrt

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.core.registry import Registry
from meshsim.engine.workloads.workload import Workload


@dataclass(frozen=True)
class ShapeRequest:
    """Candidate boxes for a job (each a tuple of extents along x, y[, z]) and their volume."""

    boxes: tuple[tuple[int, ...], ...]
    volume: int


SHAPE_RULES: Registry[Callable[[int, tuple[int, ...]], ShapeRequest]] = Registry("shape rule")


def _fits(box: tuple[int, ...], dims: tuple[int, ...]) -> bool:
    return all(b <= d for b, d in zip(box, dims, strict=True))


@SHAPE_RULES.register("square")
@lru_cache(maxsize=65536)
def square(n: int, dims: tuple[int, ...]) -> ShapeRequest:
    """Seed 001's square transformation (module docstring); 3D machines use ``box``."""
    if len(dims) != 2:
        return box(n, dims)
    width, height = dims
    for size in range(max(n, 1), width * height + 1):
        pairs = [(w, size // w) for w in range(1, isqrt(size) + 1) if size % w == 0]
        upright = [p for p in pairs if _fits(p, dims)]
        if upright:
            return ShapeRequest((max(upright),), size)
        turned = [(h, w) for w, h in pairs if _fits((h, w), dims)]
        if turned:
            return ShapeRequest((min(turned),), size)
    raise MeshsimError(f"a job of {n} nodes cannot be shaped on a {width}x{height} mesh")


@SHAPE_RULES.register("paragon")
@lru_cache(maxsize=65536)
def paragon(n: int, dims: tuple[int, ...]) -> ShapeRequest:
    """Multiples of 16 as w×16; other sizes by the square rule with w ≥ h."""
    if len(dims) == 2 and n % 16 == 0 and _fits((n // 16, 16), dims):
        return ShapeRequest(((n // 16, 16),), n)
    shaped = square(n, dims)
    if len(dims) != 2:
        return shaped
    w, h = shaped.boxes[0]
    wide = (max(w, h), min(w, h))
    return ShapeRequest((wide if _fits(wide, dims) else (w, h),), shaped.volume)


@SHAPE_RULES.register("box")
@lru_cache(maxsize=65536)
def box(n: int, dims: tuple[int, ...]) -> ShapeRequest:
    """Every box of volume n (or the next volume that fits), most cube-like first."""
    total = int(np.prod(dims))
    for size in range(max(n, 1), total + 1):
        boxes = sorted(
            {b for b in _factorizations(size, len(dims)) if _fits(b, dims)},
            key=lambda b: (max(b) - min(b), b),
        )
        if boxes:
            return ShapeRequest(tuple(boxes), size)
    raise MeshsimError(
        f"a job of {n} nodes cannot be shaped on a {'x'.join(map(str, dims))} machine"
    )


def _factorizations(n: int, parts: int) -> set[tuple[int, ...]]:
    if parts == 1:
        return {(n,)}
    out: set[tuple[int, ...]] = set()
    for a in range(1, n + 1):
        if n % a == 0:
            for rest in _factorizations(n // a, parts - 1):
                out.add((a, *rest))
    return out


SHAPE_RULES.register("given")(square)


def request_for(
    size: int, shape: tuple[int, ...] | None, dims: tuple[int, ...], rule: str
) -> ShapeRequest:
    """The boxes a job asks for: its given shape when it has one, else the rule's."""
    if shape is not None and len(shape) == len(dims):
        if not _fits(shape, dims) and not any(_fits(p, dims) for p in permutations(shape)):
            raise MeshsimError(f"shape {'x'.join(map(str, shape))} does not fit the machine")
        return ShapeRequest((tuple(shape),), int(np.prod(shape)))
    name = "square" if rule == "given" and len(dims) == 2 else ("box" if rule == "given" else rule)
    return SHAPE_RULES.get(name)(size, dims)


def with_shapes(workload: Workload, rule: str, dims: tuple[int, ...]) -> Workload:
    """``workload`` with the ``shapes`` column filled by ``rule`` (the first candidate box of each
    job; ``box`` leaves shapes empty so the allocator tries every box). ``given`` keeps the
    workload's own shapes."""
    SHAPE_RULES.get(rule)
    if rule in ("given", "box"):
        return workload
    shapes = np.full((len(workload), len(dims)), -1, dtype=np.int64)
    for i, size in enumerate(workload.size.tolist()):
        shapes[i] = SHAPE_RULES.get(rule)(size, dims).boxes[0]
    return replace(workload, shapes=shapes, transforms=(*workload.transforms, f"shapes by {rule}"))
