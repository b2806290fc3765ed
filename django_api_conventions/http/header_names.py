"""The one home of every HTTP header name (and ``Link`` relation) the package sends or reads,
so that the code that sets a header, the code that reads it and the schema cannot drift apart.
Only the trace id header is a setting (``TRACE_ID_HEADER``; its default is here).
"""

from __future__ import annotations

__all__ = [
    "ACCEPT_QUERY",
    "CACHE_CONTROL",
    "CACHE_LOOKUP",
    "CLIENT_ID",
    "DEPRECATION",
    "IDEMPOTENCY_KEY",
    "IDEMPOTENCY_RETENTION",
    "IDEMPOTENT_REPLAYED",
    "LINK",
    "RATELIMIT",
    "RATELIMIT_POLICY",
    "REL_DEPRECATION",
    "REL_NEXT",
    "REL_PREV",
    "REL_SUNSET",
    "REQUEST_ID",
    "RETRY_AFTER",
    "SUNSET",
    "TRACEPARENT",
    "WWW_AUTHENTICATE",
]

#: The idempotency key of a request (draft-ietf-httpapi-idempotency-key-header).
IDEMPOTENCY_KEY = "Idempotency-Key"
#: ``true`` on a replayed response, ``false`` on the first execution.
IDEMPOTENT_REPLAYED = "Idempotent-Replayed"
#: The same for caches and proxies: ``HIT`` on a replay, ``MISS`` on the first execution.
CACHE_LOOKUP = "X-Cache-Lookup"
#: On an answer stored under its key: how many more seconds the key is kept, as delta-seconds
#: (no clock to agree on). The IETF draft defines no such field (its issues 35 and 49 ask for one).
IDEMPOTENCY_RETENTION = "Idempotency-Retention"

#: The default of ``TRACE_ID_HEADER``: the request's trace id, read and echoed.
REQUEST_ID = "X-Request-ID"
#: W3C Trace Context: its trace-id is honoured when no request id is sent.
TRACEPARENT = "traceparent"
#: Who calls, when not authenticated: a self-declared label, not a credential.
CLIENT_ID = "X-Client-ID"

DEPRECATION = "Deprecation"
SUNSET = "Sunset"
LINK = "Link"
#: ``Link`` relations: the next and the previous page, a deprecation's and a sunset's migration guide.
REL_NEXT = "next"
REL_PREV = "prev"
REL_DEPRECATION = "deprecation"
REL_SUNSET = "sunset"

CACHE_CONTROL = "Cache-Control"
#: RFC 9110: the challenge a 401 carries (how to authenticate).
WWW_AUTHENTICATE = "WWW-Authenticate"
#: Seconds to wait before trying again (409 in progress, 429, 503).
RETRY_AFTER = "Retry-After"
#: draft-ietf-httpapi-ratelimit-headers-11: the quota policy, and what is left of it.
RATELIMIT_POLICY = "RateLimit-Policy"
RATELIMIT = "RateLimit"
#: On a list that takes ``QUERY`` (RFC 10008): the media types its body may have.
ACCEPT_QUERY = "Accept-Query"
