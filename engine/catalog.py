"""Every module that registers something (a plug-in), in the order they register: the registries
then list every topology, allocator, queue order, discipline, backfilling policy, action, recorder
and workload generator by the names the CLI accepts, in the order the docs list them.

The first lookup of any registry imports this module by name
(:func:`meshsim.engine.core.registry.fill_registries`); front ends may import it once up front."""

from importlib import import_module

PLUGINS = (
    "meshsim.engine.kernel.actions",
    "meshsim.engine.allocation.contiguous_choice",
    "meshsim.engine.allocation.flat",
    "meshsim.engine.allocation.m2db",
    "meshsim.engine.allocation.mbs",
    "meshsim.engine.allocation.mc",
    "meshsim.engine.allocation.paging",
    "meshsim.engine.families.contention.plas",
    "meshsim.engine.allocation.random_nodes",
    "meshsim.engine.families.contention.dynamic",
    "meshsim.engine.families.contention.io",
    "meshsim.engine.families.contention.observer",
    "meshsim.engine.families.contention.workload",
    "meshsim.engine.topology.grid",
    "meshsim.engine.logs.formats",
    "meshsim.engine.families.nqs.allocator",
    "meshsim.engine.families.nqs.config",
    "meshsim.engine.families.nqs.policy",
    "meshsim.engine.families.nqs.queues",
    "meshsim.engine.families.nqs.report",
    "meshsim.engine.families.nqs.workload",
    "meshsim.engine.families.partitions.allocator",
    "meshsim.engine.families.partitions.machine",
    "meshsim.engine.families.partitions.recorded",
    "meshsim.engine.families.partitions.workload",
    "meshsim.engine.scheduling.backfill",
    "meshsim.engine.scheduling.disciplines",
    "meshsim.engine.scheduling.orders",
    "meshsim.engine.workloads.shapes",
    "meshsim.engine.workloads.mesh_sides",
    "meshsim.engine.workloads.synthetic_flat",
)
"""The plug-in modules, in registration order."""

for _name in PLUGINS:
    import_module(_name)
