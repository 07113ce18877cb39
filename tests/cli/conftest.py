"""Fixtures of the command-line tests."""

import signal

import pytest


@pytest.fixture
def signals_kept():
    """``meshsim.cli.main.main`` installs its SIGINT and SIGTERM handlers; the test process gets
    its own back afterwards."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)
