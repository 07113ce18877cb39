"""Recorded against simulated waits (engine/recorded.py), computed by hand on small logs."""

import numpy as np
import pytest

from meshsim.engine.recorded import Grouping, ReplayedJobs, compare_recorded


def replayed(submit, wait, start, *, runtime=None, size=None, eligible=None) -> ReplayedJobs:
    n = len(submit)
    return ReplayedJobs(
        submit=np.asarray(submit, dtype=float),
        eligible=None if eligible is None else np.asarray(eligible, dtype=float),
        runtime=np.asarray(runtime if runtime is not None else [100.0] * n, dtype=float),
        size=np.asarray(size if size is not None else [1] * n, dtype=np.int64),
        recorded_wait=np.asarray(wait, dtype=float),
        simulated_start=np.asarray(start, dtype=float),
    )


def test_two_jobs_by_hand():
    """Recorded waits 0 and 100 s, simulated 10 and 50 s."""
    jobs = replayed([0, 0], [0, 100], [10, 50])
    fit = compare_recorded(jobs, 2, {}).overall
    assert fit.jobs == 2
    assert (fit.mean_recorded, fit.mean_simulated) == (50.0, 30.0)
    assert (fit.median_recorded, fit.median_simulated) == (50.0, 30.0)
    assert fit.mae == 30.0
    assert fit.correlation == pytest.approx(1.0)
    assert fit.within == {"within_1min": 1.0, "within_1h": 1.0}


def test_a_replay_of_the_recorded_schedule_fits_exactly():
    rng = np.random.default_rng(1)
    submit = np.sort(rng.integers(0, 10_000, 50))  # logs record whole seconds
    wait = rng.integers(0, 5_000, 50)
    size = rng.integers(1, 8, 50)
    runtime = rng.integers(10, 1_000, 50)
    jobs = replayed(submit, wait, submit + wait, runtime=runtime, size=size)
    result = compare_recorded(jobs, 8, {})
    assert result.overall.mae == 0.0
    assert result.overall.within["within_1min"] == 1.0
    assert result.recorded_utilization == pytest.approx(result.simulated_utilization)


def test_jobs_that_cannot_be_compared_are_counted():
    """An unknown recorded wait (-1) and a job the replay never started."""
    jobs = replayed([0, 0, 0], [-1, 30, 30], [5, float("nan"), 40])
    result = compare_recorded(jobs, 2, {})
    assert result.overall.jobs == 1
    assert dict(result.not_compared) == {
        "times_transformed": 0,
        "cancelled_before_start": 0,
        "no_recorded_wait": 1,
        "rejected_on_arrival": 0,
        "not_started": 1,
        "skipped_on_load": 0,
    }
    assert result.overall.not_compared == 2
    assert result.overall.mae == 10.0


def test_waits_are_measured_from_the_eligible_time():
    """Held for 100 s after submit, started 150 s after submit in the log and in the replay:
    both waits are 50 s."""
    jobs = replayed([0], [150], [150], eligible=[100])
    fit = compare_recorded(jobs, 1, {}).overall
    assert (fit.mean_recorded, fit.mean_simulated, fit.mae) == (50.0, 50.0, 0.0)


def test_groups_and_an_undefined_correlation():
    jobs = replayed([0, 0, 0], [10, 10, 400], [10, 70, 4000])
    result = compare_recorded(jobs, 4, {"queue": Grouping.of(["q1", "q1", "q2"])})
    q1, q2 = result.groups["queue"]["q1"], result.groups["queue"]["q2"]
    assert q1.jobs == 2 and q1.mae == 30.0 and q1.correlation is None  # recorded waits equal
    assert q1.within == {"within_1min": 1.0, "within_1h": 1.0}
    assert q2.within == {"within_1min": 0.0, "within_1h": 1.0}
    document = result.as_dict()
    assert document["by_queue"]["q2"]["wait_mae_s"] == 3600.0
    assert set(document) >= {"overall", "not_compared", "recorded_utilization"}


def test_each_job_is_counted_under_the_first_reason_that_applies():
    """Cancelled before start (and no wait), no wait, rejected, not started; skips added."""
    jobs = ReplayedJobs(
        submit=np.zeros(5),
        eligible=None,
        runtime=np.array([0.0, 10, 10, 10, 10]),
        size=np.ones(5, dtype=np.int64),
        recorded_wait=np.array([-1.0, -1, 5, 5, 5]),
        simulated_start=np.array([0.0, 0, np.nan, np.nan, 5]),
        cancelled=np.array([True, False, False, False, False]),
        rejected=np.array([False, True, True, False, False]),
    )
    result = compare_recorded(jobs, 1, {}, skipped=4)
    assert dict(result.not_compared) == {
        "times_transformed": 0,
        "cancelled_before_start": 1,
        "no_recorded_wait": 1,
        "rejected_on_arrival": 1,
        "not_started": 1,
        "skipped_on_load": 4,
    }
    assert result.overall.jobs == 1 and result.overall.mae == 0.0


def test_groups_are_listed_numbers_first_then_names():
    grouping = Grouping.of(["9-16", "batch", "1", "3-4", "batch", "1"])
    assert grouping.labels == ("1", "3-4", "9-16", "batch")
    assert grouping.codes.tolist() == [2, 3, 0, 1, 3, 0]


def test_the_simulated_utilization_uses_the_simulated_runtimes():
    """A runtime model made the one job run 200 s instead of the recorded 100 s."""
    jobs = replayed([0], [0], [0])
    stretched = ReplayedJobs(**{**jobs.__dict__, "simulated_end": np.array([200.0])})
    result = compare_recorded(stretched, 1, {})
    assert result.recorded_utilization == 1.0 and result.simulated_utilization == 1.0
    two = replayed([0, 0], [0, 0], [0, 0], size=[1, 1])
    longer = ReplayedJobs(**{**two.__dict__, "simulated_end": np.array([100.0, 300.0])})
    assert compare_recorded(longer, 2, {}).simulated_utilization == pytest.approx(400 / 600)
    assert compare_recorded(longer, 2, {}).recorded_utilization == 1.0


def test_an_unknown_eligible_time_measures_from_submit():
    jobs = replayed([0, 0], [150, 150], [150, 150], eligible=[100, float("nan")])
    fit = compare_recorded(jobs, 2, {"queue": Grouping.of(["a", "b"])}).groups["queue"]
    assert (fit["a"].mean_recorded, fit["b"].mean_recorded) == (50.0, 150.0)
