from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from django_api_conventions.pagination.cursors import CURSOR_SALT, Cursor, decode_cursor, encode_cursor
from django_api_conventions.problems import ProblemException

ORDERING = ("-created_at", "-pk")

positions = st.tuples(
    st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30))])),
    st.one_of(
        st.text(),
        st.integers(),
        st.uuids(),
        st.decimals(allow_nan=False, allow_infinity=False),
        st.dates(),
        st.none(),
        st.booleans(),
        st.floats(allow_nan=False),
    ),
)


def decode(token: str, **overrides: str) -> Cursor:
    options = {"endpoint": "invoice-list:/v2/invoices", "filters": "f" * 16, **overrides}
    return decode_cursor(token, ordering=ORDERING, **options)


def make(position: tuple[object, ...]) -> str:
    return encode_cursor(Cursor(position, ORDERING, "invoice-list:/v2/invoices", "f" * 16))


@given(positions)
def test_positions_round_trip_with_their_types(position: tuple[object, ...]) -> None:
    decoded = decode(make(position)).position
    assert decoded == position
    assert [type(v) for v in decoded] == [type(v) for v in position]
    assert decoded[0].utcoffset() == position[0].utcoffset()  # type: ignore[union-attr]


def test_microseconds_survive() -> None:
    moment = datetime(2026, 11, 22, 4, 21, 27, 123456, tzinfo=UTC)
    assert decode(make((moment, "inv_1"))).position[0].microsecond == 123456


@given(st.integers(min_value=0), st.integers(min_value=1, max_value=255))
def test_any_altered_byte_is_rejected(index_seed: int, delta: int) -> None:
    token = make((datetime(2026, 1, 1, tzinfo=UTC), "inv_1"))
    index = index_seed % len(token)
    altered = token[:index] + chr((ord(token[index]) + delta) % 128 or 1) + token[index + 1 :]
    if altered == token:
        return
    with pytest.raises(ProblemException) as raised:
        decode(altered)
    assert raised.value.status_code == 400 and raised.value.problem_type.slug == "invalid-cursor"


