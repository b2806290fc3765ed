"""The deprecations a view noted, kept with an idempotent response so that its replay announces
them: a replay never runs the view, which notes a renamed field's old name from the body."""

from __future__ import annotations

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
    return json.dumps([_as_dict(deprecation) for deprecation in noted])


def note_dumped(request: Any, dumped: str) -> None:
    """Note again on ``request`` the deprecations of :func:`dump_noted_since`."""
    for item in json.loads(dumped):
        note_deprecation(request, _from_dict(item))


def _as_dict(deprecation: Deprecation) -> dict[str, Any]:
    return {
        "subject": deprecation.subject,
        "kind": deprecation.kind,
        "deprecation": _moment(deprecation.deprecation),
        "sunset": _moment(deprecation.sunset),
        "migration_guide": deprecation.migration_guide,
        "note": deprecation.note,
    }


def _from_dict(item: dict[str, Any]) -> Deprecation:
    return Deprecation(
        item["subject"],
        item["kind"],
        _parse(item["deprecation"]),
        _parse(item["sunset"]),
        item["migration_guide"],
        note=item["note"],
    )


def _moment(moment: dt.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _parse(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text is not None else None
