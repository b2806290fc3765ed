"""The state the package keeps on a request: one convention and one table of names.

Every value is an attribute of Django's ``HttpRequest`` (under DRF, the one its ``Request``
wraps), read and written through :func:`get_state` and :func:`set_state`. Middleware sees
Django's request; DRF views, filter backends and paginators see DRF's ``Request``, whose
attribute look-up falls back to the wrapped request. A value set on DRF's ``Request`` itself
would stay there, unseen by the middleware around the view: so the package never sets an
attribute on the request object a hook receives, only on the ``HttpRequest`` behind it.

The public names are documented for your code to read, on either request object:
``request.trace_id`` (:mod:`~django_api_conventions.tracing.trace_ids`), ``request.active_filters``
(``StrictFilterBackend``), ``request.idempotency`` (a request that holds a key) and
``request.version`` (the version in the path; DRF's versioning sets it on DRF's ``Request``
too). The names starting with ``_api_conventions_`` are internal and may change.
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
    """DRF's ``Request`` wraps an ``HttpRequest`` (and copies user and auth onto it once it has
    authenticated): the wrapped one, or ``request`` itself when it is already Django's."""
    return getattr(request, "_request", request)  # type: ignore[no-any-return]  # DRF's Request._request


def get_state(request: Any, name: str, default: Any = None) -> Any:
    """The value of ``name`` kept on ``request`` (Django's or DRF's), ``default`` when none."""
    return getattr(http_request_of(request), name, default)


def set_state(request: Any, name: str, value: Any) -> None:
    """Keep ``value`` under ``name`` on the ``HttpRequest`` behind ``request``."""
    setattr(http_request_of(request), name, value)


def state_list(request: Any, name: str) -> list[Any]:
    """The list kept under ``name``, created empty the first time (to append to)."""
    http_request = http_request_of(request)
    values: list[Any] | None = getattr(http_request, name, None)
    if values is None:
        values = []
        setattr(http_request, name, values)
    return values


def pop_state(request: Any, name: str, default: Any = None) -> Any:
    """Remove ``name`` from ``request`` and return its value, ``default`` when none."""
    http_request = http_request_of(request)
    value = getattr(http_request, name, default)
    if hasattr(http_request, name):
        delattr(http_request, name)
    return value
