"""File uploads under an idempotency key, through a real server: the fingerprint covers each file
(its field, name and content) and leaves it whole for the view, on both stores."""

from __future__ import annotations

import hashlib
import io
import uuid
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from PIL import Image

from testproject.billing.models import Customer

from .http import HTTPResult, send
from .problem_assertions import assert_problem
from .servers import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

PATH = "/faults/uploads/attachments"
KIB = 1024


def png(colour: str) -> bytes:
    image = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(image, format="PNG")
    return image.getvalue()


def document(size: int, fill: bytes) -> bytes:
    return b"%PDF-1.7\n" + fill * (size - 9)


#: Each kind of upload, by field: a small image and document Django keeps in memory, and a
#: document over FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) that it spools to a temporary file.
UPLOADS = {
    "image": ("image", "rack.png", png("red"), png("blue")),
    "small-document": ("document", "manual.pdf", document(20 * KIB, b"a"), document(20 * KIB, b"b")),
    "large-document": ("document", "manual.pdf", document(3 * KIB * KIB, b"a"), document(3 * KIB * KIB, b"b")),
}


def upload(base_url: str, tag: str, field: str, name: str, content: bytes, key: str | None = None) -> HTTPResult:
    body = encode_multipart(BOUNDARY, {"tag": tag, field: SimpleUploadedFile(name, content)})
    headers = {"Content-Type": MULTIPART_CONTENT, "X-Client-ID": "uploader"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return send(base_url, "POST", PATH, body=body, headers=headers)


def runs(tag: str) -> int:
    return Customer.objects.filter(name=tag).count()


def assert_keyed_upload_is_read_whole_and_replayed(base_url: str, kind: str) -> None:
    field, name, content, other = UPLOADS[kind]
    whole = {"field": field, "size": len(content), "sha256": hashlib.sha256(content).hexdigest()}

    unkeyed = upload(base_url, "unkeyed", field, name, content)
    assert unkeyed.status == 201, unkeyed.body[:300]
    assert unkeyed.json() == {"tag": "unkeyed", **whole}

    key = str(uuid.uuid4())
    first = upload(base_url, "keyed", field, name, content, key)
    assert first.status == 201, first.body[:300]
    assert first.json() == {"tag": "keyed", **whole}  # the view read the whole file
    assert first.header("Idempotent-Replayed") == "false"

    retry = upload(base_url, "keyed", field, name, content, key)
    assert retry.status == 201, retry.body[:300]
    assert retry.header("Idempotent-Replayed") == "true"
    assert retry.body == first.body
    assert runs("keyed") == 1  # the view ran once

    another_file = upload(base_url, "keyed", field, name, other, key)
    assert_problem(another_file, 422, "idempotency-key-reused")
    renamed = upload(base_url, "keyed", field, f"renamed-{name}", content, key)
    assert_problem(renamed, 422, "idempotency-key-reused")
    assert runs("keyed") == 1


@pytest.mark.parametrize("kind", list(UPLOADS))
def test_a_keyed_upload_is_read_whole_and_replayed(live_server: Any, example_store: str, kind: str) -> None:
    assert_keyed_upload_is_read_whole_and_replayed(live_server.url, kind)


def test_the_same_file_under_another_field_is_another_request(live_server: Any, example_store: str) -> None:
    key = str(uuid.uuid4())
    content = document(20 * KIB, b"a")
    assert upload(live_server.url, "fields", "document", "a.pdf", content, key).status == 201
    assert_problem(upload(live_server.url, "fields", "image", "a.pdf", content, key), 422, "idempotency-key-reused")


@pytest.mark.postgres
@pytest.mark.parametrize("kind", ["image", "large-document"])
def test_through_gunicorn(example_store: str, kind: str) -> None:
    with gunicorn(1, DJANGO_SETTINGS_MODULE="tests.settings", IDEMPOTENCY_STORE=example_store) as server:
        assert_keyed_upload_is_read_whole_and_replayed(server.url, kind)
