"""Experiments at scale: parameter sweeps of ordinary runs, their statistics and figures, and the
named experiment specs that reproduce the seed papers' tables and figures.

- :mod:`~meshsim.engine.tools.experiments.options`: the options a case may set (introspected from
  the command by the front end), value checks, and the path rule;
- :mod:`~meshsim.engine.tools.experiments.spec`: sweep spec files and their expansion into cases;
- :mod:`~meshsim.engine.tools.experiments.runners`: the commands a case can run (``run``) and their
  input files;
- :mod:`~meshsim.engine.tools.experiments.hashing`: content hashes that decide whether a case is
  finished;
- :mod:`~meshsim.engine.tools.experiments.store`: the results folder (atomic writes, tables);
- :mod:`~meshsim.engine.tools.experiments.executors`: in-process, process-pool and Dask execution;
- :mod:`~meshsim.engine.tools.experiments.sweep`: running a planned sweep with resume;
- :mod:`~meshsim.engine.tools.experiments.stats`: means with Student-t confidence intervals,
  relative gains;
- :mod:`~meshsim.engine.tools.experiments.figures` and
  :mod:`~meshsim.engine.tools.experiments.textplot`: figure data and a terminal renderer;
- :mod:`~meshsim.engine.tools.experiments.availability` and
  :mod:`~meshsim.engine.tools.experiments.reproduce`: what a spec needs that this meshsim lacks, and
  the ``experiments/`` files of ``meshsim reproduce``.
"""
