"""Which parser reads a body: only the body's own, concrete media type picks one."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.test import APIClient

from django_api_conventions.content.negotiation import FallbackContentNegotiation
from django_api_conventions.content.parsers import StrictJSONParser
from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer

factory = RequestFactory()
ACCEPTED = "Accepted: application/json, any type ending in +json."


def select(content_type: str, parsers: list[Any] | None = None) -> Any:
    request = Request(factory.post("/", b"{}", content_type=content_type))
    return FallbackContentNegotiation().select_parser(request, parsers or [StrictJSONParser()])


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/merge-patch+json",
        "application/problem+json; charset=utf-8",
    ],
)
def test_json_and_plus_json_bodies_go_to_the_json_parser(content_type: str) -> None:
    assert isinstance(select(content_type), StrictJSONParser)


@pytest.mark.parametrize("content_type", ["*/*", "application/*", "*/json", "*/*+json", " */* ; q=1", "text/*"])
def test_a_wildcard_content_type_is_415(content_type: str) -> None:
    # DRF matches wildcards both ways: */* picked the JSON parser (or a form parser placed first).
    with pytest.raises(UnsupportedMediaType) as raised:
        select(content_type, [FormParser(), StrictJSONParser()])
    assert str(raised.value.detail) == (
        f'Unsupported media type "{content_type}" in request. '
        "Accepted: application/x-www-form-urlencoded, application/json, any type ending in +json."
    )


@pytest.mark.parametrize("content_type", ["text/plain", "application/jsonx", "application/+json", "json", ""])
def test_other_types_are_415_naming_the_accepted_ones(content_type: str) -> None:
    with pytest.raises(UnsupportedMediaType) as raised:
        select(content_type)
    assert str(raised.value.detail) == f'Unsupported media type "{content_type}" in request. {ACCEPTED}'


@pytest.mark.parametrize("content_type", ["text/" + "x" * 300, "application/" + "x" * 300 + "+json"])
def test_a_long_content_type_is_refused_and_echoed_abridged(content_type: str) -> None:
    # DRF refuses a Content-Type over 256 characters before parsing it; so does the +json rule.
    with pytest.raises(UnsupportedMediaType) as raised:
        select(content_type)
    assert str(raised.value.detail).startswith(f'Unsupported media type "{content_type[:80]}..." in request.')


def test_parsers_without_a_suffix_keep_drfs_exact_matching() -> None:
    assert isinstance(select("multipart/form-data; boundary=x", [JSONParser(), MultiPartParser()]), MultiPartParser)
    with pytest.raises(UnsupportedMediaType):
        select("application/merge-patch+json", [JSONParser()])  # DRF's JSONParser declares no suffix


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("keyed", [True, False])
@pytest.mark.parametrize("content_type", ["*/*", "application/*"])
def test_a_wildcard_post_creates_nothing_and_keeps_the_key_free(content_type: str, keyed: bool) -> None:
    client = APIClient(headers={"X-Client-ID": "negotiation"})
    headers = {"Idempotency-Key": uuid.uuid4().hex} if keyed else {}
    body = b'{"email": "ada@example.com", "name": "Ada"}'
    answer = client.generic("POST", "/v2/users", body, content_type=content_type, headers=headers)
    assert answer.status_code == 415 and answer["Content-Type"] == "application/problem+json"
    assert answer.json()["detail"] == f'Unsupported media type "{content_type}" in request. {ACCEPTED}'
    assert not Customer.objects.exists() and not IdempotencyRecord.objects.exists()
    fixed = client.generic("POST", "/v2/users", body, content_type="application/json", headers=headers)
    assert fixed.status_code == 201 and Customer.objects.count() == 1
