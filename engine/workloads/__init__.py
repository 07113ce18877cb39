"""Synthetic workload generators, one module per family, registered by ``kind``."""
