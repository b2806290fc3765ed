"""Error answers kept as the project built them, for the clients that read them.

By default every error answer on the API becomes a problem (:mod:`.error_answers`). An endpoint
whose clients read the project's own body (a ``status`` member RFC 9457 reserves, a login
flow's ``data``) keeps it: the status, members and ``Content-Type`` as the view answered them,
with the trace id header added as on any answer. Three levels, the first that applies wins:

1. a response: ``return keep_error_body(Response({...}, status=400))``;
2. a view, function or class: ``@keep_error_body``, or ``keep_error_body = True`` on the class;
3. a path: ``KEEP_ERROR_BODY_PATHS``, for a third-party app mounted under the API prefix
   (allauth's headless API), whose views the project cannot mark.

Only what the view (or the project's ``PROJECT_EXCEPTION_HANDLER``) answered is kept: an
exception the project leaves to the package (a ``ValidationError``, ``Http404``, a failure)
still answers a problem, and so does a path that nothing routes.
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
MARK = "keep_error_body"

_Target = TypeVar("_Target", bound="HttpResponseBase | Callable[..., Any] | type")


def keep_error_body(target: _Target) -> _Target:
    """Answer the error body of ``target`` as it is, never as a problem.

    ``target`` is a response (``return keep_error_body(JsonResponse({...}, status=400))``), a
    view function or a view class (a decorator; above ``@api_view``, which makes a new view).
    ``keep_error_body = True`` on a view class does the same. Returns ``target``.
    """
    setattr(target, MARK, True)
    return target


def is_kept_view(view: object) -> bool:
    """Whether ``view`` (a resolved view function, or a DRF view instance) is marked, on itself
    or on its class (DRF's ``cls``, Django's ``view_class``)."""
    # A class-based view resolves to the function as_view() made; the mark is on its class.
    return bool(
        getattr(view, MARK, False)
        or getattr(getattr(view, "cls", None), MARK, False)
        or getattr(getattr(view, "view_class", None), MARK, False)
    )


def is_kept_path(request: HttpRequest) -> bool:
    """Whether one of ``KEEP_ERROR_BODY_PATHS`` is found in ``request.path`` (``re.search``)."""
    return any(re.search(pattern, request.path) for pattern in api_settings.KEEP_ERROR_BODY_PATHS)


def is_kept_answer(request: HttpRequest, response: HttpResponseBase | None = None, view: object = None) -> bool:
    """Whether the error answer of ``request`` is kept as it is: ``response`` is marked, or the
    request was routed to a marked view (``view``, or the resolved one) or to a kept path, and
    no exception escaped the view (Django's page for it is not the project's body)."""
    if response is not None and getattr(response, MARK, False):
        return True
    match = getattr(request, "resolver_match", None)
    if match is None and view is None:
        return False  # nothing routed: Django's 404, which may list the URL patterns in DEBUG
    if get_state(request, EXCEPTION) is not None:
        return False
    return is_kept_view(view) or (match is not None and is_kept_view(match.func)) or is_kept_path(request)
