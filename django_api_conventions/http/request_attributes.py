"""The state the package keeps on a request: one convention and one table of names.

Every value is an attribute of Django's ``HttpRequest``, which DRF's ``Request`` wraps and reads
through: set on DRF's ``Request`` itself, it would stay unseen by the middleware. Your code
reads the public names on either request object (``request.trace_id``...); the names starting
with ``_api_conventions_`` are internal and may change.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

__all__ = ["ACTIVE_FILTERS", "IDEMPOTENCY", "TRACE_ID", "VERSION", "get_state"]

#: Public: the request's trace id (a string).
TRACE_ID = "trace_id"
#: Public: the cleaned values of the list filters, which the page's cursors are bound to.
ACTIVE_FILTERS = "active_filters"
#: Public: the :class:`~django_api_conventions.idempotency.KeyedRequest` of a request with a key.
IDEMPOTENCY = "idempotency"
#: Public: the API version named in the path (``"v2"``), set by ``VersionLifecycleMiddleware``.
VERSION = "version"
#: Internal: the deprecations the request used, announced in its response headers.
DEPRECATIONS = "_api_conventions_deprecations"
#: Internal: the deprecated uses to report (signal, deprecation, extra) once the client is known.
DEPRECATED_USES = "_api_conventions_deprecated_uses"
#: Internal: the uncaught exception Django announced, for ProblemDetailsMiddleware.
EXCEPTION = "_api_conventions_exception"


def http_request_of(request: Any) -> HttpRequest:
    """The ``HttpRequest`` DRF's ``Request`` wraps, or ``request`` itself when it is Django's."""
    return getattr(request, "_request", request)  # type: ignore[no-any-return]  # DRF's Request._request


def get_state(request: Any, name: str, default: Any = None) -> Any:
    """The value of ``name`` kept on ``request`` (Django's or DRF's), ``default`` when none."""
    return getattr(http_request_of(request), name, default)


def set_state(request: Any, name: str, value: Any) -> None:
    """Keep ``value`` under ``name`` on the ``HttpRequest`` behind ``request``."""
    setattr(http_request_of(request), name, value)


def state_list(request: Any, name: str) -> list[Any]:
    """The list kept under ``name``, created empty the first time (to append to)."""
    return vars(http_request_of(request)).setdefault(name, [])  # type: ignore[no-any-return]


def pop_state(request: Any, name: str, default: Any = None) -> Any:
    """Remove ``name`` from ``request`` and return its value, ``default`` when none."""
    return vars(http_request_of(request)).pop(name, default)
