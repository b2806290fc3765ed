"""Real HTTP against the live server: raw enough to send what browsers and attackers send."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class HTTPResult:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    _json: Any = field(default=None, repr=False)

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


def send(
    base_url: str,
    method: str,
    path: str,
    *,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
) -> HTTPResult:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    all_headers = {"Accept": "application/json", **(headers or {})}
    if json_body is not None:
        body = json.dumps(json_body)
        all_headers.setdefault("Content-Type", "application/json")
    if isinstance(body, str):
        body = body.encode()
    try:
        connection.putrequest(method, path, skip_host="Host" in all_headers, skip_accept_encoding=True)
        for name, value in all_headers.items():
            connection.putheader(name, value)
        if body is not None and "Content-Length" not in all_headers:
            connection.putheader("Content-Length", str(len(body)))
        # The server may answer (a 413, say) and close before the whole body is sent: its
        # answer is still there to read, as curl and browsers read it.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.endheaders(body)
        response = connection.getresponse()
        return HTTPResult(response.status, response.headers, response.read())
    finally:
        connection.close()


def send_raw(base_url: str, request: bytes) -> HTTPResult:
    """Send ``request`` byte for byte: what http.client refuses to build (bare CR, folded or
    repeated headers, absolute-form targets, hand-made chunked bodies)."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return HTTPResult(response.status, response.headers, response.read())
