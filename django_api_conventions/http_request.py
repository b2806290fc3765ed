"""Django's ``HttpRequest`` behind whatever request object a hook receives."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def http_request_of(request: Any) -> HttpRequest:
    """DRF's ``Request`` wraps an ``HttpRequest`` (and copies user and auth onto it once it has
    authenticated): the wrapped one, or ``request`` itself when it is already Django's."""
    return getattr(request, "_request", request)  # type: ignore[no-any-return]  # DRF's Request._request
