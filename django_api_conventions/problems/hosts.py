"""The ``Host`` header beyond ``ALLOWED_HOSTS``: its port must be a TCP port.

Django's ``get_host()`` checks the name against ``ALLOWED_HOSTS`` and that a port is made of
digits, so ``127.0.0.1:0``, ``127.0.0.1:65536`` and ``127.0.0.1:99999999999999999999`` pass and
are echoed into every URL built from the request (``Location``, ``Link``, problem ``type``).
"""

from __future__ import annotations

import re

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.request import split_domain_port

# ASCII digits only, no sign, no leading zero: "080" and "80" would be two spellings of one
# origin, and a URL built from the request would carry the client's spelling.
_PORT = re.compile(r"[1-9][0-9]{0,4}")
MAX_PORT = 65535


class InvalidHostPort(DisallowedHost):
    """The ``Host`` header's port is not a number from 1 to 65535; the message says why."""


def host_port_error(host: str) -> str | None:
    """Why the port of ``host`` (as ``get_host()`` returns it) is not a TCP port; ``None`` when it is, or is absent."""
    _, port = split_domain_port(host)
    if not port:
        return None
    if port.startswith("0") and port.strip("0"):
        return "The port of the Host header must be written without leading zeros."
    if not _PORT.fullmatch(port) or int(port) > MAX_PORT:
        return f"The port of the Host header must be a number from 1 to {MAX_PORT}."
    return None


def checked_host(request: HttpRequest) -> str:
    """``request.get_host()``, refusing a port outside 1..65535 with :class:`InvalidHostPort`."""
    host = request.get_host()
    error = host_port_error(host)
    if error is not None:
        raise InvalidHostPort(error)
    return host
