"""Brownouts: planned windows before a version's sunset in which it answers as on that day (410),
with ``Retry-After`` to the window's end, so that clients still calling it notice in time.

A window is an ISO 8601 interval, ``"2026-12-08T10:00:00Z/PT15M"`` (start and duration) or
``"2026-12-08T10:00:00Z/2026-12-08T10:15:00Z"`` (start and end), or a dict with ``start`` and
``duration`` or ``end``; times carry their UTC offset.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.dateparse import parse_duration

_EXAMPLE = "'2026-12-08T10:00:00Z/PT15M'"


@dataclass(frozen=True, order=True)
class Brownout:
    """One window, from ``start`` (included) to ``end`` (excluded), both aware UTC datetimes."""

    start: dt.datetime
    end: dt.datetime

    def covers(self, moment: dt.datetime) -> bool:
        return self.start <= moment < self.end

    def __str__(self) -> str:
        return f"{utc_text(self.start)}/{utc_text(self.end)}"


def utc_text(moment: dt.datetime) -> str:
    """``2026-12-08T10:00:00Z``: the form a client and a log reader compare."""
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def parse_brownouts(value: Any, *, name: str, sunset: dt.datetime | None) -> tuple[Brownout, ...]:
    """The windows of version ``name``, sorted; :class:`ImproperlyConfigured` says what is wrong."""
    if value is None:
        return ()
    if isinstance(value, str | Mapping) or not isinstance(value, list | tuple):
        raise ImproperlyConfigured(f"{name}: 'brownouts' must be a list of windows such as [{_EXAMPLE}], not {value!r}")
    windows = sorted(_window(item, name) for item in value)
    if windows and sunset is None:
        raise ImproperlyConfigured(f"{name}: brownouts come before a sunset; give the version its 'sunset'")
    for earlier, later in pairwise(windows):
        if later.start < earlier.end:
            raise ImproperlyConfigured(f"{name}: the brownouts {earlier} and {later} overlap")
    late = next((window for window in windows if sunset is not None and window.end > sunset), None)
    if late is not None and sunset is not None:
        raise ImproperlyConfigured(f"{name}: the brownout {late} ends after the sunset {utc_text(sunset)}")
    return tuple(windows)


def _window(item: Any, name: str) -> Brownout:
    what = f"{name}: brownout {item!r}"
    if isinstance(item, str):
        first, slash, rest = item.partition("/")
        if not slash:
            raise ImproperlyConfigured(f"{what} is not an interval start/duration or start/end such as {_EXAMPLE}")
        parts: dict[str, Any] = {"start": first, "duration" if rest.startswith("P") else "end": rest}
    elif isinstance(item, Mapping) and set(item) in ({"start", "end"}, {"start", "duration"}):
        parts = dict(item)
    else:
        raise ImproperlyConfigured(f"{what} must be a string such as {_EXAMPLE} or a dict of start and duration or end")
    start = _moment(parts["start"], what)
    end = _moment(parts["end"], what) if "end" in parts else start + _duration(parts["duration"], what)
    if end <= start:
        raise ImproperlyConfigured(f"{what} does not end after it starts")
    return Brownout(start, end)


def _moment(value: Any, what: str) -> dt.datetime:
    moment = value
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value) if "T" in value else None
        except ValueError:
            moment = None
    if not isinstance(moment, dt.datetime) or moment.tzinfo is None or moment.utcoffset() is None:
        # A date alone, or a time without its offset, would be read in each server's time zone.
        raise ImproperlyConfigured(
            f"{what}: {value!r} is not an ISO 8601 date-time with its UTC offset, e.g. {_EXAMPLE}"
        )
    return moment.astimezone(dt.UTC)


def _duration(value: Any, what: str) -> dt.timedelta:
    # Days, hours, minutes and seconds only: a month or a year has no fixed length.
    duration = value if isinstance(value, dt.timedelta) else None
    if isinstance(value, str) and value.startswith("P"):
        duration = parse_duration(value)
    if duration is None:
        raise ImproperlyConfigured(f"{what}: {value!r} is not an ISO 8601 duration in days, hours, minutes or seconds")
    return duration
