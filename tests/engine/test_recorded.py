"""Recorded against simulated waits (engine/recorded.py), computed by hand on small logs."""

import numpy as np
import pytest

from meshsim.engine.recorded import ReplayedJobs, compare_recorded


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
        "no_recorded_wait": 1,
        "not_started": 1,
        "times_transformed": 0,
    }
    assert result.overall.mae == 10.0


def test_waits_are_measured_from_the_eligible_time():
    """Held for 100 s after submit, started 150 s after submit in the log and in the replay:
    both waits are 50 s."""
    jobs = replayed([0], [150], [150], eligible=[100])
    fit = compare_recorded(jobs, 1, {}).overall
    assert (fit.mean_recorded, fit.mean_simulated, fit.mae) == (50.0, 50.0, 0.0)


def test_scaled_times_compare_nothing_and_say_why():
    jobs = replayed([0, 0], [0, 100], [0, 100])
    result = compare_recorded(jobs, 1, {"queue": ["a", "b"]}, transformed=True)
    assert result.overall.jobs == 0 and result.overall.mae is None
    assert result.not_compared["times_transformed"] == 2
    assert result.groups["queue"] == {}


def test_groups_and_an_undefined_correlation():
    jobs = replayed([0, 0, 0], [10, 10, 400], [10, 70, 4000])
    result = compare_recorded(jobs, 4, {"queue": ["q1", "q1", "q2"]})
    q1, q2 = result.groups["queue"]["q1"], result.groups["queue"]["q2"]
    assert q1.jobs == 2 and q1.mae == 30.0 and q1.correlation is None  # recorded waits equal
    assert q1.within == {"within_1min": 1.0, "within_1h": 1.0}
    assert q2.within == {"within_1min": 0.0, "within_1h": 1.0}
    document = result.as_dict()
    assert document["by_queue"]["q2"]["wait_mae_s"] == 3600.0
    assert set(document) >= {"overall", "not_compared", "recorded_utilization"}
