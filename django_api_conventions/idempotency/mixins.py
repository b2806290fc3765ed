"""``IdempotencyMixin``: idempotency keys for DRF views and viewsets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync, iscoroutinefunction, sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request, is_form_media_type

from ..conf import api_settings
from .execution import (
    DEFAULT_METHODS,
    IdempotencyOptions,
    exempt_from_atomic_requests,
    keep_final_answers,
    request_transaction,
    run_idempotently,
    run_idempotently_async,
)


class IdempotencyMixin:
    """Runs each keyed request at most once and replays its stored response to retries.

    Put it before the DRF view class: ``class PaymentList(IdempotencyMixin, ListCreateAPIView)``.
    The key is claimed after DRF authenticated, permitted and throttled the request and parsed
    its body, so those 4xx answers (a malformed body included) store nothing and the key belongs
    to the authenticated client.

    On an async view (adrf's ``APIView``, ``ViewSet`` and generics with ``async def`` handlers)
    it is async too: see "Async views" in the idempotency docs for its transaction model.
    """

    idempotency_required: bool = False
    idempotency_methods: frozenset[str] = DEFAULT_METHODS
    idempotency_keep_status: Callable[[int], bool] = staticmethod(keep_final_answers)
    idempotency_wait_seconds: float = 0.0
    idempotency_lease_seconds: float | None = None

    @classmethod
    def as_view(cls, *args: Any, **initkwargs: Any) -> Callable[..., HttpResponseBase]:
        # The claim must commit before the view's transaction opens: dispatch() opens that
        # transaction itself, ATOMIC_REQUESTS included.
        return exempt_from_atomic_requests(super().as_view(*args, **initkwargs))  # type: ignore[misc]

    def get_idempotency_options(self) -> IdempotencyOptions:
        return IdempotencyOptions(
            required=self.idempotency_required,
            methods=frozenset(self.idempotency_methods),
            keep_status=self.idempotency_keep_status,
            wait_seconds=self.idempotency_wait_seconds,
            lease_seconds=self.idempotency_lease_seconds,
        )

    # DRF's APIView.dispatch, with the idempotency check between initial() and the handler.
    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        view: Any = self
        if getattr(view, "view_is_async", False):
            # An async view (adrf's APIView or ViewSet with async handlers): its dispatch must
            # answer a coroutine, as adrf's own does.
            return _dispatch_async(self, request, *args, **kwargs)
        view.args = args
        view.kwargs = kwargs
        drf_request = view.initialize_request(request, *args, **kwargs)
        view.request = drf_request
        view.headers = view.default_response_headers
        options = self.get_idempotency_options()
        try:
            view.initial(drf_request, *args, **kwargs)
            # A method the view does not handle is a 405, whatever the key says.
            if drf_request.method in options.methods and self._handles(drf_request.method):
                _parse_before_claim(request, drf_request)
                response = run_idempotently(
                    request, options, lambda: self._handle(drf_request, *args, **kwargs), scope_request=drf_request
                )
            else:
                with request_transaction(None):
                    response = self._handle(drf_request, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- DRF's own contract: handle_exception decides
            response = view.handle_exception(exc)
        view.response = view.finalize_response(drf_request, response, *args, **kwargs)
        return view.response

    def _handles(self, method: str) -> bool:
        view: Any = self
        return method.lower() in view.http_method_names and hasattr(view, method.lower())

    def _handle(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        view: Any = self
        try:
            method = request.method.lower()
            handler = getattr(view, method, view.http_method_not_allowed)
            if method not in view.http_method_names:
                handler = view.http_method_not_allowed
            response = handler(request, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- as in DRF's dispatch
            response = view.handle_exception(exc)
        return view.finalize_response(request, response, *args, **kwargs)


# adrf's APIView.async_dispatch, with the idempotency check of IdempotencyMixin.dispatch. Functions, not
# methods: adrf's ViewSet.view_is_async counts a mixin's coroutine methods, and would make a sync
# viewset async.
async def _dispatch_async(view: Any, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    view.args = args
    view.kwargs = kwargs
    drf_request = view.initialize_request(request, *args, **kwargs)
    view.request = drf_request
    view.headers = view.default_response_headers
    options = view.get_idempotency_options()
    try:
        # adrf runs initial() (authentication, permissions, throttles) on Django's
        # thread-sensitive thread: they may read the database.
        await sync_to_async(view.initial)(drf_request, *args, **kwargs)
        if drf_request.method in options.methods and view._handles(drf_request.method):
            _parse_before_claim(request, drf_request)

            def run_view() -> HttpResponseBase:
                # Called inside the request's transaction on the thread-sensitive thread; the
                # handler's own sync_to_async calls come back to this thread, to its connection.
                return async_to_sync(_handle_async)(view, drf_request, *args, **kwargs)  # type: ignore[no-any-return]

            response = await run_idempotently_async(request, options, run_view, scope_request=drf_request)
        else:
            response = await _handle_unkeyed_async(view, drf_request, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- DRF's own contract: handle_exception decides
        response = view.handle_exception(exc)
    view.response = view.finalize_response(drf_request, response, *args, **kwargs)
    return view.response  # type: ignore[no-any-return]


async def _handle_async(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
    try:
        method = request.method.lower()
        handler = getattr(view, method, view.http_method_not_allowed)
        if method not in view.http_method_names:
            handler = view.http_method_not_allowed
        if iscoroutinefunction(handler):
            response = await handler(request, *args, **kwargs)
        else:
            response = await sync_to_async(handler)(request, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- as in adrf's async_dispatch
        response = view.handle_exception(exc)
    return view.finalize_response(request, response, *args, **kwargs)  # type: ignore[no-any-return]


async def _handle_unkeyed_async(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """A method that takes no key: in the ``ATOMIC_REQUESTS`` transaction when there is one, as
    on the sync path (``as_view()`` exempted the view from Django's own wrapping, which Django
    refuses for async views anyway)."""
    if not any(config.get("ATOMIC_REQUESTS") for config in settings.DATABASES.values()):
        return await _handle_async(view, request, *args, **kwargs)

    def run_in_transaction() -> HttpResponseBase:
        with request_transaction(None):
            return async_to_sync(_handle_async)(view, request, *args, **kwargs)  # type: ignore[no-any-return]

    return await sync_to_async(run_in_transaction)()


def _parse_before_claim(http_request: HttpRequest, drf_request: Request) -> None:
    """Parse a keyed request's body before its key is claimed.

    A body the parsers refuse (400 ``malformed-request``, 415) is answered here, before the
    view ever runs: like an authentication failure it stores nothing, and the key stays free
    for the corrected request.
    """
    header = "HTTP_" + api_settings.IDEMPOTENCY_HEADER.upper().replace("-", "_")
    if header not in http_request.META:
        return  # no key, nothing to store: the view parses its body when it wants to
    if not is_form_media_type(http_request.content_type or ""):
        # The fingerprint hashes the raw bytes; once DRF has read the stream they are gone,
        # unless HttpRequest.body holds them first. Form bodies are hashed from request.POST.
        http_request.body  # noqa: B018 -- read for its side effect
    drf_request.data  # noqa: B018 -- parsing errors are raised here, before the claim
