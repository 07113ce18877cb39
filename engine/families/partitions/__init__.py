"""Blue Gene/P partition machines (Intrepid): the partition menu, its wiring conflicts, and the
least-blocking and walltime-aware allocators of Tang et al. (seed 000)."""
