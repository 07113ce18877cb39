"""``paragon-nqs``: a synthetic SDSC Paragon workload calibrated to Wan et al. (seed 004 §3).

The real traces (SDSC-Par-1995/1996) come from ``meshsim trace fetch``; offline this generator is
the default for ``paragon-sdsc``. Calibration, per batch queue, from Table 5:

- the number of jobs over the six months 1995-04-01 to 1995-09-30 (scaled by ``days / 183``);
- runtimes exponential, cut at the queue's time limit (which reproduces Table 4's pile-up at 12
  hours), with the exponential's mean chosen so that the cut mean equals the queue's average
  execution time; a queue listed with 0.0 h runs 1 minute;
- sizes: the mean size that the queue's share of usage implies, usage% × (78.2 % × 368 nodes × 4392
  h / 97.8 %) / (jobs × average execution time) — the batch partition's node-hours over its 97.8 %
  share give the total that the usage shares divide, drawn as a two-point mixture of the
  neighbouring powers of two so the mean matches (capped at the queue's limit); queues whose usage
  rounds to 0.0 % get half their node limit;
- requested time = the queue's time limit; arrivals Poisson over the period.

Interactive jobs (Table 1: 22,536; Table 3's interactive size column up to 32 nodes, the partition
size) run 10 minutes on average (exponential, so that the 32-node partition sees about Table 1's 20
% utilization) and arrive four times as often in prime time as outside it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np

from meshsim.engine.core.toml_table import Table
from meshsim.engine.families.nqs.allocator import nqs_config
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.rules import Rule
from meshsim.engine.workloads.generators import GENERATORS, check_jobs, generator_section
from meshsim.engine.workloads.swf import parse_header
from meshsim.engine.workloads.workload import Workload, from_columns

PERIOD_DAYS = 183
START = datetime(1995, 4, 1, tzinfo=ZoneInfo("US/Pacific"))

TABLE5 = {
    # queue: (jobs, usage % of total, average execution time in hours)
    "q4t": (1635, 0.0, 0.0),
    "q4s": (684, 0.0, 0.1),
    "q8s": (107, 0.0, 0.2),
    "q16s": (366, 0.0, 0.1),
    "q32s": (267, 1.2, 1.0),
    "q64s": (226, 0.3, 0.3),
    "q32m": (299, 1.2, 1.6),
    "q64m": (110, 0.5, 1.1),
    "q128m": (165, 0.9, 0.5),
    "q256m": (177, 0.4, 1.6),
    "q1l": (3080, 0.1, 0.3),
    "q32l": (1178, 8.4, 5.2),
    "q64l": (724, 19.5, 5.0),
    "q128l": (173, 8.8, 4.6),
    "qf8s": (155, 0.0, 0.1),
    "qf16s": (254, 0.0, 0.1),
    "qf32s": (348, 0.6, 0.5),
    "qf32m": (659, 1.5, 1.2),
    "qf64m": (182, 0.5, 0.7),
    "qf128m": (75, 0.1, 0.2),
    "qf256m": (14, 0.1, 0.6),
    "qf32l": (500, 8.9, 6.9),
    "qf64l": (259, 9.1, 6.7),
    "qf128l": (109, 6.6, 5.6),
    "qf256l": (74, 7.4, 5.6),
    "standby": (1132, 10.3, 6.5),
    "fstandby": (271, 13.4, 7.2),
}
INTERACTIVE_JOBS = 22536
INTERACTIVE_SIZES = {1: 3364, 2: 391, 4: 6683, 8: 3543, 16: 3676, 32: 1845}
TOTAL_NODE_HOURS = 0.782 * 368 * 4392 / 0.978


def implied_size(jobs: int, usage: float, hours: float, limit: int) -> float:
    """The mean size the queue's share of usage implies (module docstring), within its limit."""
    if usage <= 0 or hours <= 0:
        return max(1.0, limit / 2)
    return float(min(max(usage / 100 * TOTAL_NODE_HOURS / (jobs * hours), 1.0), limit))


def cut_exponential_mean(target: float, limit: float) -> float:
    """The mean mu of an exponential whose cut at ``limit`` has mean ``target``:
    mu (1 - exp(-limit / mu)) = target, solved by bisection (the left side grows with mu)."""
    if target >= limit:
        return target
    low, high = target, 1000.0 * limit
    for _ in range(100):
        mid = (low + high) / 2
        if mid * (1.0 - np.exp(-limit / mid)) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def power_mix(rng: np.random.Generator, mean: float, n: int) -> np.ndarray:
    """Powers of two whose mean is ``mean``: 2^k or 2^(k+1) around it."""
    low = 2 ** int(np.floor(np.log2(mean)))
    p_high = (mean - low) / low
    return np.where(rng.random(n) < p_high, 2 * low, low).astype(np.int64)


