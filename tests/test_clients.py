from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from django_api_conventions.clients.client_ids import ANONYMOUS_CLIENT_ID, get_client_id
from django_api_conventions.clients.throttling import ClientRateThrottle
from django_api_conventions.problems.details import ProblemException

factory = RequestFactory()


def request_with(headers: dict[str, str] | None = None, user: Any = None, auth: Any = None) -> Any:
    request = factory.get("/", headers=headers or {})
    request.user = user if user is not None else AnonymousUser()
    request.auth = auth
    return request


def test_authenticated_user_wins_over_the_header() -> None:
    user = User(pk=7, username="u")
    assert get_client_id(request_with({"X-Client-ID": "acme"}, user=user)) == "user:7"


def test_a_user_and_a_credential_are_one_client_per_oauth_application_or_credential_kind() -> None:
    user = User(pk=7, username="u")
    mail_app, calendar_app = (SimpleNamespace(application=SimpleNamespace(client_id=c)) for c in ("mail", "cal"))
    api_token = Token(key="9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", user=user)  # the secret is its pk
    assert [
        get_client_id(request_with(user=user, auth=auth)) for auth in (None, mail_app, calendar_app, api_token)
    ] == [
        "user:7",
        "user:7:oauth-client:mail",
        "user:7:oauth-client:cal",
        "user:7:credential:authtoken.token",
    ]


def test_a_user_credential_wins_over_the_header() -> None:
    user, token = User(pk=7, username="u"), Permission(pk=3, codename="api-token")
    assert (
        get_client_id(request_with({"X-Client-ID": "acme"}, user=user, auth=token))
        == "user:7:credential:auth.permission"
    )


def test_oauth_client_without_user() -> None:
    token = SimpleNamespace(application=SimpleNamespace(client_id="cli-1"))
    assert get_client_id(request_with(auth=token)) == "oauth-client:cli-1"


def test_a_credential_without_user_is_named_with_its_kind() -> None:
    assert get_client_id(request_with(auth=SimpleNamespace(pk="key-9"))) == "credential:types.SimpleNamespace:key-9"


def test_two_kinds_of_credential_with_the_same_primary_key_never_share_a_client_id() -> None:
    device, team_token = Group(pk=1, name="device"), Permission(pk=1, codename="team-token")
    device_id, token_id = (get_client_id(request_with(auth=auth)) for auth in (device, team_token))
    assert (device_id, token_id) == ("credential:auth.group:1", "credential:auth.permission:1")


def test_declared_client_id() -> None:
    assert get_client_id(request_with({"X-Client-ID": "acme-billing"})) == "client:acme-billing"


def test_no_identity_at_all_is_the_shared_anonymous_client() -> None:
    assert get_client_id(request_with()) == ANONYMOUS_CLIENT_ID


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "it is empty"),
        ("x" * 129, "longer than 128 characters"),
        ("has space", "use letters, digits"),
        ("Zo\u00eb-x", "use letters, digits"),
        ("-leading-dash", "starting with a letter or a digit"),
    ],
)
def test_an_unusable_declared_id_is_a_400_naming_the_header(value: str, reason: str) -> None:
    with pytest.raises(ProblemException) as raised:
        get_client_id(request_with({"X-Client-ID": value}))
    problem = raised.value
    assert problem.status_code == 400
    assert reason in str(problem.detail)
    assert [error["header"] for error in problem.errors] == ["X-Client-ID"]


def test_the_longest_usable_declared_id() -> None:
    assert get_client_id(request_with({"X-Client-ID": "x" * 128})) == "client:" + "x" * 128


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


@pytest.mark.django_db
def test_a_method_the_view_does_not_handle_is_its_405_before_the_client_id_is_read() -> None:
    from rest_framework.test import APIClient

    response = APIClient().generic("TRACE", "/v2/users", headers={"X-Client-ID": ""})
    assert response.status_code == 405
    assert APIClient().get("/v2/users", headers={"X-Client-ID": ""}).status_code == 400
