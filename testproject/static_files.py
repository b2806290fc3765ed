"""Static files of the example service (the admin's stylesheets and scripts), served by WhiteNoise.

WhiteNoise answers the files that exist before any other middleware runs. A path under
``STATIC_URL`` that reaches :class:`StaticNotFoundMiddleware`, right after it, names no file:
it gets Django's own 404 page, as a browser expects of a stylesheet URL, not a problem
details document (``/static/`` is no part of the API).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from django.views import defaults


class StaticNotFoundMiddleware(MiddlewareMixin):
    """Django's plain 404 for a missing file under ``STATIC_URL``; put it after WhiteNoise.

    A ``MiddlewareMixin``, so it works in sync and async stacks alike."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        prefix = urlsplit(settings.STATIC_URL or "").path
        if prefix and request.path.startswith(prefix):
            return defaults.page_not_found(request, Http404("No such static file."))
        return None
