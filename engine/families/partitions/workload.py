"""``intrepid``: a synthetic Intrepid-like workload, the default for the ``intrepid`` machine while
the real trace (ANL-Intrepid-2009-1, ``meshsim trace fetch``) cannot be downloaded.

Calibration to what Tang et al. state (seed 000 §II-A, §V-A, Fig. 5):

- about 9,000 jobs a month (March and April had about 10,000, the other months about 8,000):
  ``jobs_per_month`` = 9,000, Poisson arrivals;
- sizes: the smallest job is 512 nodes, 8K and 16K jobs are common, jobs up to 32K run without help;
  by count, jobs of 2K nodes or less are the vast majority, 16K/32K jobs few: we draw 512 (38 %), 1K
  (18 %), 2K (17 %), 4K (11 %), 8K (9 %), 16K (5 %), 32K (2 %) partition sizes, and give 30 % of
  jobs a size between the previous partition size and this one (traces ask for odd node counts,
  which the partition menu rounds up);
- runtimes: log-normal (median 1 h, shape 1.2), capped at 12 h, then scaled by one factor so the
  offered load is ``load`` (default 0.75 of the machine), which gives the large jobs a substantial
  share of node-hours although they are few, as Fig. 5(b) shows;
- requested walltimes overestimate runtimes: runtime / ratio with the ratio drawn from a Beta(2,
  1.5) distribution (mean 0.57), rounded up to 5 minutes and capped at 12 h;
- 35 projects (the INCITE projects of §II-A) in the SWF group field, 200 users each in one project.

The header carries UnixStartTime and TimeZoneString (America/Chicago, from 2009-03-01), so month
splits and dates work as on the real trace."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np

from meshsim.engine.core.toml_table import Table
from meshsim.engine.topology.machines import Machine
from meshsim.engine.validation.rules import Rule
from meshsim.engine.workloads.generators import GENERATORS, check_jobs, generator_section
from meshsim.engine.workloads.swf import parse_header
from meshsim.engine.workloads.workload import Workload, from_columns

SIZES = np.array([512, 1024, 2048, 4096, 8192, 16384, 32768])
SHARES = np.array([0.38, 0.18, 0.17, 0.11, 0.09, 0.05, 0.02])
MONTH_S = 30.0 * 86400.0
CAP_S = 12 * 3600.0
START = datetime(2009, 3, 1, tzinfo=ZoneInfo("America/Chicago"))


INTREPID = generator_section(
    "intrepid",
    (
        Rule("months", "float", 1.0, minimum=0.01, maximum=1200.0),
        Rule("jobs_per_month", "int", 9000, minimum=1),
        Rule("load", "float", 0.75, minimum=0.01, maximum=1e6, doc="offered load"),
    ),
    "a synthetic Intrepid month calibrated to Tang et al. (module docstring)",
)


@GENERATORS.register("intrepid")
def intrepid(t: Table, machine: Machine, rng: np.random.Generator) -> Workload:
    t = t.follow(INTREPID)
    t.reject_unknown()
    months = t.get("months")
    per_month = t.get("jobs_per_month")
    load = t.get("load")
    n = max(1, round(per_month * months))
    check_jobs(t, n)
    span = months * MONTH_S
    arrivals, sizes, runs, ratios, people = rng.spawn(5)
    submit = np.sort(arrivals.uniform(0.0, span, n)).round()
    kind = sizes.choice(len(SIZES), size=n, p=SHARES / SHARES.sum())
    nodes = SIZES[kind]
    lower = np.where(kind > 0, SIZES[np.maximum(kind - 1, 0)], 1)
    odd = sizes.random(n) < 0.3
    nodes = np.where(odd, sizes.integers(lower + 1, nodes + 1), nodes)
    nodes = np.minimum(nodes, machine.nodes)
    runtime = np.minimum(runs.lognormal(np.log(3600.0), 1.2, n), CAP_S)
    offered = float(np.sum(nodes * runtime)) / (machine.nodes * span)
    runtime = np.minimum(np.round(runtime * load / offered), CAP_S)
    ratio = ratios.beta(2.0, 1.5, n).clip(0.02, 1.0)
    estimate = np.minimum(np.ceil(runtime / ratio / 300.0) * 300.0, CAP_S)
    estimate = np.maximum(estimate, runtime)
    user = people.integers(1, 201, n)
    project = (user * 7919) % 35 + 1
    workload = from_columns(
        f"intrepid({n} jobs, {months:g} months)",
        submit=submit,
        runtime=runtime,
        estimate=estimate,
        size=nodes,
        procs=nodes * machine.procs_per_unit,
        user=user,
        group=project,
    )
    header = parse_header(
        [
            " Computer: Blue Gene/P (synthetic, calibrated to Tang et al.)",
            " Installation: Argonne Leadership Computing Facility",
            f" UnixStartTime: {int(START.timestamp())}",
            " TimeZoneString: America/Chicago",
        ]
    )
    return replace(workload, header=header)
