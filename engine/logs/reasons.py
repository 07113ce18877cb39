"""Why a record of a log is not a replayed job: every reason, in the order reports list them
(docs/logs.md has the table).

- ``malformed_line``: a record the reader cannot read (only with ``--lenient``; without it the
  first one is an error naming the file and line);
- ``job_step`` (Slurm sacct): a step line (``123.batch``, ``123.0``); the job line carries the
  job's times and processors, so steps add nothing to a replay;
- ``het_component`` (Slurm): a component of a heterogeneous job after the first (``123+1``); the
  job is one record holding every component's processors, since the components start together;
- ``record_folded`` (PBS, Cobalt): a record that describes a job whose times come from another
  record (``Q``, ``S``, a ``D`` after the start, task and hold records);
- ``record_type_unused`` (PBS, Cobalt): a record of a type that is not about a job's life
  (reservations, licences) or that the reader does not use;
- ``cancelled_before_start``: a job cancelled before it started, by the log's own evidence (no
  node allocated, ``NodeList=(null)``, a ``D`` record with no start), never by equal start and end
  times; written to SWF with status 5, wait and run time −1, never replayed;
- ``never_started``: any other job the log ends without a start (aborted, failed to launch);
  written like a cancelled one with its own status;
- ``not_finished``: a job still pending or running when the log ends; SWF cannot hold it.
"""

RECORD_REASONS = ("job_step", "het_component", "record_folded", "record_type_unused")
"""Records that are not jobs."""
JOB_REASONS = ("cancelled_before_start", "never_started", "not_finished")
"""Jobs the log holds that a replay cannot run."""
LOG_REASONS = ("malformed_line", *RECORD_REASONS, *JOB_REASONS)
"""Every reason a log record is not a replayed job, in report order."""
