"""A JSON parser that answers every bad body with a 400, never a 500; body size limits per view."""

from __future__ import annotations

import codecs
import json
import math
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import IO, Any, TypeVar

from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from ..http.accept import MAX_MEDIA_RANGE_LENGTH
from ..http.request_attributes import http_request_of
from .negotiation import refuse_wildcard_media_type, unsupported_media_type

__all__ = ["JSONNumber", "StrictJSONParser", "max_body_bytes"]

ViewFunction = TypeVar("ViewFunction", bound=Callable[..., Any])


def max_body_bytes(limit: int) -> Callable[[ViewFunction], ViewFunction]:
    """Let a function view take a request body of up to ``limit`` bytes, whatever
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` says: ``@max_body_bytes(50 * 1024 * 1024)``.

    A class-based view (DRF or Django) sets the class attribute ``max_body_bytes`` instead.
    Put the decorator above ``@api_view``, which builds a new view that keeps none of the
    function's attributes.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"max_body_bytes takes a number of bytes (an int of at least 0), not {limit!r}.")

    def decorate(view: ViewFunction) -> ViewFunction:
        view.max_body_bytes = limit  # type: ignore[attr-defined]  # read by the body-limit middleware
        return view

    return decorate


def view_body_limit(view: Callable[..., Any]) -> int | None:
    """The body limit in bytes that ``view`` (a resolved view function) declares, or ``None``
    when it declares none: its ``@max_body_bytes``, the ``max_body_bytes`` keyword of its
    ``as_view()``, or its class's ``max_body_bytes`` attribute (DRF's ``cls``, Django's
    ``view_class``)."""
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
    malformed or truncated JSON, ``NaN`` / ``Infinity``, numbers too large for a float
    (``1e999999``, which the stock parser silently turns into ``inf``), duplicate object keys,
    integers beyond Python's digit limit, and nesting deeper than :attr:`max_depth` (the stock
    parser lets a ``RecursionError`` escape as a 500 on 10,000 nested arrays).

    Keeps numbers exact: a number with a fraction or an exponent is a :class:`JSONNumber`, a
    ``float`` whose ``str()`` is the number as the client wrote it, so ``9.9999999999999999999``
    is not read as ``10`` by a field that checks its digits (see :mod:`..fields`).

    Accepts ``application/json`` and any ``+json`` type (``application/merge-patch+json``);
    a wildcard Content-Type (``*/*``, ``application/*``) is a 415, whichever negotiation class
    chose this parser.
    """

    #: The structured syntax suffix (RFC 6839) of the other media types this parser reads.
    structured_syntax_suffix = "+json"
    #: Deepest nesting of arrays and objects accepted. A subclass raises it for documents that
    #: nest deeper (Python's recursion limit still bounds what the decoder reads), or lowers it.
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
            # RFC 8259: JSON exchanged between systems is UTF-8. Other codecs (zlib, hex...)
            # would also let a compressed body slip past DATA_UPLOAD_MAX_MEMORY_SIZE.
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
    """The charset the Content-Type names, if any: DEFAULT_CHARSET says nothing about a client's JSON.

    A Content-Type too long to be read is a 415, whichever negotiation class chose this parser
    (DRF's before 3.18.1 lets one of any length through): its parameters are not split.
    """
    request = (parser_context or {}).get("request")
    content_type = getattr(http_request_of(request), "META", {}).get("CONTENT_TYPE", "")
    if len(content_type) > MAX_MEDIA_RANGE_LENGTH:
        raise unsupported_media_type(content_type, accepted)
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"') or None
    return None


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

    Everything that takes a float still does (arithmetic, ``json.dumps``, DRF's ``FloatField``
    and ``JSONField``), while ``str()`` gives the exact text, ``"9.9999999999999999999"``,
    where the float is ``10.0``; :attr:`exact` is that text as a ``Decimal``. DRF's own
    ``IntegerField`` and ``DecimalField`` read a value through ``str()``, so they see the exact
    number too. Comparisons (``==``) stay those of the float: use :attr:`exact` to compare
    two numbers exactly.
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
    """Reject nesting deeper than ``limit`` and lone surrogates (``"\\ud800"``), without recursion.

    A lone surrogate is valid JSON syntax but no Unicode text: echoed in a response it would
    fail to encode and turn a 4xx into a 500.
    """
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
