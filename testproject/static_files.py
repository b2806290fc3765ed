"""Static files of the example service (the admin's stylesheets and scripts), served by WhiteNoise.

WhiteNoise answers the files that exist before any other middleware runs. A path under
``STATIC_URL`` that reaches :class:`StaticNotFoundMiddleware`, right after it, names no file:
it gets Django's own 404 page, as a browser expects of a stylesheet URL, not a problem
details document (``/static/`` is no part of the API).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponseBase
from django.views import defaults


class StaticNotFoundMiddleware:
    """Django's plain 404 for a missing file under ``STATIC_URL``; put it after WhiteNoise."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.prefix = urlsplit(settings.STATIC_URL or "").path

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if self.prefix and request.path.startswith(self.prefix):
            return defaults.page_not_found(request, Http404("No such static file."))
        return self.get_response(request)
