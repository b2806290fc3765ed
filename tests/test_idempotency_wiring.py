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
from rest_framework.response import Response
from rest_framework.views import APIView

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
    "IdempotencyMixin.dispatch() and mixins._async_dispatch() are this dispatch composed in the "
    "open: carry the change over to them (what is set on the view before initial(), the try "
    "block around initial() and the handler, handle_exception(), finalize_response()), and to "
    "the mixin's _respond() and _respond_async()"
)
ADRF_DISPATCH = (
    "re-check that it still calls async_dispatch() when view_is_async is true: "
    "IdempotencyMixin.dispatch() reads view_is_async to choose its async path"
)
VIEW_IS_ASYNC = (
    "re-check that it still counts the coroutine methods of the class alone: the mixin's async "
    "dispatch and handlers are functions, so that a sync viewset stays sync"
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


def test_the_mixin_has_no_coroutine_method() -> None:
    """adrf's view_is_async counts the class's coroutine methods: one on the mixin would make
    every sync viewset that uses it async."""
    assert not any(inspect.iscoroutinefunction(member) for member in vars(IdempotencyMixin).values())


@pytest.mark.django_db
def test_the_view_s_handlers_are_left_in_place(rf: Any) -> None:
    """A reader follows a keyed request from dispatch() to the handler it wraps: nothing is put
    in place of the view's own methods on the instance."""
    seen: list[Any] = []

    class Probe(IdempotencyMixin, APIView):
        authentication_classes: list[Any] = []
        permission_classes: list[Any] = []

        def post(self, request: Any) -> Response:
            seen.append(self)
            return Response({"ok": True}, status=201)

    response = Probe.as_view()(rf.post("/probe", {}, content_type="application/json"))
    assert response.status_code == 201
    assert [name for name in ("get", "post", "put", "patch", "delete") if name in vars(seen[0])] == []
