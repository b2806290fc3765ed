"""Opaque, signed, typed cursors: a position in an ordering, bound to one list and its filters."""

from __future__ import annotations

import hashlib
import json
import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core import signing
from django.utils.translation import gettext

from ..conf import api_settings
from ..problems.details import ProblemException

CURSOR_VERSION = 1


#: The directions a cursor leads in: to the page after its position, or to the page before it.
NEXT = "next"
PREVIOUS = "previous"
_DIRECTIONS = {NEXT: "n", PREVIOUS: "p"}


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: a position in an ordering (the ordering values of the last row of
    the page before, for a ``next`` cursor; of the first row of the page after, for a
    ``previous`` one), bound to one list, its filters and its sort.

    ``inclusive``: the row at the position belongs to the page too. Only the cursors of an
    empty page are inclusive (its position is the cursor that led to it, whose row may still
    be there).
    """

    position: tuple[Any, ...]
    ordering: tuple[str, ...]
    endpoint: str
    filters: str
    direction: str = NEXT
    sort: str | None = None
    inclusive: bool = False

    @property
    def backward(self) -> bool:
        return self.direction == PREVIOUS


def filters_signature(filters: Any) -> str:
    """A short hash of the active filters, in a canonical spelling."""
    canonical = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


_signers: dict[tuple[Any, ...], signing.TimestampSigner] = {}


def cursor_signer() -> signing.TimestampSigner:
    """The signer of cursors, what ``signing.dumps``/``loads`` build on every call, built once
    per key, fallback keys and ``CURSOR_SALT`` (read live: ``override_settings`` applies)."""
    identity = (settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS), api_settings.CURSOR_SALT)
    signer = _signers.get(identity)
    if signer is None:
        _signers.clear()  # one at a time: a key changes seldom, in tests or on rotation
        signer = _signers[identity] = signing.TimestampSigner(salt=identity[2])
    return signer


def encode_cursor(cursor: Cursor) -> str:
    payload: dict[str, Any] = {
        "v": CURSOR_VERSION,
        "p": [_typed(value) for value in cursor.position],
        "o": list(cursor.ordering),
        "e": cursor.endpoint,
        "f": cursor.filters,
    }
    # Left out when they have their defaults, so that a cursor of an earlier release (forward,
    # exclusive, no declared sorts) stays valid.
    if cursor.direction != NEXT:
        payload["d"] = _DIRECTIONS[cursor.direction]
    if cursor.sort is not None:
        payload["s"] = cursor.sort
    if cursor.inclusive:
        payload["i"] = True
    return cursor_signer().sign(_packed(signing.JSONSerializer().dumps(payload)))


def _packed(data: bytes) -> str:
    """What ``signing.dumps(..., compress=True)`` signs: base64url of the data, or of its
    zlib stream after a ``.`` when that is shorter, read back by ``signing.loads``.

    The stream is made with a 512-byte window and the least memory (``wbits=9``,
    ``memLevel=1``) rather than zlib's defaults (32 KiB, 8): a cursor is under 300 bytes, the
    stream as short within a few bytes, and setting up the default state cost more than the
    rest of the cursor (a quarter of a page's CPU on a loaded machine; docs/benchmarks.md).
    """
    compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 9, 1)
    compressed = compressor.compress(data) + compressor.flush()
    if len(compressed) < len(data) - 1:
        return "." + signing.b64_encode(compressed).decode()
    return signing.b64_encode(data).decode()


def decode_cursor(
    token: str, *, ordering: Sequence[str], endpoint: str, filters: str, parameter: str = "cursor",
    sort: str | None = None,
) -> Cursor:
    """The cursor in ``token``, checked against the list it is used on (its ordering, endpoint,
    filters and declared ``sort``); else a 400 problem whose error names the query ``parameter``
    the cursor came in (a paginator's ``cursor_query_param``)."""
    try:
        return _decode_cursor(token, ordering=ordering, endpoint=endpoint, filters=filters, sort=sort)
    except ProblemException as problem:
        if parameter == "cursor":
            raise
        raise invalid_cursor(str(problem.detail), parameter=parameter) from problem.__cause__


def _decode_cursor(token: str, *, ordering: Sequence[str], endpoint: str, filters: str, sort: str | None) -> Cursor:
    try:
        payload = cursor_signer().unsign_object(token, serializer=signing.JSONSerializer)
    except (signing.BadSignature, ValueError, TypeError, OverflowError):
        raise invalid_cursor(gettext("The cursor was not issued by this service or was altered.")) from None
    if not isinstance(payload, dict) or payload.get("v") != CURSOR_VERSION:
        raise invalid_cursor(
            gettext("The cursor comes from another version of this service; start from the first page.")
        )
    if payload.get("e") != endpoint:
        raise invalid_cursor(gettext("The cursor was issued for another list."))
    if payload.get("s") != sort:
        raise invalid_cursor(
            gettext("The cursor was issued for another sort: send the same sort as for the page before.")
        )
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
    directions = {code: name for name, code in _DIRECTIONS.items()}
    code, inclusive = payload.get("d", "n"), payload.get("i", False)
    direction = directions.get(code) if isinstance(code, str) else None
    if len(position) != len(ordering) or direction is None or not isinstance(inclusive, bool):
        raise invalid_cursor(gettext("The cursor is malformed."))
    return Cursor(position, tuple(ordering), endpoint, filters, direction, sort, inclusive)


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
