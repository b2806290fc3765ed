"""A view's response as it is stored under its key, and as a retry gets it back.

The status, the body, the headers a view names in ``replayed_headers`` (never ``Set-Cookie``)
and the state the view left on its request. A body over ``IDEMPOTENCY_MAX_STORED_BODY_BYTES``
is stored as its size alone: its replay is a problem that says the request ran.
"""

from __future__ import annotations

import math
from functools import lru_cache

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.translation import gettext

from ..conf import api_settings
from ..http import header_names
from ..http.languages import response_language
from ..problems.details import ProblemException
from .request_state import restore_and_strip
from .stores import StoredResponse

__all__ = ["REPLAYED_HEADERS"]

#: The response headers stored and replayed with the body by default: what a client reads of a
#: created or changed resource (its type, where it is, its version).
REPLAYED_HEADERS = ("Content-Type", "Location", "ETag")
#: Stored in place of a body over IDEMPOTENCY_MAX_STORED_BODY_BYTES: its size. No response
#: header can have this name (a colon starts no HTTP field name), so none is mistaken for it.
OMITTED_BODY_HEADER = ":omitted-body-bytes"
#: The stored headers a replay of an omitted body still sends: where the result can be read.
_OMITTED_BODY_REPLAYED_HEADERS = ("Location",)


def keepable(response: HttpResponseBase) -> bool:
    """Whether ``response`` can be stored; a DRF response not yet rendered is rendered."""
    if getattr(response, "streaming", False):
        return False  # a stream cannot be stored and replayed byte for byte
    render = getattr(response, "render", None)
    if render is not None and not getattr(response, "is_rendered", True):
        render()
    return True


@lru_cache(maxsize=8)
def _replayed_header_names(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name.lower() for name in names) - {"set-cookie"}


def stored_response(response: HttpResponseBase, replayed_headers: tuple[str, ...] = REPLAYED_HEADERS) -> StoredResponse:
    """What the store keeps of ``response`` (its request's state is added by the caller)."""
    allowed = _replayed_header_names(tuple(replayed_headers))
    headers = {name: value for name, value in response.items() if name.lower() in allowed}
    # Whatever the setting: the body is replayed as it is, so the language it is written in
    # goes with it, not the language a retry asks for.
    language = response_language(response)
    if language and "content-language" not in {name.lower() for name in headers}:
        headers["Content-Language"] = language
    body = bytes(response.content)  # type: ignore[attr-defined]  # keepable(): not streaming
    limit = api_settings.IDEMPOTENCY_MAX_STORED_BODY_BYTES
    if limit is not None and len(body) > limit:
        # The view ran and its answer was sent; what is stored says so, without the body. A
        # retry must learn that the operation happened, not run it again.
        kept = {name: value for name, value in headers.items() if name in _OMITTED_BODY_REPLAYED_HEADERS}
        return StoredResponse(
            status=response.status_code, headers={**kept, OMITTED_BODY_HEADER: str(len(body))}, body=b""
        )
    return StoredResponse(status=response.status_code, headers=headers, body=body)


def replay(
    stored: StoredResponse,
    request: HttpRequest | None = None,
    *,
    retention_remaining: float | None = None,
) -> HttpResponse:
    """The stored response again; a problem when its body was too large to be stored.

    What the first request's view left on its request (:mod:`.request_state`) is restored on
    ``request``. ``retention_remaining``: the seconds the key is still kept, sent as
    ``Idempotency-Retention`` (whole seconds, rounded down: never a promise the store won't keep).
    """
    headers = restore_and_strip(request, stored.headers)
    retention = (
        {}
        if retention_remaining is None
        else {header_names.IDEMPOTENCY_RETENTION: str(max(0, math.floor(retention_remaining)))}
    )
    if OMITTED_BODY_HEADER in headers:
        raise _response_too_large(StoredResponse(stored.status, headers, stored.body), retention)
    response = HttpResponse(
        stored.body,
        status=stored.status,
        headers={**headers, header_names.CACHE_LOOKUP: "HIT", header_names.IDEMPOTENT_REPLAYED: "true", **retention},
    )
    if "Content-Type" not in headers and "content-type" not in headers:
        del response["Content-Type"]  # stored without one: HttpResponse's default is not the view's
    return response


def _response_too_large(stored: StoredResponse, retention: dict[str, str]) -> ProblemException:
    header = header_names.IDEMPOTENCY_KEY
    return ProblemException(
        "idempotency-response-too-large",
        gettext(
            "The request with this {header} ran once and answered {status}, but its response ({size} bytes) was "
            "too large to be kept for replay. Do not send it again under a new key: read its result instead."
        ).format(header=header, status=stored.status, size=stored.headers[OMITTED_BODY_HEADER]),
        headers={
            **{name: value for name, value in stored.headers.items() if name != OMITTED_BODY_HEADER},
            header_names.CACHE_LOOKUP: "HIT",
            header_names.IDEMPOTENT_REPLAYED: "true",
            **retention,
        },
        extensions={"original_status": stored.status},
    )
