"""Client identification: who is calling, for throttling, idempotency scopes and usage logs."""

from __future__ import annotations

import re
from typing import Any

from .conf import api_settings
from .http_request import http_request_of

ANONYMOUS_CLIENT_ID = "anonymous"

# A client-declared id is echoed into cache keys and logs: keep it to a safe token.
_CLIENT_HEADER_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@\-]{0,127}")


def default_client_id_resolver(request: Any) -> str:
    """The authenticated principal, else the ``X-Client-ID`` header, else ``"anonymous"``.

    - an authenticated user: ``user:<pk>``;
    - an OAuth client with no user (django-oauth-toolkit's ``request.auth.application``):
      ``oauth-client:<client_id>``;
    - an API key object with no user (anything in ``request.auth`` with a ``pk`` or ``id``):
      ``api-key:<pk>``;
    - the client id header, when it is a safe token: ``client:<value>``. Anyone can send any
      header value: treat such a client id as a label, never as proof of identity.
    """
    http_request = http_request_of(request)
    user = getattr(http_request, "user", None)
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    auth = getattr(http_request, "auth", None)
    application = getattr(auth, "application", None)
    if application is not None and getattr(application, "client_id", None):
        return f"oauth-client:{application.client_id}"
    key_id = getattr(auth, "pk", None) or getattr(auth, "id", None)
    if key_id is not None:
        return f"api-key:{key_id}"
    declared = http_request.headers.get(api_settings.CLIENT_ID_HEADER, "").strip()
    if _CLIENT_HEADER_VALUE.fullmatch(declared):
        return f"client:{declared}"
    return ANONYMOUS_CLIENT_ID


def get_client_id(request: Any) -> str:
    """The client id of ``request`` through the configured ``CLIENT_ID_RESOLVER``.

    Not cached: the principal can change once DRF authenticates the request.
    """
    return str(api_settings.CLIENT_ID_RESOLVER(request))
