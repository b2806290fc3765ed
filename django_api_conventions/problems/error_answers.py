"""An error answer a project built itself, as a problem: the same body gives the same problem
whether the middleware (a view's own answer) or DRF's exception handler (the project's handler's
answer) converts it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from django.http import HttpResponseBase
from django.utils.translation import gettext

from .details import RESERVED_MEMBERS, ErrorItem, ProblemException
from .error_items import is_validation_detail, pointer_items
from .mapping import INTERNAL_ERROR_DETAIL
from .types import problem_types

__all__ = ["problem_for_error_answer"]

# Headers of an error answer that describe its body, which the problem replaces.
_BODY_HEADERS = frozenset({"content-type", "content-length", "content-encoding", "content-disposition"})

# Members that hold the message of a body without ``detail``, the first found wins (OAuth 2.0's
# ``error`` is a code, its ``error_description`` the message); they stay members too.
_MESSAGE_MEMBERS = ("message", "error_description", "error")
# A message is one short line; Django's technical pages in text are many lines long.
_MAX_TEXT_MESSAGE = 500
# An HTML tag, a comment or a doctype: a page (Django's error pages), not a message.
_MARKUP = re.compile(r"<[A-Za-z!/?]")


def error_answer_data(response: HttpResponseBase) -> Any:
    """The body of ``response`` as data: a DRF ``Response``'s ``data``, a parsed JSON body, or a
    one-line text message (``HttpResponseForbidden("Insufficient permissions")``); ``None`` for
    anything else (an HTML page, a long text, a stream, a compressed body)."""
    data = getattr(response, "data", None)
    if data is not None:
        return data
    media_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    if response.streaming or response.get("Content-Encoding", "identity").lower() != "identity":
        return None
    content: bytes = response.content  # type: ignore[attr-defined]  # not streaming: checked above
    if media_type in ("text/plain", "text/html"):
        return _text_message(content, response.charset, html=media_type == "text/html")
    if media_type != "application/json" and not media_type.endswith("+json"):
        return None
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # not JSON after all, or nested beyond reading
        return None


def headers_beside_body(response: HttpResponseBase) -> dict[str, str]:
    """The headers of an error answer a problem keeps (``Retry-After``...): all but the body's."""
    return {name: value for name, value in response.headers.items() if name.lower() not in _BODY_HEADERS}


def _text_message(content: bytes, charset: str, *, html: bool) -> str | None:
    try:
        text = content.decode(charset).strip()
    except (LookupError, UnicodeDecodeError):
        return None
    # Data sent with the wrong type ("{", "[") is not words for a person: never guessed at.
    if not text or len(text) > _MAX_TEXT_MESSAGE or "\n" in text or "\r" in text or text[0] in "{[":
        return None
    return None if html and _MARKUP.search(text) else text


def problem_for_error_answer(status: int, data: Any, headers: Mapping[str, str] | None = None) -> ProblemException:
    """The problem of an error answer the project built itself: ``status`` (400 to 599) and
    ``data``, its body as DRF renders errors, before or after JSON.

    The status is kept, with its default type. The detail is a ``detail`` string, else a
    ``message``, ``error_description`` or ``error`` string, or a text body; field messages become
    ``errors`` items with JSON Pointers; other members stay unless reserved. ``headers`` are
    added. A 5xx keeps none of its body, which may describe the failure.
    """
    if not 400 <= status <= 599:
        status = 500  # not an error status: a bug of the answer, not the client's failure
    problem_type = problem_types.for_status(status)
    if status >= 500:
        failure = INTERNAL_ERROR_DETAIL if status == 500 else problem_type.title
        return ProblemException(problem_type, str(failure), status=status, headers=headers)
    detail, errors, extensions = _read_error_body(data)
    if not detail:
        detail = gettext("The request breaks the rules of the resource.") if errors else str(problem_type.title)
    return ProblemException(problem_type, detail, status=status, errors=errors, headers=headers, extensions=extensions)


def _read_error_body(data: Any) -> tuple[str | None, list[ErrorItem], dict[str, Any]]:
    if isinstance(data, str):
        return data, [], {}
    if isinstance(data, list) and is_validation_detail(data):
        return None, pointer_items(data), {}
    if not isinstance(data, dict):
        return None, [], {}
    detail: str | None = None
    fields: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    for name, value in data.items():
        if name == "detail" and isinstance(value, str):
            detail = value
        elif isinstance(value, (list, dict)) and is_validation_detail(value):
            fields[str(name)] = value  # a field's messages: a list, or an object when nested
        elif str(name) not in RESERVED_MEMBERS:
            extensions[str(name)] = value
    if not detail:
        detail = next((str(data[name]) for name in _MESSAGE_MEMBERS if _is_message(data.get(name))), None)
    return detail, pointer_items(fields), extensions


def _is_message(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
