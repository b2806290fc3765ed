from __future__ import annotations

import logging
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions.maintenance import maintenance_exempt, read_switch, write_switch
from django_api_conventions.maintenance import switches as maintenance
from django_api_conventions.maintenance.switches import maintenance_retry_after

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["cache", "database"])
def store(request: pytest.FixtureRequest, settings: Any, tmp_path: Any) -> str:
    if request.param == "cache":
        # A default cache that other processes share (unlike the local-memory one), as the
        # command requires.
        settings.CACHES = {
            **settings.CACHES,
            "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(tmp_path)},
        }
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": request.param}
    return str(request.param)


def run(*args: str) -> str:
    out = StringIO()
    call_command("maintenance", *args, stdout=out)
    return out.getvalue().strip()


def test_switch_is_off_until_turned_on(store: str) -> None:
    assert maintenance_retry_after() is None
    assert run("status") == f"maintenance: off (store: {store})"


def test_command_switches_every_worker(store: str) -> None:
    assert run("on", "--retry-after", "90") == f"maintenance: on (store: {store}, Retry-After: 90s)"
    assert maintenance_retry_after() == 90
    response = Client().get("/v2/users")
    assert response.status_code == 503 and response["Retry-After"] == "90"
    assert run("off") == f"maintenance: off (store: {store})"
    assert maintenance_retry_after() is None
    assert Client().get("/v2/users").status_code == 200


@pytest.mark.parametrize("backend", ["locmem.LocMemCache", "dummy.DummyCache"])
@pytest.mark.parametrize("action", ["on", "off", "status"])
def test_command_refuses_a_switch_in_a_process_local_cache(settings: Any, backend: str, action: str) -> None:
    # The quick start's set-up: the default "cache" store on Django's default local-memory
    # cache. The command's own process would be the only one to see the switch.
    settings.CACHES = {"default": {"BACKEND": f"django.core.cache.backends.{backend}"}}
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    with pytest.raises(CommandError) as refused:
        run(action)
    assert "private to each process" in str(refused.value)
    assert "MAINTENANCE_SWITCH_STORE'] = 'database'" in str(refused.value)
    assert "Redis" in str(refused.value)
    assert read_switch().enabled is False


