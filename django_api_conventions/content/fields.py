"""Strict number fields: a number is read exactly as the client wrote it, or refused; never rounded.

DRF's ``IntegerField`` reads ``int(str(value))`` after dropping a trailing ``.0``, so it takes
``"1_000"`` as 1000, ``"١٢"`` (Arabic-Indic digits) as 12 and ``" 12 "`` as 12, and, behind a
float parser, ``9.9999999999999999999`` as 10. ``DecimalField`` likewise reads ``Decimal(str(value).strip())``.
These fields accept one spelling per number:

- a JSON number: an integer, or a number with a fraction or an exponent read from its exact
  digits (:class:`~.parsers.JSONNumber`); for :class:`StrictIntegerField` it must be exactly an
  integer (``10.0`` and ``1e2`` are, ``9.9999999999999999999`` and ``399.5`` are not);
- a string holding a JSON number's own spelling in ASCII digits (``"1000"``, ``"-12.50"``): no
  ``_``, no white space, no ``+``, no leading zero, no other script's digits.

Anything else is a 422 whose ``errors`` item names the value and has the code
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

    A :class:`~.parsers.JSONNumber` gives its own digits. A plain ``float`` (from another parser,
    or from Python code) gives its shortest spelling, ``repr()``: the digits the client sent, if
    its parser did not round them already.
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


class StrictIntegerField(serializers.IntegerField):
    """``IntegerField`` that takes a JSON integer, a JSON number that is exactly an integer, or a
    string of ASCII digits (``"1000"``), and refuses every other spelling with ``not_an_integer``.

    ``min_value``, ``max_value`` and the OpenAPI schema are ``IntegerField``'s.
    """

    default_error_messages = {
        "not_an_integer": _("Must be an integer; {value} is not."),
        "not_an_integer_string": _(
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; {value} is not.'
        ),
    }

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        if isinstance(data, str):
            if len(data) > self.MAX_STRING_LENGTH:
                self.fail("max_string_length")
            if not _INTEGER_TEXT.fullmatch(data):
                self._refuse("not_an_integer_string", data)
            return int(data)
        exact = exact_number(data)
        if exact is None:
            self.fail("invalid")
        # An exponent past int()'s digit limit is refused before int() spells it out.
        if (
            not exact.is_finite()
            or exact.adjusted() >= sys.get_int_max_str_digits()
            or (exact != exact.to_integral_value())
        ):
            self._refuse("not_an_integer", data)
        return int(exact)

    def _refuse(self, key: str, value: Any) -> NoReturn:
        message = self.error_messages[key].format(value=_echo(value))
        raise serializers.ValidationError(message, code="not_an_integer")


class StrictDecimalField(serializers.DecimalField):
    """``DecimalField`` that takes a JSON number from its exact digits, or a string holding a JSON
    number's spelling (``"12.50"``), and refuses every other spelling with ``not_a_decimal``.

    More decimal places than ``decimal_places`` or more digits than ``max_digits`` are a 422, as
    in DRF, never rounded; a blank string is not read as ``null`` (send ``null``).
    ``localize=True`` is not supported: the separators are JSON's.
    """

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
        if isinstance(data, str):
            if len(data) > self.MAX_STRING_LENGTH:
                self.fail("max_string_length")
            if not _NUMBER_TEXT.fullmatch(data):
                self._refuse("not_a_decimal_string", data)
            value = Decimal(data)
        else:
            exact = exact_number(data)
            if exact is None:
                self.fail("invalid")
            if not exact.is_finite():
                self._refuse("not_a_decimal", data)
            value = exact
        value = self.validate_precision(value)
        try:
            return self.quantize(value)  # only pads: validate_precision refused extra places
        except InvalidOperation:  # more digits than the decimal context holds (max_digits unset)
            self._refuse("not_a_decimal", data)

    def _refuse(self, key: str, value: Any) -> NoReturn:
        message = self.error_messages[key].format(value=_echo(value))
        raise serializers.ValidationError(message, code="not_a_decimal")


__all__ = ["StrictDecimalField", "StrictIntegerField", "exact_number"]
