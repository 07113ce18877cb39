"""Imports every module that registers something, so every registry is complete.

Front ends import this once; the registries then list every topology, allocator, queue order,
discipline, backfilling policy, action and workload generator by the names the CLI accepts.
"""

import engine.actions
import engine.allocators.contiguous
import engine.allocators.flat
import engine.allocators.m2db
import engine.allocators.mbs
import engine.allocators.mc
import engine.allocators.paging
import engine.allocators.plas
import engine.allocators.random_nodes
import engine.contention.dynamic
import engine.contention.io
import engine.contention.workload
import engine.grid
import engine.nqs.allocator
import engine.nqs.config
import engine.nqs.policy
import engine.nqs.queues
import engine.nqs.report
import engine.nqs.workload
import engine.partitions.allocator
import engine.partitions.machine
import engine.partitions.pictures
import engine.partitions.workload
import engine.scheduling.backfill
import engine.scheduling.disciplines
import engine.scheduling.orders
import engine.shapes
import engine.workloads.mesh_sides
import engine.workloads.synthetic_flat  # noqa: F401
