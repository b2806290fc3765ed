"""Reading the ``Idempotency-Key`` header."""

from __future__ import annotations

import re

from django.http import HttpRequest
from django.utils.translation import gettext

from ..http import header_names
from ..problems.details import ProblemException

MAX_KEY_LENGTH = 255
_META_NAME = "HTTP_" + header_names.IDEMPOTENCY_KEY.upper().replace("-", "_")

# A bare key: visible ASCII without the comma, which is what joins repeated headers.
_BARE_KEY = re.compile(r"[\x21-\x2b\x2d-\x7e]{1,255}")
# An RFC 8941 sf-string: printable ASCII in quotes, with \" and \\ as the only escapes.
_SF_STRING = re.compile(r'"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"')


def read_idempotency_key(request: HttpRequest) -> str | None:
    """The key of ``request``; ``None`` when absent. A malformed header is a 400 problem."""
    header = header_names.IDEMPOTENCY_KEY
    raw: str | None = request.META.get(_META_NAME)
    if raw is None:
        return None
    value = raw.strip(" \t")
    match = _SF_STRING.fullmatch(value)
    if match:
        key = re.sub(r"\\(.)", r"\1", match.group(1))
        if 1 <= len(key) <= MAX_KEY_LENGTH and key.isprintable():
            return key
    elif _BARE_KEY.fullmatch(value) and not value.startswith('"'):
        return value
    raise _invalid_key_problem(header, value)


def _invalid_key_problem(header: str, value: str) -> ProblemException:
    # Whole sentences for translators, one per reason.
    if "," in value and not value.startswith('"'):
        detail = gettext("The {header} header is invalid: it appears more than once or holds a comma.")
    elif not value or value == '""':
        detail = gettext("The {header} header is invalid: it is empty.")
    elif value.startswith('"'):
        detail = gettext("The {header} header is invalid: it is not a valid RFC 8941 quoted string.")
    elif len(value) > MAX_KEY_LENGTH:
        detail = gettext("The {header} header is invalid: it is longer than {maximum} characters.")
    else:
        detail = gettext("The {header} header is invalid: it holds characters other than visible ASCII.")
    detail = detail.format(header=header, maximum=MAX_KEY_LENGTH)
    return ProblemException(
        "idempotency-key-invalid",
        detail,
        errors=[{"header": header, "detail": detail, "code": "invalid"}],
    )
