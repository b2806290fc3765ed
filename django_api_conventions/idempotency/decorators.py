"""``@idempotent``: idempotency keys for plain Django function views, sync or async;
``@idempotency_exempt``: a view's handler that never takes one."""

from __future__ import annotations

import functools
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any, TypeVar

from asgiref.sync import async_to_sync, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponseBase

from ..problems.details import ProblemException, render_problem
from .protocol import DEFAULT_METHODS, IdempotencyOptions, keep_final_answers, run_idempotently
from .transactions import exempt_from_atomic_requests, run_unkeyed

_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def idempotent(
    view: Callable[..., Any] | None = None,
    *,
    required: bool = False,
    methods: frozenset[str] | set[str] = DEFAULT_METHODS,
    keep_status: Callable[[int], bool] = keep_final_answers,
    wait_seconds: float = 0.0,
    lease_seconds: float | None = None,
) -> Any:
    """Protect a function view: ``@idempotent`` or ``@idempotent(required=True)``.

    For DRF views use :class:`~django_api_conventions.idempotency.IdempotencyMixin`, which
    claims the key after DRF authenticated the caller.
    """
    options = IdempotencyOptions(required, frozenset(methods), keep_status, wait_seconds, lease_seconds)

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        def handle(request: HttpRequest, call_view: Callable[[], HttpResponseBase]) -> HttpResponseBase:
            if request.method not in options.methods:
                return run_unkeyed(call_view)
            try:
                return run_idempotently(request, options, call_view)
            except ProblemException as problem:
                return render_problem(request, problem)

        wrapper: Any  # the view, wrapped, which carries its options
        if iscoroutinefunction(view):

            async def async_wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
                # Transactions are per thread: the claim, the view and the stored response must
                # share Django's one thread-sensitive database thread.
                def call_view() -> HttpResponseBase:
                    return async_to_sync(view)(request, *args, **kwargs)  # type: ignore[no-any-return]  # any view

                return await sync_to_async(handle, thread_sensitive=True)(request, call_view)

            wrapper = functools.wraps(view)(async_wrapper)
            markcoroutinefunction(wrapper)
        else:

            def sync_wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
                return handle(request, lambda: view(request, *args, **kwargs))

            wrapper = functools.wraps(view)(sync_wrapper)
        wrapper.idempotency_options = options
        return exempt_from_atomic_requests(wrapper)

    return decorate(view) if view is not None else decorate


def idempotency_exempt(handler: _Handler) -> _Handler:
    """Take no idempotency key on this handler, whatever its view's ``idempotency_methods`` say.

    Like ``@csrf_exempt``, it marks the function: stack it with DRF's ``@action``, or put it on a
    viewset's ``create`` or an ``APIView``'s ``post``. A key sent is ignored, and the OpenAPI
    document does not list the header: for an action that commits its own transaction.
    """
    handler.idempotency_exempt = True  # type: ignore[attr-defined]  # read by the mixin and the middleware
    return handler


def is_idempotency_exempt(view: Any, method: str, actions: dict[str, str] | None = None) -> bool:
    """Whether the handler of ``method`` on ``view`` (an instance or a class) is exempt;
    ``actions``: a viewset route's ``action_map``."""
    name = (actions or {}).get(method.lower(), method.lower())
    return bool(getattr(getattr(view, name, None), "idempotency_exempt", False))
