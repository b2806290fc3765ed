"""Views and middleware that fail on purpose, one per error source the package must cover."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from typing import Any

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import connections, transaction
from django.db.utils import ConnectionHandler
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_POST
from rest_framework import serializers
from rest_framework.authentication import BasicAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions.clients.throttling import ClientRateThrottle
from django_api_conventions.idempotency import IdempotencyMixin, idempotent
from django_api_conventions.problems import ProblemException
from django_api_conventions.problems.types import register_problem_type
from testproject.billing.models import Customer

SECRET = "secret-internal-detail-7f3a"


def unreachable_database_query() -> None:
    """Run a query on a database that cannot be reached: a real driver error, no mock."""
    settings = dict(connections["default"].settings_dict)
    if settings["ENGINE"].endswith("sqlite3"):
        settings["NAME"] = "/nonexistent-directory/unreachable.sqlite3"
    else:
        settings.update(HOST="127.0.0.1", PORT="1", OPTIONS={"connect_timeout": 2})
    handler = ConnectionHandler({"default": settings})
    try:
        with handler["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        handler.close_all()


class FaultInjectionMiddleware:
    """Raises before any view runs, for paths under ``/faults/middleware/``."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == "/faults/middleware/crash":
            raise RuntimeError(SECRET)
        if request.path == "/faults/middleware/suspicious":
            raise SuspiciousOperation(SECRET)
        if request.path == "/faults/middleware/database":
            unreachable_database_query()
        return self.get_response(request)


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(SECRET)


def django_not_found(request: HttpRequest) -> HttpResponse:
    # A raised Http404's message is the project's own, sent as the detail: no secret here.
    raise Http404("No invoice matches the given query.")


def django_permission_denied(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied(SECRET)


def django_validation_error(request: HttpRequest) -> HttpResponse:
    raise DjangoValidationError({"title": ["Titles must be short."], "status": ["Unknown status."]})


def database_down(request: HttpRequest) -> HttpResponse:
    unreachable_database_query()
    return HttpResponse("unreachable")


def own_json_error(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"message": "differently shaped"}, status=409)


