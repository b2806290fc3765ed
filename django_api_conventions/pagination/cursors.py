"""Opaque, signed, typed cursors: a position in an ordering, bound to one list and its filters."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.core import signing
from django.utils.translation import gettext

from ..conf import api_settings
from ..problems.details import ProblemException

CURSOR_VERSION = 1


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: the ordering values of the last row of the previous page."""

    position: tuple[Any, ...]
    ordering: tuple[str, ...]
    endpoint: str
    filters: str


def filters_signature(filters: Any) -> str:
    """A short hash of the active filters, in a canonical spelling."""
    canonical = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode_cursor(cursor: Cursor) -> str:
    payload = {
        "v": CURSOR_VERSION,
        "p": [_typed(value) for value in cursor.position],
        "o": list(cursor.ordering),
        "e": cursor.endpoint,
        "f": cursor.filters,
    }
    return signing.dumps(payload, salt=api_settings.CURSOR_SALT, compress=True)


def decode_cursor(
    token: str, *, ordering: Sequence[str], endpoint: str, filters: str, parameter: str = "cursor",
) -> Cursor:
    """The cursor in ``token``, checked against the list it is used on; else a 400 problem whose
    error names the query ``parameter`` the cursor came in (a paginator's ``cursor_query_param``)."""
    try:
        return _decode_cursor(token, ordering=ordering, endpoint=endpoint, filters=filters)
    except ProblemException as problem:
        if parameter == "cursor":
            raise
        raise invalid_cursor(str(problem.detail), parameter=parameter) from problem.__cause__


def _decode_cursor(token: str, *, ordering: Sequence[str], endpoint: str, filters: str) -> Cursor:
    try:
        payload = signing.loads(token, salt=api_settings.CURSOR_SALT)
    except (signing.BadSignature, ValueError, TypeError, OverflowError):
        raise invalid_cursor(gettext("The cursor was not issued by this service or was altered.")) from None
    if not isinstance(payload, dict) or payload.get("v") != CURSOR_VERSION:
        raise invalid_cursor(
            gettext("The cursor comes from another version of this service; start from the first page.")
        )
    if payload.get("e") != endpoint:
        raise invalid_cursor(gettext("The cursor was issued for another list."))
    if payload.get("o") != list(ordering):
        raise invalid_cursor(gettext("The cursor was issued for another ordering."))
    if payload.get("f") != filters:
        raise invalid_cursor(
            gettext("The cursor was issued for other filters: send the same filters as for the page before.")
        )
    try:
        # Only a payload this service signed gets here, but perhaps one of another release:
        # whatever its shape, a 400, never a 500 (found by tests/test_fuzz.py).
        position = tuple(_untyped(item) for item in payload["p"])
    except (KeyError, IndexError, TypeError, ValueError, ArithmeticError) as exc:
        raise invalid_cursor(gettext("The cursor is malformed.")) from exc
    if len(position) != len(ordering):
        raise invalid_cursor(gettext("The cursor is malformed."))
    return Cursor(position, tuple(ordering), endpoint, filters)


def invalid_cursor(detail: str, *, parameter: str = "cursor") -> ProblemException:
    return ProblemException(
        "invalid-cursor", detail, errors=[{"parameter": parameter, "detail": detail, "code": "invalid"}]
    )


# Typed values: a datetime keeps its microseconds and its time zone; a value never changes type.
def _typed(value: Any) -> list[Any]:
    if value is None:
        return ["n"]
    if isinstance(value, bool):
        return ["b", value]
    if isinstance(value, int):
        return ["i", str(value)]
    if isinstance(value, datetime):
        return ["t", value.isoformat()]
    if isinstance(value, date):
        return ["d", value.isoformat()]
    if isinstance(value, Decimal):
        return ["m", str(value)]
    if isinstance(value, uuid.UUID):
        return ["u", str(value)]
    if isinstance(value, float):
        return ["f", value.hex()]
    if isinstance(value, str):
        return ["s", value]
    raise TypeError(f"Cannot put a {type(value).__name__} in a cursor.")


def _untyped(item: list[Any]) -> Any:
    kind = item[0]
    if kind == "n":
        return None
    value = item[1]
    decoders: dict[str, Any] = {
        "b": bool, "i": int, "t": datetime.fromisoformat, "d": date.fromisoformat, "m": Decimal,
        "u": uuid.UUID, "f": float.fromhex, "s": str,
    }
    return decoders[kind](value)
