"""The project's own code, as NetBox writes it.

- a paginator with DRF's ``limit``/``offset`` and a ``start`` of its own
  (NetBox's ``OptionalLimitOffsetPagination``);
- a base viewset that reads ``brief``, ``fields`` and ``omit``, with DRF's ``OrderingFilter``
  after the default filter backend;
- a django-filter ``FilterSet`` with a null value (``?tenant_id=null``), a ``q`` search and a
  filter on a field its model lacks;
- its own ``AutoSchema``, which writes a ``Decimal`` default into the document;
- its own request id middleware (NetBox's ``CoreMiddleware``), which sets ``request.id`` and
  the ``X-Request-ID`` header;
- error answers it builds by hand (a blocked delete, field messages, an ``error`` message, a
  plain-text 403, a check-in answer kept as it is), and its own HTML
  ``handler404``/``handler500``.

DRF's views take their parsers, filter backends, pagination... from ``REST_FRAMEWORK`` once,
when DRF is imported: :func:`build_router` makes the viewsets with those of the settings in
force when it is called, as a fresh start of the project would, so that one module serves the
project before and after adoption.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import django_filters
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db.models import ProtectedError, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, HttpResponseNotFound, HttpResponseServerError
from django_filters import rest_framework as drf_filters
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import routers, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from django_api_conventions.problems.kept_answers import keep_error_body
from testproject.billing.models import Customer, Invoice

#: What the project's handlers and middleware saw, in order.
SEEN: list[tuple[str, Any]] = []
#: The check-in's answer while questions are open; its clients read ``status``.
CHECK_IN_INCOMPLETE = {"status": "incomplete", "questions": [{"id": 7, "question": "Seat?"}], "checkin_texts": []}


class OptionalLimitOffsetPagination(LimitOffsetPagination):
    """NetBox's paginator: ``limit``/``offset``, and ``start`` as another name for the offset."""

    default_limit = 50
    start_query_param = "start"

    def get_offset(self, request: Request) -> int:
        start = request.query_params.get(self.start_query_param)
        return int(start) if start is not None else super().get_offset(request)


class InvoiceFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    q = django_filters.CharFilter(method="search")
    # NetBox's tenant_id: a key, or ``null`` for the rows without one.
    tenant_id = django_filters.ModelChoiceFilter(queryset=Customer.objects.all(), field_name="user", null_label="None")
    status = django_filters.MultipleChoiceFilter(choices=Invoice.Status.choices)
    # NetBox sets FILTERS_NULL_CHOICE_LABEL and FILTERS_NULL_CHOICE_VALUE: every choice filter
    # takes ``null``, which django-filter lists among the field's choices.
    currency_or_none = django_filters.MultipleChoiceFilter(
        field_name="currency", choices=[("eur", "EUR"), ("usd", "USD")], null_label="None", null_value="null"
    )
    tenant = django_filters.ModelMultipleChoiceFilter(
        field_name="user", queryset=Customer.objects.all(), null_label="None", null_value="null"
    )
    # A filter on a field Invoice lacks: django-filter builds it, drf-spectacular guesses its type.
    cable_end = django_filters.CharFilter(field_name="cable_end")
    # Booleans: NetBox's own (django-filter's BooleanFilter reads true/false, and 1 as no filter)
    # and django-filter's DRF one (its BooleanWidget reads 1/0 too), as a plugin's filters are.
    is_paid = django_filters.BooleanFilter(method="by_paid")
    paid = drf_filters.BooleanFilter(method="by_paid")

    class Meta:
        model = Invoice
        fields = ["currency"]

    def search(self, queryset: QuerySet[Any], name: str, value: str) -> QuerySet[Any]:
        return queryset.filter(Q(id__icontains=value) | Q(currency__icontains=value))

    def by_paid(self, queryset: QuerySet[Any], name: str, value: bool) -> QuerySet[Any]:
        return queryset.filter(status="paid") if value else queryset.exclude(status="paid")


class ObjectChangeFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """Integer keys, as NetBox's: one value or several (repeated), ``null`` for none."""

    user_id = django_filters.ModelMultipleChoiceFilter(field_name="user", queryset=User.objects.all())
    changed_object_type_id = django_filters.ModelChoiceFilter(
        field_name="content_type", queryset=ContentType.objects.all(), null_label="None"
    )

    class Meta:
        model = LogEntry
        fields = ["action_flag"]


class ObjectChangeSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = LogEntry
        fields = ["id", "user", "content_type", "object_repr", "action_flag"]
        brief_fields = ["id", "object_repr"]


class TenantSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Customer
        fields = ["id", "name", "email"]
        brief_fields = ["id", "name"]


class InvoiceSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    #: A decimal default, as NetBox's models have them (``Decimal("0.00")``).
    weight = serializers.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.00"), write_only=True)

    class Meta:
        model = Invoice
        fields = ["id", "user", "status", "amount_due", "currency", "weight"]
        brief_fields = ["id", "status"]

    def validate_currency(self, value: str) -> str:
        if value != value.lower():
            raise serializers.ValidationError("Write the currency in lower case.")
        return value

    def create(self, validated_data: dict[str, Any]) -> Invoice:
        validated_data.pop("weight", None)
        return super().create(validated_data)


class NetBoxAutoSchema(AutoSchema):
    """The project's schema class: a decimal default as the serializer has it, a ``Decimal``."""

    def _get_serializer_field_meta(self, field: Any, direction: Any) -> dict[str, Any]:
        meta: dict[str, Any] = super()._get_serializer_field_meta(field, direction)
        if isinstance(field, serializers.DecimalField) and "default" in meta:
            meta["default"] = field.default
        return meta


def _requested_fields(request: Request, serializer_class: type[serializers.Serializer[Any]]) -> list[str] | None:
    """NetBox's ``brief``, ``fields`` and ``omit``: which fields a read answers with."""
    params = request.query_params
    meta = serializer_class.Meta  # type: ignore[attr-defined]
    if params.get("brief", "").lower() in ("true", "1"):
        return list(meta.brief_fields)
    if params.get("fields"):
        return [name for name in params["fields"].split(",") if name in meta.fields]
    if params.get("omit"):
        omitted = params["omit"].split(",")
        return [name for name in meta.fields if name not in omitted]
    return None


class CoreMiddleware:
    """NetBox's ``CoreMiddleware``, as far as the request id goes: the change log records
    ``request.id``, and the client reads it in ``X-Request-ID``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.id = uuid.uuid4()  # type: ignore[attr-defined]
        SEEN.append(("request_id", request.id))  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request.id  # type: ignore[attr-defined]
        return response


def handler_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    """NetBox's ``handler_404``: reports the miss, then its own page."""
    SEEN.append(("404", request.path))
    return HttpResponseNotFound(b"<html><body>The project's page: not found</body></html>")


def handler_500(request: HttpRequest) -> HttpResponse:
    """NetBox's ``handler_500``: its page names the exception Django's handling still holds."""
    error = sys.exc_info()[1]
    SEEN.append(("500", error))
    return HttpResponseServerError(f"<html><body>The project's page: {type(error).__name__}</body></html>")


def ui_crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("an HTML page fails")


