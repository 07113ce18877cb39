"""Allocation: the allocator interface, future availability for backfilling (planners), and
the allocators of meshes, tori and flat machines, registered by name."""
