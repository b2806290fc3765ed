"""The fingerprint of a request: what a retry must repeat exactly to be a retry.

Covers the method, the resolved route, the path, the query string (in any order) and the body.
JSON bodies are canonicalised (object key order, white space and the spelling of numbers do not
matter); form and multipart bodies are hashed field by field in a stable order; any other body
byte for byte. Only the SHA-256 digest is ever stored.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django.http import HttpRequest

_SEPARATOR = b"\x00"
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def request_fingerprint(request: HttpRequest) -> str:
    digest = hashlib.sha256()
    match = getattr(request, "resolver_match", None)
    route = match.route if match is not None else ""
    query = urlencode(sorted(parse_qsl(request.META.get("QUERY_STRING", ""), keep_blank_values=True)))
    for part in (request.method or "", route, request.path, query):
        digest.update(part.encode())
        digest.update(_SEPARATOR)
    digest.update(_canonical_body(request))
    return digest.hexdigest()


def _canonical_body(request: HttpRequest) -> bytes:
    content_type = request.content_type or ""
    if content_type in _FORM_TYPES:
        # request.POST, not request.body: a multipart upload streams to disk field by field.
        fields = sorted((key, value) for key in request.POST for value in request.POST.getlist(key))
        files = sorted(
            (key, uploaded.name or "", hashlib.sha256(b"".join(uploaded.chunks())).hexdigest())
            for key in request.FILES
            for uploaded in request.FILES.getlist(key)
        )
        return b"form:" + json.dumps([fields, files]).encode()
    body = request.body
    if content_type == "application/json" or content_type.endswith("+json"):
        try:
            return b"json:" + canonical_json(json.loads(body, parse_float=Decimal, parse_int=Decimal)).encode()
        except (ValueError, RecursionError):
            pass  # not JSON after all: the parser will reject it; fingerprint the bytes
    return b"raw:" + body


def canonical_json(value: Any) -> str:
    """One spelling per JSON value: sorted keys, no white space, numbers normalised (1 = 1.0 = 1e0)."""
    if isinstance(value, dict):
        members = (f"{json.dumps(key)}:{canonical_json(value[key])}" for key in sorted(value))
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return json.dumps(value)
