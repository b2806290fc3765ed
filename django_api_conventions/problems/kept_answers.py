"""Error answers kept as the project built them, for the clients that read them: marked on the
response or the view (:func:`keep_error_body`), or on a path (``KEEP_ERROR_BODY_PATHS``, for a
third-party app's views). An exception left to the package still answers a problem.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponseBase

from ..conf import api_settings
from ..http.request_attributes import EXCEPTION, get_state

__all__ = ["keep_error_body"]

#: The mark: an attribute of a response, a view function or a view class.
_MARK = "keep_error_body"

_Target = TypeVar("_Target", bound="HttpResponseBase | Callable[..., Any] | type")


def keep_error_body(target: _Target) -> _Target:
    """Answer the error body of ``target`` as it is, never as a problem.

    ``target`` is a response (``return keep_error_body(JsonResponse({...}, status=400))``), a
    view function or a view class (a decorator, above ``@api_view``); ``keep_error_body = True``
    on a view class does the same. Returns ``target``.
    """
    setattr(target, _MARK, True)
    return target


def _is_kept_view(view: object) -> bool:
    # A view function, a DRF view instance, or the function as_view() made (marked on its class).
    return bool(
        getattr(view, _MARK, False)
        or getattr(getattr(view, "cls", None), _MARK, False)
        or getattr(getattr(view, "view_class", None), _MARK, False)
    )


def is_kept_answer(request: HttpRequest, response: HttpResponseBase | None = None, view: object = None) -> bool:
    """Whether the error answer of ``request`` is kept: ``response`` is marked, or the request
    was routed to a marked view (``view``, or the resolved one) or a kept path, and no exception
    escaped the view (Django's page for it is not the project's body)."""
    if response is not None and getattr(response, _MARK, False):
        return True
    match = getattr(request, "resolver_match", None)
    if match is None and view is None:
        return False  # nothing routed: Django's 404, which may list the URL patterns in DEBUG
    if get_state(request, EXCEPTION) is not None:
        return False
    return (
        _is_kept_view(view)
        or (match is not None and _is_kept_view(match.func))
        or any(re.search(pattern, request.path) for pattern in api_settings.KEEP_ERROR_BODY_PATHS)
    )
