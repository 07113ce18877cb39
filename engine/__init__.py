"""meshsim's simulation engine: workloads, machines, policies, the event calendar and metrics.

This package never imports Textual or Rich (``tests/engine/test_import_hygiene.py`` proves it); the
console in ``meshsim.tui`` and the command line in ``meshsim.cli`` are its only front ends."""
