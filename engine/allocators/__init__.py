"""Allocators, one module per family; each registers itself in ``ALLOCATORS``."""
