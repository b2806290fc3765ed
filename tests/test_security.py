"""The security properties docs/security.md states, each proved here on each store."""

from __future__ import annotations

import base64
import json
import logging
import threading
import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView

from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.idempotency.replay import OMITTED_BODY_HEADER
from django_api_conventions.idempotency.stores import get_store
from testproject.billing.models import Customer, Invoice, Payment

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("store_name")]

BODY = {"amount": 100, "currency": "eur"}


@pytest.fixture
def invoice() -> Invoice:
    customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    return Invoice.objects.create(user=customer, amount_due=1_000_000, currency="eur")


def pay(client: APIClient, invoice: Invoice, key: str, body: Any = BODY) -> Any:
    return client.post(
        f"/v2/invoices/{invoice.pk}/payments",
        json.dumps(body),
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )


def basic_auth(user: User) -> dict[str, str]:
    token = base64.b64encode(f"{user.username}:pw".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def test_a_key_belongs_to_the_authenticated_user_whatever_client_id_is_claimed(invoice: Invoice) -> None:
    alice = User.objects.create_user("alice", password="pw")
    mallory = User.objects.create_user("mallory", password="pw")
    key = uuid.uuid4().hex
    first = pay(APIClient(headers={**basic_auth(alice), "X-Client-ID": "shared"}), invoice, key)
    # Mallory knows Alice's key and claims Alice's client id: she runs her own request, she
    # never reads Alice's stored response.
    stolen = pay(APIClient(headers={**basic_auth(mallory), "X-Client-ID": "shared"}), invoice, key)
    # Unauthenticated, with the same client id label: a scope of its own too.
    anonymous = pay(APIClient(headers={"X-Client-ID": "shared"}), invoice, key)
    assert first.status_code == stolen.status_code == anonymous.status_code == 201
    assert stolen["X-Cache-Lookup"] == anonymous["X-Cache-Lookup"] == "MISS"
    assert len({first.json()["payment_id"], stolen.json()["payment_id"], anonymous.json()["payment_id"]}) == 3
    # A different body under the same key, from another principal, is no 422 either: nothing leaks
    # through the fingerprint check (whether the key exists elsewhere).
    probe = pay(APIClient(headers=basic_auth(mallory)), invoice, uuid.uuid4().hex, {"amount": 7, "currency": "eur"})
    assert probe.status_code == 201
    assert Payment.objects.count() == 4


def test_an_unauthenticated_client_id_is_a_label_not_a_secret(invoice: Invoice) -> None:
    # Documented limit: who sends the same X-Client-ID and the same key gets the stored response.
    key = uuid.uuid4().hex
    first = pay(APIClient(headers={"X-Client-ID": "acme"}), invoice, key)
    replay = pay(APIClient(headers={"X-Client-ID": "acme"}), invoice, key)
    assert replay["X-Cache-Lookup"] == "HIT" and replay.content == first.content


@pytest.mark.parametrize("unusable", ["Zo\u00eb-x", "Zo\u00e9-x", "", "x" * 129, "two words"])
def test_an_unusable_client_id_is_refused_never_taken_for_the_shared_scope(invoice: Invoice, unusable: str) -> None:
    key = uuid.uuid4().hex
    anonymous = pay(APIClient(), invoice, key)
    refused = pay(APIClient(headers={"X-Client-ID": unusable}), invoice, key)
    assert anonymous.status_code == 201
    assert refused.status_code == 400, refused.content
    assert refused["Content-Type"] == "application/problem+json"
    assert [error["header"] for error in refused.json()["errors"]] == ["X-Client-ID"]
    assert "X-Cache-Lookup" not in refused
    assert Payment.objects.filter(invoice=invoice).count() == 1


class CredentialAuthentication:
    """Authenticates by a credential object with no user, as an API key or a device token does."""

    def authenticate(self, request: Any) -> tuple[Any, Any]:
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser(), request.META["test.credential"]


class CredentialView(IdempotencyMixin, APIView):
    authentication_classes = [CredentialAuthentication]
    runs = 0

    def post(self, request: Any) -> Response:
        CredentialView.runs += 1
        return Response({"run": CredentialView.runs}, status=201)


def test_two_kinds_of_credential_with_one_primary_key_have_their_own_keys() -> None:
    from django.contrib.auth.models import Group, Permission

    def post_as(credential: Any) -> Any:
        request = APIRequestFactory().post("/things", b'{"a": 1}', content_type="application/json")
        request.META["HTTP_IDEMPOTENCY_KEY"] = "shared-key"
        request.META["test.credential"] = credential
        return CredentialView.as_view()(request)

    CredentialView.runs = 0
    team_token, device = Permission(pk=1), Group(pk=1)
    first, second = post_as(team_token), post_as(device)
    assert (json.loads(first.rendered_content), json.loads(second.rendered_content)) == ({"run": 1}, {"run": 2})
    assert second["X-Cache-Lookup"] == "MISS"


class HeadersView(IdempotencyMixin, APIView):
    runs = 0

    def post(self, request: Any) -> Response:
        HeadersView.runs += 1
        response = Response(
            {"id": HeadersView.runs},
            status=201,
            headers={
                "Location": f"/things/{HeadersView.runs}",
                "X-Internal-Token": "s3cr3t",
                "Cache-Control": "private",
            },
        )
        response.set_cookie("sessionid", "s3cr3t")
        response["Set-Cookie"] = "raw=s3cr3t"  # a cookie written as a plain header, not through set_cookie()
        return response


def keyed(key: str, body: bytes = b'{"a": 1}', **meta: str) -> Any:
    request = APIRequestFactory().post("/things", body, content_type="application/json")
    request.META.update({"HTTP_IDEMPOTENCY_KEY": key, "HTTP_X_CLIENT_ID": "acme", **meta})
    return HeadersView.as_view()(request)


@pytest.mark.parametrize(
    "replayed",
    [None, ["Content-Type", "Location", "Set-Cookie", "set-cookie"]],
    ids=["default-allow-list", "set-cookie-wrongly-allowed"],
)
def test_only_allow_listed_headers_are_stored_and_set_cookie_never(
    monkeypatch: pytest.MonkeyPatch, replayed: list[str] | None
) -> None:
    if replayed is not None:
        monkeypatch.setattr(HeadersView, "replayed_headers", tuple(replayed))
    key = uuid.uuid4().hex
    first = keyed(key)
    again = keyed(key)
    assert first.cookies["sessionid"].value == "s3cr3t"
    assert again["X-Cache-Lookup"] == "HIT" and HeadersView.runs == first.data["id"]
    assert first["Set-Cookie"] == "raw=s3cr3t"
    assert "sessionid" not in again.cookies and "Set-Cookie" not in again
    assert "X-Internal-Token" not in again and "Cache-Control" not in again
    assert again["Location"] == first["Location"] and again.content == first.content
    summary = get_store().inspect("client:acme", key)
    assert summary is not None and summary.state == "resolved"


@pytest.fixture
def capped(settings: Any) -> int:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 64}
    return 64


