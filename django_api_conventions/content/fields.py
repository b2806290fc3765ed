"""Strict number fields: a number is read exactly as the client wrote it, or refused; never rounded.

DRF's ``IntegerField`` takes ``"1_000"``, ``"١٢"`` (Arabic-Indic digits) and ``" 12 "``, and,
behind a float parser, reads ``9.9999999999999999999`` as 10; ``DecimalField`` is as lenient.
These fields take a JSON number from its exact digits, or a string holding a JSON number's own
spelling in ASCII digits (``"1000"``, ``"-12.50"``); anything else is a 422 with the code
``not_an_integer`` or ``not_a_decimal``.
"""

from __future__ import annotations

import re
import sys
from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.fields import Field

from .parsers import JSONNumber

#: A JSON integer's spelling, and a JSON number's (RFC 8259 section 6), ASCII only.
_INTEGER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: Longest value quoted back in an error's detail.
_LONGEST_ECHO = 40


def exact_number(value: Any) -> Decimal | None:
    """The exact number ``value`` holds, or ``None`` when it is no number (a string, a boolean...).

    A :class:`~.parsers.JSONNumber` gives its own digits, a plain ``float`` its ``repr()``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, JSONNumber):
        return value.exact
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    return None


def _echo(value: Any) -> str:
    text = f'"{value}"' if isinstance(value, str) else str(value)
    return text if len(text) <= _LONGEST_ECHO else f"{text[:_LONGEST_ECHO]}..."


class _StrictNumber(Field[Any, Any, Any, Any]):
    MAX_STRING_LENGTH: int
    #: The key of the refusal's message and its code; ``<key>_string`` for a string.
    _refusal: str
    _spelling: re.Pattern[str]

    def _exact(self, data: Any) -> Decimal:
        """``data`` as a finite exact number: a number, or a string in a JSON number's spelling."""
        if isinstance(data, str):
            if len(data) > self.MAX_STRING_LENGTH:
                self.fail("max_string_length")
            if not self._spelling.fullmatch(data):
                self._refuse(f"{self._refusal}_string", data)
            return Decimal(data)
        exact = exact_number(data)
        if exact is None:
            self.fail("invalid")
        if not exact.is_finite():
            self._refuse(self._refusal, data)
        return exact

    def _refuse(self, key: str, value: Any) -> NoReturn:
        message = self.error_messages[key].format(value=_echo(value))
        raise serializers.ValidationError(message, code=self._refusal)


class StrictIntegerField(_StrictNumber, serializers.IntegerField):
    """``IntegerField`` that takes a JSON number that is exactly an integer (``10.0``, ``1e2``)
    or a string of ASCII digits (``"1000"``), and refuses every other spelling."""

    _refusal = "not_an_integer"
    _spelling = _INTEGER_TEXT
    default_error_messages = {
        "not_an_integer": _("Must be an integer; {value} is not."),
        "not_an_integer_string": _(
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; {value} is not.'
        ),
    }

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        exact = self._exact(data)
        # An exponent past int()'s digit limit is refused before int() spells it out.
        if exact.adjusted() >= sys.get_int_max_str_digits() or exact != exact.to_integral_value():
            self._refuse("not_an_integer", data)
        return int(exact)


class StrictDecimalField(_StrictNumber, serializers.DecimalField):
    """``DecimalField`` that takes a JSON number from its exact digits, or a string holding a JSON
    number's spelling (``"12.50"``), and refuses every other spelling.

    Extra places or digits are a 422, never rounded; a blank string is not ``null``;
    ``localize=True`` is not supported.
    """

    _refusal = "not_a_decimal"
    _spelling = _NUMBER_TEXT
    default_error_messages = {
        "not_a_decimal": _("Must be a decimal number; {value} is not."),
        "not_a_decimal_string": _(
            'Must be a decimal number: a JSON number, or a string such as "12.50" in ASCII digits; {value} is not.'
        ),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("localize"):
            raise ImproperlyConfigured("StrictDecimalField reads JSON's spelling only: localize=True is not supported.")
        super().__init__(*args, **kwargs)

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        # DecimalField reads a blank string as null when allow_null is set: a guess.
        return Field.validate_empty_values(self, data)

    def to_internal_value(self, data: Any) -> Decimal:
        value = self.validate_precision(self._exact(data))
        try:
            return self.quantize(value)  # only pads: validate_precision refused extra places
        except InvalidOperation:  # more digits than the decimal context holds (max_digits unset)
            self._refuse("not_a_decimal", data)


__all__ = ["StrictDecimalField", "StrictIntegerField", "exact_number"]
