"""Scheduling policies: queue orders, start disciplines and backfilling, each a registry."""
