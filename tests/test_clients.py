from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory, override_settings
from rest_framework.request import Request

from django_api_conventions.clients import ANONYMOUS_CLIENT_ID, get_client_id
from django_api_conventions.throttling import ClientRateThrottle

factory = RequestFactory()


def request_with(headers: dict[str, str] | None = None, user: Any = None, auth: Any = None) -> Any:
    request = factory.get("/", headers=headers or {})
    request.user = user if user is not None else AnonymousUser()
    request.auth = auth
    return request


def test_authenticated_user_wins_over_the_header() -> None:
    user = User(pk=7, username="u")
    assert get_client_id(request_with({"X-Client-ID": "acme"}, user=user)) == "user:7"


def test_oauth_client_without_user() -> None:
    token = SimpleNamespace(application=SimpleNamespace(client_id="cli-1"))
    assert get_client_id(request_with(auth=token)) == "oauth-client:cli-1"


def test_api_key_without_user() -> None:
    assert get_client_id(request_with(auth=SimpleNamespace(pk="key-9"))) == "api-key:key-9"


def test_declared_client_id() -> None:
    assert get_client_id(request_with({"X-Client-ID": "acme-billing"})) == "client:acme-billing"


@pytest.mark.parametrize("value", ["", "has space", "x" * 200, "bad\u00e9"])
def test_unsafe_declared_ids_are_anonymous(value: str) -> None:
    assert get_client_id(request_with({"X-Client-ID": value})) == ANONYMOUS_CLIENT_ID


def test_drf_requests_are_resolved_through_their_http_request() -> None:
    http_request = request_with({"X-Client-ID": "acme"})
    assert get_client_id(Request(http_request)) == "client:acme"


def test_resolver_is_pluggable() -> None:
    with override_settings(API_CONVENTIONS={"CLIENT_ID_RESOLVER": "tests.test_clients.tenant_resolver"}):
        assert get_client_id(request_with({"X-Tenant": "t1"})) == "tenant:t1"


def tenant_resolver(request: Any) -> str:
    return f"tenant:{request.headers['X-Tenant']}"


def test_throttle_counts_per_client(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"client": "2/min"}}
    throttle_requests = [Request(request_with({"X-Client-ID": "a"})) for _ in range(3)]
    results = [ClientRateThrottle().allow_request(r, None) for r in throttle_requests]
    assert results == [True, True, False]
    assert ClientRateThrottle().allow_request(Request(request_with({"X-Client-ID": "b"})), None)


def test_a_rate_of_none_allows_everything(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"client": None}}
    assert all(ClientRateThrottle().allow_request(Request(request_with()), None) for _ in range(5))


def test_a_missing_rate_fails_loudly(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
    with pytest.raises(ImproperlyConfigured, match="DEFAULT_THROTTLE_RATES"):
        ClientRateThrottle()
