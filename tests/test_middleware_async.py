"""Under ASGI the package's middleware run on the event loop: no hop to a thread and back per hook.

Django's ``MiddlewareMixin`` runs ``process_request`` and ``process_response`` through
``sync_to_async`` in an async stack, and Django wraps a sync ``process_view`` the same way; a
middleware that is not async capable is adapted as a whole (logged on ``django.request``). Each
of those is a ``SyncToAsync`` built around one of the middleware's methods: none may be built
for the package's middleware.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref import sync
from asgiref.sync import async_to_sync, iscoroutinefunction
from django.test import AsyncClient

from django_api_conventions.http.hook_middleware import HookMiddleware
from django_api_conventions.idempotency import IdempotencyMiddleware
from django_api_conventions.maintenance import MaintenanceModeMiddleware, MaintenanceState, write_switch
from django_api_conventions.problems.middleware import ProblemDetailsMiddleware
from django_api_conventions.tracing.trace_ids import TraceIdMiddleware
from django_api_conventions.versioning.middleware import VersionLifecycleMiddleware
from django_api_conventions.versioning.signals import deprecated_version_used
from testproject.billing.models import Customer
from testproject.settings import MIDDLEWARE as EXAMPLE_MIDDLEWARE

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE_MIDDLEWARE = (
    TraceIdMiddleware,
    VersionLifecycleMiddleware,
    ProblemDetailsMiddleware,
    MaintenanceModeMiddleware,
    IdempotencyMiddleware,
)


@pytest.fixture
def hops(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The package middleware methods sent to a thread while the test runs."""
    # The example service's stack, with the path-keyed idempotency middleware last.
    settings.MIDDLEWARE = [*EXAMPLE_MIDDLEWARE, "django_api_conventions.idempotency.IdempotencyMiddleware"]
    seen: list[str] = []
    original = sync.SyncToAsync.__init__

    def record(self: Any, func: Any, *args: Any, **kwargs: Any) -> None:
        owner = getattr(func, "__self__", None)
        if isinstance(owner, PACKAGE_MIDDLEWARE):
            seen.append(f"{type(owner).__name__}.{func.__name__}")
        original(self, func, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__init__", record)
    yield seen


def get(path: str, **headers: str) -> Any:
    return async_to_sync(AsyncClient().get)(path, headers=headers)


def test_no_package_middleware_hops_threads_under_asgi(hops: list[str], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="django.request"):
        get("/v2/users")  # the maintenance switch is read once per poll: warm it
        hops.clear()
        ok = get("/v2/users", **{"X-Request-ID": "async-ok"})
        missing = get("/v2/no-such-resource")
        unknown_version = get("/v9/users")
    assert ok.status_code == 200 and ok["X-Request-ID"] == "async-ok"
    assert missing.status_code == 404 and missing["Content-Type"] == "application/problem+json"
    assert unknown_version.status_code == 404
    assert hops == []
    adapted = [r.getMessage() for r in caplog.records if "adapted for middleware" in r.getMessage()]
    assert not [line for line in adapted if "django_api_conventions" in line], adapted


def test_deprecated_and_retired_versions_are_reported_under_asgi(hops: list[str]) -> None:
    """Reported in a thread (the client id may need the database), by a function: no hook hops."""
    reports: list[dict[str, Any]] = []

    def receive(**kwargs: Any) -> None:
        reports.append(kwargs)

    deprecated_version_used.connect(receive, dispatch_uid="async-reports")
    try:
        deprecated = get("/v1/users", **{"X-Client-ID": "old-app"})
        retired = get("/v0/users", **{"X-Client-ID": "old-app"})
    finally:
        deprecated_version_used.disconnect(dispatch_uid="async-reports")
    assert deprecated.status_code == 200 and deprecated["Deprecation"] and deprecated["Sunset"]
    assert retired.status_code == 410 and retired.json()["type"].endswith("/version-retired")
    assert [(r["client_id"], r["retired"]) for r in reports] == [("client:old-app", False), ("client:old-app", True)]
    assert hops == []


def test_maintenance_reads_its_switch_in_a_thread_and_answers_on_the_loop(hops: list[str]) -> None:
    write_switch(True, 42)
    response = get("/v2/users")
    assert response.status_code == 503 and response["Retry-After"] == "42"
    assert hops == [], "the switch is read by a function, not a middleware method"


def test_the_switch_is_read_once_per_poll(hops: list[str], settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("django_api_conventions.maintenance.switches.SWITCH_POLL_SECONDS", 60)
    reads: list[int] = []
    monkeypatch.setattr(
        "django_api_conventions.maintenance.switches.read_switch",
        lambda **kwargs: reads.append(1) or MaintenanceState(True, 7),
    )
    monkeypatch.setattr("django_api_conventions.maintenance.switches._last_reading", {})  # the test's own readings
    answers = [get("/v2/users") for _ in range(3)]
    assert [a.status_code for a in answers] == [503] * 3 and answers[-1]["Retry-After"] == "7"
    assert reads == [1], "one reading, then the one in hand"
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_MODE": True, "MAINTENANCE_RETRY_AFTER": 9}
    assert get("/v2/users")["Retry-After"] == "9"
    assert hops == []


def test_path_keyed_idempotency_under_asgi(hops: list[str], settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls"
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_PATHS": [r"^/idempotency/plain$"]}
    headers = {"Idempotency-Key": "async-path-key", "X-Client-ID": "acme"}
    body = {"email": "async-path@example.com"}
    first, again = (
        async_to_sync(AsyncClient().post)("/idempotency/plain", body, content_type="application/json", headers=headers)
        for _ in range(2)
    )
    assert first.status_code == 201 and first["X-Cache-Lookup"] == "MISS"
    assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    assert Customer.objects.filter(email="async-path@example.com").count() == 1
    assert hops == []


class _SyncViewHook(HookMiddleware):
    def process_view(self, request: Any, view_func: Any, view_args: Any, view_kwargs: Any) -> None:
        request.hooked_on = threading.get_ident()


def test_a_sync_process_view_runs_inline_in_an_async_stack() -> None:
    async def get_response(request: Any) -> Any:
        return "response"

    middleware = _SyncViewHook(get_response)
    assert iscoroutinefunction(middleware) and iscoroutinefunction(middleware.process_view)
    assert (
        repr(middleware) == "<_SyncViewHook get_response=test_a_sync_process_view_runs_inline_in_an_async_stack."
        "<locals>.get_response>"
    )
    request = SimpleNamespace()

    async def run() -> int:
        await middleware.process_view(request, None, (), {})
        return threading.get_ident()

    assert async_to_sync(run)() == request.hooked_on
    assert async_to_sync(middleware)(request) == "response"
    with pytest.raises(ValueError, match="get_response must be provided"):
        _SyncViewHook(None)  # type: ignore[arg-type]
