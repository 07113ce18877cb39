"""PBS Pro, OpenPBS and Torque accounting logs: one file, or a folder of the server's daily files
(``server_priv/accounting/YYYYMMDD``) read in name order. Record syntax and job life cycle:
:mod:`meshsim.engine.logs.accounting`; record types other than ``Q``, ``S``, ``E``, ``D``, ``A``,
``R`` (checkpoints, reservations, licences, ...) are counted as ``record_type_unused``.

Processors (PBS Professional Reference Guide, "Resources"; Torque ``nodes`` syntax):

- requested: ``Resource_List.ncpus``; else the ``select`` chunks, Σ N × ``ncpus`` (``select=2:
  ncpus=8`` is 16; a chunk without ``ncpus`` has 1); else Torque's ``nodes``, Σ N × ``ppn`` over
  ``+``-separated parts (``nodes=2:ppn=4`` is 8; a host name counts as one node; ``ppn`` defaults to
  1, Torque's own default); else ``Resource_List.nodect`` nodes of one processor;
- allocated: ``resources_used.ncpus``; else the processor slots of ``exec_host``
  (``n1/0+n1/1`` is 2, PBS Pro's ``n1/0*8`` is 8, Torque's ``n1/0-3,5`` is 5); else the request.

Location: ``exec_host`` (to the origin file). Requested time: ``Resource_List.walltime``; a job
without one ran under its queue's limit, which the log does not hold (``--partition-limit``)."""

from __future__ import annotations

from meshsim.engine.logs.accounting import Accounting, Record, sniff
from meshsim.engine.logs.values import ValueProblem, count


class Pbs(Accounting):
    name = "pbs"

    def processors(self, fields: dict[str, str]) -> tuple[int, int]:
        requested = _requested(fields)
        allocated = count(fields.get("resources_used.ncpus"))
        if allocated is None and fields.get("exec_host"):
            allocated = exec_host_slots(fields["exec_host"])
        return requested, requested if allocated is None else allocated

    def computer(self, record: Record) -> str | None:
        """The server name of a job id (``1234.server``)."""
        _, dot, server = record.job_id.partition(".")
        return server if dot and server else None


def _requested(fields: dict[str, str]) -> int:
    ncpus = count(fields.get("Resource_List.ncpus"))
    if ncpus is not None:
        return ncpus
    if fields.get("Resource_List.select"):
        return select_processors(fields["Resource_List.select"])
    if fields.get("Resource_List.nodes"):
        return nodes_processors(fields["Resource_List.nodes"])
    nodect = count(fields.get("Resource_List.nodect"))
    return -1 if nodect is None else nodect


def select_processors(text: str) -> int:
    """Σ N × ncpus over the chunks of a ``select`` statement (``2:ncpus=8:mem=4gb+1:ncpus=4``)."""
    return _chunk_processors(text, "ncpus")


def nodes_processors(text: str) -> int:
    """Σ N × ppn over the parts of a Torque ``nodes`` request (``2:ppn=4+bignode:ppn=8``)."""
    return _chunk_processors(text, "ppn")


def _chunk_processors(text: str, key: str) -> int:
    """Σ N × ``key`` over ``+``-separated chunks ``N:key=value:...`` (N, else a host name, is 1;
    ``key`` defaults to 1)."""
    total = 0
    for chunk in text.split("+"):
        items = chunk.split(":")
        n = int(items[0]) if items[0].isdigit() else 1
        each = 1
        for item in items[1:]:
            name, eq, value = item.partition("=")
            if eq and name == key:
                each = _whole(value, text)
        total += n * each
    return total


def exec_host_slots(text: str) -> int:
    """Processor slots of an ``exec_host`` (``n1/0+n1/1``, ``n1/0*8+n2/0*8``, ``n1/0-3,5``)."""
    total = 0
    for part in text.split("+"):
        _, slash, slots = part.partition("/")
        if not slash:
            total += 1
        elif "*" in slots:
            total += _whole(slots.split("*", 1)[1], text)
        else:
            for piece in slots.split(","):
                lo, dash, hi = piece.partition("-")
                total += _whole(hi, text) - _whole(lo, text) + 1 if dash else 1
    return total


def _whole(value: str, within: str) -> int:
    if not value.isdigit():
        raise ValueProblem(f"not a processor count {value!r} in {within!r}")
    return int(value)


read = Pbs().read
__all__ = ["read", "sniff"]
