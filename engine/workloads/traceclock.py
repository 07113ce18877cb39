"""Wall-clock dates for trace times: SWF times are seconds after the header's UnixStartTime, read in
the header's TimeZoneString (Parallel Workloads Archive, SWF 2.2).

Without UnixStartTime, times stay relative: a clock still exists, anchored at the Unix epoch in UTC,
and says so (``absolute`` is False), so hour-of-day and day-of-week summaries are labelled as
relative rather than invented."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from meshsim.engine.core.errors import MeshsimError
from meshsim.engine.workloads.swf import SWFHeader


@dataclass(frozen=True)
class TraceClock:
    """Maps trace seconds to local dates."""

    unix_start: int
    zone: tzinfo
    absolute: bool

    @classmethod
    def from_header(cls, header: SWFHeader | None) -> TraceClock:
        start = header.unix_start_time if header else None
        name = header.time_zone_string if header else None
        zone: tzinfo = UTC
        if name:
            try:
                zone = ZoneInfo(name.strip())
            except (ZoneInfoNotFoundError, ValueError):
                zone = UTC
        return cls(start or 0, zone, start is not None)

    def at(self, seconds: float) -> datetime:
        """The local date and time of trace time ``seconds``."""
        return datetime.fromtimestamp(self.unix_start + seconds, tz=UTC).astimezone(self.zone)

    def seconds(self, when: datetime) -> float:
        """Trace seconds of a (time-zone aware) date."""
        return when.timestamp() - self.unix_start

    def month_window(self, month: str) -> tuple[float, float]:
        """[start, end) in trace seconds of calendar month ``YYYY-MM`` in the trace's zone."""
        try:
            first = datetime.strptime(month, "%Y-%m").replace(tzinfo=self.zone)
            nxt = (first + timedelta(days=32)).replace(day=1)
            return self.seconds(first), self.seconds(nxt)
        except (ValueError, OverflowError):
            raise MeshsimError(f"--month '{month}': expected YYYY-MM, e.g. 2009-03") from None

    def hours_and_weekdays(self, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Local hour of day (0–23) and weekday (0 = Monday) of each trace time."""
        stamps = [self.at(float(t)) for t in times.tolist()]
        hours = np.fromiter((d.hour for d in stamps), dtype=np.int64, count=len(stamps))
        days = np.fromiter((d.weekday() for d in stamps), dtype=np.int64, count=len(stamps))
        return hours, days

    def month_of(self, seconds: float) -> str:
        """``YYYY-MM`` of a trace time."""
        return self.at(seconds).strftime("%Y-%m")
