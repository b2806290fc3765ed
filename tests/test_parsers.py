from __future__ import annotations

import contextlib
import copy
import io
import json
import pickle
from decimal import Decimal

import pytest
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError, UnsupportedMediaType

from django_api_conventions.content.parsers import JSONNumber, StrictJSONParser


def parse(raw: bytes, charset: str | None = None, parser: StrictJSONParser | None = None) -> object:
    content_type = "application/json" + (f"; charset={charset}" if charset else "")
    request = RequestFactory().post("/", raw, content_type="application/json")
    request.META["CONTENT_TYPE"] = content_type
    context = {"request": request, "encoding": "latin-1"}
    return (parser or StrictJSONParser()).parse(io.BytesIO(raw), content_type, context)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1', "Malformed JSON: Expecting ',' delimiter at line 1, column 8."),
        (b"", "Malformed JSON: Expecting value at line 1, column 1."),
        (b'{"a": "\xff"}', "The body is not valid UTF-8: byte 7 is invalid."),
        (b'{"a": "\\ud800"}', "Malformed JSON: a string holds a lone UTF-16 surrogate."),
        (b'{"\\udfff": 1}', "Malformed JSON: a string holds a lone UTF-16 surrogate."),
        (b'{"name": "a\\u0000b"}', "A string of the body holds a NUL character (\\u0000)."),
        (b'{"a": 1, "a": 2}', "Malformed JSON: duplicate object key 'a'."),
        (b'{"a": NaN}', "Malformed JSON: NaN is not a JSON number."),
        (b"[Infinity]", "Malformed JSON: Infinity is not a JSON number."),
        (b"[" * 100_000 + b"]" * 100_000, "The JSON body is nested deeper than 64 levels."),
        (b"[" * 65 + b"]" * 65, "The JSON body is nested deeper than 64 levels."),
        (b"1" * 5000, "Malformed JSON: an integer has 5000 digits, more than the 4300 accepted."),
        (b"-" + b"1" * 5000, "Malformed JSON: an integer has 5000 digits, more than the 4300 accepted."),
        (b'{"a": 1e999999}', "Malformed JSON: the number 1e999999 is too large."),
        (b"[-1E400]", "Malformed JSON: the number -1E400 is too large."),
        (b"1" * 400 + b".5", "Malformed JSON: the number 11111111111111111111... (402 characters) is too large."),
    ],
)
def test_bad_bodies_are_parse_errors(raw: bytes, message: str) -> None:
    with pytest.raises(ParseError) as raised:
        parse(raw)
    assert str(raised.value.detail) == message


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert parse(b"[" * 64 + b"]" * 64) is not None
    assert parse(b'{"a": {"b": [1, {"c": null}]}}') == {"a": {"b": [1, {"c": None}]}}


class ShallowJSONParser(StrictJSONParser):
    max_depth = 2


def test_a_subclass_sets_the_depth_limit() -> None:
    assert parse(b'{"a": [1]}', parser=ShallowJSONParser()) == {"a": [1]}
    with pytest.raises(ParseError, match="deeper than 2"):
        parse(b'{"a": [[1]]}', parser=ShallowJSONParser())
    with pytest.raises(ParseError, match="deeper than 2"):
        parse(b"[" * 100_000 + b"]" * 100_000, parser=ShallowJSONParser())


@pytest.mark.parametrize("charset", ["latin-1", "zlib", "hex", "no-such-charset"])
def test_only_utf8_is_accepted(charset: str) -> None:
    with pytest.raises(ParseError, match="must be encoded in UTF-8"):
        parse(b"{}", charset)


def test_utf8_spellings_and_real_surrogate_pairs_are_accepted() -> None:
    assert parse('{"name": "Zoë \\ud83d\\ude00"}'.encode(), "UTF8") == {"name": "Zoë \U0001f600"}


storable_text = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | storable_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(storable_text, children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_any_shallow_json_round_trips(value: object) -> None:
    assert parse(json.dumps(value).encode()) == value


@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_escape_as_anything_but_a_parse_error(raw: bytes) -> None:
    with contextlib.suppress(ParseError):
        parse(raw)


def test_default_charset_does_not_apply_to_json() -> None:
    # The context's encoding comes from DEFAULT_CHARSET (latin-1 above); a client that declares
    # nothing sends UTF-8.
    assert parse('{"name": "Zoë"}'.encode()) == {"name": "Zoë"}


@pytest.mark.parametrize("text", ["9.9999999999999999999", "399.5", "1e2", "-0.0", "10.0", "1E-400", "0.1"])
def test_a_number_with_a_fraction_or_exponent_keeps_its_digits(text: str) -> None:
    # A float rounds 9.9999999999999999999 to 10.0, and a field reading it then charged 10.
    number = parse(f'{{"amount": {text}}}'.encode())["amount"]  # type: ignore[index]
    assert isinstance(number, JSONNumber) and isinstance(number, float)
    assert str(number) == text and number.exact == Decimal(text)
    assert number == float(text)  # a float still: arithmetic and comparisons as before
    assert json.dumps(number) == json.dumps(float(text))  # and in responses
    assert str(copy.deepcopy(number)) == text
    assert str(pickle.loads(pickle.dumps(number))) == text  # noqa: S301 -- our own bytes


def test_integers_stay_ints() -> None:
    assert parse(b'{"a": 10, "b": -3}') == {"a": 10, "b": -3}
    assert type(parse(b"[10]")[0]) is int  # type: ignore[index]


@pytest.mark.parametrize("media_type", ["*/*", "application/*", "*/json", "*/*; charset=utf-8"])
def test_a_wildcard_media_type_is_415_whichever_negotiation_chose_the_parser(media_type: str) -> None:
    # DRF's own negotiation hands a */* body to the first parser: this one refuses it.
    request = RequestFactory().post("/", b"{}", content_type=media_type)
    with pytest.raises(UnsupportedMediaType) as raised:
        StrictJSONParser().parse(io.BytesIO(b"{}"), media_type, {"request": request})
    assert str(raised.value.detail) == (
        f'Unsupported media type "{media_type}" in request. Accepted: application/json, any type ending in +json.'
    )