@pytest.mark.parametrize("junk", ["", "abc", "a" * 5000, "null", "e30", "\x00\x01", "éé"])
def test_junk_is_rejected(junk: str) -> None:
    with pytest.raises(ProblemException, match="not issued by this service"):
        decode(junk)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"endpoint": "order-list:/v2/orders"}, "another list"),
        ({"filters": "0" * 16}, "other filters"),
    ],
)
def test_cursors_are_bound_to_their_list_and_filters(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(ProblemException, match=message):
        decode(make((date(2026, 1, 1), 1)), **overrides)


def test_cursors_are_bound_to_their_ordering() -> None:
    token = make((Decimal("1.5"), uuid.uuid4()))
    with pytest.raises(ProblemException, match="another ordering"):
        decode_cursor(token, ordering=("created_at", "pk"), endpoint="invoice-list:/v2/invoices", filters="f" * 16)


def test_a_cursor_signed_with_another_salt_is_rejected() -> None:
    token = make((1, 2))
    decode(token)
    with pytest.raises(ProblemException, match="not issued"):
        decode(token, salt="rotated")


def test_a_token_of_djangos_signing_is_not_a_cursor() -> None:
    from django.core import signing

    token = signing.dumps({"v": 1, "p": []}, salt=CURSOR_SALT, compress=True)
    with pytest.raises(ProblemException, match="not issued by this service or was altered"):
        decode(token)


def test_unsupported_values_are_a_programming_error() -> None:
    with pytest.raises(TypeError, match="Cannot put a object"):
        make((object(), 1))


@pytest.mark.parametrize("direction", ["next", "previous"])
@pytest.mark.parametrize("inclusive", [False, True])
def test_direction_sort_and_inclusiveness_round_trip(direction: str, inclusive: bool) -> None:
    cursor = Cursor(
        (datetime(2026, 1, 1, tzinfo=UTC), "inv_1"),
        ORDERING,
        "invoice-list:/v2/invoices",
        "f" * 16,
        direction,
        "-created_at",
        inclusive,
    )
    decoded = decode_cursor(
        encode_cursor(cursor),
        ordering=ORDERING,
        endpoint="invoice-list:/v2/invoices",
        filters="f" * 16,
        sort="-created_at",
    )
    assert decoded == cursor and decoded.backward is (direction == "previous")


def test_cursors_are_bound_to_their_sort() -> None:
    token = encode_cursor(Cursor((1, "inv_1"), ORDERING, "e", "f", sort="amount_due"))
    for other in ("-amount_due", None):
        with pytest.raises(ProblemException) as raised:
            decode_cursor(token, ordering=ORDERING, endpoint="e", filters="f", sort=other)
        assert raised.value.detail == (
            "The cursor was issued for another sort: send the same sort as for the page before."
        )


@pytest.mark.parametrize("position", [(datetime(2026, 1, 1, 0, 0, 10, 123456, tzinfo=UTC), "ord_1"), (1, 2)])
def test_a_cursor_is_its_payload_and_one_mac_in_base64url(position: tuple[object, ...]) -> None:
    """``<payload>.<mac>``, base64url without padding (no ``:``, nothing a link escapes);
    the list, sort, ordering and filters are in the MAC, not spelled out in the payload."""
    import base64
    import json
    import re

    token = make(position)
    body, mac = token.split(".")
    assert re.fullmatch(r"[A-Za-z0-9_-]+", body) and re.fullmatch(r"[A-Za-z0-9_-]{43}", mac)
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert payload[:2] == [2, "n"] and len(payload) == 3 + len(position)
    assert "invoice-list" not in json.dumps(payload) and "created_at" not in json.dumps(payload)


@pytest.mark.parametrize("part", ["body", "mac"])
def test_a_cursor_whose_hints_are_another_lists_is_still_refused(part: str) -> None:
    """The hints in the payload only word the refusal: a token given another list's hints, or
    another list's cursor given ours, fails the MAC all the same."""
    import base64
    import json

    ours, theirs = make((1, "inv_1")), encode_cursor(Cursor((1, "inv_1"), ORDERING, "order-list:/v2/orders", "f" * 16))

    def hints_of(token: str) -> str:
        body = token.split(".")[0]
        return str(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))[2])

    body, mac = ours.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload[2] = hints_of(theirs) if part == "body" else payload[2]
    swapped = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).rstrip(b"=").decode()
    token = f"{swapped}.{mac}" if part == "body" else f"{theirs.split('.')[0]}.{mac}"
    with pytest.raises(ProblemException) as raised:
        decode(token)
    assert raised.value.status_code == 400 and raised.value.problem_type.slug == "invalid-cursor"


def test_a_deeply_nested_payload_is_refused_not_a_500() -> None:
    import base64

    body = base64.urlsafe_b64encode(b"[" * 2900).rstrip(b"=").decode()
    with pytest.raises(ProblemException, match="not issued by this service"):
        decode(f"{body}.{'A' * 43}")


def test_a_rotated_secret_key_keeps_cursors_of_the_old_one_through_its_fallbacks(settings: object) -> None:
    token = make((1, 2))
    old_key = settings.SECRET_KEY  # type: ignore[attr-defined]
    settings.SECRET_KEY = "a-new-secret-key-" + "x" * 40  # type: ignore[attr-defined]
    with pytest.raises(ProblemException, match="not issued"):
        decode(token)
    settings.SECRET_KEY_FALLBACKS = [old_key]  # type: ignore[attr-defined]
    assert decode(token).position == (1, 2)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "limit=5",
        "cursor=old&limit=5",
        "a=1&a=2&z=%20x&cursor=old",
        "b=&%C3%A9t%C3%A9=%E2%82%AC&limit=3",
        "zz=1&aa=2&cursor=x+y",
        "q=a%3Ab&format=json",
    ],
)
@pytest.mark.parametrize("cursor", ["abc.def:ghi:jkl", ".eJy_x-1:1a2:sig", "not a token/?&="])
def test_links_are_those_of_drf_replace_query_param(rf: object, query: str, cursor: str) -> None:
    from rest_framework.request import Request
    from rest_framework.utils.urls import replace_query_param

    from django_api_conventions.pagination import KeysetPagination

    request = Request(rf.get(f"/v2/orders?{query}"))  # type: ignore[attr-defined]
    paginator = KeysetPagination()
    paginator.request = request
    expected = replace_query_param(request.build_absolute_uri(), "cursor", cursor)
    assert paginator._link(cursor) == expected
    assert paginator._link(cursor) == expected  # the split URL reused
