"""Runtime models: how long a started job runs.

By default (no model) a job runs for its trace or generated runtime. A runtime model instead decides
durations from the running set, so placement matters: whenever jobs start or end, the engine asks
the model for the end time of every running job and moves completions that changed. Models are
registered by name (``--runtime-model``); each states its formula."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

import numpy as np

from meshsim.engine.core.registry import Registry
from meshsim.engine.core.seeding import Stream, generator

if TYPE_CHECKING:
    from meshsim.engine.allocation.allocator import Placement
    from meshsim.engine.core.jobs import Job
    from meshsim.engine.topology.machines import Machine
    from meshsim.engine.workloads.workload import Workload


class RuntimeModel(ABC):
    """Durations that depend on what else runs. One per simulation."""

    name = ""
    description = ""

    def __init__(self, machine: Machine, workload: Workload, rng: np.random.Generator) -> None:
        self.machine = machine
        self.workload = workload
        self.rng = rng

    @abstractmethod
    def start(self, job: Job, placement: Placement, now: float) -> None:
        """``job`` starts now on ``placement``."""

    @abstractmethod
    def finish(self, job: Job, now: float) -> None:
        """``job`` ends (or is killed) now."""

    @abstractmethod
    def ends(self, now: float) -> dict[int, float]:
        """The end time of every running job (by job index), given who runs from now on."""

    def metrics(self) -> dict[str, float]:
        """Figures the model measured over the run, added to the result's metrics."""
        return {}


RUNTIME_MODELS: Registry[type[RuntimeModel]] = Registry("runtime model")


def runtime_model(
    name: str | None, machine: Machine, workload: Workload, seed: int
) -> RuntimeModel | None:
    """The run's model ``name`` (None: no model, jobs run for their given runtimes), drawing from
    the run's runtime stream."""
    if name is None:
        return None
    return RUNTIME_MODELS.get(name)(machine, workload, generator(seed, Stream.RUNTIME))
