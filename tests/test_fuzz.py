"""Fuzzing (hypothesis) of what reads untrusted input first: the cursor codec, the request
fingerprint and the problem renderer. Example counts are bounded for CI (150 each); raise them by hand, e.g.
``FUZZ_EXAMPLES=10000 python -m pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import base64
import json
import os
import random
from datetime import UTC, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from django.core import signing
from django.test import RequestFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from django_api_conventions.idempotency.fingerprint import canonical_number, request_fingerprint
from django_api_conventions.pagination.cursors import (
    CURSOR_SALT,
    Cursor,
    _b64,
    _binding,
    _mac,
    cursor_macs,
    decode_cursor,
    encode_cursor,
)
from django_api_conventions.problems import RESERVED_MEMBERS, ProblemException, render_problem

pytestmark = pytest.mark.hostile

# Local settings, not a profile: loading a profile here would change every other test file's too.
fuzz = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

factory = RequestFactory()
ORDERING = ("-created_at", "-pk")
ENDPOINT = "invoice-list:/v2/invoices"
FILTERS = "0123456789abcdef"

# Every JSON value, text with lone surrogates and NUL included, numbers of any size.
any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF))
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**60), max_value=10**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | any_text
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(any_text, children, max_size=4),
    max_leaves=25,
)


def decode(token: str) -> Cursor:
    return decode_cursor(token, ordering=ORDERING, endpoint=ENDPOINT, filters=FILTERS)


def assert_invalid_cursor(token: str) -> None:
    try:
        decode(token)
    except ProblemException as problem:
        assert problem.status_code == 400 and problem.problem_type.slug == "invalid-cursor"
        assert problem.errors[0]["parameter"] == "cursor"


# -- the cursor codec --------------------------------------------------------------------------


@fuzz
@given(any_text)
def test_any_text_as_a_cursor_is_an_invalid_cursor_problem_or_a_cursor(token: str) -> None:
    assert_invalid_cursor(token)


@fuzz
@given(st.binary(max_size=300).map(lambda raw: raw.decode("latin-1")))
def test_any_bytes_as_a_cursor(token: str) -> None:
    assert_invalid_cursor(token)


@fuzz
@given(
    json_values
    | st.fixed_dictionaries(
        {
            "v": st.just(1),
            "e": st.just(ENDPOINT),
            "o": st.just(list(ORDERING)),
            "f": st.just(FILTERS),
            "p": st.lists(st.lists(json_scalars, max_size=3), max_size=3) | json_values,
        }
    )
)
def test_any_payload_signed_with_the_secret_is_an_invalid_cursor_problem_or_a_cursor(payload: Any) -> None:
    # A token of Django's signing with the service's key and salt is no cursor: refused, never a 500.
    assert_invalid_cursor(signing.dumps(payload, salt=CURSOR_SALT, compress=True))


def signed_format_2(payload_json: str) -> str:
    """A token of format 2 with the right MAC for the list ``decode`` reads, whatever its payload:
    what only the service itself could make (it holds the key)."""
    context, _hints = _binding(ENDPOINT, None, ORDERING, FILTERS)
    body = base64.urlsafe_b64encode(payload_json.encode()).rstrip(b"=")
    return f"{body.decode()}.{_b64(_mac(cursor_macs()[0], body, context))}"


typed_items = st.lists(json_scalars, max_size=3) | json_values
format_2_payloads = json_values | st.builds(
    lambda direction, hints, position: [2, direction, hints, *position],
    st.sampled_from(["n", "p", "ni", "pi"]) | any_text,
    any_text,
    st.lists(typed_items, max_size=3),
)


@fuzz
@given(format_2_payloads)
def test_any_payload_of_format_2_signed_with_the_secret_is_an_invalid_cursor_problem_or_a_cursor(
    payload: Any,
) -> None:
    assert_invalid_cursor(signed_format_2(json.dumps(payload)))


@pytest.mark.parametrize(
    "position",
    [
        '["u",1]',
        '["u",[1]]',
        '["i"," 1_0 "]',
        '["i","\u0663"]',
        '["m","sNaN"]',
        '["m"," 1 "]',
        '["m",[1,[2],3]]',
        '["b",{}]',
        '["s",[1]]',
        '"nx"',
        '"sy"',
        '["i",1.5]',
        '["n",1]',
        "[]",
        "[" * 5000 + "]" * 5000,
    ],
)
def test_a_signed_position_not_as_this_service_writes_it_is_malformed(position: str) -> None:
    token = signed_format_2(f'[2,"n","",{position},["s","o"]]')
    with pytest.raises(ProblemException) as refused:
        decode(token)
    assert refused.value.status_code == 400 and refused.value.detail == "The cursor is malformed."


@pytest.mark.parametrize("token", [None, 5, ["a"], {}, b"abc.def", b"a:b:c"])
def test_a_cursor_that_is_not_text_is_refused(token: Any) -> None:
    with pytest.raises(ProblemException) as refused:
        decode(token)
    assert refused.value.status_code == 400 and refused.value.problem_type.slug == "invalid-cursor"


# Fixed offsets: Django hands a cursor aware datetimes in UTC. (A zoneinfo datetime in a DST fold
# round-trips to the same instant, but Python compares such datetimes as unequal.)
fixed_offsets = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=11))])
positions = st.tuples(
    st.datetimes(timezones=fixed_offsets)
    | st.dates()
    | st.integers()
    | any_text
    | st.uuids()
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.floats(allow_nan=False)
    | st.none()
    | st.booleans(),
    any_text | st.integers() | st.uuids(),
)


@fuzz
@given(positions, any_text, any_text)
def test_cursors_round_trip_and_stay_bound(position: tuple[Any, Any], endpoint: str, filters: str) -> None:
    token = encode_cursor(Cursor(position, ORDERING, endpoint, filters))
    decoded = decode_cursor(token, ordering=ORDERING, endpoint=endpoint, filters=filters)
    assert decoded.position == position and [type(v) for v in decoded.position] == [type(v) for v in position]
    if endpoint != ENDPOINT or filters != FILTERS:
        with pytest.raises(ProblemException):
            decode(token)


@fuzz
@given(positions, st.data())
def test_any_edit_of_a_cursor_is_rejected(position: tuple[Any, Any], data: st.DataObject) -> None:
    token = encode_cursor(Cursor(position, ORDERING, ENDPOINT, FILTERS))
    start = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    end = data.draw(st.integers(min_value=start, max_value=len(token)))
    replacement = data.draw(
        st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_:", max_size=8)
    )
    edited = token[:start] + replacement + token[end:]
    if edited == token:
        return
    with pytest.raises(ProblemException) as raised:
        decode(edited)
    assert raised.value.problem_type.slug == "invalid-cursor"


# -- the request fingerprint ------------------------------------------------------------------


def fingerprint(body: bytes | str, content_type: str = "application/json") -> str:
    return request_fingerprint(factory.post("/v2/orders", body, content_type=content_type))


def reformatted(value: Any, rng: random.Random) -> str:
    """``value`` as JSON again: keys shuffled, white space anywhere it may go, numbers respelt."""
    space = rng.choice(["", " ", "\n", "\t ", "\r\n  "])
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        members = [f"{space}{json.dumps(k)}{space}:{space}{reformatted(v, rng)}" for k, v in items]
        return "{" + ",".join(members) + space + "}"
    if isinstance(value, list):
        return "[" + ",".join(space + reformatted(item, rng) for item in value) + space + "]"
    if isinstance(value, int) and not isinstance(value, bool):
        return rng.choice([str(value), f"{value}.0", f"{value}e0", f"{value * 10}e-1", f"{value}.000E+0"])
    spelt = json.dumps(value, ensure_ascii=False)
    try:
        spelt.encode()
    except UnicodeEncodeError:  # a lone surrogate is only spelt escaped in UTF-8
        return json.dumps(value)
    return spelt if rng.random() < 0.5 else json.dumps(value)


@fuzz
@given(json_values, st.randoms(use_true_random=False))
def test_key_order_white_space_and_number_spelling_do_not_matter(value: Any, rng: random.Random) -> None:
    assert fingerprint(json.dumps(value)) == fingerprint(reformatted(value, rng))


exact_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**80), max_value=10**80) | any_text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(any_text, children, max_size=3),
    max_leaves=15,
)


@fuzz
@given(exact_values, exact_values)
def test_distinct_bodies_have_distinct_fingerprints(first: Any, second: Any) -> None:
    if json.dumps(first, sort_keys=True) != json.dumps(second, sort_keys=True):
        assert fingerprint(json.dumps(first)) != fingerprint(json.dumps(second))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("12345678901234567890123456789012", "12345678901234567890123456789013"),  # beyond 28 digits
        ("1.0000000000000000000000000000001", "1"),
        ("1e400", "1e401"),
        ("1e-400", "0"),
        ("true", "1"),
        ('"1"', "1"),
        ("0.1", "0.10000000000000001"),
    ],
)
def test_numbers_that_differ_anywhere_differ(first: str, second: str) -> None:
    assert fingerprint(f'{{"amount": {first}}}') != fingerprint(f'{{"amount": {second}}}')


@fuzz
@given(
    st.binary(max_size=300) | json_values.map(lambda value: json.dumps(value).encode()),
    st.sampled_from(["application/json", "application/problem+json", "text/plain", "application/octet-stream"]),
)
def test_any_body_has_a_fingerprint(body: bytes, content_type: str) -> None:
    assert len(fingerprint(body, content_type)) == 64


@pytest.mark.parametrize(
    "number",
    [
        "1e9999999999999999999999999999999",
        "-1E+99999999",
        "1" * 5000,
        "0." + "0" * 5000 + "1",
        "1e-99999999",
        "-0.0",
        "0e999999999999",
    ],
)
def test_extreme_numbers_have_a_short_fingerprint_input(number: str) -> None:
    assert len(fingerprint(f"[{number}]")) == 64
    if "9999999999999999999999999999" not in number:  # Decimal itself refuses that one
        assert len(canonical_number(Decimal(number))) <= len(number) + 101


# -- the problem renderer ---------------------------------------------------------------------

extension_names = any_text.filter(lambda name: name not in RESERVED_MEMBERS)
huge_text = st.sampled_from(["x" * 1_000_000, "\x00" * 10_000, "\ud800" * 10_000, "\U0010ffff" * 100_000])


@fuzz
@given(any_text | huge_text, st.dictionaries(extension_names, json_values | any_text, max_size=5))
def test_any_detail_and_extensions_render_as_a_valid_problem(detail: str, extensions: dict[str, Any]) -> None:
    request = factory.get("/v2/orders", HTTP_X_REQUEST_ID="trace-1")
    response = render_problem(request, ProblemException("bad-request", detail or None, extensions=extensions))
    assert response["Content-Type"] == "application/problem+json"
    text = response.content.decode("ascii")  # escaped: safe whatever a client's decoder does
    body = json.loads(text)
    assert body["type"] == "http://testserver/problems/bad-request"
    assert body["title"] == "Bad request" and body["status"] == 400
    assert body["detail"] == (detail or "Bad request")
    assert body["instance"] == "urn:request:trace-1" and body["trace_id"] == "trace-1"
    assert {name: body[name] for name in extensions} == extensions


@fuzz
@given(st.sampled_from(sorted(RESERVED_MEMBERS)), json_values)
def test_extensions_can_never_overwrite_a_reserved_member(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match="reserved members"):
        ProblemException("bad-request", "x", extensions={name: value})


def test_format_2_binds_every_digit_of_the_filters_hash() -> None:
    # Format 1 carried 16 hex digits of it; a collision of those must not carry a cursor across.
    full = "0123456789abcdef" * 4
    token = encode_cursor(Cursor((1, "o"), ORDERING, ENDPOINT, full))
    assert decode_cursor(token, ordering=ORDERING, endpoint=ENDPOINT, filters=full).position == (1, "o")
    with pytest.raises(ProblemException):
        decode_cursor(token, ordering=ORDERING, endpoint=ENDPOINT, filters=full[:16] + "f" * 48)
