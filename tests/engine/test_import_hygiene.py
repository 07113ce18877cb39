"""``engine/`` never imports Textual or Rich (checked in a fresh interpreter)."""

import subprocess
import sys
from pathlib import Path

from meshsim import engine

ENGINE = Path(engine.__file__).parent


def test_engine_imports_neither_textual_nor_rich():
    modules = sorted(
        "meshsim.engine." + ".".join(p.relative_to(ENGINE).with_suffix("").parts)
        for p in ENGINE.rglob("*.py")
        if p.name != "__init__.py"
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "", f"engine pulled in: {done.stdout.strip()}"
    assert len(modules) > 10
