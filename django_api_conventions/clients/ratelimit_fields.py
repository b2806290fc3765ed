"""The ``RateLimit-Policy`` and ``RateLimit`` fields of draft-ietf-httpapi-ratelimit-headers-11.

Both are Structured Field lists of one item: the policy's name, a String, with
Integer parameters: ``"client";q=100;w=60`` (quota, window in seconds) and ``"client";r=42;t=17``
(what is left of the quota, and the seconds within which no more than that can be used). No
partition key (``pk``) is sent: the partition is the caller's own client id, which must not leak.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from ..http import header_names


def ratelimit_fields(policy: str, quota: int, window: int, remaining: int, seconds: int) -> dict[str, str]:
    """The two fields, by header name; ``policy`` is the throttle's scope."""
    name = _sf_string(policy)
    return {
        header_names.RATELIMIT_POLICY: f"{name};q={quota};w={window}",
        header_names.RATELIMIT: f"{name};r={max(0, remaining)};t={max(0, seconds)}",
    }


def _sf_string(value: str) -> str:
    if not (value.isascii() and value.isprintable()):
        raise ImproperlyConfigured(f"A throttle's scope names its RateLimit policy: {value!r} is not printable ASCII.")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
