"""Random streams: one seed per run, one independent numpy generator per purpose.

Each purpose has a fixed spawn key, so adding a new consumer never shifts another's stream:
the same seed always gives the same workload, whatever the policies or allocator draw.
No module keeps global random state.
"""

from enum import IntEnum

import numpy as np


class Stream(IntEnum):
    """The purposes that draw random numbers."""

    WORKLOAD = 0
    ALLOCATOR = 1
    POLICY = 2
    ACTIONS = 3
    RUNTIME = 4


def generator(seed: int, purpose: Stream) -> np.random.Generator:
    """The generator for ``purpose`` in a run with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=(int(purpose),)))
