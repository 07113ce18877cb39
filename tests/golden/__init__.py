"""The golden regression set: about seventy small runs (:mod:`tests.golden.cases`) whose result
JSON and event log are checked in under ``tests/golden/expected`` and compared byte for byte by
:mod:`tests.golden.test_golden`.

When a change of results is intended, ``.venv/bin/python -m tests.golden.regenerate`` (from the
repository root) rewrites the files and lists the cases that changed; the commit says which and
why. Any other change leaves them byte-identical."""
