"""Experiments at scale: parameter sweeps of ordinary runs, their statistics and figures, and the
named experiment specs that reproduce the seed papers' tables and figures.

- :mod:`~engine.experiments.options`: the options a case may set (introspected from the command
  by the front end), value checks, and the path rule;
- :mod:`~engine.experiments.spec`: sweep spec files and their expansion into cases;
- :mod:`~engine.experiments.runners`: the commands a case can run (``run``) and their input files;
- :mod:`~engine.experiments.hashing`: content hashes that decide whether a case is finished;
- :mod:`~engine.experiments.store`: the results folder (atomic writes, tables);
- :mod:`~engine.experiments.executors`: in-process, process-pool and Dask execution;
- :mod:`~engine.experiments.sweep`: running a planned sweep with resume;
- :mod:`~engine.experiments.stats`: means with Student-t confidence intervals, relative gains;
- :mod:`~engine.experiments.figures` and :mod:`~engine.experiments.textplot`: figure data and a
  terminal renderer;
- :mod:`~engine.experiments.availability` and :mod:`~engine.experiments.catalog`: what a spec
  needs that this meshsim lacks, and the ``experiments/`` registry of ``meshsim reproduce``.
"""
