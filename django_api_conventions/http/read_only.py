"""Read-only pages: what a documentation page answers to each method."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

__all__ = ["read_only"]

_READ_ONLY_METHODS = ("GET", "HEAD", "OPTIONS")

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def read_only(view: View) -> View:
    """``view`` for GET and HEAD; OPTIONS answered 204 with ``Allow``, any other method 405.

    The view is exempt from CSRF: a page has no form to protect, and the check would answer
    another method with a 403 before the 405 could say which methods are allowed.
    """

    @wraps(view)
    def read_only_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method == "OPTIONS":
            answer = HttpResponse(status=204)
            del answer["Content-Type"]  # no content, so no type
            answer["Allow"] = ", ".join(_READ_ONLY_METHODS)
            return answer
        return view(request, *args, **kwargs)

    return csrf_exempt(require_http_methods(_READ_ONLY_METHODS)(read_only_view))  # type: ignore[return-value]
