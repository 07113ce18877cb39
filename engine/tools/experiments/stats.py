"""Statistics over sweep results: replications pooled into a mean and a 95 % confidence interval,
relative gains against a baseline (seed 000 §V-D2, Figs. 6–8), and the fraction of cases with a gain
above a threshold (seed 000 §V-D3, Fig. 9).

**Confidence interval.** For n replications with mean m and sample standard deviation s (n − 1 in
the denominator), the 95 % interval is m ± t(0.975, n − 1) · s / √n (Student t). SciPy is not a
dependency, so t(0.975, ν) comes from :data:`T975`, a table of the exact quantiles for ν = 1…30 and
selected larger ν, interpolated linearly in 1/ν between entries (error below 0.0001 for every ν,
checked against numerically integrated quantiles); ν → ∞ gives the normal quantile 1.959964. One
replication has no interval (reported as missing).

**Relative gain** of a case over its baseline: (V_base − V_new) / V_base, positive when the new
value is smaller (every metric of the paper is "the smaller the better"). A case's baseline is the
case with the same values except the baseline keys, which take the baseline values. When V_base = 0
the gain is 0 if V_new = 0 too and undefined (missing) otherwise."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from meshsim.engine.tools.experiments.tables import CaseRow

T975: tuple[tuple[float, float], ...] = (
    (1, 12.7062),
    (2, 4.3027),
    (3, 3.1824),
    (4, 2.7764),
    (5, 2.5706),
    (6, 2.4469),
    (7, 2.3646),
    (8, 2.3060),
    (9, 2.2622),
    (10, 2.2281),
    (11, 2.2010),
    (12, 2.1788),
    (13, 2.1604),
    (14, 2.1448),
    (15, 2.1314),
    (16, 2.1199),
    (17, 2.1098),
    (18, 2.1009),
    (19, 2.0930),
    (20, 2.0860),
    (21, 2.0796),
    (22, 2.0739),
    (23, 2.0687),
    (24, 2.0639),
    (25, 2.0595),
    (26, 2.0555),
    (27, 2.0518),
    (28, 2.0484),
    (29, 2.0452),
    (30, 2.0423),
    (40, 2.0211),
    (60, 2.0003),
    (120, 1.9799),
    (math.inf, 1.959964),
)
"""(degrees of freedom ν, t quantile 0.975) — the two-sided 95 % Student t critical values."""


def t975(dof: int) -> float:
    """The 0.975 quantile of Student's t with ``dof`` ≥ 1 degrees of freedom (table lookup, linear
    in 1/ν between entries)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {dof}")
    for (lo, t_lo), (hi, t_hi) in itertools.pairwise(T975):
        if dof == lo:
            return t_lo
        if lo < dof < hi:
            x, x_lo, x_hi = 1 / dof, 1 / lo, (0.0 if math.isinf(hi) else 1 / hi)
            return t_hi + (t_lo - t_hi) * (x - x_hi) / (x_lo - x_hi)
    return T975[-1][1]


@dataclass(frozen=True)
class Estimate:
    """A mean over n values and the half-width of its 95 % interval (NaN when n < 2)."""

    mean: float
    ci95: float
    n: int


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean and Student-t 95 % half-width of ``values`` (see the module docstring)."""
    a = np.asarray(values, dtype=float)
    n = len(a)
    if n == 0:
        return Estimate(math.nan, math.nan, 0)
    mean = float(a.mean())
    if n < 2:
        return Estimate(mean, math.nan, 1)
    half = t975(n - 1) * float(a.std(ddof=1)) / math.sqrt(n)
    return Estimate(mean, half, n)


def relative_gain(base: float, new: float) -> float:
    """(base − new) / base; 0 when both are 0, NaN when only the base is 0."""
    if base == 0:
        return 0.0 if new == 0 else math.nan
    return (base - new) / base


def group_key(values: Mapping[str, Any], keys: Sequence[str]) -> tuple[Any, ...]:
    return tuple(_hashable(values.get(k)) for k in keys)


def aggregate(
    rows: Sequence[CaseRow], keys: Sequence[str], metrics: Sequence[str]
) -> list[tuple[dict[str, Any], dict[str, Estimate]]]:
    """Finished rows grouped by ``keys`` (in first-seen order), each metric pooled into an
    :class:`Estimate` over the group (the replications of one configuration)."""
    groups: dict[tuple[Any, ...], list[CaseRow]] = {}
    for row in rows:
        if row.status == "ok":
            groups.setdefault(group_key(row.values, keys), []).append(row)
    out = []
    for members in groups.values():
        config = {k: members[0].values.get(k) for k in keys}
        estimates = {m: mean_ci([r.metrics[m] for r in members if m in r.metrics]) for m in metrics}
        out.append((config, estimates))
    return out


@dataclass(frozen=True)
class Gain:
    """The relative gains of one case over its baseline case, by metric."""

    row: CaseRow
    base: CaseRow
    gains: dict[str, float]


def gains(
    rows: Sequence[CaseRow],
    keys: Sequence[str],
    baseline: Mapping[str, Any],
    metrics: Sequence[str],
) -> list[Gain]:
    """Every finished non-baseline case paired with its finished baseline case (cases without one
    are left out), in row order. ``keys`` are the keys that tell cases apart."""
    index = {group_key(r.values, keys): r for r in rows if r.status == "ok"}
    out = []
    for row in rows:
        if row.status != "ok" or is_baseline(row.values, baseline):
            continue
        partner = index.get(group_key({**row.values, **baseline}, keys))
        if partner is None:
            continue
        values = {
            m: relative_gain(partner.metrics[m], row.metrics[m])
            for m in metrics
            if m in row.metrics and m in partner.metrics
        }
        out.append(Gain(row, partner, values))
    return out


def is_baseline(values: Mapping[str, Any], baseline: Mapping[str, Any]) -> bool:
    return all(values.get(k) == v for k, v in baseline.items())


def fraction_above(values: Sequence[float], threshold: float = 0.0) -> float:
    """The fraction of defined values strictly above ``threshold`` (NaN when none is defined)."""
    a = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    return float((a > threshold).mean()) if len(a) else math.nan


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
