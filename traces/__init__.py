"""Small workload files meshsim ships: synthetic workload specs, and one excerpt of a real log.

``nasa-ipsc-1000.swf`` is the first 1,000 jobs of the Parallel Workloads Archive's cleaned NASA
Ames iPSC/860 log (NASA-iPSC-1993-3.1-cln), its header kept and a note naming the source, so a
fresh clone can replay a real trace (README, "Five-minute tour"). Whole logs are never copied
here; ``meshsim trace fetch`` downloads them into the user's cache.
"""