def test_command_refusal_exits_non_zero(tmp_path: Any) -> None:
    # What an operator sees: an error on stderr and a failing exit status, not "maintenance: on".
    settings_module = tmp_path / "locmem_switch_settings.py"
    settings_module.write_text(
        "from tests.settings import *  # noqa: F403\n"
        "CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}\n"
        "API_CONVENTIONS = {**API_CONVENTIONS, 'MAINTENANCE_SWITCH_STORE': 'cache'}  # noqa: F405\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "locmem_switch_settings",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
    }
    result = subprocess.run(
        [sys.executable, "-m", "django", "maintenance", "on"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "maintenance: on" not in result.stdout
    assert "private to each process" in result.stderr


def test_default_retry_after(store: str) -> None:
    write_switch(True)
    assert read_switch().retry_after == 300


def test_exempt_paths_keep_working(store: str) -> None:
    write_switch(True)
    assert Client().get("/problems/not-found").status_code == 200


def test_static_setting_wins_and_says_so(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_MODE": True, "MAINTENANCE_RETRY_AFTER": 60}
    assert maintenance_retry_after() == 60
    assert run("status").endswith("the MAINTENANCE_MODE setting keeps it on regardless")


def test_a_reading_is_trusted_for_the_poll_interval(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(maintenance, "SWITCH_POLL_SECONDS", 3600)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    assert maintenance_retry_after() is None
    # Another host flips the switch: this process sees it only after its poll interval.
    from django.core.cache import cache

    cache.set("api_conventions:maintenance", {"enabled": True, "retry_after": 5}, None)
    assert maintenance_retry_after() is None


UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5},
    }
}


def test_unreadable_store_counts_as_off(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    settings.CACHES = UNREACHABLE_REDIS
    assert maintenance_retry_after() is None
    assert "Maintenance switch unreadable" in caplog.text


def test_status_command_says_when_the_store_is_unreadable(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_SWITCH_STORE": "cache"}
    settings.CACHES = UNREACHABLE_REDIS
    with pytest.raises(CommandError, match="cannot be used"):
        run("status")


def test_retry_after_must_be_positive(store: str) -> None:
    with pytest.raises(CommandError):
        run("on", "--retry-after", "0")
    with pytest.raises(ValueError, match="at least 1 second"):
        write_switch(True, retry_after=0)


@pytest.mark.redis
def test_switch_is_shared_through_redis(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.CACHES = {
        "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["REDIS_URL"]},
        "other-worker": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["REDIS_URL"]},
    }
    write_switch(True, retry_after=30)
    monkeypatch.setattr(maintenance, "SWITCH_CACHE", "other-worker")  # another client of the same Redis
    assert read_switch().enabled and read_switch().retry_after == 30
    write_switch(False)


def test_switch_reads_in_the_admin(store: str) -> None:
    from django_api_conventions.models import RuntimeSwitch

    assert str(RuntimeSwitch(name="maintenance", enabled=True)) == "maintenance: on"


# --- what keeps answering during maintenance ----------------------------------------------------


@maintenance_exempt
def health_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


@maintenance_exempt
class StatusView(APIView):
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


class PlainView(APIView):
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


# The package's URLs under a prefix, as a site that mounts them elsewhere would: no path list
# names them, yet they keep answering.
urlpatterns = [
    path("api-docs/", include("django_api_conventions.urls")),
    path("api-docs/", include("django_api_conventions.contrib.spectacular.urls")),
    path("admin/", admin.site.urls),
    path("healthz", health_view),
    path("status", StatusView.as_view()),
    path("plain", PlainView.as_view()),
]


@pytest.mark.parametrize("prefix", ["/", "/api-docs/"])
def test_the_package_pages_answer_during_maintenance_by_default(settings: Any, prefix: str) -> None:
    # Default MAINTENANCE_EXEMPT_PATHS (none): the tutorial's set-up, where /openapi.json,
    # /docs and the problem pages used to answer 503 too.
    settings.API_CONVENTIONS = {
        key: value for key, value in settings.API_CONVENTIONS.items() if key != "MAINTENANCE_EXEMPT_PATHS"
    }
    if prefix != "/":
        settings.ROOT_URLCONF = __name__
    write_switch(True)
    client = Client()
    for path_ in (
        "problems/",
        "problems/service-unavailable",
        "problems/style.css",
        "openapi.json",
        "docs",
        "docs/assets/swagger-ui-dist/swagger-ui.css",
    ):
        answer = client.get(prefix + path_)
        assert answer.status_code == 200, (path_, answer.status_code)
    assert client.get("/admin/").status_code == 503
    assert client.get("/v2/users" if prefix == "/" else "/plain").status_code == 503


def test_views_marked_exempt_answer_during_maintenance(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_EXEMPT_PATHS": []}
    write_switch(True)
    client = Client()
    assert client.get("/healthz").status_code == 200
    assert client.get("/status").json() == {"status": "ok"}
    assert client.get("/plain").status_code == 503
    assert client.get("/no-such-path").status_code == 503


def test_exempt_paths_setting_exempts_the_admin(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_EXEMPT_PATHS": [r"^/admin/"]}
    write_switch(True)
    assert Client().get("/admin/").status_code == 302  # to the login page
    assert Client().get("/v2/users").status_code == 503


# --- how it is logged ---------------------------------------------------------------------------


def test_a_planned_503_is_logged_as_a_warning_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    write_switch(True)
    with caplog.at_level(logging.DEBUG):
        assert Client().get("/v2/users").status_code == 503
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    logged = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("django")]
    assert logged == [("django.request", "WARNING", "Service Unavailable: /v2/users")]


def test_a_lost_database_is_still_an_error_during_maintenance(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    # The faults view is exempt here so that it runs: its 503 is a failure, and logged as one.
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_EXEMPT_PATHS": [r"^/faults/"]}
    write_switch(True)
    with caplog.at_level(logging.DEBUG):
        assert Client().get("/faults/database-down").status_code == 503
    assert [r.levelname for r in caplog.records if r.name == "django.request"] == ["ERROR"]
