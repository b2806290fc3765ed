"""``IdempotencyMixin``: idempotency keys for DRF views and viewsets.

Its ``dispatch()`` mirrors DRF's (and adrf's): ``tests/test_idempotency_wiring.py`` fails when
the installed DRF or adrf changes the dispatch it mirrors.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from inspect import iscoroutinefunction
from typing import Any, cast

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request

from ..clients.client_ids import get_client_id
from ..content.body_types import refuse_unsupported_body
from .decorators import is_idempotency_exempt
from .protocol import (
    DEFAULT_METHODS,
    IdempotencyOptions,
    keep_final_answers,
    run_idempotently,
    run_idempotently_async,
)
from .replay import REPLAYED_HEADERS
from .transactions import exempt_from_atomic_requests, run_unkeyed

Handler = Callable[..., Any]


class IdempotencyMixin:
    """Runs each keyed request at most once and replays its stored response to retries.

    Put it before the DRF view class: ``class PaymentList(IdempotencyMixin, ListCreateAPIView)``.
    The key is claimed after DRF authenticated, permitted and throttled the request and after
    the body's media type was found to be one the view's parsers read (else 415, keyed or
    not), so those 4xx answers store nothing and the key belongs to the authenticated client.
    The body itself is parsed once the key is claimed: a malformed one frees the key again.

    On an async view (adrf's ``APIView``, ``ViewSet`` and generics with ``async def`` handlers)
    it is async too: see "Async views" in the idempotency docs for its transaction model.
    """

    idempotency_required: bool = False
    idempotency_methods: frozenset[str] = DEFAULT_METHODS
    idempotency_keep_status: Callable[[int], bool] = staticmethod(keep_final_answers)
    idempotency_wait_seconds: float = 0.0
    idempotency_lease_seconds: float | None = None
    #: Response headers stored and replayed with the body; no other header is ever stored (a
    #: view whose answers carry headers of their own that a replay must repeat adds them).
    replayed_headers: tuple[str, ...] = REPLAYED_HEADERS

    @classmethod
    def as_view(cls, *args: Any, **initkwargs: Any) -> Callable[..., HttpResponseBase]:
        # The claim must commit before the view's transaction opens: the handler that
        # get_idempotent_handler() wraps opens that transaction itself, ATOMIC_REQUESTS included.
        return exempt_from_atomic_requests(super().as_view(*args, **initkwargs))  # type: ignore[misc]  # a mixin of APIView

    def get_idempotency_options(self) -> IdempotencyOptions:
        return IdempotencyOptions(
            required=self.idempotency_required,
            methods=frozenset(self.idempotency_methods),
            keep_status=self.idempotency_keep_status,
            wait_seconds=self.idempotency_wait_seconds,
            lease_seconds=self.idempotency_lease_seconds,
            replayed_headers=tuple(self.replayed_headers),
            scope_of=self.get_idempotency_scope,
        )

    def get_idempotency_scope(self, request: Request) -> str:
        """Whose key it is: a key is looked up among the keys of its scope only. By default the
        client id (``CLIENT_ID_RESOLVER``); override it to share keys otherwise (per organisation)."""
        return get_client_id(request)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """DRF's ``dispatch()`` (adrf's ``async_dispatch()`` for an async view), step by step:

        1. DRF wraps the request and runs ``initial()``: authentication, permissions, throttles;
        2. :meth:`get_idempotent_handler` refuses a body of a type the view does not read (415)
           and wraps the method's handler in the protocol (claim the key, parse the body, run
           the view, store its answer; or replay without running it) when the request is keyed,
           in the ``ATOMIC_REQUESTS`` transaction when it is not;
        3. an exception becomes DRF's error answer, and the answer is finalized.
        """
        view: Any = self
        if _is_async_view(view.__class__):
            return _async_dispatch(view, request, *args, **kwargs)
        view.args, view.kwargs, view._http_request = args, kwargs, request
        drf_request = view.initialize_request(request, *args, **kwargs)
        view.request, view.headers = drf_request, view.default_response_headers

        def checked_then_handled(request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
            view.initial(request, *args, **kwargs)
            return self.get_idempotent_handler(request)(request, *args, **kwargs)  # type: ignore[no-any-return]  # any handler

        view.response = _respond(view, checked_then_handled, drf_request, *args, **kwargs)
        return view.response

    def get_idempotent_handler(self, request: Request) -> Handler:
        """The view's handler of ``request.method``, wrapped in the protocol (a keyed method) or
        in the ``ATOMIC_REQUESTS`` transaction (any other); DRF's 405 for a method it lacks."""
        view: Any = self
        method = cast(str, request.method)  # DRF's Request always has one
        if not (method.lower() in view.http_method_names and hasattr(view, method.lower())):
            return view.http_method_not_allowed  # type: ignore[no-any-return]  # whatever the key says
        # Before the claim: a body of a type the view does not read must leave no trace.
        refuse_unsupported_body(request)
        options = self.get_idempotency_options()
        # A viewset's actions share its options: each may still be exempt on its own.
        actions = getattr(view, "action_map", None)
        keyed = method in options.methods and not is_idempotency_exempt(view, method, actions)
        wrap = _async_handler if _is_async_view(view.__class__) else _sync_handler
        return wrap(view, getattr(view, method.lower()), options if keyed else None)


