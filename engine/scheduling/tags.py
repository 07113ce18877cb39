"""A column of integers kept aligned with a list under inserts and deletes: the waiting queue's
per-position tags (:meth:`meshsim.engine.scheduling.orders.WaitingQueue.tag_with`), read as one
numpy array by a discipline that filters the whole queue at once."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class TagColumn:
    """Integers by position, in a numpy buffer that grows by doubling: an insert or delete moves
    the entries after it (one memmove), an append is O(1) amortized."""

    def __init__(self, values: Iterable[int] = ()) -> None:
        given = np.fromiter(values, dtype=np.int64)
        self._data = np.zeros(max(64, 2 * len(given)), dtype=np.int64)
        self._data[: len(given)] = given
        self._size = len(given)

    def __len__(self) -> int:
        return self._size

    def insert(self, position: int, value: int) -> None:
        size = self._size
        data = self._data
        if size == len(data):
            data = self._data = np.concatenate([data, np.zeros_like(data)])
        if position < size:
            data[position + 1 : size + 1] = data[position:size]
        data[position] = value
        self._size = size + 1

    def delete(self, position: int) -> None:
        size = self._size
        data = self._data
        data[position : size - 1] = data[position + 1 : size]
        self._size = size - 1

    def view(self) -> np.ndarray:
        """The tags in position order (a view: valid until the next insert or delete)."""
        return self._data[: self._size]
