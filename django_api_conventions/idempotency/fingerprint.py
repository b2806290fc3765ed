"""The fingerprint of a request: what a retry must repeat exactly to be a retry.

The method, the resolved route, the path, the query string (in any order) and the body: JSON
canonicalised (key order, white space and the spelling of numbers do not matter), forms field
by field and each upload by its field, name and content, anything else byte for byte. It runs
before the view parses the body, so it survives any body: numbers are exact, never rounded or
expanded, and an upload is hashed in place, in blocks. Only the SHA-256 digest is stored.
"""

from __future__ import annotations

import hashlib
import io
import json
from decimal import Decimal
from json.encoder import encode_basestring_ascii as _json_string  # json.dumps() of a str
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest

__all__ = ["request_fingerprint"]

_SEPARATOR = "\x00"
#: One decoder for every body: ``json.loads`` with hooks builds a new one per call.
_EXACT_NUMBERS = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal)
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
#: What the digest of a spooled upload reads at a time (hashlib.file_digest's block).
_DIGEST_BLOCK_BYTES = 256 * 1024


def request_fingerprint(request: HttpRequest) -> str:
    digest = hashlib.sha256()
    match = getattr(request, "resolver_match", None)
    route = match.route if match is not None else ""
    raw_query = request.META.get("QUERY_STRING", "")
    # Most keyed requests have no query string: nothing to parse and sort.
    query = urlencode(sorted(parse_qsl(raw_query, keep_blank_values=True))) if raw_query else ""
    # Each part followed by the separator, hashed in one piece.
    digest.update(_SEPARATOR.join((request.method or "", route, request.path, query, "")).encode())
    digest.update(_canonical_body(request))
    return digest.hexdigest()


def _canonical_body(request: HttpRequest) -> bytes:
    content_type = request.content_type or ""
    if content_type in _FORM_TYPES:
        # request.POST, not request.body: a multipart upload streams to disk field by field.
        fields = sorted((key, value) for key in request.POST for value in request.POST.getlist(key))
        files = sorted(
            (key, uploaded.name or "", _uploaded_file_digest(uploaded))
            for key in request.FILES
            for uploaded in request.FILES.getlist(key)
        )
        return b"form:" + json.dumps([fields, files]).encode()
    body = request.body
    if content_type == "application/json" or content_type.endswith("+json"):
        try:
            # Decoded as json.loads() decodes bytes (UTF-8, -16 or -32, a BOM allowed).
            text = body.decode(json.detect_encoding(body), "surrogatepass")
            return b"json:" + canonical_json(_EXACT_NUMBERS.decode(text)).encode()
        except (ValueError, RecursionError, ArithmeticError):
            # Not JSON after all (or a number Decimal refuses, 1e99999999999999999999999999999):
            # the parser will reject it; fingerprint the bytes.
            pass
    return b"raw:" + body


def _uploaded_file_digest(uploaded: UploadedFile[bytes]) -> str:
    """The SHA-256 of an upload, from its buffer or in blocks (never a large upload in memory),
    and the file put back where it was, for the view to read it all."""
    file = uploaded.file
    assert file is not None  # an upload handler's file always has one
    digest = hashlib.sha256()
    position = file.tell()
    file.seek(0)
    try:
        if isinstance(file, io.BytesIO):
            digest.update(file.getbuffer())
        else:
            while block := file.read(_DIGEST_BLOCK_BYTES):
                digest.update(block)
    finally:
        file.seek(position)
    return digest.hexdigest()


def canonical_json(value: Any) -> str:
    """One spelling per JSON value: sorted keys, no white space, numbers normalised (1 = 1.0 = 1e0)."""
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        members = (f"{_json_string(key)}:{canonical_json(value[key])}" for key in sorted(value))
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, Decimal):
        return canonical_number(value)
    return json.dumps(value)


#: Beyond this exponent a number is spelt ``<digits>e<exponent>`` rather than written out in full.
_LONGEST_PLAIN_EXPONENT = 100


def canonical_number(value: Decimal) -> str:
    """One spelling per finite number, exact: ``1``, ``1.0``, ``10e-1`` are ``1``; ``1e400`` is ``1e400``.

    Plain positional digits (what ``format(value.normalize(), "f")`` gives for ordinary numbers)
    up to an exponent of 100; beyond, ``<digits>e<exponent>``, which no plain spelling contains.
    """
    sign, digit_tuple, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # JSON has no NaN or Infinity
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    minus = "-" if sign else ""
    if not digits:
        return f"{minus}0"
    significant = digits.rstrip("0")
    exponent += len(digits) - len(significant)
    if abs(exponent) > _LONGEST_PLAIN_EXPONENT:
        return f"{minus}{significant}e{exponent}"
    if exponent >= 0:
        return f"{minus}{significant}{'0' * exponent}"
    point = len(significant) + exponent
    if point > 0:
        return f"{minus}{significant[:point]}.{significant[point:]}"
    return f"{minus}0.{'0' * -point}{significant}"
