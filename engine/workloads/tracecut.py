"""Job-count cuts: which records of a trace or log a run replays (``--first N``, ``--skip S``).

Seed 002 §3 ran "on 10,000-job segments of two job logs"; a cut names such a segment. The rule:

- records are counted in file order **before any record is skipped**: an SWF trace's data lines
  (a malformed one, read with ``--lenient``, counts), a log's records (job lines, steps, folded and
  unused records, :mod:`meshsim.engine.logs.records`) in the order of its files and lines;
- ``--skip S`` passes over the first S records, ``--first N`` keeps the next N (without it, all
  the rest);
- the records in the cut are then read as a whole file is: those that are not replayed jobs are
  skipped and counted by reason, so records in the cut = jobs replayed + Σ skipped; when the file
  ends before the cut does, the records it lacks are counted as past its end;
- a cut that holds no record (``--skip`` past the end) is an error naming the option; a cut of a
  generated workload (a workload ``.toml``, which has no records) is one too.

Only the records in the cut are parsed, so a cut of a large trace is also faster to read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from meshsim.engine.core.errors import MeshsimError


@dataclass(frozen=True)
class RecordCut:
    """``first`` records (None: every one) after the first ``skip``, counted in file order."""

    first: int | None = None
    skip: int = 0

    @property
    def given(self) -> bool:
        """Whether the cut keeps less than the whole file."""
        return self.first is not None or self.skip > 0

    def keeps(self, position: int) -> bool:
        """Whether the record at 0-based ``position`` in file order is in the cut."""
        if position < self.skip:
            return False
        return self.first is None or position < self.skip + self.first

    def label(self) -> str:
        """``"records 1–10,000"``, ``"records from 10,001"``: the cut as the summary shows it."""
        start = self.skip + 1
        if self.first is None:
            return f"records from {start:,}"
        return f"records {start:,}–{self.skip + self.first:,}"

    def options(self) -> str:
        """The cut as the command line spells it (``--first 10000 --skip 5``)."""
        parts = [] if self.first is None else [f"--first {self.first}"]
        if self.skip:
            parts.append(f"--skip {self.skip}")
        return " ".join(parts)

    def check_kept(self, source: str, total: int) -> None:
        """Refuse a cut that keeps none of the ``total`` records of ``source``."""
        if self.given and total <= self.skip:
            raise MeshsimError(
                f"{self.options()}: {source} holds {total:,} records, so the cut holds none"
            )

    def refuse_generated(self, source: str) -> None:
        """A generated workload has no records to cut: an error naming the option."""
        if self.given:
            raise MeshsimError(
                f"{self.options()}: {source} is a generated workload, not a trace or log "
                "(it has no records to cut; set its number of jobs in the file)"
            )

    def outcome(self, records: int) -> CutOutcome:
        """The cut as read from a file whose cut held ``records`` records."""
        past_end = 0 if self.first is None else self.first - records
        return CutOutcome(self.first, self.skip, records, past_end)


@dataclass(frozen=True)
class CutOutcome:
    """A cut as it was read: the records it held and (with ``--first``) how many of the N the file
    did not have (``past_end``). Of the records, those that are not replayed jobs are the
    workload's skipped records, by reason."""

    first: int | None
    skip: int
    records: int
    past_end: int

    def as_dict(self, replayed: int) -> dict[str, Any]:
        """The result JSON's ``cut``, with the number of jobs ``replayed`` from it."""
        return {
            "first": self.first,
            "skip": self.skip,
            "records": self.records,
            "replayed": replayed,
            "past_end": self.past_end,
        }


def cut_summary(cut: Mapping[str, Any], skipped: Mapping[str, int]) -> str:
    """How many of a cut's records were replayed and why the others were not, from the result
    JSON's ``cut`` and ``skipped``: ``"records 1–10,000 (--first 10000): 8,943 of 10,000
    replayed; not replayed: 1,057 runtime negative"``."""
    given = RecordCut(cut["first"], cut["skip"])
    asked = cut["records"] if cut["first"] is None else cut["first"]
    others = {**skipped, "past the end of the file": cut["past_end"]}
    reasons = ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in others.items() if v)
    text = f"{given.label()} ({given.options()}): {cut['replayed']:,} of {asked:,} replayed"
    return text + (f"; not replayed: {reasons}" if reasons else "")


def data_line(line: str) -> bool:
    """Whether a line of an SWF file is a record (anything before a ``;`` comment)."""
    return bool(line.split(";", 1)[0].strip())


def cut_swf_lines(lines: list[str], cut: RecordCut, source: str) -> tuple[list[str], CutOutcome]:
    """The lines of an SWF file with every record outside ``cut`` blanked (so line numbers in
    messages stay those of the file), and what the cut holds."""
    out = list(lines)
    position = kept = 0
    for number, line in enumerate(lines):
        if data_line(line):
            if cut.keeps(position):
                kept += 1
            else:
                out[number] = ""
            position += 1
    cut.check_kept(source, position)
    return out, cut.outcome(kept)
