"""Each client of one user has its own idempotency keys: its OAuth applications, its API token
and its browser session, authenticated for real (django-oauth-toolkit, DRF's token, Django's
session), on each store."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import path
from django.utils import timezone
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from oauth2_provider.models import AccessToken, Application
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from django_api_conventions.idempotency import IdempotencyMixin

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("store_name"),
    pytest.mark.urls(__name__),
]


class OrderList(IdempotencyMixin, APIView):
    authentication_classes = [OAuth2Authentication, TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    runs = 0

    def post(self, request: Any) -> Response:
        OrderList.runs += 1
        return Response({"run": OrderList.runs}, status=201)


urlpatterns = [path("idempotency/orders", OrderList.as_view())]


@pytest.fixture(autouse=True)
def no_runs_yet() -> None:
    OrderList.runs = 0


@pytest.fixture
def user() -> User:
    return User.objects.create_user(username=f"user-{uuid.uuid4().hex[:8]}")


def order(client: APIClient, key: str) -> tuple[int, str]:
    """The run number that answered, and whether it was a replay (``X-Cache-Lookup``)."""
    response = client.post(
        "/idempotency/orders", b'{"item": "book"}', content_type="application/json", headers={"Idempotency-Key": key}
    )
    assert response.status_code == 201, response.content
    return json.loads(response.content)["run"], response["X-Cache-Lookup"]


def application_client(user: User, name: str) -> tuple[Application, APIClient]:
    """An OAuth application the user authorised, and a client calling with its access token."""
    application = Application.objects.create(
        name=name,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="https://example.com/callback",
    )
    return application, bearer_client(user, application)


def bearer_client(user: User, application: Application) -> APIClient:
    """A client calling with a new access token of ``application`` for ``user``."""
    token = AccessToken.objects.create(
        user=user,
        application=application,
        token=uuid.uuid4().hex,
        expires=timezone.now() + timedelta(hours=1),
        scope="read write",
    )
    return APIClient(headers={"Authorization": f"Bearer {token.token}"})


def test_two_oauth_applications_of_one_user_each_run_their_own_request(user: User) -> None:
    key = uuid.uuid4().hex
    mail_app, mail = application_client(user, "mail")
    _, calendar = application_client(user, "calendar")
    assert [order(mail, key), order(calendar, key)] == [(1, "MISS"), (2, "MISS")]
    assert [order(mail, key), order(calendar, key)] == [(1, "HIT"), (2, "HIT")]
    # A refreshed access token is the same application, the same client: its retry replays.
    assert order(bearer_client(user, mail_app), key) == (1, "HIT")
    assert OrderList.runs == 2


def test_an_api_token_and_a_browser_session_of_one_user_are_two_clients(user: User) -> None:
    key = uuid.uuid4().hex
    browser = APIClient()
    browser.force_login(user)
    script = APIClient(headers={"Authorization": f"Token {Token.objects.create(user=user).key}"})
    assert [order(browser, key), order(script, key)] == [(1, "MISS"), (2, "MISS")]
    assert [order(browser, key), order(script, key)] == [(1, "HIT"), (2, "HIT")]
    assert OrderList.runs == 2