async def _async_dispatch(view: Any, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """:meth:`IdempotencyMixin.dispatch` of an async view, as adrf's ``async_dispatch()``.

    Not a method: adrf's ``ViewSet.view_is_async`` counts the class's coroutine methods, and one
    of the mixin's would make every sync viewset async (so for the async handler below too).
    """
    view.args, view.kwargs, view._http_request = args, kwargs, request
    drf_request = view.initialize_request(request, *args, **kwargs)
    view.request, view.headers = drf_request, view.default_response_headers

    async def checked_then_handled(request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        await sync_to_async(view.initial)(request, *args, **kwargs)
        return await _call_async(view.get_idempotent_handler(request), request, *args, **kwargs)

    view.response = await _respond_async(view, checked_then_handled, drf_request, *args, **kwargs)
    return view.response  # type: ignore[no-any-return]  # any view


@cache
def _is_async_view(view_class: type) -> bool:
    """Whether the class's handlers are coroutines (adrf), asked once per class: Django and adrf
    look at every handler of the class again on each access."""
    return bool(getattr(view_class, "view_is_async", False))


def _sync_handler(view: Any, handler: Handler, options: IdempotencyOptions | None) -> Handler:
    def handle(request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        def run_view() -> HttpResponseBase:
            return _respond(view, handler, request, *args, **kwargs)

        if options is None:
            return run_unkeyed(run_view)
        return run_idempotently(
            view._http_request, options, run_view, scope_request=request, before_view=lambda: _parse_body(request)
        )

    return handle


def _respond(view: Any, handler: Handler, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """The handler's answer as DRF's dispatch makes it, exceptions handled and finalized: in
    the transaction, so that an error answer rolls it back and what is stored is what is sent."""
    try:
        response = handler(request, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- as in DRF's dispatch
        response = view.handle_exception(exc)
    return view.finalize_response(request, response, *args, **kwargs)  # type: ignore[no-any-return]  # any view


def _async_handler(view: Any, handler: Handler, options: IdempotencyOptions | None) -> Handler:
    async def handle(request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if options is None:
            return await _respond_unkeyed_async(view, handler, request, *args, **kwargs)

        def run_view() -> HttpResponseBase:
            # Called inside the request's transaction on the thread-sensitive thread; the
            # handler's own sync_to_async calls come back to this thread, to its connection.
            return async_to_sync(_respond_async)(view, handler, request, *args, **kwargs)

        return await run_idempotently_async(
            view._http_request, options, run_view, scope_request=request, before_view=lambda: _parse_body(request)
        )

    return handle


async def _respond_async(view: Any, handler: Handler, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
    try:
        response = await _call_async(handler, request, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- as in adrf's async_dispatch
        response = view.handle_exception(exc)
    return view.finalize_response(request, response, *args, **kwargs)  # type: ignore[no-any-return]  # any view


async def _call_async(handler: Handler, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
    if iscoroutinefunction(handler):
        return await handler(request, *args, **kwargs)  # type: ignore[no-any-return]  # any handler
    return await sync_to_async(handler)(request, *args, **kwargs)  # type: ignore[no-any-return]  # any handler


async def _respond_unkeyed_async(
    view: Any, handler: Handler, request: Request, *args: Any, **kwargs: Any
) -> HttpResponseBase:
    """In the ``ATOMIC_REQUESTS`` transaction when there is one, as on the sync path."""
    if not any(config.get("ATOMIC_REQUESTS") for config in settings.DATABASES.values()):
        return await _respond_async(view, handler, request, *args, **kwargs)

    def run_view() -> HttpResponseBase:
        return async_to_sync(_respond_async)(view, handler, request, *args, **kwargs)

    return await sync_to_async(run_unkeyed)(run_view)


def _parse_body(request: Request) -> None:
    """Parse a keyed request's body once its key is claimed, before the view's transaction: a
    body the parsers refuse (400, 415) stores nothing, and frees the key for the corrected request."""
    request.data  # noqa: B018 -- parsing errors are raised here, before the view
