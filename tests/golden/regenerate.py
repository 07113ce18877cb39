"""Rewrite the golden files when a change of results is intended.

    python -m tests.golden.regenerate            # every case
    python -m tests.golden.regenerate flat-fcfs  # only the cases named

Run it from the repository root with the project's interpreter (``.venv/bin/python``). It prints
the cases whose files changed, removes the files of cases no longer listed in
:mod:`tests.golden.cases`, and says nothing else: the commit that carries the new files must say
which changed and why."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.golden.cases import CASES
from tests.golden.run import EXPECTED, expected_paths, outputs


def regenerate(names: list[str]) -> list[str]:
    """Write the files of the cases named (all when ``names`` is empty); return the names of the
    cases whose files changed. An unknown name is an error listing the valid ones."""
    known = {case.name for case in CASES}
    unknown = sorted(set(names) - known)
    if unknown:
        raise SystemExit(
            f"error: unknown golden case '{unknown[0]}' (valid: {', '.join(sorted(known))})"
        )
    changed = []
    EXPECTED.mkdir(exist_ok=True)
    for case in CASES:
        if names and case.name not in names:
            continue
        texts = outputs(case)
        wrote = False
        for path, text in zip(expected_paths(case), texts, strict=True):
            target = Path(path)
            data = text.encode()
            if not target.exists() or target.read_bytes() != data:
                target.write_bytes(data)
                wrote = True
        if wrote:
            changed.append(case.name)
    if not names:
        listed = {Path(p).name for case in CASES for p in expected_paths(case)}
        for stray in sorted(EXPECTED.iterdir()):
            if stray.name not in listed:
                stray.unlink()
                changed.append(f"{stray.name} (removed)")
    return changed


def main(argv: list[str]) -> None:
    changed = regenerate(argv)
    print("\n".join(f"changed: {name}" for name in changed) or "no golden file changed")


if __name__ == "__main__":
    main(sys.argv[1:])