PARAGON_NQS = generator_section(
    "paragon-nqs",
    (
        Rule("days", "float", float(PERIOD_DAYS), minimum=1.0, maximum=36500.0),
        Rule("interactive", "bool", True, doc="also draw the interactive jobs"),
    ),
    "a synthetic SDSC Paragon period calibrated to Wan et al. (seed 004 §3); needs a machine "
    "with an [nqs] section",
)


@GENERATORS.register("paragon-nqs")
def paragon_nqs(t: Table, machine: Machine, rng: np.random.Generator) -> Workload:
    t = t.follow(PARAGON_NQS)
    t.reject_unknown()
    days = t.get("days")
    interactive = t.get("interactive")
    config = nqs_config(machine)
    queues = config.queue_by_name()
    missing = [name for name in TABLE5 if name not in queues]
    if missing:
        raise t.error(
            "kind",
            f"paragon-nqs draws jobs for the queues of Table 5; machine '{machine.name}' has no "
            f"queue '{missing[0]}'",
        )
    span = days * 86400.0
    scale = days / PERIOD_DAYS
    batch = sum(max(1, round(jobs * scale)) for jobs, _, _ in TABLE5.values())
    check_jobs(t, batch + (round(INTERACTIVE_JOBS * scale) if interactive else 0))
    cols: dict[str, list[np.ndarray]] = {
        k: [] for k in ("submit", "runtime", "estimate", "size", "queue")
    }
    for name, (jobs, usage, hours) in TABLE5.items():
        spec = queues[name]
        n = max(1, round(jobs * scale))
        limit_s = spec.time_limit_s
        mean_s = cut_exponential_mean(hours * 3600.0 if hours > 0 else 60.0, limit_s)
        cols["submit"].append(rng.uniform(0.0, span, n))
        cols["runtime"].append(np.minimum(np.round(rng.exponential(mean_s, n)), limit_s))
        cols["estimate"].append(np.full(n, limit_s))
        size = implied_size(jobs, usage, hours, spec.max_nodes)
        cols["size"].append(np.minimum(power_mix(rng, size, n), spec.max_nodes))
        cols["queue"].append(np.full(n, spec.number))
    if interactive and "interactive" in queues:
        spec = queues["interactive"]
        n = round(INTERACTIVE_JOBS * scale)
        submit = _diurnal_arrivals(rng, n, span)
        sizes = np.array(list(INTERACTIVE_SIZES))
        weights = np.array(list(INTERACTIVE_SIZES.values()), dtype=float)
        cols["submit"].append(submit)
        cols["runtime"].append(np.minimum(np.round(rng.exponential(600.0, n)), 12 * 3600.0))
        cols["estimate"].append(np.full(n, 1800.0))
        cols["size"].append(rng.choice(sizes, size=n, p=weights / weights.sum()))
        cols["queue"].append(np.full(n, spec.number))
    merged = {k: np.concatenate(v) for k, v in cols.items()}
    merged["submit"] = np.round(merged["submit"])
    merged["runtime"] = np.maximum(merged["runtime"], 1.0)
    workload = from_columns(f"paragon-nqs({days:g} days)", **merged)
    header = parse_header(
        [
            " Computer: Intel Paragon (synthetic, calibrated to Wan et al.)",
            " Installation: San Diego Supercomputer Center",
            f" UnixStartTime: {int(START.timestamp())}",
            " TimeZoneString: US/Pacific",
            *[f" Queue: {q.number} {q.name}" for q in config.queues],
        ]
    )
    return replace(workload, header=header)


def _diurnal_arrivals(rng: np.random.Generator, n: int, span: float) -> np.ndarray:
    """Arrival times four times as dense from 9:00 to 17:00 on weekdays as otherwise."""
    out = np.empty(0)
    while len(out) < n:
        candidates = rng.uniform(0.0, span, 2 * n)
        local = (candidates + START.utcoffset().total_seconds()) % 86400.0
        weekday = ((candidates // 86400.0) + START.weekday()) % 7
        prime = (local >= 9 * 3600) & (local < 17 * 3600) & (weekday < 5)
        keep = prime | (rng.random(2 * n) < 0.25)
        out = np.concatenate([out, candidates[keep]])
    return np.sort(out[:n])
