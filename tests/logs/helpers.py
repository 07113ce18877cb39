"""Shared helpers for the log tests: where the fixtures are, and a log read as a trace."""

from meshsim.engine.logs.options import LogOptions
from meshsim.engine.logs.trace import LogTrace, read_trace
from tests.conftest import DATA

LOGS = DATA / "logs"


def read(path, **options) -> LogTrace:
    """The log at ``path`` as a trace, read with ``LogOptions(**options)``."""
    trace = read_trace(path, LogOptions(**options))
    assert isinstance(trace, LogTrace)
    return trace
