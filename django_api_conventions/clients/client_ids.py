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

    - a user: ``user:<pk>``, with a credential in ``request.auth`` ``user:<pk>:`` and its client
      (an OAuth application, else the credential's kind), so that a user's applications, API token
      and browser login are separate clients;
    - an OAuth client with no user (django-oauth-toolkit): ``oauth-client:<client_id>``;
    - another credential with no user (an API key): ``credential:<kind>:<pk>``, the kind being
      the model's label or the class's dotted path;
    - else the client id header, ``client:<value>``: a label, not proof of identity, read only
      when no principal is authenticated. A value that is not a safe token is a 400 problem.
    """
    http_request = http_request_of(request)
    user = getattr(http_request, "user", None)
    auth = getattr(http_request, "auth", None)
    if user is not None and getattr(user, "is_authenticated", False):
        if auth is None:
            return f"user:{user.pk}"
        # The credential's kind, not the credential: tokens rotate while the client stays, and
        # DRF's Token has its secret as primary key.
        return f"user:{user.pk}:{_oauth_client(auth) or f'credential:{_kind(auth)}'}"
    oauth_client = _oauth_client(auth)
    if oauth_client is not None:
        return oauth_client
    key_id = getattr(auth, "pk", None) or getattr(auth, "id", None)
    if key_id is not None:
        return f"credential:{_kind(auth)}:{key_id}"
    header = header_names.CLIENT_ID
    if header not in http_request.headers:
        return ANONYMOUS_CLIENT_ID
    declared = http_request.headers[header].strip()
    if not _CLIENT_HEADER_VALUE.fullmatch(declared):
        raise _invalid_client_id_problem(header, declared)
    return f"client:{declared}"


def _oauth_client(auth: Any) -> str | None:
    # Duck-typed on django-oauth-toolkit's AccessToken: the package needs no OAuth library.
    client_id = getattr(getattr(auth, "application", None), "client_id", None)
    return f"oauth-client:{client_id}" if client_id else None


def _kind(auth: Any) -> str:
    """The ``app_label.modelname`` of a model instance, else the dotted path of its class."""
    label = getattr(getattr(auth, "_meta", None), "label_lower", None)
    return label if isinstance(label, str) else f"{type(auth).__module__}.{type(auth).__qualname__}"


def _invalid_client_id_problem(header: str, value: str) -> ProblemException:
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
    """The client id of ``request`` through the configured ``CLIENT_ID_RESOLVER`` (not cached:
    the principal can change once DRF authenticates the request)."""
    return str(api_settings.CLIENT_ID_RESOLVER(request))
