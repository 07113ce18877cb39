"""The README from a fresh clone to a what-if comparison, as a new user follows it: ``git clone``
of this checkout into a temporary folder, the README's first command in a real terminal (tmux;
it creates the virtual environment, installs meshsim from the package registry and opens the
console), then the README's console keys, until the screen shows the comparison.

Marked slow (the install takes a minute or more); CI runs it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.docs.examples import ROOT, VENV, blocks, type_keys
from tests.tmux import tmux, wait_for

README = ROOT / "README.md"
INSTALL_TIMEOUT = 900.0
"""Seconds the first command may take to set up and open the console (a cold pip cache)."""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("tmux") is None and not os.environ.get("CI"),
        reason="tmux is not installed (CI installs it in .ci/run)",
    ),
]


def _outside_the_test_venv() -> str:
    """The PATH of a user's shell: the test run's own virtual environment left out."""
    own = str(VENV / "bin")
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != own)


def test_readme_from_a_fresh_clone_to_a_what_if_comparison(tmp_path: Path) -> None:
    readme = blocks(README)
    [first] = [b for b in readme if "fresh-clone" in b.notes]
    [keys] = [b for b in readme if "keys" in b.notes]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    session = f"meshsim-fresh-clone-{os.getpid()}"
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "bash --norc --noprofile")
    try:
        # Typed as a user would, in a shell that stays when a command fails (its errors on screen).
        setup = f"unset VIRTUAL_ENV; export PATH={shlex.quote(_outside_the_test_venv())}"
        tmux("send-keys", "-t", session, setup, "Enter")
        tmux("send-keys", "-t", session, f"cd {shlex.quote(str(clone))}", "Enter")
        tmux("send-keys", "-t", session, first.text.strip(), "Enter")
        wait_for(session, r"event \d+", f"{first.where}: the first command", INSTALL_TIMEOUT)
        assert keys.notes.get("screen"), f"{keys.where}: the README's keys name no screen"
        type_keys(session, keys)
    finally:
        tmux("kill-session", "-t", session)
    assert (clone / ".venv" / "bin" / "meshsim").exists()
