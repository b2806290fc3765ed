"""A read replica behind a database router: the service's lists follow the router, the idempotency
records never leave ``IDEMPOTENCY_DATABASE``.

The replica is a second alias of the same PostgreSQL test database (a test mirror, as Django
sets up replicas in tests). Every query of each alias is captured, so "never read from the
replica" is checked query by query, for the keyed POST, its replay, ``idempotency_inspect``,
``idempotency_purge`` and the admin: with a real replica, a record read there could be missing
(lag) and a retry would run the request again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, databases=["default", "replica"])]

RECORDS = IdempotencyRecord._meta.db_table
USERS = Customer._meta.db_table


class ReadsToTheReplica:
    """What services with a read replica write: reads to it, writes to the primary."""

    def db_for_read(self, model: Any, **hints: Any) -> str:
        return "replica"

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return "default"

    def allow_relation(self, first: Any, second: Any, **hints: Any) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == "default"


@pytest.fixture(scope="module")
def replica_alias(django_db_setup: None) -> Iterator[None]:
    """The alias ``replica``: the test database again, through connections of its own.

    Module-scoped, so it exists before each test's database set-up, which must allow it.
    """
    primary = connections["default"].settings_dict
    connections.settings["replica"] = {
        **primary,
        "ATOMIC_REQUESTS": False,
        "TEST": {**primary["TEST"], "MIRROR": "default"},
    }
    try:
        yield
    finally:
        connections["replica"].close()
        del connections["replica"]
        del connections.settings["replica"]


@pytest.fixture
def replica(replica_alias: None, settings: Any) -> None:
    settings.DATABASE_ROUTERS = [f"{__name__}.ReadsToTheReplica"]


@contextmanager
def captured() -> Iterator[dict[str, list[str]]]:
    """The SQL each alias ran, in this thread (the test client's requests run in it too)."""
    queries: dict[str, list[str]] = {}
    with ExitStack() as stack:
        contexts = {
            alias: stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in ("default", "replica")
        }
        yield queries
    queries.update({alias: [query["sql"] for query in context.captured_queries] for alias, context in contexts.items()})


def touching(queries: list[str], table: str) -> list[str]:
    return [sql for sql in queries if table in sql]


def post_user(client: APIClient, key: str) -> Any:
    body = json.dumps({"email": f"{key}@example.com", "name": "Replica"})
    return client.post("/v2/users", body, content_type="application/json", headers={"Idempotency-Key": key})


@pytest.mark.usefixtures("replica")
def test_lists_read_the_replica_and_records_stay_on_the_idempotency_database() -> None:
    client = APIClient(headers={"X-Client-ID": "replica-test"})
    key = uuid.uuid4().hex

    with captured() as first:
        created = post_user(client, key)
    assert created.status_code == 201 and created["X-Cache-Lookup"] == "MISS"
    with captured() as replay:
        again = post_user(client, key)
    assert again.status_code == 201 and again["X-Cache-Lookup"] == "HIT" and again.content == created.content
    with captured() as listing:
        page = client.get("/v2/users")
    assert page.status_code == 200 and created.json()["id"] in [user["id"] for user in page.json()["data"]]
    with captured() as inspected:
        out = StringIO()
        call_command("idempotency_inspect", "client:replica-test", key, stdout=out)
    assert "state: resolved" in out.getvalue()

    # The router is in force: the list was read from the replica, not the primary.
    assert touching(listing["replica"], USERS) and not touching(listing["default"], USERS)
    # The claim, the stored response, the replay and the operator's look: all on the primary.
    assert touching(first["default"], RECORDS) and touching(replay["default"], RECORDS)
    assert touching(inspected["default"], RECORDS)
    for run in (first, replay, listing, inspected):
        assert not touching(run["replica"], RECORDS), run["replica"]


@pytest.mark.usefixtures("replica")
def test_purge_and_the_admin_use_the_idempotency_database(settings: Any) -> None:
    from django.contrib.auth.models import User

    client = APIClient(headers={"X-Client-ID": "replica-admin"})
    assert post_user(client, uuid.uuid4().hex).status_code == 201
    operator = User.objects.create_superuser("operator", "operator@example.com", "pw")
    browser = APIClient()
    browser.force_login(operator)
    with captured() as admin:
        changelist = browser.get("/admin/django_api_conventions/idempotencyrecord/")
        record = IdempotencyRecord.objects.using("default").get(scope="client:replica-admin")
        detail = browser.get(f"/admin/django_api_conventions/idempotencyrecord/{record.pk}/change/")
    assert changelist.status_code == 200 and b"client:replica-admin" in changelist.content
    assert detail.status_code == 200
    with captured() as purged:
        call_command("idempotency_purge", "--dry-run", stdout=StringIO())
        call_command("idempotency_purge", stdout=StringIO())
    assert touching(admin["default"], RECORDS) and touching(purged["default"], RECORDS)
    assert not touching(admin["replica"], RECORDS), admin["replica"]
    assert not touching(purged["replica"], RECORDS), purged["replica"]
