"""The value syntaxes the logs share."""

from __future__ import annotations

import pytest

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.logs.values import ValueProblem, duration, message, stamp, zone


@pytest.mark.parametrize(
    ("text", "bare", "seconds"),
    [
        ("00:01:00", "seconds", 60),
        ("1-02:03:04", "seconds", 93784),
        ("05:30", "seconds", 330),
        ("90", "minutes", 5400),
        ("90", "seconds", 90),
        ("100:00:00", "seconds", 360000),
        ("UNLIMITED", "minutes", None),
        ("Partition_Limit", "minutes", None),
        ("", "seconds", None),
    ],
)
def test_durations(text, bare, seconds):
    assert duration(text, bare=bare) == seconds


@pytest.mark.parametrize("text", ["soon", "1:2:3:4", "2-30"])
def test_what_is_not_a_duration(text):
    with pytest.raises(ValueProblem, match="not a duration"):
        duration(text)


def test_stamps_are_read_in_the_zone_given():
    utc = stamp("2009-05-01T12:00:00", "%Y-%m-%dT%H:%M:%S", zone("UTC"))
    chicago = stamp("2009-05-01T12:00:00", "%Y-%m-%dT%H:%M:%S", zone("America/Chicago"))
    assert chicago - utc == 5 * 3600  # CDT is UTC-5
    assert stamp("Unknown", "%Y", zone("UTC")) is None
    with pytest.raises(MeshsimError, match="--tz 'Nowhere': not a time zone"):
        zone("Nowhere")


def test_messages_with_quotes_and_words():
    assert message('args="-n 4 \\"x\\"" user=alice jobname=my job') == {
        "args": '-n 4 "x"',
        "user": "alice",
        "jobname": "my job",
    }
    assert message("") == {}
    with pytest.raises(ValueProblem, match="expected key=value"):
        message("Job aborted by server")
    with pytest.raises(ValueProblem, match="no closing quote"):
        message('args="open')
