"""Stored answers encrypted under IDEMPOTENCY_ENCRYPTION_KEYS, on each store: what the raw record
holds, replays, key rotation, records in clear, and ciphertexts that no key opens."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.checks import run_checks
from django.core.management import call_command
from django.db import connections
from rest_framework.test import APIClient

from django_api_conventions.idempotency.encryption import ENCRYPTED, StoredAnswerUnreadable, seal, unseal
from django_api_conventions.idempotency.stores import StoredResponse, get_store
from django_api_conventions.idempotency.stores.database import DatabaseStore
from django_api_conventions.models import IdempotencyRecord

from .stores import STORES, configure_store

pytestmark = pytest.mark.django_db(transaction=True)

SCOPE = "client:acme"


def new_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


OLD, NEW = new_key(), new_key()


@pytest.fixture(params=STORES)
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    yield from configure_store(request, settings)


def use_keys(settings: Any, *keys: str) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_ENCRYPTION_KEYS": list(keys)}


def create_user(marker: str, idempotency_key: str) -> Any:
    body = json.dumps({"email": f"{marker}@example.com", "name": marker})
    client = APIClient(headers={"X-Client-ID": "acme"})
    return client.generic(
        "POST", "/v2/users", body, content_type="application/json", headers={"Idempotency-Key": idempotency_key}
    )


def raw_record(idempotency_key: str) -> bytes:
    """Every byte the store keeps of the record, read around the package."""
    store = get_store()
    if isinstance(store, DatabaseStore):
        table = IdempotencyRecord._meta.db_table
        with connections["default"].cursor() as cursor:
            cursor.execute(
                f"SELECT * FROM {table} WHERE scope = %s AND key = %s",  # noqa: S608 -- the model's table
                [SCOPE, idempotency_key],
            )
            row = cursor.fetchone()
        return b"|".join(
            bytes(value) if isinstance(value, bytes | memoryview) else str(value).encode() for value in row
        )
    fields = store.client.hgetall(store.record_key(SCOPE, idempotency_key))  # type: ignore[attr-defined]
    return b"|".join(name + b"=" + value for name, value in fields.items())


def stored_body(idempotency_key: str) -> bytes:
    store = get_store()
    if isinstance(store, DatabaseStore):
        return bytes(IdempotencyRecord.objects.get(scope=SCOPE, key=idempotency_key).response_body or b"")
    return bytes(store.client.hget(store.record_key(SCOPE, idempotency_key), "body"))  # type: ignore[attr-defined]


def store_body(idempotency_key: str, body: bytes) -> None:
    store = get_store()
    if isinstance(store, DatabaseStore):
        IdempotencyRecord.objects.filter(scope=SCOPE, key=idempotency_key).update(response_body=body)
    else:
        store.client.hset(store.record_key(SCOPE, idempotency_key), "body", body)  # type: ignore[attr-defined]


def assert_same_answer(replay: Any, first: Any) -> None:
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.status_code == first.status_code == 201
    assert replay.content == first.content
    assert replay["Location"] == first["Location"] and replay["Content-Type"] == first["Content-Type"]


def test_the_store_holds_no_byte_of_the_answer_and_replays_it_identically(store_name: str, settings: Any) -> None:
    use_keys(settings, NEW)
    marker, idempotency_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    first = create_user(marker, idempotency_key)
    assert first.status_code == 201 and marker.encode() in first.content
    raw = raw_record(idempotency_key)
    assert b"201" in raw and b"resolved" in raw, raw  # what the store compares stays readable
    for secret in (marker.encode(), first["Location"].encode(), b"application/json", b"Location"):
        assert secret not in raw, (secret, raw)
    assert ENCRYPTED.encode() in raw
    assert_same_answer(create_user(marker, idempotency_key), first)
    out = StringIO()
    call_command("idempotency_inspect", SCOPE, idempotency_key, stdout=out)
    assert "response content: encrypted (AES-256-GCM)" in out.getvalue() and marker not in out.getvalue()


def test_an_answer_written_under_an_older_key_replays_once_a_new_key_is_first(store_name: str, settings: Any) -> None:
    use_keys(settings, OLD)
    marker, idempotency_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    first = create_user(marker, idempotency_key)
    use_keys(settings, NEW, OLD)
    assert_same_answer(create_user(marker, idempotency_key), first)
    later_marker, later_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    later = create_user(later_marker, later_key)
    use_keys(settings, NEW)  # the old key removed: answers it wrote are unreadable, new ones are not
    assert_same_answer(create_user(later_marker, later_key), later)
    refused = create_user(marker, idempotency_key)
    assert refused.status_code == 503 and refused["Content-Type"] == "application/problem+json"
    assert refused.json()["type"].endswith("/idempotency-store-unavailable") and marker.encode() not in refused.content


def test_an_answer_stored_in_clear_still_replays_once_keys_are_set(store_name: str, settings: Any) -> None:
    marker, idempotency_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    first = create_user(marker, idempotency_key)
    assert marker.encode() in raw_record(idempotency_key)
    out = StringIO()
    call_command("idempotency_inspect", SCOPE, idempotency_key, stdout=out)
    assert "response content: stored in clear" in out.getvalue()
    use_keys(settings, NEW)
    assert_same_answer(create_user(marker, idempotency_key), first)


def test_an_encrypted_answer_without_keys_is_a_503_not_another_answer(store_name: str, settings: Any) -> None:
    use_keys(settings, NEW)
    marker, idempotency_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    create_user(marker, idempotency_key)
    use_keys(settings)
    refused = create_user(marker, idempotency_key)
    assert refused.status_code == 503 and refused.json()["type"].endswith("/idempotency-store-unavailable")


def test_a_tampered_or_moved_ciphertext_is_refused(store_name: str, settings: Any) -> None:
    use_keys(settings, NEW)
    marker, idempotency_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    first = create_user(marker, idempotency_key)
    other_marker, other_key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    create_user(other_marker, other_key)
    sealed = stored_body(idempotency_key)
    store_body(other_key, sealed)  # another record's ciphertext, under the same key and status
    assert create_user(other_marker, other_key).status_code == 503
    store_body(idempotency_key, sealed[:-1] + bytes([sealed[-1] ^ 1]))
    assert create_user(marker, idempotency_key).status_code == 503
    store_body(idempotency_key, sealed)
    assert_same_answer(create_user(marker, idempotency_key), first)


def test_the_ciphertext_is_bound_to_its_record_and_status(settings: Any) -> None:
    use_keys(settings, NEW)
    answer = StoredResponse(201, {"Content-Type": "application/json"}, b'{"a": "\\n"}\n\x00')
    sealed = seal("s", "k", answer)
    assert sealed.headers == {ENCRYPTED: "AES-256-GCM"} and b"Content-Type" not in sealed.body
    assert seal("s", "k", answer).body != sealed.body, "a fresh nonce per record"
    assert unseal("s", "k", sealed) == answer
    for scope, key, status in (("s2", "k", 201), ("s", "k2", 201), ("s", "k", 200)):
        with pytest.raises(StoredAnswerUnreadable):
            unseal(scope, key, StoredResponse(status, sealed.headers, sealed.body))


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("c2VjcmV0", "it must be a list of keys, not a str"),
        (["not base64!"], "the key at index 0 is not base64"),
        ([NEW, base64.urlsafe_b64encode(b"short").decode()], "the key at index 1 decodes to 5 bytes, not 32"),
        ([NEW, 32], "the key at index 1 is a int, not a string"),
    ],
)
def test_wrong_keys_fail_at_start_up_without_quoting_them(settings: Any, value: Any, error: str) -> None:
    use_keys(settings)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_ENCRYPTION_KEYS": value}
    errors = [e for e in run_checks() if e.id == "django_api_conventions.E003"]
    assert [e.msg for e in errors] == [f"API_CONVENTIONS['IDEMPOTENCY_ENCRYPTION_KEYS'] cannot be used: {error}."]
    assert NEW not in errors[0].msg and "c2VjcmV0" not in errors[0].msg


def test_keys_without_cryptography_fail_at_start_up(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cryptography", None)  # as if it were not installed
    use_keys(settings, NEW)
    messages = [e.msg for e in run_checks() if e.id == "django_api_conventions.E003"]
    assert messages == ["API_CONVENTIONS['IDEMPOTENCY_ENCRYPTION_KEYS'] cannot be used: cryptography is not installed."]
    use_keys(settings)
    assert not [e for e in run_checks() if e.id == "django_api_conventions.E003"]


def test_cryptography_is_imported_only_when_keys_are_set() -> None:
    script = (
        "import sys, django; django.setup(); "
        "from django_api_conventions.idempotency.stores import StoredResponse; "
        "from django_api_conventions.idempotency.encryption import seal; "
        "import django_api_conventions.idempotency.stores.database, django_api_conventions.idempotency.checks; "
        "seal('s', 'k', StoredResponse(200, {}, b'')); "
        # redis-py reads cryptography's version on import: its ciphers are what must stay unloaded.
        "print(sorted(name for name in sys.modules if name.startswith('cryptography.hazmat')))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "testproject.settings"}
    env.pop("IDEMPOTENCY_ENCRYPTION_KEYS", None)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout


def test_the_cost_benchmark_tables_keys_off_and_on() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.encryption_cost", "--requests", "3", "--rounds", "2"],
        env={k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")},
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[2].split()[:2] == ["database", "fresh"] and lines[3].split()[:2] == ["database", "replay"], lines
    assert lines[-1].startswith("the 1079-byte answer alone: seal (fresh key) "), lines
