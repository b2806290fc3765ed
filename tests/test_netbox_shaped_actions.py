"""The NetBox-shaped project's actions once adopted: a durable action beside keyed ones, and a
keyed image upload.

Two viewsets of the project's own, on its base viewset (``IdempotencyMixin`` first among its
bases, as adopted): a journal whose ``create`` is keyed and whose ``close`` commits its own
transaction (``transaction.atomic(durable=True)``) and is marked ``@idempotency_exempt``; and
NetBox's image attachments, a multipart upload that Pillow validates. Real requests, without a
test transaction (a durable block cannot nest in one), on the database and the Redis store.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import include, path
from PIL import Image
from rest_framework import routers, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import idempotency_exempt
from testproject.billing.models import Customer
from tests.netbox_shaped import settings as project_settings
from tests.netbox_shaped import urls_after

from .stores import use_store

pytestmark = [pytest.mark.django_db(transaction=True)]

#: The project's base viewset as adopted, the one its own viewsets derive from.
NetBoxModelViewSet: Any = next(
    base
    for _, viewset, _ in urls_after.router.registry
    for base in viewset.__mro__
    if base.__name__ == "NetBoxModelViewSet"
)


class JournalSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Customer
        fields = ["id", "name", "email"]


class JournalViewSet(NetBoxModelViewSet):  # type: ignore[misc]
    queryset = Customer.objects.order_by("id")
    serializer_class = JournalSerializer

    @action(detail=False, methods=["post"])
    @idempotency_exempt
    def close(self, request: Request) -> Response:
        """Close the period: committed on its own, whatever the request does next."""
        with transaction.atomic(durable=True):
            closing = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="closing")
        return Response(JournalSerializer(closing).data, status=201)


class ImageAttachmentSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """NetBox's image attachment: the image (Pillow reads it) and its name."""

    image = serializers.ImageField()
    name = serializers.CharField(required=False, default="")


class ImageAttachmentViewSet(NetBoxModelViewSet):  # type: ignore[misc]
    queryset = Customer.objects.none()
    serializer_class = ImageAttachmentSerializer
    #: How many uploads ran: a replay runs none.
    runs = 0

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        image = serializer.validated_data["image"]
        ImageAttachmentViewSet.runs += 1
        width, height = image.image.size  # DRF's ImageField keeps what Pillow read
        body = {"id": ImageAttachmentViewSet.runs, "name": serializer.validated_data["name"] or image.name}
        return Response({**body, "image_width": width, "image_height": height}, status=201)


router = routers.SimpleRouter()
router.register("extras/journal-entries", JournalViewSet, basename="journalentry")
router.register("extras/image-attachments", ImageAttachmentViewSet, basename="imageattachment")
urlpatterns = [path("api/", include(router.urls)), *urls_after.urlpatterns]


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def adopted(request: pytest.FixtureRequest, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The project after adoption, serving this module's viewsets too, on each store; without
    ATOMIC_REQUESTS, as NetBox runs (a durable block is refused inside one anyway)."""
    for name, value in project_settings.after().items():
        setattr(settings, name, value)
    settings.ROOT_URLCONF = __name__
    for config in settings.DATABASES.values():
        monkeypatch.setitem(config, "ATOMIC_REQUESTS", False)
    ImageAttachmentViewSet.runs = 0
    yield from use_store(settings, request.param)


def post_json(path: str, body: dict[str, Any], key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return Client().post(path, body, content_type="application/json", headers=headers)


@pytest.mark.usefixtures("adopted")
def test_a_durable_action_beside_keyed_ones() -> None:
    key = uuid.uuid4().hex
    entry = {"name": "entry", "email": "entry@example.com"}
    created, retry = (
        post_json("/api/extras/journal-entries/", entry, key),
        post_json("/api/extras/journal-entries/", entry, key),
    )
    assert (created.status_code, retry.status_code) == (201, 201), retry.content
    assert retry["X-Cache-Lookup"] == "HIT"
    assert Customer.objects.filter(name="entry").count() == 1

    # The same key on the durable action: no 501 (database store), no replay (Redis store).
    closings = [post_json("/api/extras/journal-entries/close/", {}, key) for _ in range(2)]
    assert [response.status_code for response in closings] == [201, 201], closings[0].content
    assert all("X-Cache-Lookup" not in response for response in closings)
    assert Customer.objects.filter(name="closing").count() == 2


@pytest.mark.usefixtures("adopted")
def test_the_document_offers_the_key_on_the_keyed_operations_only() -> None:
    document = Client().get("/api/schema/?format=json").json()

    def takes_a_key(path: str) -> bool:
        operation = document["paths"][path]["post"]
        return any(parameter["name"] == "Idempotency-Key" for parameter in operation.get("parameters", []))

    assert takes_a_key("/api/extras/journal-entries/")
    assert takes_a_key("/api/extras/image-attachments/")
    assert takes_a_key("/api/billing/invoices/{id}/set-status/")
    assert not takes_a_key("/api/extras/journal-entries/close/")


def png() -> bytes:
    image = io.BytesIO()
    Image.new("RGB", (64, 48), "red").save(image, format="PNG")
    return image.getvalue()


@pytest.mark.usefixtures("adopted")
def test_a_keyed_image_upload_runs_once_and_replays() -> None:
    key, content = uuid.uuid4().hex, png()

    def upload() -> Any:
        body = {"name": "rack front", "image": SimpleUploadedFile("rack.png", content, content_type="image/png")}
        return Client().post("/api/extras/image-attachments/", body, headers={"Idempotency-Key": key})

    first, retry = upload(), upload()
    assert (first.status_code, retry.status_code) == (201, 201), first.content
    assert first.json() == {"id": 1, "name": "rack front", "image_width": 64, "image_height": 48}
    assert retry["X-Cache-Lookup"] == "HIT"
    assert retry.content == first.content
    assert ImageAttachmentViewSet.runs == 1
