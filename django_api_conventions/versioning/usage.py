"""What each request used that is deprecated: collected on the request, announced and logged,
and kept with an idempotent response, so that its replay, which never runs the view, announces
what the view noted (a renamed field's old name)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
from typing import Any

from django.dispatch import Signal

from ..clients.client_ids import get_client_id
from ..http.request_attributes import DEPRECATIONS, get_state, http_request_of, state_list
from ..problems.details import ProblemException
from .lifecycle import Deprecation

logger = logging.getLogger("django_api_conventions.deprecation")


def note_deprecation(request: Any, deprecation: Deprecation) -> bool:
    """Remember that ``request`` uses ``deprecation``, for its response; True the first time."""
    notes: list[Deprecation] = state_list(request, DEPRECATIONS)
    if deprecation in notes:
        return False
    notes.append(deprecation)
    return True


def noted_deprecations(request: Any) -> list[Deprecation]:
    return list(get_state(request, DEPRECATIONS, []))


def report_use(request: Any, signal: Signal, deprecation: Deprecation, *, retired: bool = False, **extra: Any) -> None:
    """Send ``signal`` and log one line with the client id: who still calls ``deprecation``."""
    http_request = http_request_of(request)
    try:
        client_id = get_client_id(request)
    except ProblemException:  # an unusable client id header: its own 400 answers it where it counts
        client_id = "-"
    sunset = deprecation.sunset.isoformat() if deprecation.sunset else None
    fields = {"deprecated": deprecation.subject, "client_id": client_id, "sunset": sunset, "retired": retired}
    brownout = extra.get("brownout")
    if brownout is not None:  # refused: a WARNING, as for a retired version
        logger.warning(
            "Brownout of %s refused %s: %s %s (until %s)",
            deprecation.subject,
            client_id,
            http_request.method,
            http_request.path,
            brownout.end.isoformat(),
            extra={**fields, "brownout": str(brownout)},
        )
    else:
        logger.log(
            logging.WARNING if retired else logging.INFO,
            "%s %s used by %s: %s %s (sunset %s)",
            "Retired" if retired else "Deprecated",
            deprecation.subject,
            client_id,
            http_request.method,
            http_request.path,
            sunset or "not set",
            extra=fields,
        )
    signal.send(
        sender=deprecation.kind, request=request, client_id=client_id, deprecation=deprecation, retired=retired, **extra
    )


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
