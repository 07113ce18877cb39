"""Geometry of free boxes on meshes and tori: summed-area tables, window sums and window maxima.

A busy mask's summed table is built once (O(cells)); the busy count of every placement of any box
is then O(1) per position by inclusion-exclusion over the box's corners. Along wrapping axes the
mask is doubled before the table is built, so boxes can run past the edge of a torus. The maximum
of per-cell values (release times) over every placement of a box takes O(cells · log extent)
with a doubling sliding maximum along each axis.

On a 2D mesh, :class:`TallestBoxes` answers "is a w × h box free anywhere" for every height of a
width at once: the free run ending at each cell of each column, then its minimum over w adjacent
columns (a sparse table of minima over power-of-two spans), whose maximum is the tallest free box
of width w. :func:`tallest_by_width` gives that height for every width at once, from the columns'
free cells packed into 16-bit words: the longest run of ones in the AND of every w adjacent
columns.

"Scan order" is by z, then y, then x (row by row from the origin): the order of a start-position
array transposed (:func:`scan_view`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product

import numpy as np

Box = tuple[int, ...]


def summed_table(busy: np.ndarray, wrap: Sequence[bool]) -> np.ndarray:
    """The summed-area (or summed-volume) table of the busy cells, with a zero border in front;
    along wrapping axes the array is first doubled so windows can run past the edge. Built once
    per occupancy and shared by every box asked about."""
    a = busy.astype(np.int32)
    for axis, wraps in enumerate(wrap):
        if wraps:
            a = np.concatenate([a, a], axis=axis)
    table = np.zeros(tuple(n + 1 for n in a.shape), dtype=np.int32)
    inner = table[tuple(slice(1, None) for _ in a.shape)]
    inner[...] = a
    for axis in range(a.ndim):
        np.cumsum(table, axis=axis, out=table)
    return table


def window_sums(
    table: np.ndarray, dims: Sequence[int], box: Box, wrap: Sequence[bool]
) -> np.ndarray:
    """Busy cells inside the box placed at every start position (an array over start positions;
    along a wrapping axis every position is a start, otherwise only those where the box fits)."""
    starts = [
        dim if wraps else dim - extent + 1
        for dim, extent, wraps in zip(dims, box, wrap, strict=True)
    ]
    if len(dims) == 2:
        (a, b), (x, y), t = box, starts, table
        return t[a : a + x, b : b + y] - t[:x, b : b + y] - t[a : a + x, :y] + t[:x, :y]
    if len(dims) == 3:
        (a, b, c), (x, y, z), t = box, starts, table
        hi_a, hi_b, hi_c = slice(a, a + x), slice(b, b + y), slice(c, c + z)
        lo_a, lo_b, lo_c = slice(0, x), slice(0, y), slice(0, z)
        return (
            t[hi_a, hi_b, hi_c]
            - t[lo_a, hi_b, hi_c]
            - t[hi_a, lo_b, hi_c]
            - t[hi_a, hi_b, lo_c]
            + t[lo_a, lo_b, hi_c]
            + t[lo_a, hi_b, lo_c]
            + t[hi_a, lo_b, lo_c]
            - t[lo_a, lo_b, lo_c]
        )
    total = np.zeros(starts, dtype=np.int32)
    ndim = len(dims)
    for corner in product((0, 1), repeat=ndim):
        index = tuple(slice(c * e, c * e + n) for c, e, n in zip(corner, box, starts, strict=True))
        if (ndim - sum(corner)) % 2:
            total -= table[index]
        else:
            total += table[index]
    return total


def free_starts(sums: np.ndarray) -> np.ndarray:
    """Start positions (k × d) where a window sum is zero, in scan order."""
    return scan_positions(sums == 0)


def scan_view(values: np.ndarray) -> np.ndarray:
    """An array over start positions with its axes reversed, so C order is scan order."""
    return values.transpose(tuple(range(values.ndim - 1, -1, -1)))


def scan_positions(mask: np.ndarray) -> np.ndarray:
    """Start positions (k × d) where ``mask`` is true, in scan order."""
    return np.argwhere(scan_view(mask))[:, ::-1]


def scan_start(shape: Sequence[int], k: int) -> tuple[int, ...]:
    """The start position at index ``k`` of scan order over start positions of ``shape``."""
    start = []
    for extent in shape:
        k, r = divmod(k, extent)
        start.append(r)
    return tuple(start)


def window_max(values: np.ndarray, box: Box, wrap: Sequence[bool]) -> np.ndarray:
    """The maximum of ``values`` inside the box placed at every start position (an array over
    start positions, as :func:`window_sums`)."""
    out = values
    for axis, (extent, wraps) in enumerate(zip(box, wrap, strict=True)):
        dim = values.shape[axis]
        if wraps:
            out = np.concatenate([out, out[_along(axis, 0, extent - 1)]], axis=axis)
        out = _sliding_max(out, axis, extent, dim if wraps else dim - extent + 1)
    return out


def overlapping_starts(
    starts: np.ndarray, dims: Sequence[int], box: Box, shape: Box, wrap: Sequence[bool]
) -> np.ndarray:
    """For every cell c of the grid (an array of ``dims``), how many true entries of ``starts``
    (an array over start positions of ``shape``, as :func:`window_sums` gives) are placements of
    ``shape`` that overlap ``box`` placed at c: those starting in [c - s + 1, c + b - 1] along
    every axis, cyclic along a wrapping axis (every start when b + s - 1 covers it), clipped to
    the start positions otherwise. A separable box sum: one cumulative sum per axis, O(cells)."""
    out = starts.astype(np.int64)
    for axis, (dim, b, s, wraps) in enumerate(zip(dims, box, shape, wrap, strict=True)):
        length = b + s - 1
        if wraps and length >= dim:
            total = out.sum(axis=axis, keepdims=True)
            out = np.repeat(total, dim, axis=axis)
            continue
        if wraps:
            out = np.concatenate(
                [out[_along(axis, dim - s + 1, dim)], out, out[_along(axis, 0, b - 1)]], axis=axis
            )
            lo = np.arange(dim)
            hi = lo + length
        else:
            n = out.shape[axis]
            c = np.arange(dim)
            lo = np.clip(c - s + 1, 0, n)
            hi = np.clip(c + b, 0, n)
        zero = np.zeros_like(out[_along(axis, 0, 1)])
        prefix = np.cumsum(np.concatenate([zero, out], axis=axis), axis=axis)
        out = prefix.take(hi, axis=axis) - prefix.take(lo, axis=axis)
    return out


def _along(axis: int, start: int, stop: int) -> tuple[slice, ...]:
    """An index selecting [start, stop) along ``axis`` and everything along the axes before."""
    return (slice(None),) * axis + (slice(start, stop),)


def _sliding_max(values: np.ndarray, axis: int, extent: int, starts: int) -> np.ndarray:
    """Maxima of ``values`` over [i, i + extent) along ``axis`` for i < ``starts``: spans double
    until the next would pass ``extent``, then two overlapping spans cover each window."""
    span = 1
    while 2 * span <= extent:
        n = values.shape[axis] - span
        values = np.maximum(values[_along(axis, 0, n)], values[_along(axis, span, span + n)])
        span *= 2
    lo = extent - span
    return np.maximum(values[_along(axis, 0, starts)], values[_along(axis, lo, lo + starts)])


def free_runs(busy: np.ndarray) -> np.ndarray:
    """For each cell of a 2D mask, the length of the free run along axis 1 ending there (0 on a
    busy cell)."""
    runs = np.cumsum(~busy, axis=1)
    runs -= np.maximum.accumulate(np.where(busy, runs, 0), axis=1)
    return runs


def tallest_by_width(busy: np.ndarray) -> np.ndarray:
    """The height of the tallest free box of every width on a 2D mesh (no wrap-around): entry w is
    :meth:`TallestBoxes.tallest` of w (entry 0 unused, 0), so a w × h box is free somewhere exactly
    when h ≤ entry w.

    Each column's free cells are packed into 16-bit words along axis 1 (bit y set when cell y is
    free). A w × h box is free at column x exactly when the AND of columns x … x + w − 1 holds a
    run of h ones, so entry w is the longest run of ones over the ANDs of every w adjacent columns.
    The ANDs come from a sparse table over power-of-two spans (two of them cover any window), the
    longest run of a window from tables of every 16-bit word (its longest run, and the runs at its
    two ends, which join across words). A fixed count of numpy operations on the
    columns × (columns + 1) / 2 windows, whatever the occupancy; on a mesh with more than
    :data:`WINDOW_WORDS_KEPT` window words, :func:`_tallest_by_growing_width` instead."""
    columns, rows = busy.shape
    if not keeps_windows(columns, rows):
        return _tallest_by_growing_width(busy)
    return TallestByWidth(busy).heights()


def keeps_windows(columns: int, rows: int) -> bool:
    """Whether :func:`tallest_by_width` ANDs every window of a mesh of ``columns`` × ``rows`` at
    once (at most :data:`WINDOW_WORDS_KEPT` window words)."""
    return columns * (columns + 1) // 2 * -(-rows // 16) <= WINDOW_WORDS_KEPT


class TallestByWidth:
    """:func:`tallest_by_width` of one occupancy, kept while boxes are taken from it: a box taken
    clears its rows in the AND of every window of columns that holds one of its columns, and
    changes no other window, so the heights follow from the kept window words with a fixed count of
    numpy operations (:meth:`take`), without packing the columns and building the sparse table
    again. Only on a mesh where :func:`keeps_windows`."""

    def __init__(self, busy: np.ndarray) -> None:
        columns, rows = busy.shape
        words = -(-rows // 16)
        self.columns, self.words = columns, words
        packed = np.packbits(~busy, axis=1, bitorder="little")
        if packed.shape[1] < 2 * words:
            padding = np.zeros((columns, 2 * words - packed.shape[1]), dtype=np.uint8)
            packed = np.concatenate([packed, padding], axis=1)
        first, second, _, levels = _column_windows(columns, words)
        size = columns * words
        spans = np.zeros((len(levels) + 1) * size, dtype=np.uint16)  # by level, column, word
        spans[:size] = packed.view("<u2").reshape(-1)
        for below, shift, count in levels:
            np.bitwise_and(
                spans[below : below + count],
                spans[below + shift : below + shift + count],
                out=spans[below + size : below + size + count],
            )
        self.window = np.bitwise_and(spans.take(first), spans.take(second), dtype=np.intp)
        """Per word (rows 16k … 16k + 15) and window of adjacent columns (by width, then first
        column), the free rows of the window's AND."""

    def take(self, start: Sequence[int], box: Box) -> None:
        """The cells of ``box`` at ``start`` were taken (a box inside the mesh)."""
        (x, y), (w, h) = start, box
        lo, hi = _window_columns(self.columns)
        touched = (lo < x + w) & (hi >= x)
        rows = ((1 << h) - 1) << y
        kept = [~(rows >> (16 * word)) & 0xFFFF for word in range(self.words)]
        cleared = np.array(kept, dtype=np.intp)[:, None]
        np.bitwise_and(self.window, np.where(touched, cleared, 0xFFFF), out=self.window)

    def heights(self) -> np.ndarray:
        """Entry w: the height of the tallest free box w columns wide (entry 0 unused, 0)."""
        window, starts = self.window, _column_windows(self.columns, self.words)[2]
        longest, low, high = _word_runs()
        bits = window[0]
        best = longest.take(bits)
        if self.words > 1:  # runs across words: the high end of one word joined to the low end
            carry = high.take(bits)  # of the next
            for word in range(1, self.words):
                bits = window[word]
                best = np.maximum(best, longest.take(bits))
                best = np.maximum(best, carry + low.take(bits))
                if word + 1 < self.words:
                    carry = np.where(bits == 0xFFFF, carry + 16, high.take(bits))
        heights = np.zeros(self.columns + 1, dtype=np.int64)
        heights[1:] = np.maximum.reduceat(best, starts)
        return heights


