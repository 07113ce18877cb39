"""Operators' own logs as workloads: Slurm (``sacct --parsable2`` dumps and ``jobcomp/filetxt``
logs), PBS Pro / OpenPBS / Torque accounting logs and Cobalt accounting logs, each read into the
same job records (:mod:`meshsim.engine.logs.records`) and turned into an SWF trace that says where
it came from (:mod:`meshsim.engine.logs.trace`). docs/logs.md holds the mapping table."""
