"""Machine families: each registers the topology, allocators, workloads, policies, machine
sections and recorders it brings (partition machines, the Paragon's NQS, meshes with I/O nodes)."""