WINDOW_WORDS_KEPT = 1 << 18
"""The most 16-bit words :func:`tallest_by_width` ANDs at once (every window of adjacent columns
times the words of a column: mesh32 has 528 × 2)."""


def _tallest_by_growing_width(busy: np.ndarray) -> np.ndarray:
    """:func:`tallest_by_width` in O(cells) memory: the minimum of the free runs over w adjacent
    columns grows one column per width, O(cells) numpy each, and stops at the first width with no
    free box (wider ones have none either)."""
    runs = free_runs(busy)
    columns = busy.shape[0]
    heights = np.zeros(columns + 1, dtype=np.int64)
    window = runs
    width = 1
    top = int(window.max())
    while top:
        heights[width] = top
        if width == columns:
            break
        width += 1
        window = np.minimum(window[:-1], runs[width - 1 :])
        top = int(window.max())
    return heights


@cache
def _column_windows(
    columns: int, words: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[tuple[int, int, int], ...]]:
    """For every word of a column and every window of w adjacent columns out of ``columns`` (by
    word, then width, then first column): where its two covering spans' word lies in the sparse
    table flattened by (level, column, word), as two arrays of shape words × windows; then the
    first window of each width, and for each level above the first how to build it from the one
    below (the offset of the level below, the shift to the span that completes it, and how many
    words it holds)."""
    first: list[list[int]] = [[] for _ in range(words)]
    second: list[list[int]] = [[] for _ in range(words)]
    starts: list[int] = []
    for width in range(1, columns + 1):
        level = width.bit_length() - 1
        starts.append(len(first[0]))
        for x in range(columns - width + 1):
            for word in range(words):
                first[word].append((level * columns + x) * words + word)
                second[word].append((level * columns + x + width - (1 << level)) * words + word)
    size = columns * words
    levels = tuple(
        ((level - 1) * size, (1 << (level - 1)) * words, (columns - (1 << (level - 1))) * words)
        for level in range(1, columns.bit_length())
    )
    return np.array(first), np.array(second), np.array(starts), levels


