"""Named experiment specs for ``meshsim reproduce`` (data; see engine.experiments.reproduce)."""
