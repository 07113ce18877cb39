"""A run's scheduling configuration: the three orthogonal choices of DESIGN.md plus allocation.

1. queue order (priority): ``fcfs``, ``sjf``, ``wfp``, ...
   (:mod:`meshsim.engine.scheduling.orders`);
2. start discipline: ``fcfs`` (strict: the head blocks everyone), ``oo``, ``window``, ...
   (:mod:`meshsim.engine.scheduling.disciplines`);
3. backfilling: ``none``, ``easy``, ``conservative`` (:mod:`meshsim.engine.scheduling.backfill`);

and the allocator (where jobs run; ``None`` means the machine's default). Discipline and allocator
parameters travel here too so a run is fully described by one frozen value."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from meshsim.engine.topology.machines import Machine


@dataclass(frozen=True)
class Policy:
    """Queue order, start discipline, backfilling and allocator, by registered name."""

    queue: str = "fcfs"
    discipline: str = "fcfs"
    backfill: str = "none"
    allocator: str | None = None
    window: int = 240
    bound: int = 8
    rotate: bool = False
    migrate: bool = False
    runtime_model: str | None = None

    @classmethod
    def for_machine(cls, machine: Machine, **given: Any) -> Policy:
        """A policy from the options given; queue order, discipline and backfilling left out (None)
        take the machine's defaults (``default_queue`` ... in its file), else the class defaults."""
        chosen = {k: v for k, v in given.items() if v is not None}
        for key, value in machine.default_policy.items():
            chosen.setdefault(key, value)
        return cls(**chosen)

    def with_changes(self, **changes: Any) -> Policy:
        """A copy with some fields changed (used by the console's "change policy from now on")."""
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def label(self) -> str:
        """A short human label: ``fcfs/fcfs+easy@flat``."""
        alloc = self.allocator or "default"
        return f"{self.queue}/{self.discipline}+{self.backfill}@{alloc}"
