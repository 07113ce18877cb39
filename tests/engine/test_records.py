"""The records built without their named tuples' ``__new__``
(:data:`~meshsim.engine.core.jobs.new_job`,
:data:`~meshsim.engine.kernel.records.new_running_job`) and the fields a job's start reads in one
slice (:data:`~meshsim.engine.core.jobs.SCHEDULING_FIELDS`) rely on the records' field order; these
tests pin it."""

from meshsim.engine.allocation.allocator import Placement
from meshsim.engine.core.jobs import SCHEDULING_FIELDS, Job, new_job
from meshsim.engine.kernel.records import RunningJob, new_running_job

FIELDS = (0, 7, 1.5, 10.0, 20.0, 4, 16, 3, 2, 1, 0, (2, 2))


def test_new_job_builds_the_job_its_fields_make():
    assert new_job(FIELDS) == Job(*FIELDS) == Job._make(FIELDS)
    assert type(new_job(FIELDS)) is Job


def test_the_scheduling_fields_are_index_to_size():
    names = ("index", "job_id", "submit", "runtime", "estimate", "size")
    assert Job._fields[SCHEDULING_FIELDS] == names
    job = new_job(FIELDS)
    assert job[SCHEDULING_FIELDS] == tuple(getattr(job, name) for name in names)


def test_new_running_job_builds_the_running_job_its_fields_make():
    job, placement = new_job(FIELDS), Placement((1, 2), 4, "(1,2)")
    running = new_running_job((job, 3.0, placement))
    assert type(running) is RunningJob and RunningJob._fields == ("job", "start", "placement")
    assert running == RunningJob(job, 3.0, placement)
    assert running.expected_end == 23.0
