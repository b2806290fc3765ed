"""A user's API the way the package's users write one, for the OpenAPI consumer rules: plain
serializers with choices, views without docstrings of their own, one that needs a login."""

from __future__ import annotations

from typing import Any

from django.urls import path
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.pagination import StrictQueryParametersMixin


class ShipmentSerializer(serializers.Serializer):
    """A shipment as the carrier reports it."""

    id = serializers.CharField(read_only=True)
    carrier = serializers.ChoiceField(choices=["dhl", "ups"])
    state = serializers.ChoiceField(choices=["packed", "sent"], default="packed")
    checkpoint = serializers.ChoiceField(choices=["hub", "depot"], allow_null=True, required=False)
    tags = serializers.MultipleChoiceField(choices=["fragile", "heavy"], required=False)
    note = serializers.CharField(required=False)


class ShipmentList(IdempotencyMixin, StrictQueryParametersMixin, generics.GenericAPIView):
    serializer_class = ShipmentSerializer

    def post(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({**serializer.data, "id": "shp_1"}, status=201)


class ShipmentDetail(StrictQueryParametersMixin, generics.GenericAPIView):
    serializer_class = ShipmentSerializer
    permission_classes = [IsAuthenticated]

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Read one shipment.

        The carrier's last report, as it came.
        """
        return Response({})


urlpatterns = [
    path("v2/shipments", ShipmentList.as_view()),
    path("v2/shipments/<str:id>", ShipmentDetail.as_view()),
]
