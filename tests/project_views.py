"""Views a project writes itself: error bodies it builds by hand, uploads larger than the default,
file uploads read as image and document views read them."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions.content.parsers import StrictJSONParser, max_body_bytes
from django_api_conventions.idempotency import IdempotencyMixin
from testproject.billing.models import Customer

MIB = 1024 * 1024

#: What a project's views answer by hand, by case name: (body, status).
OWN_ERRORS: dict[str, tuple[Any, int]] = {
    "blocked-delete": (
        {"detail": "Unable to delete object. 3 dependent objects were found: cable 1, cable 2, cable 3"},
        409,
    ),
    "field-messages": ({"status": ["bogus is not a valid choice."]}, 400),
    "detail-and-fields": (
        {"detail": "Check-in refused.", "status": ["Unknown status."], "reason": ["This field is required."]},
        400,
    ),
    "nested-fields": (
        {
            "address": {"city": ["Too long."]},
            "tags": [{}, {"name": ["Blank."]}],
            "a/b~c": ["Odd name."],
            "non_field_errors": ["The dates overlap."],
        },
        400,
    ),
    "detail-fields-and-more": (
        {"detail": "Check-in refused.", "status": ["Unknown status."], "reason": "expired", "retry_in": 3},
        400,
    ),
    "list-of-messages": (["The object is locked.", "Retry once it is unlocked."], 400),
    "own-not-found": ({"detail": "No Device matches the given query."}, 404),
    "not-of-drf-shape": ({"message": "differently shaped", "status": "failed"}, 409),
    "detail-not-text": ({"detail": {"text": "nested"}}, 409),
    "numbers-are-no-messages": ({"count": [3]}, 400),
    "server-error": ({"detail": "Traceback: password=hunter2 at db.internal:5432"}, 500),
    "bad-gateway": ({"detail": "upstream db.internal:5432 refused"}, 502),
}


class OwnErrorView(APIView):
    """A DRF view returning a ``Response`` it built itself, as NetBox's blocked deletes do."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    def get(self, request: Request, case: str) -> Response:
        body, status = OWN_ERRORS[case]
        return Response(body, status=status, headers={"Retry-After": "5"} if status == 409 else None)


def own_json_error(request: HttpRequest, case: str) -> HttpResponse:
    body, status = OWN_ERRORS[case]
    return JsonResponse(body, status=status, safe=False)


def own_text_error(request: HttpRequest) -> HttpResponse:
    return HttpResponse('{"detail": "not labelled as JSON"}', status=409, content_type="text/plain")


class _Upload(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    parser_classes = [StrictJSONParser, MultiPartParser]

    def post(self, request: Request) -> Response:
        upload = request.data.get("file")
        if upload is not None:
            return Response({"size": upload.size}, status=201)
        return Response({"size": len(request.data.get("content", ""))}, status=201)


class LargeUploadView(_Upload):
    max_body_bytes = 50 * MIB


class KeyedLargeUploadView(IdempotencyMixin, _Upload):
    """Keyed: the idempotency fingerprint reads the whole body."""

    max_body_bytes = 50 * MIB


class UploadView(_Upload):
    """No limit of its own: ``DATA_UPLOAD_MAX_MEMORY_SIZE`` applies."""


class SmallBodyView(_Upload):
    max_body_bytes = 1024


@max_body_bytes(50 * MIB)
@csrf_exempt
def large_raw_upload(request: HttpRequest) -> HttpResponse:
    # request.body is what Django limits to DATA_UPLOAD_MAX_MEMORY_SIZE on its own.
    return JsonResponse({"size": len(request.body)}, status=201)


@csrf_exempt
def raw_upload(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"size": len(request.body)}, status=201)


class AttachmentSerializer(serializers.Serializer[Any]):
    tag = serializers.CharField(max_length=200)
    # Pillow opens the image, as NetBox's image attachments do: an empty file is no valid image.
    image = serializers.ImageField(required=False)
    document = serializers.FileField(required=False)


class AttachmentView(IdempotencyMixin, APIView):
    """An image or a document upload, keyed or not; each run adds a Customer named by ``tag``.

    The view reads the file from where the request leaves it, as a content-type sniffer
    (python-magic on the first bytes) does: a file read to its end before the view looks empty.
    """

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    parser_classes = [MultiPartParser, FormParser]
    max_body_bytes = 50 * MIB

    def post(self, request: Request) -> Response:
        serializer = AttachmentSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        field = "image" if "image" in serializer.validated_data else "document"
        upload = serializer.validated_data.get(field)
        if upload is None:
            raise serializers.ValidationError({"document": ["An image or a document is required."]})
        content = upload.read()
        tag = serializer.validated_data["tag"]
        Customer.objects.create(email=f"{uuid.uuid4().hex}@uploads.example", name=tag)
        return Response(
            {"tag": tag, "field": field, "size": len(content), "sha256": hashlib.sha256(content).hexdigest()},
            status=201,
        )
