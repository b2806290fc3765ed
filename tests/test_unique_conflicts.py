"""A unique constraint the database enforces is a 409 ``conflict`` naming the field; the other
integrity errors stay 500. Real errors of the test database (SQLite, or PostgreSQL when set)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from django_api_conventions.idempotency import get_store
from django_api_conventions.models import IdempotencyRecord, RuntimeSwitch
from django_api_conventions.problems.mapping import problem_for_exception
from django_api_conventions.problems.unique_violations import sqlite_unique_target, unique_violation
from testproject.billing.models import Customer, Invoice
from testproject.billing.serializers import UserSerializer

pytestmark = pytest.mark.django_db(transaction=True)


def integrity_error(write: Callable[[], Any]) -> IntegrityError:
    with pytest.raises(IntegrityError) as raised, transaction.atomic():  # the commit checks deferred keys
        write()
    return raised.value


def test_a_case_insensitive_expression_constraint_names_its_field() -> None:
    Customer.objects.create(email="Ada@Example.com", name="Ada")
    exc = integrity_error(lambda: Customer.objects.create(email="ada@example.COM", name="Other"))
    violation = unique_violation(exc)
    assert violation is not None and violation.fields == ("email",)
    problem = problem_for_exception(exc)
    assert problem is not None and (problem.status_code, problem.problem_type.slug) == (409, "conflict")
    assert problem.errors == [
        {"pointer": "/email", "detail": "A record with this value already exists.", "code": "unique"}
    ]
    assert "email" in str(problem.detail) and "ada@" not in str(problem.detail).lower()
    assert problem.headers == {"Retry-After": "1"}


def test_a_unique_field_names_itself() -> None:
    RuntimeSwitch.objects.create(name="switch")
    problem = problem_for_exception(integrity_error(lambda: RuntimeSwitch.objects.create(name="switch")))
    assert problem is not None and problem.status_code == 409
    assert [item["pointer"] for item in problem.errors] == ["/name"]


def test_a_duplicate_primary_key_names_it() -> None:
    Customer.objects.create(id="usr_1", email="one@example.com", name="One")
    problem = problem_for_exception(
        integrity_error(lambda: Customer.objects.create(id="usr_1", email="two@example.com", name="Two"))
    )
    assert problem is not None and [item["pointer"] for item in problem.errors] == ["/id"]


def test_a_named_constraint_of_several_fields_names_each() -> None:
    now = timezone.now()
    record = {
        "scope": "s",
        "key": "k",
        "state": "started",
        "fingerprint": "f",
        "lease_expires_at": now,
        "expires_at": now,
    }
    IdempotencyRecord.objects.create(**record)
    problem = problem_for_exception(integrity_error(lambda: IdempotencyRecord.objects.create(**record)))
    assert problem is not None and problem.status_code == 409
    assert [item["pointer"] for item in problem.errors] == ["/scope", "/key"]
    assert problem.errors[0]["detail"] == "A record with this combination of scope, key already exists."


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(
            lambda: Invoice.objects.create(user_id="usr_missing", amount_due=1, currency="eur"), id="foreign-key"
        ),
        pytest.param(lambda: Customer.objects.create(email=None, name="x"), id="not-null"),
        pytest.param(
            lambda: Invoice.objects.create(
                user=Customer.objects.create(email="c@example.com", name="x"), amount_due=-1, currency="eur"
            ),
            id="check",
        ),
    ],
)
def test_other_integrity_errors_stay_500(write: Callable[[], Any]) -> None:
    exc = integrity_error(write)
    assert unique_violation(exc) is None
    assert problem_for_exception(exc) is None


def test_an_integrity_error_raised_by_hand_is_not_a_conflict() -> None:
    assert problem_for_exception(IntegrityError("something else")) is None


def test_sqlites_message_is_read_as_it_names_a_unique_constraint() -> None:
    # SQLite names the columns or the index of a unique constraint in its message only.
    read = sqlite_unique_target
    assert read("UNIQUE constraint failed: app_user.email") == (None, "app_user", ["email"])
    assert read("UNIQUE constraint failed: app_key.scope, app_key.key") == (None, "app_key", ["scope", "key"])
    assert read("UNIQUE constraint failed: index 'user_email_ci'") == ("user_email_ci", None, [])
    assert read("CHECK constraint failed: amount") == (None, None, [])


@pytest.fixture
def validator_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a racer sees: the serializer's uniqueness check passes, the database's does not."""
    monkeypatch.setattr(UserSerializer, "validate_email", lambda self, value: value)


def post_user(client: APIClient, email: str, key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(
        "/v2/users", json.dumps({"email": email, "name": "Racer"}), content_type="application/json", headers=headers
    )


@pytest.mark.usefixtures("validator_passes")
def test_over_http_the_loser_of_a_race_gets_409_and_its_key_stays_free(store_name: str) -> None:
    client = APIClient(headers={"X-Client-ID": "racer"})
    assert post_user(client, "Grace@Example.com").status_code == 201
    key = uuid.uuid4().hex
    response = post_user(client, "grace@example.com", key)
    assert response.status_code == 409, response.content
    assert response["Content-Type"] == "application/problem+json" and response["Retry-After"] == "1"
    body = json.loads(response.content)
    assert body["type"].endswith("/conflict") and body["errors"][0]["pointer"] == "/email"
    assert "X-Cache-Lookup" in response and response["X-Cache-Lookup"] == "MISS"
    assert get_store().inspect("client:racer", key) is None, "a 409 is not the key's stored answer"
    assert Customer.objects.filter(email__iexact="grace@example.com").count() == 1


def test_emails_are_unique_without_regard_to_case_and_kept_as_sent(store_name: str) -> None:
    client = APIClient()
    first = post_user(client, "Mixed.Case@Example.COM")
    assert first.status_code == 201 and json.loads(first.content)["email"] == "Mixed.Case@Example.COM"
    duplicate = post_user(client, "mixed.case@example.com")
    assert duplicate.status_code == 422
    assert json.loads(duplicate.content)["errors"] == [
        {"pointer": "/email", "detail": "A user with this email already exists.", "code": "unique"}
    ]
    assert Customer.objects.get().email == "Mixed.Case@Example.COM"
