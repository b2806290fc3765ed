"""adrf async views and viewsets under ``IdempotencyMixin``: the protocol's async twins of
:mod:`tests.faults`' idempotency views (they count executions as Customer rows)."""

from __future__ import annotations

import asyncio
from typing import Any

from adrf.views import APIView
from adrf.viewsets import ViewSet
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import IdempotencyMixin
from testproject.billing.models import Customer

from .faults import CRASHED_KEYS, SECRET


async def _create_customer(data: Any) -> Customer:
    return await Customer.objects.acreate(email=data["email"], name=data.get("name", "x"))


class AsyncCreateView(IdempotencyMixin, APIView):
    """Creates a customer with the async ORM; ``delay`` seconds first (``asyncio.sleep``)."""

    idempotency_wait_seconds = 0.0

    async def post(self, request: Request) -> Response:
        await asyncio.sleep(float(request.data.get("delay", 0)))
        customer = await _create_customer(request.data)
        return Response({"id": customer.pk, "email": customer.email}, status=201, headers={"Location": "/c/1"})


class AsyncWaitingCreateView(AsyncCreateView):
    idempotency_wait_seconds = 3.0


class AsyncRequiredCreateView(AsyncCreateView):
    idempotency_required = True


class AsyncCrashOnceView(IdempotencyMixin, APIView):
    """Writes, then crashes on the first attempt of each key."""

    async def post(self, request: Request) -> Response:
        customer = await _create_customer(request.data)
        key = request.headers.get("Idempotency-Key", "")
        if key not in CRASHED_KEYS:
            CRASHED_KEYS.add(key)
            raise RuntimeError(SECRET)
        return Response({"id": customer.pk}, status=201)


class AsyncServerErrorOnceView(IdempotencyMixin, APIView):
    """Writes, then answers 503 (without raising) on the first attempt of each key."""

    async def post(self, request: Request) -> Response:
        customer = await _create_customer(request.data)
        key = request.headers.get("Idempotency-Key", "")
        if key not in CRASHED_KEYS:
            CRASHED_KEYS.add(key)
            return Response({"detail": "try again"}, status=503)
        return Response({"id": customer.pk}, status=201)


class AsyncConflictNotKeptView(IdempotencyMixin, APIView):
    idempotency_keep_status = staticmethod(lambda status: status < 400)

    async def post(self, request: Request) -> Response:
        if request.data.get("conflict"):
            await _create_customer(request.data)  # written, then rolled back with the released key
            return Response({"detail": "conflict"}, status=409)
        return Response({"id": (await _create_customer(request.data)).pk}, status=201)


class AsyncCustomerViewSet(IdempotencyMixin, ViewSet):
    async def create(self, request: Request) -> Response:
        return Response({"id": (await _create_customer(request.data)).pk}, status=201)

    async def list(self, request: Request) -> Response:
        return Response({"count": await Customer.objects.acount()})


class AsyncLeaseRenewingView(IdempotencyMixin, APIView):
    """Renews its lease from async code, through ``sync_to_async``."""

    async def post(self, request: Request) -> Response:
        from asgiref.sync import sync_to_async

        await sync_to_async(request.idempotency.renew_lease)(30)
        return Response({"id": (await _create_customer(request.data)).pk}, status=201)


class SyncCustomerViewSet(IdempotencyMixin, ViewSet):
    """An adrf ViewSet with sync actions: the mixin must not make it async."""

    def create(self, request: Request) -> Response:
        return Response({"id": Customer.objects.create(email=request.data["email"], name="x").pk}, status=201)


class AsyncDeleteView(IdempotencyMixin, APIView):
    """DELETE takes no key; under ATOMIC_REQUESTS its writes are rolled back with a crash."""

    async def delete(self, request: Request) -> Response:
        await Customer.objects.filter(email=request.query_params["email"]).adelete()
        if request.query_params.get("crash"):
            raise RuntimeError(SECRET)
        return Response(status=204)
