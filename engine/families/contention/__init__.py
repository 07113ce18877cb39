"""Network contention on 2D meshes with a column of I/O nodes (Mache 1999, Ch. III, IV, VI, VII).

``io`` holds the ``[io]`` machine section and the I/O column geometry, ``routing`` the directed
links and XY routing, ``traffic`` the communication and I/O patterns, ``state`` the contention of
a set of running jobs, ``dispersal`` and ``balance`` the Ch. IV and Ch. VII metrics, ``layouts``
the static analysis of the five spatial layouts (Tables 5 and 6), ``matrix`` the link-contention
matrix of Figs. 48 and 50, ``runtime`` the contention-dependent service-time model,
``workload`` the synthetic I/O workload of Table 7, ``observer`` the per-job and time-weighted
contention of a whole run and ``benchmarks`` the speed measurements.
"""
