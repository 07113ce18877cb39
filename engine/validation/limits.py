"""Resource limits, stated and checked before anything is allocated (docs/boundaries.md).

A machine of 10^10 cells or a workload of 10^9 jobs would exhaust memory long after the run began,
and a small gzip file can expand a thousandfold; each is refused up front instead, by an error that
names the limit and how to raise it. Every limit is read from an environment variable (so sweep
workers and the console's engine process, which inherit the environment, hold the same limits);
the defaults admit every bundled machine, benchmark and experiment with room to spare."""

from __future__ import annotations

import os
from dataclasses import dataclass

from meshsim.engine.core.errors import MeshsimError


@dataclass(frozen=True)
class Limit:
    """A ceiling on one resource: what it counts, its default and the variable that raises it."""

    name: str
    variable: str
    default: int
    counts: str

    def value(self) -> int:
        """The limit in force: the environment variable's value, else the default."""
        text = os.environ.get(self.variable)
        if text is None or not text.strip():
            return self.default
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            value = 0
        if value < 1:
            raise MeshsimError(f"{self.variable}={text!r}: expected a positive whole number")
        return value

    def check(self, amount: int, subject: str) -> None:
        """Refuse ``amount`` when it exceeds the limit; ``subject`` says what asked for it."""
        limit = self.value()
        if amount > limit:
            self.refuse(subject, f"{amount:,} {self.counts}")

    def refuse(self, subject: str, amount: str) -> None:
        """Raise the error of ``subject`` asking for ``amount`` (``"more than N bytes"`` when a
        stream was cut off at the limit)."""
        raise MeshsimError(
            f"{subject}: {amount} exceeds the limit of {self.value():,} {self.counts} "
            f"(raise it with the environment variable {self.variable})"
        )


CELLS = Limit("cells", "MESHSIM_MAX_CELLS", 1 << 20, "cells")
"""Cells (nodes) of a machine: the per-cell arrays of allocators, maps and contention grow with
it. The largest bundled machine has 65,536."""

JOBS = Limit("jobs", "MESHSIM_MAX_JOBS", 2_000_000, "jobs")
"""Jobs of a generated workload (a workload file's ``jobs``, or what its span implies). The
largest benchmark, ``flat-1m``, has 1,000,000."""

INPUT_BYTES = Limit("input bytes", "MESHSIM_MAX_INPUT_BYTES", 1 << 28, "bytes")
"""Bytes of one input file as read, after decompression (traces, TOML and JSON files). Reading
stops at the limit, so a gzip bomb never expands further. The largest shared trace decompresses
to about 6 MB."""

ROUTES = Limit("routes", "MESHSIM_MAX_ROUTES", 2_000_000, "routes")
"""I/O routes of one contention analysis (``meshsim contention``: m I/O nodes × n compute nodes,
about 200 bytes each while routed). Tables 5 and 6 need at most 32,768."""

CASES = Limit("cases", "MESHSIM_MAX_CASES", 100_000, "cases")
"""Cases of one sweep spec (its grid's product times its variants), counted before they are
made. The largest bundled experiment has a few hundred."""

LIMITS = (CELLS, JOBS, INPUT_BYTES, ROUTES, CASES)
"""Every limit, in the order the docs list them."""
