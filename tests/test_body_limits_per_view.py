"""A view's own body limit (``max_body_bytes``): uploads larger, or smaller, than the default."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from rest_framework.decorators import api_view

from django_api_conventions.content.parsers import max_body_bytes, view_body_limit
from django_api_conventions.problems.middleware import _read_body_past_default_limit

from .http import send
from .project_views import MIB, LargeUploadView
from .servers import gunicorn

pytestmark = pytest.mark.django_db  # ATOMIC_REQUESTS, the maintenance switch

ELEVEN_MIB = 11 * MIB


def _json_body(size: int) -> bytes:
    body = json.dumps({"content": ""}).encode()
    return json.dumps({"content": "x" * (size - len(body))}).encode()


def _post_json(path: str, size: int, **headers: str) -> Any:
    return Client().post(path, _json_body(size), content_type="application/json", headers=headers)


def _post_file(path: str, size: int) -> Any:
    upload = SimpleUploadedFile("device.png", b"\x89PNG" + b"\x00" * (size - 4), content_type="image/png")
    return Client().post(path, {"file": upload})


def _refused(response: Any, limit: int) -> None:
    assert response.status_code == 413, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/problems/request-too-large")
    assert body["limit_bytes"] == limit
    assert str(limit) in body["detail"]


def test_the_default_limit_is_djangos() -> None:
    assert django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE < ELEVEN_MIB


@pytest.mark.parametrize("path", ["/faults/uploads/large", "/faults/uploads/large-raw"], ids=["drf", "function"])
def test_a_view_that_allows_more_takes_an_11_mib_json_body(path: str) -> None:
    response = _post_json(path, ELEVEN_MIB)
    assert response.status_code == 201, response.content[:300]
    assert response.json()["size"] >= ELEVEN_MIB - 20


def test_a_keyed_request_is_fingerprinted_within_the_views_limit() -> None:
    key = str(uuid.uuid4())
    first = _post_json("/faults/uploads/keyed-large", ELEVEN_MIB, **{"Idempotency-Key": key})
    assert first.status_code == 201, first.content[:300]
    replay = _post_json("/faults/uploads/keyed-large", ELEVEN_MIB, **{"Idempotency-Key": key})
    assert replay.status_code == 201
    assert replay.content == first.content


@pytest.mark.parametrize("path", ["/faults/uploads/default", "/faults/uploads/raw"], ids=["drf", "function"])
def test_any_other_view_still_refuses_it(path: str) -> None:
    _refused(_post_json(path, ELEVEN_MIB), django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def test_a_view_that_allows_more_refuses_more_than_that(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    assert _post_json("/faults/uploads/large", 5000).status_code == 201
    LargeUploadView.max_body_bytes = 4000
    try:
        _refused(_post_json("/faults/uploads/large", 5000), 4000)
    finally:
        LargeUploadView.max_body_bytes = 50 * MIB


def test_a_multipart_upload_to_a_view_that_allows_more() -> None:
    response = _post_file("/faults/uploads/large", ELEVEN_MIB)
    assert response.status_code == 201, response.content[:300]
    assert response.json() == {"size": ELEVEN_MIB}


def test_a_view_that_allows_less_refuses_json_and_multipart_over_its_limit() -> None:
    _refused(_post_json("/faults/uploads/small", 2000), 1024)
    _refused(_post_file("/faults/uploads/small", 2000), 1024)
    assert _post_json("/faults/uploads/small", 1000).status_code == 201


def test_the_limit_is_read_from_the_view_the_url_resolves_to(settings: Any) -> None:
    # The same size, two views: the view decides, not the path's look.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    assert _post_json("/faults/uploads/large-raw", 500).status_code == 201
    _refused(_post_json("/faults/uploads/raw", 500), 100)


def test_the_decorator_and_the_class_attribute_are_found() -> None:
    @max_body_bytes(7)
    def view() -> None: ...

    assert view_body_limit(view) == 7
    assert view_body_limit(LargeUploadView.as_view()) == 50 * MIB
    assert view_body_limit(LargeUploadView.as_view(max_body_bytes=9)) == 9
    assert view_body_limit(lambda request: None) is None

    @max_body_bytes(5)
    @api_view(["POST"])
    def function_view(request: Any) -> None: ...

    assert view_body_limit(function_view) == 5


@pytest.mark.parametrize("limit", [-1, "50MB", 2.5, True])
def test_the_decorator_refuses_what_is_no_number_of_bytes(limit: Any) -> None:
    with pytest.raises(ValueError, match="number of bytes"):
        max_body_bytes(limit)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_through_gunicorn() -> None:
    with gunicorn(1, DJANGO_SETTINGS_MODULE="tests.settings") as server:
        json_headers = {"Content-Type": "application/json"}
        large = send(server.url, "POST", "/faults/uploads/large", body=_json_body(ELEVEN_MIB), headers=json_headers)
        assert large.status == 201, large.body[:300]
        other = send(server.url, "POST", "/faults/uploads/default", body=_json_body(ELEVEN_MIB), headers=json_headers)
        assert other.status == 413, other.body[:300]
        assert other.json()["limit_bytes"] == django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        boundary = "limit-test"
        multipart = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="device.png"\r\n'
                "Content-Type: image/png\r\n\r\n"
            ).encode()
            + b"\x00" * ELEVEN_MIB
            + f"\r\n--{boundary}--\r\n".encode()
        )
        upload = send(
            server.url,
            "POST",
            "/faults/uploads/large",
            body=multipart,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        assert upload.status == 201, upload.body[:300]
        assert upload.json() == {"size": ELEVEN_MIB}


def test_a_body_past_the_default_limit_reads_as_djangos_own(settings: Any) -> None:
    # Pins the one use of Django's private request attributes: request.body, request.POST and
    # the stream read the body as if HttpRequest.body had read it.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    body = b"name=" + b"x" * 40
    request = RequestFactory().post("/", body, content_type="application/x-www-form-urlencoded")
    _read_body_past_default_limit(request)
    assert request.body == body
    assert request.POST["name"] == "x" * 40
    assert request.read() == body
