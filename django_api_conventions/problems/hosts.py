"""The ``Host`` header beyond ``ALLOWED_HOSTS``: its port must be a TCP port.

Django's ``get_host()`` lets ``127.0.0.1:0`` and ``:99999999999999999999`` through, which every
URL built from the request would echo (``Location``, ``Link``, problem ``type``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.request import split_domain_port
from django.utils import translation
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# No leading zero: "080" and "80" would be two spellings of one origin.
_PORT = re.compile(r"[1-9][0-9]{0,4}")
_MAX_PORT = 65535


class InvalidHostPort(DisallowedHost):
    """The ``Host`` header's port is not a number from 1 to 65535: the message in English, for
    logs; ``detail`` translated, for the client."""

    def __init__(self, detail: StrOrPromise) -> None:
        with translation.override("en"):
            super().__init__(str(detail))
        self.detail = detail


def _host_port_error(host: str) -> StrOrPromise | None:
    _domain, port = split_domain_port(host)
    if not port:
        return None
    if port.startswith("0") and port.strip("0"):
        return _("The port of the Host header must be written without leading zeros.")
    if not _PORT.fullmatch(port) or int(port) > _MAX_PORT:
        return format_lazy(_("The port of the Host header must be a number from 1 to {maximum}."), maximum=_MAX_PORT)
    return None


def checked_host(request: HttpRequest) -> str:
    """``request.get_host()``, refusing a port outside 1..65535 with :class:`InvalidHostPort`."""
    host = request.get_host()
    error = _host_port_error(host)
    if error is not None:
        raise InvalidHostPort(error)
    return host
