"""Client identification: who is calling, for throttling, idempotency scopes and usage logs."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

from ..conf import api_settings
from ..http import header_names
from ..http.request_attributes import http_request_of
from ..problems.details import ProblemException

ANONYMOUS_CLIENT_ID = "anonymous"
CLIENT_ID_MAX_LENGTH = 128

# A client-declared id is echoed into cache keys and logs: keep it to a safe token.
_CLIENT_HEADER_VALUE = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._:@\-]{{0,{CLIENT_ID_MAX_LENGTH - 1}}}")


def default_client_id_resolver(request: Any) -> str:
    """The authenticated principal and its credential, else ``X-Client-ID``, else ``"anonymous"``.

    - an authenticated user, with no credential object (a browser session, HTTP Basic): ``user:<pk>``;
    - an authenticated user with a credential in ``request.auth``: ``user:<pk>:`` and the
      credential's client (:func:`user_credential_client`), so that a user's OAuth
      applications, API token and browser session are separate clients;
    - an OAuth client with no user (django-oauth-toolkit's ``request.auth.application``):
      ``oauth-client:<client_id>``;
    - any other credential object with no user (anything in ``request.auth`` with a ``pk`` or
      ``id``, an API key say): ``credential:<kind>:<pk>``, where the kind is the model's label
      (``app_label.modelname``) or else the class's dotted path, so that two kinds of credential
      with the same primary key never share a client id;
    - the client id header: ``client:<value>``. Anyone can send any header value: treat such a
      client id as a label, never as proof of identity. A value that is not a safe token is a
      400 problem naming the header, never a fallback to the shared ``anonymous`` id. The header
      is not read once a principal is authenticated: it cannot move a caller into another scope.
    """
    http_request = http_request_of(request)
    user = getattr(http_request, "user", None)
    auth = getattr(http_request, "auth", None)
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}" if auth is None else f"user:{user.pk}:{user_credential_client(auth)}"
    oauth_client = oauth_client_of(auth)
    if oauth_client is not None:
        return oauth_client
    key_id = getattr(auth, "pk", None) or getattr(auth, "id", None)
    if key_id is not None:
        return f"credential:{credential_kind(auth)}:{key_id}"
    header = header_names.CLIENT_ID
    if header not in http_request.headers:
        return ANONYMOUS_CLIENT_ID
    declared = http_request.headers[header].strip()
    if not _CLIENT_HEADER_VALUE.fullmatch(declared):
        raise invalid_client_id_problem(header, declared)
    return f"client:{declared}"


def oauth_client_of(auth: Any) -> str | None:
    """``oauth-client:<client_id>`` of a token issued to an OAuth application, else ``None``.

    Duck-typed on ``auth.application.client_id`` (django-oauth-toolkit's ``AccessToken``), so
    the package needs no OAuth library.
    """
    client_id = getattr(getattr(auth, "application", None), "client_id", None)
    return f"oauth-client:{client_id}" if client_id else None


def user_credential_client(auth: Any) -> str:
    """Which of a user's clients a credential is: its OAuth application, else its kind.

    ``oauth-client:<client_id>`` for a token issued to an OAuth application,
    ``credential:<kind>`` for any other credential (DRF's ``Token``, a JWT). The kind, not the
    credential itself: tokens are refreshed and rotated while the client stays the same (a
    retry after a refresh must find its key), and DRF's ``Token`` has the secret as its
    primary key, which a client id must never carry.
    """
    return oauth_client_of(auth) or f"credential:{credential_kind(auth)}"


def credential_kind(auth: Any) -> str:
    """``app_label.modelname`` of a model instance, else the dotted path of the object's class."""
    meta = getattr(auth, "_meta", None)
    label = getattr(meta, "label_lower", None)
    if isinstance(label, str):
        return label
    kind = type(auth)
    return f"{kind.__module__}.{kind.__qualname__}"


def invalid_client_id_problem(header: str, value: str) -> ProblemException:
    """The 400 problem for a client id header the service cannot use."""
    # Whole sentences for translators, one per reason.
    if not value:
        detail = gettext("The {header} header is invalid: it is empty.")
    elif len(value) > CLIENT_ID_MAX_LENGTH:
        detail = gettext("The {header} header is invalid: it is longer than {maximum} characters.")
    else:
        detail = gettext(
            "The {header} header is invalid: use letters, digits, '.', '_', ':', '@' and '-' only, "
            "starting with a letter or a digit."
        )
    detail = detail.format(header=header, maximum=CLIENT_ID_MAX_LENGTH)
    return ProblemException("bad-request", detail, errors=[{"header": header, "detail": detail, "code": "invalid"}])


def get_client_id(request: Any) -> str:
    """The client id of ``request`` through the configured ``CLIENT_ID_RESOLVER``.

    Not cached: the principal can change once DRF authenticates the request.
    """
    return str(api_settings.CLIENT_ID_RESOLVER(request))