def build_router(*bases: type) -> routers.DefaultRouter:
    """The project's API, its viewsets made under the ``REST_FRAMEWORK`` now in force;
    ``bases`` come first in its base viewset's bases (``IdempotencyMixin`` once adopted)."""

    class NetBoxModelViewSet(*bases, viewsets.ModelViewSet):  # type: ignore[misc]
        """NetBox's base viewset: ``brief``/``fields``/``omit``, blocked deletes as a 409."""

        renderer_classes = api_settings.DEFAULT_RENDERER_CLASSES
        parser_classes = api_settings.DEFAULT_PARSER_CLASSES
        authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
        permission_classes = api_settings.DEFAULT_PERMISSION_CLASSES
        throttle_classes = api_settings.DEFAULT_THROTTLE_CLASSES
        content_negotiation_class = api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS
        versioning_class = api_settings.DEFAULT_VERSIONING_CLASS
        filter_backends = api_settings.DEFAULT_FILTER_BACKENDS
        pagination_class = api_settings.DEFAULT_PAGINATION_CLASS

        def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
            serializer = super().get_serializer(*args, **kwargs)
            if self.request.method != "GET":
                return serializer
            expanded = self.request.query_params.getlist("expand")  # related objects to embed
            if expanded:
                SEEN.append(("expand", expanded))
            wanted = _requested_fields(self.request, self.get_serializer_class())
            if wanted is not None:
                child = getattr(serializer, "child", serializer)
                for name in [name for name in child.fields if name not in wanted]:
                    child.fields.pop(name)
            return serializer

        def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
            try:
                return super().destroy(request, *args, **kwargs)
            except ProtectedError as exc:
                dependents = sorted(str(obj) for obj in exc.protected_objects)
                detail = (
                    f"Unable to delete object. {len(dependents)} dependent objects were found: {', '.join(dependents)}"
                )
                return Response({"detail": detail}, status=409)

    class InvoiceViewSet(NetBoxModelViewSet):
        queryset = Invoice.objects.order_by("id")
        serializer_class = InvoiceSerializer
        filterset_class = InvoiceFilterSet
        ordering_fields = ["amount_due", "id"]

        @action(detail=False, url_path="report")
        def report(self, request: Request) -> Response:
            raise RuntimeError("a bug in the report")

        @action(detail=True, methods=["post"], url_path="set-status")
        def set_status(self, request: Request, pk: str | None = None) -> Response:
            invoice = self.get_object()
            status = request.data.get("status")
            if status not in Invoice.Status.values:
                return Response({"status": [f"{status} is not a valid choice."]}, status=400)
            invoice.status = status
            invoice.save(update_fields=["status"])
            return Response({"id": invoice.id, "status": status})

        @action(detail=True, methods=["get", "post", "delete"])
        def notes(self, request: Request, pk: str | None = None) -> Response:
            """One action, three methods: one operation each in the document."""
            return Response({"id": self.get_object().id, "notes": []})

        @action(detail=True, methods=["post"], url_path="render-config")
        def render_config(self, request: Request, pk: str | None = None) -> Response:
            """NetBox's: a template that fails to render is a 400 whose message is in ``error``."""
            self.get_object()
            return Response({"error": "Failed to render the configuration: 'site' is undefined."}, status=400)

        @action(detail=True, methods=["post"], url_path="check-in")
        def check_in(self, request: Request, pk: str | None = None) -> Response:
            """A check-in whose clients read its own ``status``: the answer is kept as it is."""
            self.get_object()
            return keep_error_body(Response(CHECK_IN_INCOMPLETE, status=400))

        @action(detail=True, methods=["post"])
        def archive(self, request: Request, pk: str | None = None) -> HttpResponse:
            """A permission the view checks itself, refused in plain text."""
            return HttpResponseForbidden("Insufficient permissions")

    class TenantViewSet(NetBoxModelViewSet):
        queryset = Customer.objects.order_by("email")
        serializer_class = TenantSerializer
        filterset_fields = ["name"]

    class ObjectChangeViewSet(NetBoxModelViewSet):
        http_method_names = ["get", "head", "options"]
        queryset = LogEntry.objects.order_by("id")
        serializer_class = ObjectChangeSerializer
        filterset_class = ObjectChangeFilterSet

    class APIRootView(routers.APIRootView):
        authentication_classes = NetBoxModelViewSet.authentication_classes
        permission_classes = NetBoxModelViewSet.permission_classes
        throttle_classes = NetBoxModelViewSet.throttle_classes
        versioning_class = NetBoxModelViewSet.versioning_class
        renderer_classes = NetBoxModelViewSet.renderer_classes

    router = routers.DefaultRouter()
    router.APIRootView = APIRootView
    router.register("core/object-changes", ObjectChangeViewSet, basename="objectchange")
    router.register("billing/invoices", InvoiceViewSet, basename="invoice")
    router.register("tenancy/tenants", TenantViewSet, basename="tenant")
    return router


def schema_view() -> Callable[..., HttpResponse]:
    """drf-spectacular's view of the document, with the settings in force."""
    return SpectacularAPIView.as_view(  # type: ignore[no-any-return]
        authentication_classes=api_settings.DEFAULT_AUTHENTICATION_CLASSES,
        permission_classes=api_settings.DEFAULT_PERMISSION_CLASSES,
        throttle_classes=api_settings.DEFAULT_THROTTLE_CLASSES,
        versioning_class=api_settings.DEFAULT_VERSIONING_CLASS,
        content_negotiation_class=api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS,
    )
