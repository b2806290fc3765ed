"""``HookMiddleware``: Django's ``MiddlewareMixin`` hooks, run inline in sync and async stacks.

In an ASGI stack ``MiddlewareMixin`` runs each hook through ``sync_to_async``, a hop to a
thread per hook per request. The package's hooks never wait, so they run on the event loop; a
hook that must reach a database, a cache or signal receivers defines its async twin
(``aprocess_request``, ``aprocess_view``, ``aprocess_response``). ``process_exception`` stays
Django's to schedule.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase


class HookMiddleware:
    """A drop-in for ``MiddlewareMixin`` whose sync behaviour is the same, call for call."""

    sync_capable = True
    async_capable = True
    #: Defined by a subclass that has a view hook (annotated only: hasattr() tells).
    process_view: Callable[..., Any]

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        if get_response is None:
            raise ValueError("get_response must be provided.")
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)
            # Django adapts a process_view that is not a coroutine function with sync_to_async.
            if hasattr(self, "process_view"):
                self.process_view = getattr(self, "aprocess_view", None) or _inline(self.process_view)

    def __repr__(self) -> str:
        name = getattr(self.get_response, "__qualname__", self.get_response.__class__.__name__)
        return f"<{self.__class__.__qualname__} get_response={name}>"

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        response = None
        if hasattr(self, "process_request"):
            response = self.process_request(request)
        response = response or self.get_response(request)
        if hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        response = None
        if hasattr(self, "aprocess_request"):
            response = await self.aprocess_request(request)
        elif hasattr(self, "process_request"):
            response = self.process_request(request)
        response = response or await self.get_response(request)
        if hasattr(self, "aprocess_response"):
            response = await self.aprocess_response(request, response)
        elif hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response  # type: ignore[no-any-return]  # a subclass's hooks, found by hasattr()


def _inline(hook: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    async def run_inline(*args: Any) -> Any:
        return hook(*args)

    return run_inline
