"""A JSON parser that answers every bad body with a 400, never a 500; body size limits per view."""

from __future__ import annotations

import codecs
import json
import math
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import IO, Any, TypeVar

from django.utils.http import parse_header_parameters
from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from ..http.accept import MAX_MEDIA_RANGE_LENGTH
from ..http.request_attributes import http_request_of
from .negotiation import refuse_wildcard_media_type, unsupported_media_type

__all__ = ["JSONNumber", "StrictJSONParser", "max_body_bytes"]

_ViewFunction = TypeVar("_ViewFunction", bound=Callable[..., Any])


def max_body_bytes(limit: int) -> Callable[[_ViewFunction], _ViewFunction]:
    """Let a function view take a request body of up to ``limit`` bytes, whatever
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` says: ``@max_body_bytes(50 * 1024 * 1024)``, above
    ``@api_view``. A class-based view sets the class attribute ``max_body_bytes`` instead.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"max_body_bytes takes a number of bytes (an int of at least 0), not {limit!r}.")

    def decorate(view: _ViewFunction) -> _ViewFunction:
        view.max_body_bytes = limit  # type: ignore[attr-defined]  # read by the body-limit middleware
        return view

    return decorate


def view_body_limit(view: Callable[..., Any]) -> int | None:
    """The ``max_body_bytes`` a resolved view declares (decorator, ``as_view()`` keyword or
    class attribute), else ``None``."""
    limit = getattr(view, "max_body_bytes", None)
    if limit is None:
        initkwargs = getattr(view, "initkwargs", None) or getattr(view, "view_initkwargs", None) or {}
        limit = initkwargs.get("max_body_bytes")
    if limit is None:
        view_class = getattr(view, "cls", None) or getattr(view, "view_class", None)
        limit = getattr(view_class, "max_body_bytes", None)
    return limit


class StrictJSONParser(JSONParser):
    """DRF's ``JSONParser`` made strict and safe.

    Rejects (400 ``malformed-request``, with the position of the fault): invalid UTF-8,
    malformed JSON, ``NaN`` / ``Infinity``, numbers too large for a float (``1e999999``, which
    the stock parser reads as ``inf``), duplicate object keys, integers beyond Python's digit
    limit, and nesting deeper than :attr:`max_depth` (a 500 in the stock parser).

    Keeps numbers exact: a number with a fraction or an exponent is a :class:`JSONNumber`.
    Accepts ``application/json`` and any ``+json`` type; a wildcard Content-Type is a 415.
    """

    #: The structured syntax suffix (RFC 6839) of the other media types this parser reads.
    structured_syntax_suffix = "+json"
    #: Deepest nesting of arrays and objects accepted (Python's recursion limit still bounds it).
    max_depth: int = 64

    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        accepted = [self.media_type, f"*/*{self.structured_syntax_suffix}"]
        refuse_wildcard_media_type(media_type, accepted)
        charset = _declared_charset(parser_context, accepted) or "utf-8"
        try:
            codec = codecs.lookup(charset).name
        except LookupError:
            codec = charset
        if codec != "utf-8":
            # RFC 8259; and a codec such as zlib would slip past DATA_UPLOAD_MAX_MEMORY_SIZE.
            raise ParseError(gettext("JSON must be encoded in UTF-8, not {charset}.").format(charset=repr(charset)))
        raw = stream.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            detail = gettext("The body is not valid UTF-8: byte {index} is invalid.").format(index=exc.start)
            raise ParseError(detail) from None
        try:
            if text.startswith("\ufeff"):  # refused as json.loads() refuses it
                raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
            data = _STRICT_DECODER.decode(text)
        except json.JSONDecodeError as exc:
            # The json module's own words (exc.msg) stay English: no catalogue translates them.
            raise ParseError(
                gettext("Malformed JSON: {error} at line {line}, column {column}.").format(
                    error=exc.msg, line=exc.lineno, column=exc.colno
                )
            ) from None
        except RecursionError:
            raise ParseError(_too_deep(self.max_depth)) from None
        except ValueError as exc:  # our hooks
            raise ParseError(gettext("Malformed JSON: {error}").format(error=exc)) from None
        _check_structure(data, self.max_depth)
        return data


def _declared_charset(parser_context: Mapping[str, Any] | None, accepted: list[str]) -> str | None:
    # Not DEFAULT_CHARSET: it says nothing of a client's JSON. A Content-Type too long to read
    # is a 415 (DRF before 3.18.1 lets one of any length through).
    request = (parser_context or {}).get("request")
    content_type = getattr(http_request_of(request), "META", {}).get("CONTENT_TYPE", "")
    if len(content_type) > MAX_MEDIA_RANGE_LENGTH:
        raise unsupported_media_type(content_type, accepted)
    return parse_header_parameters(content_type)[1].get("charset") or None


def _too_deep(maximum: int) -> str:
    return gettext("The JSON body is nested deeper than {maximum} levels.").format(maximum=maximum)


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(gettext("duplicate object key {key}.").format(key=repr(key)))
        result[key] = value
    return result


def _reject_constant(name: str) -> None:
    raise ValueError(gettext("{name} is not a JSON number.").format(name=name))


class JSONNumber(float):
    """A JSON number with a fraction or an exponent: a ``float`` that keeps the client's spelling.

    It works wherever a float does, while ``str()`` gives the exact text
    (``"9.9999999999999999999"`` where the float is ``10.0``), which DRF's ``IntegerField`` and
    ``DecimalField`` read; :attr:`exact` is that text as a ``Decimal``. ``==`` stays the float's.
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> JSONNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[JSONNumber], tuple[str]]:  # copy and pickle keep the text
        return type(self), (self.text,)

    @property
    def exact(self) -> Decimal:
        return Decimal(self.text)


def _exact_float(text: str) -> JSONNumber:
    value = JSONNumber(text)
    if not math.isfinite(value):  # float("1e999999") is inf: no client meant that
        raise ValueError(gettext("the number {number} is too large.").format(number=_abridged(text)))
    return value


def _bounded_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # over sys.get_int_max_str_digits(): the conversion itself is quadratic
        raise ValueError(
            gettext("an integer has {digits} digits, more than the {maximum} accepted.").format(
                digits=len(text.lstrip("-")), maximum=sys.get_int_max_str_digits()
            )
        ) from None


#: One decoder for every body: ``json.loads`` with hooks builds a new one per call.
_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_reject_duplicate_keys,
    parse_constant=_reject_constant,
    parse_float=_exact_float,
    parse_int=_bounded_int,
)


def _abridged(text: str, keep: int = 20) -> str:
    if len(text) <= keep:
        return text
    return gettext("{start}... ({length} characters)").format(start=text[:keep], length=len(text))


def _check_structure(data: Any, limit: int) -> None:
    # Without recursion. A lone surrogate ("\\ud800") is valid JSON but no Unicode text: echoed
    # in a response, it would fail to encode and turn a 4xx into a 500.
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if isinstance(value, dict):
            for key in value:
                _check_text(key)
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise ParseError(_too_deep(limit))
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, str)))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ParseError(gettext("Malformed JSON: a string holds a lone UTF-16 surrogate.")) from None
    if "\x00" in text:  # no database text column can hold it (PostgreSQL refuses it outright)
        raise ParseError(gettext("A string of the body holds a NUL character (\\u0000)."))