def test_a_response_over_the_cap_is_sent_once_and_never_run_again(
    invoice: Invoice, capped: int, caplog: pytest.LogCaptureFixture
) -> None:
    client = APIClient(headers={"X-Client-ID": "acme"})
    key = uuid.uuid4().hex
    with caplog.at_level(logging.WARNING, logger="django_api_conventions.idempotency"):
        first = pay(client, invoice, key)
    assert first.status_code == 201 and len(first.content) > capped and first["X-Cache-Lookup"] == "MISS"
    assert [r.getMessage() for r in caplog.records if r.name == "django_api_conventions.idempotency"] == [
        f"Idempotent response of {len(first.content)} bytes not stored (IDEMPOTENCY_MAX_STORED_BODY_BYTES = 64): "
        "a retry gets idempotency-response-too-large"
    ]
    retry = pay(client, invoice, key)
    assert retry.status_code == 410 and retry["Content-Type"] == "application/problem+json"
    problem = retry.json()
    assert problem["type"].endswith("/idempotency-response-too-large")
    assert problem["original_status"] == 201
    assert problem["detail"] == (
        f"The request with this Idempotency-Key ran once and answered 201, but its response ({len(first.content)} "
        "bytes) was too large to be kept for replay. Do not send it again under a new key: read its result instead."
    )
    assert retry["Location"] == first["Location"] and retry["X-Cache-Lookup"] == "HIT"
    assert OMITTED_BODY_HEADER not in retry
    # Still one payment, and the result can be read where Location says.
    assert Payment.objects.count() == 1
    assert client.get(retry["Location"]).json()["payment_id"] == first.json()["payment_id"]
    # The key still guards its request: another body is 422, not a fresh run.
    assert pay(client, invoice, key, {"amount": 5, "currency": "eur"}).status_code == 422


def test_a_response_within_the_cap_is_replayed_and_none_lifts_the_cap(invoice: Invoice, settings: Any) -> None:
    client = APIClient(headers={"X-Client-ID": "acme"})
    for limit in (4096, None):
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_MAX_STORED_BODY_BYTES": limit}
        key = uuid.uuid4().hex
        first = pay(client, invoice, key)
        again = pay(client, invoice, key)
        assert again.status_code == 201 and again.content == first.content and again["X-Cache-Lookup"] == "HIT"


def test_raw_keys_are_never_logged(invoice: Invoice, caplog: pytest.LogCaptureFixture, settings: Any) -> None:
    key = "raw-key-" + uuid.uuid4().hex
    client = APIClient(headers={"X-Client-ID": "acme"})
    with caplog.at_level(logging.DEBUG):
        pay(client, invoice, key)  # first run
        pay(client, invoice, key)  # replay
        pay(client, invoice, key, {"amount": 1, "currency": "eur"})  # reused with another body
        pay(client, invoice, key + "\u00e9")  # invalid
        pay(client, invoice, key + "," + key)  # repeated
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_MAX_STORED_BODY_BYTES": 8}
        big = key + "-big"
        pay(client, invoice, big)  # not stored: warned
        pay(client, invoice, big)  # the too-large problem
        in_flight = key + "-slow"
        slow = threading.Thread(
            target=lambda: APIClient(headers={"X-Client-ID": "acme"}).post(
                "/idempotency/slow",
                {"email": "slow@example.com", "delay": 1},
                format="json",
                headers={"Idempotency-Key": in_flight},
            )
        )
        slow.start()
        try:
            for _ in range(50):
                response = APIClient(headers={"X-Client-ID": "acme"}).post(
                    "/idempotency/slow",
                    {"email": "slow@example.com", "delay": 1},
                    format="json",
                    headers={"Idempotency-Key": in_flight},
                )
                if response.status_code == 201:
                    break
        finally:
            slow.join()
    messages = {r.name for r in caplog.records}
    assert {"django_api_conventions.idempotency", "django_api_conventions.problems"} <= messages
    for record in caplog.records:
        text = record.getMessage() + repr(record.args) + repr(vars(record))
        assert key not in text, (record.name, text)
