"""How the idempotency part is wired into Django and DRF: its signal receivers are connected by
the app's ``ready()``, and the upstream functions ``IdempotencyMixin`` relies on are the ones it
was written against."""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
import weakref
from collections.abc import Callable
from importlib import metadata
from typing import Any

import pytest
from django.apps import apps
from django.core.signals import request_finished

from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.idempotency.transactions import settle_unfinished

SETTLE_UID = "api_conventions_settle_idempotency_keys"


def _connected(signal: Any, receiver: Callable[..., Any]) -> bool:
    targets = (entry[1] for entry in signal.receivers)
    return any((ref() if isinstance(ref, weakref.ReferenceType) else ref) is receiver for ref in targets)


def test_the_app_connects_the_settle_of_finished_requests() -> None:
    request_finished.disconnect(dispatch_uid=SETTLE_UID)
    try:
        assert not _connected(request_finished, settle_unfinished)
        apps.get_app_config("django_api_conventions").ready()
        assert _connected(request_finished, settle_unfinished)
    finally:
        request_finished.connect(settle_unfinished, dispatch_uid=SETTLE_UID)


def source_hash(function: Callable[..., Any]) -> str:
    """A hash of what ``function`` does: its code without its docstring, comments and layout
    (``ast.unparse``, the same on every Python), so that any change of code counts."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    definition = tree.body[0]
    assert isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef)
    body = definition.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        definition.body = body[1:]
    definition.decorator_list = []
    return hashlib.sha256(ast.unparse(tree).encode()).hexdigest()[:16]


#: What the mixin relies on in a dispatch: the failure message says what to re-check.
DISPATCH = (
    "IdempotencyMixin overrides initial() only: re-check in the new source that it still "
    "(1) calls self.initial(request, *args, **kwargs) inside its try block, (2) then looks the "
    "handler up with getattr(self, request.method.lower(), ...) when the method is in "
    "http_method_names, (3) passes the handler's exceptions to handle_exception() and its "
    "response to finalize_response(), as the mixin's _respond() and _respond_async() do"
)
ADRF_DISPATCH = (
    "re-check that it still calls async_dispatch() when view_is_async is true: "
    "IdempotencyMixin.initial() reads view_is_async to choose an async handler"
)
VIEW_IS_ASYNC = (
    "re-check that it still counts the coroutine methods of the class alone: the mixin sets "
    "its async handler on the instance, per request, so that a sync viewset stays sync"
)

UPSTREAM = [
    ("rest_framework.views", "APIView", "dispatch", "35774e9080c3fa6e", DISPATCH),
    ("adrf.views", "APIView", "sync_dispatch", "54ee69b903174cf7", DISPATCH),
    ("adrf.views", "APIView", "async_dispatch", "5cb44c3b04f6318a", DISPATCH),
    ("adrf.views", "APIView", "dispatch", "65105d3efb7aadda", ADRF_DISPATCH),
    ("adrf.viewsets", "ViewSet", "view_is_async", "ce6b184a6e676b6b", VIEW_IS_ASYNC),
]


@pytest.mark.parametrize(
    ("module", "owner", "name", "recorded", "recheck"), UPSTREAM, ids=[f"{m}.{o}.{n}" for m, o, n, *_ in UPSTREAM]
)
def test_the_upstream_functions_the_mixin_relies_on_are_unchanged(
    module: str, owner: str, name: str, recorded: str, recheck: str
) -> None:
    cls = getattr(pytest.importorskip(module), owner)
    function = inspect.unwrap(cls.__dict__[name])
    function = getattr(function, "fget", None) or getattr(function, "__func__", None) or function
    distribution = module.partition(".")[0].replace("rest_framework", "djangorestframework")
    assert source_hash(function) == recorded, (
        f"{module}.{owner}.{name} is not the one IdempotencyMixin was written against "
        f"({distribution} {metadata.version(distribution)} installed): {recheck}; then record its new hash here."
    )


def test_the_mixin_keeps_the_upstream_dispatch() -> None:
    assert "dispatch" not in vars(IdempotencyMixin)
    assert not any(inspect.iscoroutinefunction(member) for member in vars(IdempotencyMixin).values())
