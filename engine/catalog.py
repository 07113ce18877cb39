"""Imports every module that registers something, so every registry is complete.

Front ends import this once; the registries then list every topology, allocator, queue order,
discipline, backfilling policy, action and workload generator by the names the CLI accepts."""

import meshsim.engine.actions
import meshsim.engine.allocators.contiguous
import meshsim.engine.allocators.flat
import meshsim.engine.allocators.m2db
import meshsim.engine.allocators.mbs
import meshsim.engine.allocators.mc
import meshsim.engine.allocators.paging
import meshsim.engine.allocators.plas
import meshsim.engine.allocators.random_nodes
import meshsim.engine.contention.dynamic
import meshsim.engine.contention.io
import meshsim.engine.contention.observer
import meshsim.engine.contention.workload
import meshsim.engine.grid
import meshsim.engine.nqs.allocator
import meshsim.engine.nqs.config
import meshsim.engine.nqs.policy
import meshsim.engine.nqs.queues
import meshsim.engine.nqs.report
import meshsim.engine.nqs.workload
import meshsim.engine.partitions.allocator
import meshsim.engine.partitions.machine
import meshsim.engine.partitions.workload
import meshsim.engine.scheduling.backfill
import meshsim.engine.scheduling.disciplines
import meshsim.engine.scheduling.orders
import meshsim.engine.shapes
import meshsim.engine.workloads.mesh_sides
import meshsim.engine.workloads.synthetic_flat  # noqa: F401
