"""Strict number fields: a number is taken exactly as the client wrote it, or refused."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from rest_framework import serializers

from django_api_conventions.content.fields import StrictDecimalField, StrictIntegerField
from django_api_conventions.content.parsers import StrictJSONParser


def from_json(body: str) -> Any:
    request = RequestFactory().post("/", body, content_type="application/json")
    return StrictJSONParser().parse(io.BytesIO(body.encode()), "application/json", {"request": request})


class Amounts(serializers.Serializer):
    amount = StrictIntegerField(min_value=1, max_value=2**63 - 1)
    price = StrictDecimalField(max_digits=8, decimal_places=2, required=False)


def errors_of(body: str) -> dict[str, Any]:
    serializer = Amounts(data=from_json(body))
    assert not serializer.is_valid()
    return {name: [(str(error), error.code) for error in errors] for name, errors in serializer.errors.items()}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("500", 500),
        ('"500"', 500),
        ("10.0", 10),
        ("1e2", 100),
        ("1.5e1", 15),
        ("9223372036854775807", 2**63 - 1),
    ],
)
def test_an_integer_field_takes_integers_spelt_as_json_does(raw: str, expected: int) -> None:
    serializer = Amounts(data=from_json(f'{{"amount": {raw}}}'))
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data["amount"] == expected and type(serializer.validated_data["amount"]) is int


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        # DRF's IntegerField read each of these as a valid amount (10, 1000, 12, 12, 12, 1000 ...).
        ("9.9999999999999999999", "Must be an integer; 9.9999999999999999999 is not."),
        ("399.5", "Must be an integer; 399.5 is not."),
        ("10.00000000000000000001", "Must be an integer; 10.00000000000000000001 is not."),
        ('"1_000"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "1_000" is not.'),
        (
            '"\u0661\u0662"',
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "\u0661\u0662" is not.',
        ),
        (
            '"\uff11\uff12"',
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "\uff11\uff12" is not.',
        ),
        ('" 12"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; " 12" is not.'),
        ('"12\\n"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "12\n" is not.'),
        ('"+12"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "+12" is not.'),
        ('"012"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "012" is not.'),
        ('"12.0"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "12.0" is not.'),
        ('"1e3"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "1e3" is not.'),
        (
            '"' + "1" * 50 + '_"',
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "'
            + "1" * 39
            + "... is not.",
        ),
    ],
)
def test_an_integer_field_refuses_other_spellings_and_fractions(raw: str, detail: str) -> None:
    assert errors_of(f'{{"amount": {raw}}}') == {"amount": [(detail, "not_an_integer")]}


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        ("true", "A valid integer is required."),
        ("null", "This field may not be null."),
        ("[1]", "A valid integer is required."),
        ("0", "Ensure this value is greater than or equal to 1."),
    ],
)
def test_an_integer_field_keeps_drfs_other_answers(raw: str, detail: str) -> None:
    assert errors_of(f'{{"amount": {raw}}}')["amount"][0][0] == detail


def test_plain_python_numbers_are_read_exactly() -> None:
    field = StrictIntegerField()
    assert field.run_validation(Decimal("12.000")) == 12
    assert field.run_validation(12.0) == 12
    for value in (Decimal("12.5"), Decimal("1e999999999"), Decimal("NaN"), float("inf")):
        with pytest.raises(serializers.ValidationError):
            field.run_validation(value)


def test_drfs_integer_field_needs_the_parser_to_keep_the_digits() -> None:
    # Why the parser keeps them: behind a float parser, 9.9999999999999999999 arrives as 10.0.
    assert serializers.IntegerField().run_validation(float("9.9999999999999999999")) == 10
    with pytest.raises(serializers.ValidationError):
        serializers.IntegerField().run_validation(from_json("[9.9999999999999999999]")[0])


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12.5", Decimal("12.50")),
        ('"12.5"', Decimal("12.50")),
        ("7", Decimal("7.00")),
        ("-0.01", Decimal("-0.01")),
        ("1.2e1", Decimal("12.00")),
        ('"-3"', Decimal("-3.00")),
    ],
)
def test_a_decimal_field_takes_exact_json_numbers(raw: str, expected: Decimal) -> None:
    serializer = Amounts(data=from_json(f'{{"amount": 1, "price": {raw}}}'))
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data["price"] == expected and str(serializer.validated_data["price"]) == str(expected)


@pytest.mark.parametrize(
    ("raw", "detail", "code"),
    [
        (
            '"1_000"',
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; "1_000" is not.',
            "not_a_decimal",
        ),
        (
            '"\u0661\u0662.5"',
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; '
            '"\u0661\u0662.5" is not.',
            "not_a_decimal",
        ),
        (
            '" 12.5"',
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; " 12.5" is not.',
            "not_a_decimal",
        ),
        (
            '"NaN"',
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; "NaN" is not.',
            "not_a_decimal",
        ),
        (
            '""',
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; "" is not.',
            "not_a_decimal",
        ),
        # Never rounded to two places: a float parser made this 1.0, DRF's quantize would not have told.
        ("0.99999999999999999999", "Ensure that there are no more than 8 digits in total.", "max_digits"),
        ("12.345", "Ensure that there are no more than 2 decimal places.", "max_decimal_places"),
        ("true", "A valid number is required.", "invalid"),
    ],
)
def test_a_decimal_field_refuses_other_spellings_and_extra_places(raw: str, detail: str, code: str) -> None:
    assert errors_of(f'{{"amount": 1, "price": {raw}}}') == {"price": [(detail, code)]}


def test_a_decimal_field_without_max_digits_refuses_what_the_context_cannot_hold() -> None:
    # DRF's quantize raises InvalidOperation past the context's 28 digits: a 500.
    field = StrictDecimalField(max_digits=None, decimal_places=2)
    with pytest.raises(serializers.ValidationError) as raised:
        field.run_validation("1" * 40)
    assert raised.value.detail[0].code == "not_a_decimal"  # type: ignore[index]


def test_a_blank_decimal_is_not_null_and_localize_is_refused() -> None:
    with pytest.raises(serializers.ValidationError):
        StrictDecimalField(max_digits=5, decimal_places=2, allow_null=True).run_validation(" ")
    with pytest.raises(ImproperlyConfigured, match="localize=True is not supported"):
        StrictDecimalField(max_digits=5, decimal_places=2, localize=True)


def test_the_openapi_schema_is_drfs() -> None:
    from drf_spectacular.openapi import AutoSchema

    schema = AutoSchema()
    assert schema._map_serializer_field(StrictIntegerField(min_value=1, max_value=2**63 - 1), "request") == {
        "type": "integer",
        "format": "int64",
        "minimum": 1,
        "maximum": 2**63 - 1,
    }
    assert schema._map_serializer_field(StrictDecimalField(max_digits=8, decimal_places=2), "request") == (
        schema._map_serializer_field(serializers.DecimalField(max_digits=8, decimal_places=2), "request")
    )
