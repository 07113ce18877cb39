"""Contiguous allocation on 2D and 3D meshes and tori: every job gets a free box.

A job asks for the boxes of its shape request (:mod:`meshsim.engine.workloads.shapes`: its own
shape, or the square rule on 2D machines and every box of its volume on 3D ones), and with
``--rotate`` also their rotations (90° in 2D, every axis permutation in 3D). On 3D machines a job
without a given shape *grows* (Krevat et al., seed 002 §2: "If we cannot fit a job of size p in the
system, we artificially increase its size and retry"): when none of its boxes is free now, it takes
the smallest larger volume that has a free box, and holds that many nodes
(:meth:`BoxAllocator._grown`). A reservation for a later start plans its own boxes
(:class:`GridPlanner`); a migrated job keeps the volume it holds. The candidate positions of a box
are found with a summed-area table of the busy cells: O(cells) numpy work per box, cached for the
current occupancy; on a torus the table is built over the array padded with its own first slices,
so boxes wrap around. Then each allocator picks among the candidates (boolean arrays over start
positions) by its own rule (:meth:`BoxAllocator.choose`; the rules of first fit, best fit, MPL and
max-free-box are in :mod:`meshsim.engine.allocation.contiguous_choice`).

Two frontiers remember which boxes fit: a box no smaller than one that failed cannot fit until cells
are released, and a box no larger than one that fitted still fits until cells are taken (each an
array over the leading extents, holding the bounding last extent; O(1) to ask, O(cells) numpy to
record); on a 2D mesh a box they do not answer is settled for every height of its width at once by
the tallest free box of that width (:class:`~meshsim.engine.allocation.boxes.TallestBoxes`).
:meth:`BoxAllocator.fits` also remembers, per (size, shape), the requests that fit until cells are
taken and those that do not until cells are released. A query that cannot fit (more nodes than are
free, or a box known not to fit) is answered without any array work, which is what keeps aggressive
out-of-order scheduling and backfilling's "does it fit at all" question cheap at saturation.

Complexity per decision: O(cells) numpy work per candidate box, O(1) for a box the frontiers
already answer; each rule adds its own cost of choosing (its module says which)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import permutations, product

import numpy as np

from meshsim.engine.allocation.allocator import (
    DOWN,
    FREE,
    RESERVED,
    Allocator,
    Placement,
)
from meshsim.engine.allocation.boxes import (
    Box,
    TallestBoxes,
    TallestByWidth,
    keeps_windows,
    scan_positions,
    scan_start,
    scan_view,
    summed_table,
    tallest_by_width,
    window_sums,
)
from meshsim.engine.allocation.grid_planner import GridPlanner
from meshsim.engine.allocation.placement_memo import UNKNOWN, PlacementMemo
from meshsim.engine.allocation.planning import Planner, Releases
from meshsim.engine.allocation.request_fits import RequestFits
from meshsim.engine.core.jobs import Job
from meshsim.engine.topology.machines import Machine
from meshsim.engine.workloads.shapes import ShapeRequest, request_for
from meshsim.engine.workloads.shapes import box as box_request


class BoxAllocator(Allocator):
    """Occupancy of a mesh or torus and the search for free boxes; subclasses choose."""

    topologies = frozenset({"mesh", "torus"})
    stable_refusals = True
    """Taking cells only takes free boxes away, so a job none of whose boxes (nor, when it grows, a
    larger volume's) is free stays refused until cells are released."""
    remembers = False
    """Whether :meth:`place_on` and :meth:`find` remember their answers by busy mask: worth it
    only where choosing costs more than hashing the mask (``max-free-box``)."""

    def __init__(self, machine: Machine, rng: np.random.Generator, *, rotate: bool = False) -> None:
        super().__init__(machine, rng, rotate=rotate)
        spec = machine.spec
        self.dims: tuple[int, ...] = tuple(spec.dims)
        self.wrap: tuple[bool, ...] = tuple(spec.wrap)
        self.rule = "square" if len(self.dims) == 2 else "box"
        self.grows = self.rule == "box"
        """Whether a job without a given shape grows to the next volume with a free box when its
        own boxes are all taken (seed 002 §2; see the module docstring)."""
        self._volumes: dict[int, tuple[Box, ...]] = {}
        self._owner = np.full(self.dims, FREE, dtype=np.int64)
        self._free = int(np.prod(self.dims))
        self._table: np.ndarray | None = None
        self._masks: dict[Box, np.ndarray | None] = {}
        self._requests: dict[tuple, tuple[ShapeRequest, list[Box]]] = {}
        self._offsets: dict[Box, np.ndarray] = {}
        self._shapes: list[tuple[Box, int]] | None = None
        self.strides = [int(np.prod(self.dims[a + 1 :])) for a in range(len(self.dims))]
        leading = tuple(d + 1 for d in self.dims[:-1])
        self._no_fit = np.full(leading, self.dims[-1] + 1, dtype=np.int64)
        self._fit = np.zeros(leading, dtype=np.int64)
        self._by_columns = len(self.dims) == 2 and not any(self.wrap)
        self._tallest: TallestBoxes | None = None
        self._heights: np.ndarray | None = None
        self._windows: TallestByWidth | None = None
        """The window words behind :meth:`tallest_by_width`, kept while cells are only taken by
        boxes :meth:`allocate` knows (``_taken``, applied when the heights are next asked)."""
        self._taken: list[tuple[tuple[int, ...], Box]] = []
        self.releases = 0
        """How many times cells were released (or the occupancy changed otherwise than by taking
        cells): while it stays the same, a request that did not fit still does not."""
        self._answers: dict[tuple, Placement | None] = {}
        self._placements = PlacementMemo(self.remembers)
        self._fitting: set[tuple] = set()
        self._not_fitting: set[tuple] = set()
        self._made: dict[tuple[int, ...], tuple[np.ndarray, tuple[int, ...], Box]] = {}
        """The cell indices, start and box of the placements made since the occupancy last changed,
        by their cells: :meth:`allocate` takes them instead of converting the tuple back."""
        self._held: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}
        """Per running job, its cells and their indices, for :meth:`release`."""

    # ------------------------------------------------------------------ occupancy

    @property
    def free_nodes(self) -> int:
        return self._free

    def busy(self) -> np.ndarray:
        """Busy (or down) cells as a boolean array of the machine's shape."""
        return self._owner != FREE

    def owners(self) -> np.ndarray:
        return self._owner.reshape(-1).copy()

    def _changed(self, *, taken: bool | None = None) -> None:
        """Forget what depended on the occupancy. ``taken`` True: cells were only taken (boxes that
        did not fit still do not); False: only released (boxes that fitted still fit); None: any
        change."""
        self._table = None
        self._tallest = None
        self._heights = None
        self._windows = None
        self._taken = []
        self._masks.clear()
        self._answers.clear()
        self._made.clear()
        if taken is not False:
            self._fit.fill(0)
            self._fitting.clear()
        if taken is not True:
            self._no_fit.fill(self.dims[-1] + 1)
            self._not_fitting.clear()
            self.releases += 1

    def withdraw(self, cell: int, state: int) -> None:
        flat = self._owner.reshape(-1)
        if flat[cell] == FREE:
            self._free -= 1
        flat[cell] = state
        self._changed(taken=True)

    def restore(self, cell: int) -> None:
        self._owner.reshape(-1)[cell] = FREE
        self._free += 1
        self._changed(taken=False)

    def withdrawn(self) -> np.ndarray:
        """Cells out of service (failed or reserved) as a boolean array of the machine's shape."""
        owner = self._owner
        return (owner == DOWN) | (owner == RESERVED)

    def cells_of(self, start: Sequence[int], box: Box) -> np.ndarray:
        """Flat cell indices of ``box`` placed at ``start`` (wrapping on tori), in C order of the
        box (x slowest)."""
        if any(s + e > d for s, e, d in zip(start, box, self.dims, strict=True)):
            axes = [np.arange(s, s + e) % d for s, e, d in zip(start, box, self.dims, strict=True)]
            return np.ravel_multi_index(np.ix_(*axes), self.dims).reshape(-1)
        offsets = self._offsets.get(box)
        if offsets is None:
            axes = [np.arange(e) for e in box]
            offsets = self._offsets[box] = np.ravel_multi_index(np.ix_(*axes), self.dims).ravel()
        return offsets + sum(s * k for s, k in zip(start, self.strides, strict=True))

    # ------------------------------------------------------------------ requests

    def boxes_for(self, job: Job) -> tuple[ShapeRequest, list[Box]]:
        """The job's shape request and the boxes to try (rotations when allowed), memoized by (size,
        shape)."""
        key = (job.size, job.shape)
        known = self._requests.get(key)
        if known is None:
            known = self._requests[key] = self._boxes(job)
        return known

    def _boxes(self, job: Job) -> tuple[ShapeRequest, list[Box]]:
        request = request_for(job.size, job.shape, self.dims, self.rule)
        boxes: list[Box] = []
        for b in request.boxes:
            variants = sorted(set(permutations(b)), key=lambda v: v != b) if self.rotate else [b]
            for v in variants:
                if v not in boxes and all(e <= d for e, d in zip(v, self.dims, strict=True)):
                    boxes.append(v)
        return request, boxes

    def _grown(
        self, job: Job, volume: int, free: int, mask_of: Callable[[Box], np.ndarray | None]
    ) -> tuple[int, list[tuple[Box, np.ndarray]]]:
        """Seed 002 §2, "If we cannot fit a job of size p in the system, we artificially increase
        its size and retry": for a job whose boxes of ``volume`` are all taken, the smallest larger
        volume (at most ``free``) of which some box is free, with its free boxes (``mask_of``: a
        box's free start positions, None when it has none); (0, []) when there is none or the job
        does not grow (a machine without the rule, a job with a given shape)."""
        if not self.grows or job.shape is not None:
            return 0, []
        for size in range(volume + 1, free + 1):
            found = []
            for box in self._boxes_of_volume(size):
                mask = mask_of(box)
                if mask is not None:
                    found.append((box, mask))
            if found:
                return size, found
        return 0, []

    def _boxes_of_volume(self, volume: int) -> tuple[Box, ...]:
        """Every box of exactly ``volume`` cells that fits the machine (none when ``volume`` has no
        such factorization), most cube-like first, as the ``box`` rule orders them."""
        known = self._volumes.get(volume)
        if known is None:
            request = box_request(volume, self.dims)
            known = self._volumes[volume] = request.boxes if request.volume == volume else ()
        return known

    def _free_now(self, box: Box) -> np.ndarray | None:
        """Where ``box`` is free now (None: nowhere), the frontiers asked first."""
        return self._free_mask(box) if self._fits_box(box) else None

    def free_positions(
        self, box: Box, busy: np.ndarray | None = None, table: np.ndarray | None = None
    ) -> np.ndarray:
        """Start positions (k × d, scan order) where ``box`` is entirely free."""
        if busy is None:
            mask = self._free_mask(box)
            if mask is None:
                return np.zeros((0, len(self.dims)), dtype=np.intp)
            return scan_positions(mask)
        table = summed_table(busy, self.wrap) if table is None else table
        return scan_positions(window_sums(table, self.dims, box, self.wrap) == 0)

    def _free_mask(self, box: Box) -> np.ndarray | None:
        """Where ``box`` is entirely free now (a boolean array over start positions), None when
        nowhere; cached for the current occupancy and recorded in the frontiers."""
        if box in self._masks:
            return self._masks[box]
        mask: np.ndarray | None = self._free_starts(box)
        if mask.any():  # type: ignore[union-attr]
            self._record_fit(box)
        else:
            mask = None
            self._record_no_fit(box)
        self._masks[box] = mask
        return mask

    def _free_starts(self, box: Box) -> np.ndarray:
        """Where ``box`` is entirely free now (a boolean array over start positions), from the
        summed table of the occupancy (built once per occupancy)."""
        if self._table is None:
            self._table = summed_table(self.busy(), self.wrap)
        return window_sums(self._table, self.dims, box, self.wrap) == 0

    def _record_fit(self, box: Box) -> None:
        """``box`` is free somewhere: so is every box no larger, until cells are taken."""
        region = self._fit[tuple(slice(0, e + 1) for e in box[:-1])]
        np.maximum(region, box[-1], out=region)

    def _record_no_fit(self, box: Box) -> None:
        """``box`` is free nowhere: nor is any box no smaller, until cells are released."""
        region = self._no_fit[tuple(slice(e, None) for e in box[:-1])]
        np.minimum(region, box[-1], out=region)

    def _fits_box(self, box: Box) -> bool:
        """Whether ``box`` is entirely free somewhere now: the frontiers' answer, else the tallest
        free box of its width on a 2D mesh (of every width when :meth:`tallest_by_width` was
        asked for this occupancy; else of its own, recorded in the frontiers), or its free mask."""
        lead, last = box[:-1], box[-1]
        if last <= self._fit[lead]:
            return True
        if last >= self._no_fit[lead]:
            return False
        if not self._by_columns:
            return self._free_mask(box) is not None
        if self._heights is not None:
            return last <= self._heights[lead[0]]
        if self._tallest is None:
            self._tallest = TallestBoxes(self.busy())
        width = box[0]
        height = self._tallest.tallest(width)
        self._record_fit((width, height))
        self._record_no_fit((width, height + 1))
        return last <= height

    def tallest_by_width(self) -> np.ndarray:
        """The tallest free box of every width now, on a 2D mesh without wrap-around
        (:func:`~meshsim.engine.allocation.boxes.tallest_by_width`), kept for the occupancy."""
        if self._heights is None:
            if not keeps_windows(*self.dims):
                self._heights = tallest_by_width(self.busy())
                return self._heights
            if self._windows is None:
                self._windows = TallestByWidth(self.busy())
            for start, box in self._taken:
                self._windows.take(start, box)
            self._taken.clear()
            self._heights = self._windows.heights()
        return self._heights

    def request_fits(self) -> RequestFits:
        return RequestFits(self)

    def fits(self, job: Job) -> bool:
        if job.size > self._free:
            return False
        key = (job.size, job.shape)
        if key in self._fitting:
            return True
        if key in self._not_fitting:
            return False
        request, boxes = self.boxes_for(job)
        if request.volume <= self._free and (
            any(self._fits_box(box) for box in boxes)
            or self._grown(job, request.volume, self._free, self._free_now)[1]
        ):
            self._fitting.add(key)
            return True
        self._not_fitting.add(key)
        return False

    def find(self, job: Job) -> Placement | None:
        if job.size > self._free:
            return None
        key = (job.size, job.shape)
        answer = self._answers.get(key, UNKNOWN)
        if answer is not UNKNOWN:
            return answer
        if key in self._not_fitting:
            return None
        request, boxes = self.boxes_for(job)
        answer = None
        if request.volume <= self._free:
            busy = self.busy()
            memo = self._placements.key(busy, *key)
            answer = self._placements.get(memo)
            if answer is UNKNOWN:
                answer = None
                volume = request.volume
                picked = self.pick(boxes, busy)
                if picked is None:
                    volume, candidates = self._grown(job, volume, self._free, self._free_now)
                    if candidates:
                        picked = self.choose(candidates, busy)
                if picked is not None:
                    answer = self._placement(*picked, volume)
                self._placements.keep(memo, answer)
        self._answers[key] = answer
        (self._not_fitting if answer is None else self._fitting).add(key)
        return answer

    def pick(self, boxes: list[Box], busy: np.ndarray) -> tuple[Box, tuple[int, ...]] | None:
        """The allocator's pick among ``boxes`` on the current occupancy ``busy``: :meth:`choose`
        among those free somewhere now; None when none is."""
        candidates = []
        for box in boxes:
            mask = self._free_now(box)
            if mask is not None:
                candidates.append((box, mask))
        return self.choose(candidates, busy) if candidates else None

    def _placement(self, box: Box, start: Sequence[int], volume: int) -> Placement:
        cells = self.cells_of(start, box)
        at = tuple(int(s) for s in start)
        where = ",".join(map(str, at))
        placement = Placement(tuple(cells.tolist()), volume, f"({where}) {'x'.join(map(str, box))}")
        self._made[placement.cells] = (cells, at, box)
        return placement

    def choose(
        self, candidates: list[tuple[Box, np.ndarray]], busy: np.ndarray
    ) -> tuple[Box, tuple[int, ...]]:
        """The allocator's pick among free candidates: each a box and a boolean array over its start
        positions, true where it is entirely free (at least one is). The default is first fit: the
        first free position in scan order of the first box."""
        box, mask = candidates[0]
        return box, scan_start(mask.shape, int(np.argmax(scan_view(mask))))

    def allocate(self, job: Job, placement: Placement) -> None:
        cells = placement.cells
        made = self._made.get(cells)
        index = np.fromiter(cells, np.intp, len(cells)) if made is None else made[0]
        self._held[job.index] = (cells, index)
        self._owner.reshape(-1)[index] = job.index
        self._free -= len(cells)
        windows, taken = self._windows, self._taken
        self._changed(taken=True)
        if windows is not None and made is not None:  # a box taken: the windows follow it
            taken.append((made[1], made[2]))
            self._windows, self._taken = windows, taken

    def release(self, job: Job, placement: Placement) -> None:
        cells = placement.cells
        held = self._held.pop(job.index, None)
        if held is not None and held[0] is cells:
            index = held[1]
        else:
            index = np.fromiter(cells, np.intp, len(cells))
        self._owner.reshape(-1)[index] = FREE
        self._free += len(cells)
        self._changed(taken=False)

    # ------------------------------------------------------------------ planning

    def place_on(
        self,
        job: Job,
        busy: np.ndarray,
        table: np.ndarray | None = None,
        free: int | None = None,
        *,
        grow: bool = True,
    ) -> Placement | None:
        """Where ``job`` would go on an explicit busy mask (for planning and migration); ``table``
        is the mask's :func:`summed_table` and ``free`` its count of free cells when the caller
        keeps them. Without ``grow`` only the job's own boxes are tried (:meth:`_grown`).

        The answer is a function of the busy mask and the job's (size, shape) alone (``choose``
        reads nothing else), so it is remembered on exactly those: a migration re-pack places the
        running jobs largest first into the same withdrawn cells again and again (seed 002 §2),
        and each step of it asks what an earlier re-pack already asked. :meth:`find` shares the
        memo, since it answers the same question on the current occupancy."""
        request, boxes = self.boxes_for(job)
        if free is None:
            free = busy.size - int(busy.sum())
        if request.volume > free:
            return None
        memo = self._placements.key(busy, job.size, job.shape, grow=grow)
        answer = self._placements.get(memo)
        if answer is not UNKNOWN:
            return answer
        if table is None:
            table = summed_table(busy, self.wrap)

        def free_on(box: Box) -> np.ndarray | None:
            mask = window_sums(table, self.dims, box, self.wrap) == 0
            return mask if mask.any() else None

        volume = request.volume
        candidates = [(box, mask) for box in boxes if (mask := free_on(box)) is not None]
        if not candidates and grow:
            volume, candidates = self._grown(job, volume, free, free_on)
        answer = None
        if candidates:
            box, start = self.choose(candidates, busy)
            answer = self._placement(box, start, volume)
        self._placements.keep(memo, answer)
        return answer

    def place_among(
        self, job: Job, candidates: list[tuple[Box, np.ndarray]], busy: np.ndarray
    ) -> Placement:
        """The allocator's placement of ``job`` among free candidates (as :meth:`choose` takes them,
        at least one): its own boxes that are free on the busy mask they were found on. That is
        :meth:`place_on` without growth, and shares its memo (a backfilling reservation asks it
        again at every pass until the running jobs change)."""
        memo = self._placements.key(busy, job.size, job.shape, grow=False)
        answer = self._placements.get(memo)
        if answer is UNKNOWN:
            box, start = self.choose(candidates, busy)
            answer = self._placement(box, start, self.boxes_for(job)[0].volume)
            self._placements.keep(memo, answer)
        return answer

    def planner(self, now: float, releases: Releases) -> Planner:
        return GridPlanner(self, now, releases)

    def repack(self, running: Sequence[tuple[Job, Placement]]) -> dict[int, Placement] | None:
        """Seed 002 §2's re-pack (:meth:`Allocator.repack`). A job that grew keeps the volume it
        holds: it is re-placed as a request of that many nodes, on its own boxes."""
        busy = self.withdrawn()
        free = busy.size - int(busy.sum())
        plan: dict[int, Placement] = {}
        for job, held in sorted(running, key=lambda p: (-p[1].nodes, p[0].index)):
            grew = self.grows and held.nodes != job.size
            request = job._replace(size=held.nodes) if grew else job
            placement = self.place_on(request, busy, free=free, grow=False)
            if placement is None:
                return None
            busy.reshape(-1)[list(placement.cells)] = True
            free -= len(placement.cells)
            plan[job.index] = placement
        return plan

    # ------------------------------------------------------------------ explanations

    def largest_free_box(
        self, busy: np.ndarray | None = None, table: np.ndarray | None = None
    ) -> tuple[Box, int]:
        """The free box of largest volume (and its volume) in ``busy`` (default: now)."""
        mask = self.busy() if busy is None else busy
        if busy is not None and table is None:
            table = summed_table(mask, self.wrap)
        free = mask.size - int(mask.sum())
        for box, volume in self._shapes_by_volume():
            if volume > free:
                continue
            found = (
                self.free_positions(box) if busy is None else self.free_positions(box, mask, table)
            )
            if len(found):
                return box, volume
        return (0,) * len(self.dims), 0

    def _shapes_by_volume(self) -> list[tuple[Box, int]]:
        """Every box that fits the machine, largest volume first (computed once)."""
        if self._shapes is None:
            shapes = [tuple(b) for b in product(*(range(1, d + 1) for d in self.dims))]
            self._shapes = sorted(
                ((b, int(np.prod(b))) for b in shapes), key=lambda p: (-p[1], p[0])
            )
        return self._shapes

    def explain(self, job: Job) -> str:
        request, boxes = self.boxes_for(job)
        shape = " or ".join("x".join(map(str, b)) for b in boxes[:3]) or "?"
        if request.volume > self._free:
            return f"needs {shape} ({request.volume} nodes), {self._free} free"
        box, _ = self.largest_free_box()
        largest = "x".join(map(str, box))
        return f"no free {shape} box (largest free {largest}; {self._free} nodes free)"
