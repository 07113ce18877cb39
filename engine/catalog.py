"""Imports every module that registers something, so every registry is complete.

Front ends import this once; the registries then list every topology, allocator, queue order,
discipline, backfilling policy, action and workload generator by the names the CLI accepts."""

import meshsim.engine.allocation.contiguous
import meshsim.engine.allocation.flat
import meshsim.engine.allocation.m2db
import meshsim.engine.allocation.mbs
import meshsim.engine.allocation.mc
import meshsim.engine.allocation.paging
import meshsim.engine.allocation.random_nodes
import meshsim.engine.families.contention.dynamic
import meshsim.engine.families.contention.io
import meshsim.engine.families.contention.observer
import meshsim.engine.families.contention.plas
import meshsim.engine.families.contention.workload
import meshsim.engine.families.nqs.allocator
import meshsim.engine.families.nqs.config
import meshsim.engine.families.nqs.policy
import meshsim.engine.families.nqs.queues
import meshsim.engine.families.nqs.report
import meshsim.engine.families.nqs.workload
import meshsim.engine.families.partitions.allocator
import meshsim.engine.families.partitions.machine
import meshsim.engine.families.partitions.workload
import meshsim.engine.kernel.actions
import meshsim.engine.scheduling.backfill
import meshsim.engine.scheduling.disciplines
import meshsim.engine.scheduling.orders
import meshsim.engine.topology.grid
import meshsim.engine.workloads.mesh_sides
import meshsim.engine.workloads.shapes
import meshsim.engine.workloads.synthetic_flat  # noqa: F401
