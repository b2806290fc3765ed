"""The protocol's physical minimum, written by hand: the floors of the idempotency targets.

``floor_fresh`` is the example service's order ``POST`` (the same DRF view classes but for
:class:`~django_api_conventions.idempotency.IdempotencyMixin`: the same serializer, ``INSERT``
and 201 answer) plus only what an idempotent ``POST`` must send, through Django's cursor and the
raw Redis client, none of the package's idempotency code on the path:

- database store (``IDEMPOTENCY_STORE=database``): the claim, one ``INSERT ... ON CONFLICT
  (scope, key) DO NOTHING`` into the package's ``IdempotencyRecord`` table, committed on its own
  (autocommit, durability relaxed for it alone as the store does) before the view; then the
  view in a transaction and, in that transaction, one ``UPDATE`` of the record writing the
  response's status, headers and body;
- Redis store (``IDEMPOTENCY_STORE=redis``): ``SET NX`` (the claim), then in the view's
  transaction ``SELECT txid_current()`` (the commit marker) and a ``SET`` of the committing
  record before ``COMMIT``, a ``SET`` of the resolved record once the response is sent under
  WSGI (when the server closes it), right after ``COMMIT`` under ASGI, as the store does, on
  the connection pool the Redis store uses (django-redis' client of the default cache);
  and the two headers the example's contract puts on a first answer (``X-Cache-Lookup`` and
  ``Idempotent-Replayed``).

``floor_replay`` is what a replay must do: one ``SELECT`` of the stored fingerprint, status,
headers and body by (scope, key) on the database store, one ``GET`` on Redis, the fingerprint
compared and the stored bytes answered (a Django ``HttpResponse``, with the two headers the
example's contract puts on a replay), after DRF's ``initial()``
(authentication, permissions, throttles: whose key it is must be known first, and the service
throttles every request, replays included, as the package's views do). Its record is
written by a ``floor_fresh`` request at preparation (:func:`prepare_replay`), as the replay key
of the other scenarios is resolved by a first request.

The views are exempt from ``ATOMIC_REQUESTS`` (the claim must commit before the view's
transaction, as the package's views are) and open their own. They answer only what the
benchmark sends: a key already held answers 409, a mismatch 422, without a problem body.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils import timezone
from rest_framework import mixins, viewsets
from rest_framework.views import APIView

from django_api_conventions.models import IdempotencyRecord
from django_api_conventions.pagination import StrictQueryParametersMixin
from testproject.billing.models import Order
from testproject.billing.serializers import OrderSerializer
from testproject.billing.views import CreateWithLocationMixin

#: Under ``/v2/`` like ``/v2/orders`` (the same versioned resolver and version lifecycle).
FRESH_PATH = "/v2/bench-floor/orders"
REPLAY_PATH = "/v2/bench-floor/replay"
SCOPE = "bench-floor"
REDIS_PREFIX = "bench-floor:"
LEASE = timedelta(seconds=60)
RETENTION = timedelta(days=1)
KEY_HEADER = "HTTP_IDEMPOTENCY_KEY"


def _redis_store() -> bool:
    return settings.API_CONVENTIONS.get("IDEMPOTENCY_STORE") == "redis"


_redis_client: Any = None


def redis_client() -> Any:
    """The raw client the Redis store uses with the example service's settings (the default
    cache is django-redis; ``redis_client_for_cache`` answers ``get_redis_connection``)."""
    global _redis_client
    if _redis_client is None:
        from django_redis import get_redis_connection

        _redis_client = get_redis_connection("default", write=True)
    return _redis_client


# --- the SQL, written once per vendor ----------------------------------------------------------

_statements: dict[tuple[str, str], str] = {}


def _sql(name: str) -> str:
    sql = _statements.get((name, connection.vendor))
    if sql is None:
        quote = connection.ops.quote_name
        table = quote(IdempotencyRecord._meta.db_table)
        scope_and_key = f"{quote('scope')} = %s AND {quote('key')} = %s"
        postgres = connection.vendor == "postgresql"
        if name == "claim":
            columns = ", ".join(
                quote(column)
                for column in (
                    "scope",
                    "key",
                    "state",
                    "fingerprint",
                    "response_headers",
                    "lease_owner",
                    "lease_expires_at",
                    "expires_at",
                    "created_at",
                    "updated_at",
                )
            )
            conflict = f"ON CONFLICT ({quote('scope')}, {quote('key')}) DO NOTHING"
            if postgres:  # durability relaxed for the claim's own transaction, as the store does
                sql = (
                    f"WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)) "
                    f"INSERT INTO {table} ({columns}) SELECT %s, %s, 'started', %s, '{{}}'::jsonb, %s, %s, %s, "
                    f"%s, %s FROM relaxed {conflict}"
                )
            else:
                values = "%s, %s, 'started', %s, '{}', %s, %s, %s, %s, %s"
                sql = f"INSERT INTO {table} ({columns}) VALUES ({values}) {conflict}"
        elif name == "resolve":
            headers = "%s::jsonb" if postgres else "%s"
            sql = (
                f"UPDATE {table} SET {quote('state')} = 'resolved', {quote('response_status')} = %s, "
                f"{quote('response_headers')} = {headers}, {quote('response_body')} = %s, "
                f"{quote('lease_expires_at')} = %s, {quote('expires_at')} = %s, {quote('updated_at')} = %s "
                f"WHERE {scope_and_key} AND {quote('lease_owner')} = %s"
            )
        else:  # replay
            sql = (
                f"SELECT {quote('fingerprint')}, {quote('response_status')}, {quote('response_headers')}, "
                f"{quote('response_body')} FROM {table} WHERE {scope_and_key} AND {quote('state')} = 'resolved'"
            )
        _statements[name, connection.vendor] = sql
    return sql


def _timestamp(value: Any) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


# --- floor_fresh -------------------------------------------------------------------------------


class FloorOrders(
    StrictQueryParametersMixin, CreateWithLocationMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """``OrderViewSet``'s create, without the package's idempotency, plus the protocol's minimum."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        key = request.META.get(KEY_HEADER)
        if key is None:
            return HttpResponse(status=400)
        fingerprint = hashlib.sha256(request.body).hexdigest()
        owner = uuid.uuid4().hex
        if _redis_store():
            return self._on_redis(request, key, fingerprint, owner, *args, **kwargs)
        now = timezone.now()
        with connection.cursor() as cursor:  # autocommit: the claim commits before the view
            cursor.execute(
                _sql("claim"),
                [
                    SCOPE,
                    key,
                    fingerprint,
                    owner,
                    _timestamp(now + LEASE),
                    _timestamp(now + RETENTION),
                    _timestamp(now),
                    _timestamp(now),
                ],
            )
            claimed = cursor.rowcount == 1
        if not claimed:
            return HttpResponse(status=409)
        with transaction.atomic():
            response = super().dispatch(request, *args, **kwargs)
            response.render()
            now = timezone.now()
            with connection.cursor() as cursor:
                cursor.execute(
                    _sql("resolve"),
                    [
                        response.status_code,
                        json.dumps(dict(response.items())),
                        response.content,
                        _timestamp(now),
                        _timestamp(now + RETENTION),
                        _timestamp(now),
                        SCOPE,
                        key,
                        owner,
                    ],
                )
        return first_answer(response)

    def _on_redis(self, request: HttpRequest, key: str, fingerprint: str, owner: str, *args: Any, **kwargs: Any) -> Any:
        client = redis_client()
        name = REDIS_PREFIX + key
        retention_ms = int(RETENTION.total_seconds() * 1000)
        if not client.set(name, f"started\n{fingerprint}\n{owner}", nx=True, px=int(LEASE.total_seconds() * 1000)):
            return HttpResponse(status=409)
        with transaction.atomic():
            response = super().dispatch(request, *args, **kwargs)
            response.render()
            stored = b"\n".join(
                [
                    fingerprint.encode(),
                    str(response.status_code).encode(),
                    json.dumps(dict(response.items())).encode(),
                    response.content,
                ]
            )
            with connection.cursor() as cursor:
                cursor.execute("SELECT txid_current()")
                marker = cursor.fetchone()[0]
            client.set(name, f"committing\n{owner}\n{marker}\n".encode() + stored, px=retention_ms)
        resolve = lambda: client.set(name, b"resolved\n" + stored, px=retention_ms)  # noqa: E731
        # As the Redis store marks its key resolved: under WSGI once the response is sent (the
        # server closes it), under ASGI right after the commit.
        if isinstance(request, WSGIRequest):
            response._resource_closers.append(resolve)
        else:
            resolve()
        return first_answer(response)