@require_POST
def post_only(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


@csrf_protect
def csrf_protected(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


class ProtectedView(APIView):
    authentication_classes = [BasicAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class OncePerHour(ClientRateThrottle):
    scope = "tests-once"

    def get_rate(self) -> str:
        return "1/hour"


class ThrottledView(APIView):
    throttle_classes = [OncePerHour]

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class LineSerializer(serializers.Serializer):
    sku = serializers.CharField()
    quantity = serializers.IntegerField(min_value=1)


class ReservedNamesSerializer(serializers.Serializer):
    """Fields named like problem members: their errors must stay intact."""

    type = serializers.ChoiceField(choices=["a", "b"])
    title = serializers.CharField(max_length=5)
    status = serializers.IntegerField()
    detail = serializers.CharField(required=False)
    lines = LineSerializer(many=True)
    tags = serializers.ListField(child=serializers.CharField(max_length=3), required=False)
    address = serializers.DictField(child=serializers.IntegerField(), required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("detail") == "object-level":
            raise serializers.ValidationError("The object as a whole is wrong.")
        return attrs


class ReservedNamesView(APIView):
    def post(self, request: Request) -> Response:
        serializer = ReservedNamesSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data)


register_problem_type("invoice-already-paid", "Invoice already paid", 409, "A paid invoice takes no more payments.")


class OwnProblemView(APIView):
    def post(self, request: Request) -> Response:
        raise ProblemException("invoice-already-paid", "Invoice inv_1 is paid.", extensions={"invoice_id": "inv_1"})


class DatabaseDownView(APIView):
    def get(self, request: Request) -> Response:
        unreachable_database_query()
        return Response({})


# Idempotency: views that count their executions as Customer rows, some failing on purpose.
CRASHED_KEYS: set[str] = set()


def _create_customer(data: Any) -> Customer:
    return Customer.objects.create(email=data["email"], name=data.get("name", "x"))


def _crash_once(request: Any) -> None:
    key = request.headers.get("Idempotency-Key", "")
    if key not in CRASHED_KEYS:
        CRASHED_KEYS.add(key)
        raise RuntimeError(SECRET)


class CrashOnceView(IdempotencyMixin, APIView):
    """Creates a customer, then crashes on the first attempt of each key (after its write)."""

    def post(self, request: Request) -> Response:
        customer = _create_customer(request.data)
        _crash_once(request)
        return Response({"id": customer.pk}, status=201)


class ServerErrorOnceView(IdempotencyMixin, APIView):
    """Answers 503 (without raising) on the first attempt of each key."""

    def post(self, request: Request) -> Response:
        key = request.headers.get("Idempotency-Key", "")
        customer = _create_customer(request.data)
        if key not in CRASHED_KEYS:
            CRASHED_KEYS.add(key)
            return Response({"detail": "try again"}, status=503)
        return Response({"id": customer.pk}, status=201)


class ConflictNotKeptView(IdempotencyMixin, APIView):
    """A 409 this view chooses not to keep: the key is released."""

    idempotency_keep_status = staticmethod(lambda status: status < 400)

    def post(self, request: Request) -> Response:
        if request.data.get("conflict"):
            return Response({"detail": "conflict"}, status=409)
        return Response({"id": _create_customer(request.data).pk}, status=201)


class SetCookieView(IdempotencyMixin, APIView):
    def post(self, request: Request) -> Response:
        response = Response({"id": _create_customer(request.data).pk}, status=201, headers={"ETag": '"v1"'})
        response.set_cookie("session-ish", "secret")
        return response


class ProtectedIdempotentView(IdempotencyMixin, APIView):
    authentication_classes = [BasicAuthentication]
    permission_classes = [IsAuthenticated]

    def post(self, request: Request) -> Response:
        return Response({"id": _create_customer(request.data).pk}, status=201)


class SlowCreateView(IdempotencyMixin, APIView):
    """Sleeps ``delay`` seconds before creating, and can wait for an in-flight twin."""

    idempotency_wait_seconds = 3.0

    def post(self, request: Request) -> Response:
        time.sleep(float(request.data.get("delay", 0)))
        return Response({"id": _create_customer(request.data).pk}, status=201)


class ExecutionLogView(IdempotencyMixin, APIView):
    """One row per execution, named after the request's ``tag``: the failover test counts them."""

    def post(self, request: Request) -> Response:
        customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@executions.example", name=request.data["tag"])
        return Response({"id": customer.pk}, status=201)


class LongRunningView(IdempotencyMixin, APIView):
    """Renews its lease while it works."""

    idempotency_lease_seconds = 0.5

    def post(self, request: Request) -> Response:
        for _ in range(4):
            time.sleep(0.25)
            request._request.idempotency.renew_lease()
        return Response({"id": _create_customer(request.data).pk}, status=201)


class HeaderDelayedCreateView(IdempotencyMixin, APIView):
    """Sleeps ``X-Test-Delay`` seconds (renewing its lease meanwhile with ``X-Test-Renew: 1``),
    then creates a customer named by the body and answers 201, or 503 with ``X-Test-Fail: 1``.

    The headers are outside the fingerprint: attempts of the same request can take different
    times and end differently, so a late first attempt can end after the one that took over.
    """

    def post(self, request: Request) -> Response:
        deadline = time.monotonic() + float(request.headers.get("X-Test-Delay", "0"))
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(left, 0.1))
            if request.headers.get("X-Test-Renew"):
                request._request.idempotency.renew_lease()
        customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name=request.data["name"])
        if request.headers.get("X-Test-Fail"):
            return Response({"detail": "failed on purpose"}, status=503)
        return Response({"id": customer.pk}, status=201)


class DiesAfterCommitView(IdempotencyMixin, APIView):
    """Creates a customer named by the body; with ``X-Test-Die: after-commit`` (a header, outside
    the fingerprint) the worker kills itself with SIGKILL right after the view's transaction
    commits, before the answer is stored in a store outside the transaction."""

    def post(self, request: Request) -> Response:
        customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name=request.data["name"])
        if request.headers.get("X-Test-Die") == "after-commit":
            transaction.on_commit(lambda: os.kill(os.getpid(), signal.SIGKILL))
        return Response({"id": customer.pk}, status=201)


class DurableCreateView(IdempotencyMixin, APIView):
    """Creates a customer in a durable atomic block: the view commits its own transaction."""

    def post(self, request: Request) -> Response:
        with transaction.atomic(durable=True):
            Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name=request.data["name"])
        return Response(status=204)


@idempotent(required=True)
def sync_function_view(request: HttpRequest) -> HttpResponse:
    customer = _create_customer(json.loads(request.body))
    return JsonResponse({"id": customer.pk}, status=201)


@idempotent
async def async_function_view(request: HttpRequest) -> HttpResponse:
    customer = await Customer.objects.acreate(email=json.loads(request.body)["email"], name="async")
    return JsonResponse({"id": customer.pk}, status=201)


@idempotent
def crash_function_view(request: HttpRequest) -> HttpResponse:
    _create_customer(json.loads(request.body))
    _crash_once(request)
    return JsonResponse({}, status=201)


def plain_create_view(request: HttpRequest) -> HttpResponse:
    """No decorator: protected by IdempotencyMiddleware through IDEMPOTENCY_PATHS."""
    if request.method != "POST":
        return JsonResponse({"customers": Customer.objects.count()})
    customer = _create_customer(json.loads(request.body))
    return JsonResponse({"id": customer.pk}, status=201)


@idempotent
def database_down_function_view(request: HttpRequest) -> HttpResponse:
    unreachable_database_query()
    return JsonResponse({}, status=201)


@idempotent
def streaming_view(request: HttpRequest) -> HttpResponse:
    from django.http import StreamingHttpResponse

    _create_customer(json.loads(request.body))
    return StreamingHttpResponse(iter([b"a", b"b"]), status=201)  # type: ignore[return-value]
