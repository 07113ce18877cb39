"""The golden regression set: every case's result JSON and event log, byte for byte.

A failure here means the engine's results changed. If that was intended, run
``python -m tests.golden.regenerate`` and say in the commit which files changed and why
(:mod:`tests.golden.regenerate`)."""

from pathlib import Path

import pytest

from tests.golden.cases import CASES
from tests.golden.run import EXPECTED, expected_paths, outputs


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_outputs_are_byte_identical_to_the_golden_files(case):
    result, events = outputs(case)
    result_path, events_path = expected_paths(case)
    assert Path(result_path).read_bytes() == result.encode(), f"{case.name}: result JSON changed"
    assert Path(events_path).read_bytes() == events.encode(), f"{case.name}: event log changed"


def test_the_golden_folder_holds_exactly_the_files_of_the_cases():
    listed = {Path(path).name for case in CASES for path in expected_paths(case)}
    assert {path.name for path in EXPECTED.iterdir()} == listed
    assert len({case.name for case in CASES}) == len(CASES)