def first_answer(response: Any) -> Any:
    """``response`` with the headers the example's contract puts on a keyed request's first answer."""
    response["X-Cache-Lookup"] = "MISS"
    response["Idempotent-Replayed"] = "false"
    return response


# --- floor_replay ------------------------------------------------------------------------------


class FloorReplay(StrictQueryParametersMixin, APIView):
    """A replay as a DRF service must make it: first who is calling (DRF's ``initial()``: the
    authentication, permissions and throttles every view of the service runs, the package's
    replay included), since a key belongs to its caller (the scope); then one read of the stored
    answer. ``floor_fresh`` goes through the same DRF steps (the order view's classes)."""

    def post(self, request: Any, **kwargs: Any) -> HttpResponse:
        return stored_answer(request._request)


def stored_answer(request: HttpRequest) -> HttpResponse:
    """The stored answer of the key, read in one round trip."""
    key = request.META.get(KEY_HEADER)
    if key is None:
        return HttpResponse(status=400)
    fingerprint = hashlib.sha256(request.body).hexdigest()
    if _redis_store():
        value = redis_client().get(REDIS_PREFIX + key)
        if value is None or not value.startswith(b"resolved\n"):
            return HttpResponse(status=404)
        _state, stored_fingerprint, status, headers, body = value.split(b"\n", 4)
        stored_fingerprint = stored_fingerprint.decode()
    else:
        with connection.cursor() as cursor:  # autocommit: one statement, no BEGIN / COMMIT
            cursor.execute(_sql("replay"), [SCOPE, key])
            row = cursor.fetchone()
        if row is None:
            return HttpResponse(status=404)
        stored_fingerprint, status, headers, body = row
    if stored_fingerprint != fingerprint:
        return HttpResponse(status=422)
    if not isinstance(headers, dict):  # jsonb arrives as text through Django's loader
        headers = json.loads(headers)
    # The headers the example's contract puts on a replay, with the stored ones.
    return HttpResponse(
        bytes(body), status=int(status), headers={**headers, "X-Cache-Lookup": "HIT", "Idempotent-Replayed": "true"}
    )


def prepare_replay(key: str, body: str) -> int:
    """Resolve ``key`` through ``floor_fresh`` (in a Django process of the run's settings); its status."""
    from django.test import Client

    return (
        Client()
        .post(
            FRESH_PATH,
            data=body,
            content_type="application/json",
            HTTP_X_CLIENT_ID="bench-floor",
            HTTP_IDEMPOTENCY_KEY=key,
        )
        .status_code
    )


fresh_view = transaction.non_atomic_requests(FloorOrders.as_view({"post": "create"}))

#: Mounted under ``versioned_urls`` by :mod:`benchmarks.urls`.
urlpatterns = [
    path("bench-floor/orders", fresh_view, name="bench-floor-orders"),
    path("bench-floor/replay", transaction.non_atomic_requests(FloorReplay.as_view()), name="bench-floor-replay"),
]
