"""The example service under gunicorn with ``IDEMPOTENCY_ENCRYPTION_KEYS`` in its environment: the
store it writes (the SQLite file's table, the Redis hashes) holds no byte of a stored answer, and
a retry replays it byte for byte, also once a new key is put first."""

from __future__ import annotations

import base64
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from django_api_conventions.idempotency.stores.redis import RedisStore
from django_api_conventions.models import IdempotencyRecord

from .example_service import example_service
from .http import HTTPResult, send

OLD, NEW = (base64.urlsafe_b64encode(os.urandom(32)).decode() for _ in range(2))
CLIENT = "sealed"


def create_user(url: str, marker: str, key: str) -> HTTPResult:
    body = {"email": f"{marker}@example.com", "name": marker}
    return send(url, "POST", "/v2/users", json_body=body, headers={"Idempotency-Key": key, "X-Client-ID": CLIENT})


def raw_record(backend: str, folder: Path, key: str) -> bytes:
    if backend == "sqlite":
        with sqlite3.connect(folder / "service.sqlite3") as database:
            row = database.execute(
                f"SELECT * FROM {IdempotencyRecord._meta.db_table} WHERE key = ?",  # noqa: S608 -- the model's table
                [key],
            ).fetchone()
        return b"|".join(value if isinstance(value, bytes) else str(value).encode() for value in row)
    import redis

    fields = redis.Redis.from_url(os.environ["REDIS_URL"]).hgetall(RedisStore.record_key(f"client:{CLIENT}", key))
    return b"|".join(name + b"=" + value for name, value in fields.items())


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres+redis", marks=[pytest.mark.postgres, pytest.mark.redis])]
)
def test_the_store_shows_no_answer_and_replays_survive_a_key_rotation(backend: str, tmp_path: Any) -> None:
    marker, key = f"marker-{uuid.uuid4().hex}", uuid.uuid4().hex
    with example_service(backend, tmp_path, IDEMPOTENCY_ENCRYPTION_KEYS=OLD) as service:
        first = create_user(service.url, marker, key)
        assert first.status == 201 and marker.encode() in first.body
        replay = create_user(service.url, marker, key)
        raw = raw_record(backend, tmp_path, key)
        assert b"resolved" in raw and b"201" in raw, raw
        assert marker.encode() not in raw and b"Location" not in raw, raw
    # Restarted on the same store with a new key first: the old key still decrypts.
    with example_service(backend, tmp_path, IDEMPOTENCY_ENCRYPTION_KEYS=f"{NEW},{OLD}") as rotated:
        after_rotation = create_user(rotated.url, marker, key)
    for again in (replay, after_rotation):
        assert again.status == 201 and again.headers["Idempotent-Replayed"] == "true"
        assert again.body == first.body and again.headers["Location"] == first.headers["Location"]