@cache
def _window_columns(columns: int) -> tuple[np.ndarray, np.ndarray]:
    """The first and the last column of every window of adjacent columns (by width, then first
    column), as :func:`_column_windows` orders them."""
    lo = [x for width in range(1, columns + 1) for x in range(columns - width + 1)]
    hi = [x + width - 1 for width in range(1, columns + 1) for x in range(columns - width + 1)]
    return np.array(lo), np.array(hi)


@cache
def _word_runs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every 16-bit word: its longest run of ones, the run of ones from bit 0 up, and the run
    of ones from bit 15 down."""
    words = np.arange(1 << 16)
    longest = np.zeros(1 << 16, dtype=np.int64)
    low = np.zeros(1 << 16, dtype=np.int64)
    high = np.zeros(1 << 16, dtype=np.int64)
    left = words.copy()
    for length in range(1, 17):
        longest += left != 0
        left &= left >> 1
        ones = (1 << length) - 1
        low += (words & ones) == ones
        high += (words & (ones << (16 - length))) == ones << (16 - length)
    return longest, low, high


class TallestBoxes:
    """The tallest free box of each width on a 2D mesh (no wrap-around), for one occupancy:
    O(cells) numpy to set up, then O(cells) numpy per width asked. ``minima[k][x, y]`` is the
    shortest free run ending at row y among columns x … x + 2^k − 1, built as far as the widest
    width asked needs."""

    def __init__(self, busy: np.ndarray) -> None:
        self.minima = [free_runs(busy)]

    def tallest(self, width: int) -> int:
        """The height of the tallest free box ``width`` columns wide (0: none)."""
        k = width.bit_length() - 1
        minima = self.minima
        while len(minima) <= k:
            step = 1 << (len(minima) - 1)
            minima.append(np.minimum(minima[-1][:-step], minima[-1][step:]))
        level = minima[k]
        starts = level.shape[0] + (1 << k) - width
        lo = width - (1 << k)
        return int(np.minimum(level[:starts], level[lo : lo + starts]).max())
