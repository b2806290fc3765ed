"""``IdempotencyMiddleware``: idempotency keys for chosen URL patterns, for views you cannot edit."""

from __future__ import annotations

import re
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from asgiref.sync import async_to_sync
from django.http import HttpRequest, HttpResponseBase

from ..conf import api_settings
from ..http.hook_middleware import HookMiddleware
from ..problems.details import ProblemException, render_problem
from .decorators import is_idempotency_exempt
from .mixins import IdempotencyMixin
from .protocol import DEFAULT_METHODS, IdempotencyOptions, run_idempotently, run_idempotently_async
from .replay import REPLAYED_HEADERS


class IdempotencyMiddleware(HookMiddleware):
    """Protects the paths matching ``IDEMPOTENCY_PATHS`` (regular expressions).

    Views with :class:`IdempotencyMixin` or ``@idempotent`` are left to those, and handlers marked
    ``@idempotency_exempt`` (a function view, or a class view's method or action) run unkeyed.
    The scope comes from ``request.user`` (Django's authentication middleware) or ``X-Client-ID``:
    for DRF token authentication prefer the mixin, which sees the caller DRF authenticated.

    Under ASGI the key is claimed and waited on without blocking the event loop, and the view
    runs with its stored response in one transaction on Django's thread-sensitive thread, as
    with the mixin on an async view.
    """

    #: Response headers stored and replayed with the body; a subclass names others.
    replayed_headers: tuple[str, ...] = REPLAYED_HEADERS

    def _options(self) -> IdempotencyOptions:
        return IdempotencyOptions(
            required=api_settings.IDEMPOTENCY_REQUIRED, replayed_headers=tuple(self.replayed_headers)
        )

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        if not _protects(request, view_func):
            return None
        try:
            return run_idempotently(request, self._options(), _view_call(request, view_func, view_args, view_kwargs))
        except ProblemException as problem:
            return render_problem(request, problem)

    async def aprocess_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        if not _protects(request, view_func):
            return None
        view = _view_call(request, view_func, view_args, view_kwargs)
        try:
            return await run_idempotently_async(request, self._options(), view)
        except ProblemException as problem:
            return render_problem(request, problem)


def _view_call(
    request: HttpRequest, view_func: Callable[..., Any], view_args: tuple[Any, ...], view_kwargs: dict[str, Any]
) -> Callable[[], HttpResponseBase]:
    """The view, called synchronously: in the thread of the request's transaction, which the
    async path runs it in too (an async view is brought back to the loop)."""
    call = async_to_sync(view_func) if iscoroutinefunction(view_func) else view_func
    return lambda: call(request, *view_args, **view_kwargs)


def _protects(request: HttpRequest, view_func: Callable[..., Any]) -> bool:
    """Not a view protected otherwise (the mixin, ``@idempotent``), nor one exempt."""
    method = str(request.method)
    view_class = getattr(view_func, "cls", None) or getattr(view_func, "view_class", None)
    if (
        method not in DEFAULT_METHODS
        or hasattr(view_func, "idempotency_options")
        or getattr(view_func, "idempotency_exempt", False)
        or (isinstance(view_class, type) and issubclass(view_class, IdempotencyMixin))
        or (view_class is not None and is_idempotency_exempt(view_class, method, getattr(view_func, "actions", None)))
    ):
        return False
    return any(re.search(pattern, request.path) for pattern in api_settings.IDEMPOTENCY_PATHS)
