from __future__ import annotations

import json
from decimal import Decimal

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from django_api_conventions.idempotency.fingerprint import canonical_json, request_fingerprint

factory = RequestFactory()


def json_fingerprint(body: str, path: str = "/v2/orders", method: str = "post") -> str:
    return request_fingerprint(getattr(factory, method)(path, body, content_type="application/json"))


def test_json_key_order_white_space_and_number_spelling_do_not_matter() -> None:
    first = json_fingerprint('{"amount": 100, "currency": "eur", "meta": {"a": 1.0, "b": [1e2, 2]}}')
    again = json_fingerprint('{ "meta" : {"b":[100,2.00],"a":1}, "currency":"eur","amount":1E2 }')
    assert first == again


def test_values_methods_and_paths_do_matter() -> None:
    base = json_fingerprint('{"amount": 100}')
    assert json_fingerprint('{"amount": 101}') != base
    assert json_fingerprint('{"amount": "100"}') != base
    assert json_fingerprint('{"amount": 100}', path="/v2/users") != base
    assert json_fingerprint('{"amount": 100}', method="patch") != base


def test_malformed_json_is_fingerprinted_by_its_bytes() -> None:
    assert json_fingerprint('{"a": ') == json_fingerprint('{"a": ')
    assert json_fingerprint('{"a": ') != json_fingerprint('{"a":  ')


def test_form_bodies_are_hashed_in_a_stable_order() -> None:
    first = request_fingerprint(factory.post("/f", "b=2&a=1&a=0", content_type="application/x-www-form-urlencoded"))
    again = request_fingerprint(factory.post("/f", "a=1&a=0&b=2", content_type="application/x-www-form-urlencoded"))
    assert first == again


def test_multipart_file_content_matters() -> None:
    def upload(content: bytes) -> str:
        return request_fingerprint(factory.post("/f", {"name": "x", "file": SimpleUploadedFile("a.txt", content)}))

    assert upload(b"one") == upload(b"one")
    assert upload(b"one") != upload(b"two")


def test_other_bodies_byte_for_byte() -> None:
    def raw(body: bytes) -> str:
        return request_fingerprint(factory.post("/f", body, content_type="application/octet-stream"))

    assert raw(b"abc") == raw(b"abc") and raw(b"abc") != raw(b"abd")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_values, st.integers(min_value=0, max_value=4))
def test_canonical_form_ignores_formatting(value: object, indent: int) -> None:
    compact = json.loads(json.dumps(value), parse_float=Decimal, parse_int=Decimal)
    pretty = json.loads(json.dumps(value, indent=indent, sort_keys=True), parse_float=Decimal, parse_int=Decimal)
    assert canonical_json(compact) == canonical_json(pretty)
