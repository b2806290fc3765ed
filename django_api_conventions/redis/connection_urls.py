"""Redis URLs, parsed strictly: a form that cannot be used is refused with the reason, at start-up.

The forms (``rediss`` instead of ``redis`` for TLS, to the servers and to the sentinels)::

    redis://[[username]:password@]host[:port][/db]
    redis+sentinel://[[username]:password@]host[:port][,host[:port]...]/service_name[/db]
    redis+cluster://[[username]:password@]host[:port][,host[:port]...]

Ports default to 6379 (26379 for sentinels), ``db`` to 0; a Cluster has only database 0. The
credentials are those of the Redis servers (a Sentinel set-up's primary and replicas), not of
the sentinels. The query may set ``socket_timeout`` and ``socket_connect_timeout`` (seconds);
nothing else. Pure Python: parsing imports no client.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote

#: scheme -> (kind, TLS)
SCHEMES: dict[str, tuple[str, bool]] = {
    "redis": ("standalone", False),
    "rediss": ("standalone", True),
    "redis+sentinel": ("sentinel", False),
    "rediss+sentinel": ("sentinel", True),
    "redis+cluster": ("cluster", False),
    "rediss+cluster": ("cluster", True),
}
_DEFAULT_PORTS = {"standalone": 6379, "sentinel": 26379, "cluster": 6379}
#: Query options, all numbers of seconds.
OPTIONS = ("socket_timeout", "socket_connect_timeout")
_FORMS = (
    "redis://[[username]:password@]host[:port][/db], "
    "redis+sentinel://[[username]:password@]host[:port][,host[:port]...]/service_name[/db] or "
    "redis+cluster://[[username]:password@]host[:port][,host[:port]...] (rediss... for TLS)"
)

_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
# No sign, no leading zero: "6379" and "06379" would be two spellings of one server.
_PORT = re.compile(r"[1-9][0-9]{0,4}")
_DB = re.compile(r"0|[1-9][0-9]{0,8}")
_SERVICE_NAME = re.compile(r"[A-Za-z0-9._-]+")


class InvalidRedisURL(ValueError):
    """A Redis URL the clients cannot use; the message says why, without the URL's password."""


@dataclass(frozen=True)
class RedisURL:
    """What a Redis URL names: one server, a Sentinel set-up or a Cluster's seed nodes."""

    kind: str  # "standalone", "sentinel" or "cluster"
    hosts: tuple[tuple[str, int], ...]
    tls: bool = False
    db: int = 0
    username: str | None = None
    password: str | None = None
    service_name: str | None = None  # the Sentinel set-up's primary
    options: dict[str, float] = field(default_factory=dict)


def parse_redis_url(url: str) -> RedisURL:
    """The :class:`RedisURL` of ``url``; :class:`InvalidRedisURL` for anything else than the forms above."""
    if not isinstance(url, str):
        raise InvalidRedisURL(f"a Redis URL is a string, not {type(url).__name__}")
    if any(character.isspace() or ord(character) < 32 or ord(character) == 127 for character in url):
        raise InvalidRedisURL("it holds white space or a control character")
    scheme, separator, rest = url.partition("://")
    if not separator or scheme.lower() not in SCHEMES:
        raise InvalidRedisURL(f"the scheme must be one of {', '.join(SCHEMES)}: {_FORMS}")
    kind, tls = SCHEMES[scheme.lower()]
    if "#" in rest:
        raise InvalidRedisURL("a Redis URL has no fragment (#...); percent-encode a '#' in the password as %23")
    rest, _, query = rest.partition("?")
    authority, slash, path = rest.partition("/")
    userinfo, at, host_list = authority.rpartition("@")
    username, password = _credentials(userinfo) if at else (None, None)
    hosts = tuple(_host(part, _DEFAULT_PORTS[kind]) for part in host_list.split(","))
    if kind == "standalone" and len(hosts) > 1:
        raise InvalidRedisURL("several hosts need redis+sentinel:// (sentinels) or redis+cluster:// (seed nodes)")
    db, service_name = _path(kind, slash + path)
    return RedisURL(kind, hosts, tls, db, username, password, service_name, _options(query))


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***``, fit for messages and logs."""
    scheme, separator, rest = str(url).partition("://")
    authority_end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:authority_end], rest[authority_end:]
    userinfo, at, hosts = authority.rpartition("@")
    if not at or ":" not in userinfo:
        return str(url)
    return f"{scheme}{separator}{userinfo.partition(':')[0]}:***@{hosts}{tail}"


def _credentials(userinfo: str) -> tuple[str | None, str | None]:
    username, colon, password = userinfo.partition(":")
    if not colon:
        raise InvalidRedisURL("a user name needs its password (user:password@host; :password@host without user)")
    if not password:
        raise InvalidRedisURL("the password is empty: leave out the credentials (and the @) for no password")
    return (unquote(username) or None), unquote(password)


def _host(part: str, default_port: int) -> tuple[str, int]:
    if not part:
        raise InvalidRedisURL("a host is missing")
    if part.startswith("["):
        address, bracket, port_part = part[1:].partition("]")
        try:
            host = str(ipaddress.IPv6Address(address)) if bracket else ""
        except ValueError:
            host = ""
        if not host:
            raise InvalidRedisURL(f"{part!r} is not an IPv6 address in brackets")
    else:
        host, colon, port = part.partition(":")
        port_part = colon + port
        if not _HOST_NAME.fullmatch(host):
            raise InvalidRedisURL(f"{host!r} is not a host name or address (an IPv6 address goes in brackets)")
    if not port_part:
        return host, default_port
    port = port_part[1:]
    if not port_part.startswith(":") or not _PORT.fullmatch(port) or int(port) > 65535:
        raise InvalidRedisURL(f"the port of {part!r} must be a number from 1 to 65535, without leading zeros")
    return host, int(port)


def _path(kind: str, path: str) -> tuple[int, str | None]:
    segments = path.split("/")[1:] if path else []
    if segments and segments[-1] == "":
        segments.pop()  # a trailing slash
    if kind == "sentinel":
        if not segments or not _SERVICE_NAME.fullmatch(unquote(segments[0])):
            raise InvalidRedisURL("a Sentinel URL names its service after the hosts: .../service_name[/db]")
        if len(segments) > 2:
            raise InvalidRedisURL("the path of a Sentinel URL is /service_name or /service_name/db")
        return _db(segments[1] if len(segments) == 2 else "0"), unquote(segments[0])
    if len(segments) > 1:
        raise InvalidRedisURL("the path is the database number only (/0)")
    db = _db(segments[0]) if segments else 0
    if kind == "cluster" and db != 0:
        raise InvalidRedisURL("a Redis Cluster has only database 0")
    return db, None


def _db(text: str) -> int:
    if not _DB.fullmatch(text):
        raise InvalidRedisURL(f"the database {text!r} must be a number (0, 1 ...), without leading zeros")
    return int(text)


def _options(query: str) -> dict[str, float]:
    options: dict[str, float] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True) if query else []
    except ValueError:
        raise InvalidRedisURL(f"the query {query!r} is not name=value pairs joined by &") from None
    for name, value in pairs:
        if name not in OPTIONS:
            raise InvalidRedisURL(f"unknown option {name!r}: the query may set {' and '.join(OPTIONS)}")
        if name in options:
            raise InvalidRedisURL(f"the option {name!r} is given twice")
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", value) or not 0 < float(value) < math.inf:
            raise InvalidRedisURL(f"{name} must be a positive number of seconds (0.5, 2), not {value!r}")
        options[name] = float(value)
    return options
