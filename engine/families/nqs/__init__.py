"""The SDSC Paragon NQS batch scheduler (Wan et al., seed 004): queues with aging, large-job
blocking, node sets and node groups switched by prime time, an interactive partition, and the
per-queue reports of the paper's Tables 1-5."""
