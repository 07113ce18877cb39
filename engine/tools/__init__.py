"""What the commands run on top of the engine: one run as a function, its outputs and scenario
files, live sessions, sweeps and reproductions, comparisons, trace tools and benchmarks."""
