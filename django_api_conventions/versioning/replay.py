"""The deprecations a view noted, kept with an idempotent response so that its replay announces
them: a replay never runs the view, which notes a renamed field's old name from the body."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

from .lifecycle import Deprecation
from .usage import note_deprecation, noted_deprecations


def noted_count(request: Any) -> int:
    """How many deprecations ``request`` has noted so far: the mark :func:`dump_noted_since` starts at."""
    return len(noted_deprecations(request))


def dump_noted_since(request: Any, mark: int) -> str | None:
    """The deprecations ``request`` noted after ``mark``, as JSON; ``None`` when there are none."""
    noted = noted_deprecations(request)[mark:]
    if not noted:
        return None
    return json.dumps([dataclasses.asdict(deprecation) for deprecation in noted], default=dt.datetime.isoformat)


def note_dumped(request: Any, dumped: str) -> None:
    """Note again on ``request`` the deprecations of :func:`dump_noted_since`."""
    for item in json.loads(dumped):
        moments = {name: item[name] and dt.datetime.fromisoformat(item[name]) for name in ("deprecation", "sunset")}
        note_deprecation(request, Deprecation(**{**item, **moments}))
