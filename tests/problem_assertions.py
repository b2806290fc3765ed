"""What every problem answer must look like."""

from __future__ import annotations

import re
from typing import Any

from .http import HTTPResult

MEMBERS = {"type", "title", "status", "detail", "instance", "trace_id"}


def assert_problem(result: HTTPResult, status: int, slug: str, *, secret: str | None = None) -> dict[str, Any]:
    assert result.status == status, (result.status, result.body[:500])
    assert result.header("Content-Type") == "application/problem+json", result.header("Content-Type")
    text = result.body.decode()
    assert "<html" not in text.lower() and not text.lstrip().startswith("<"), text[:200]
    if secret is not None:
        assert secret not in text
    body = result.json()
    assert body.keys() >= MEMBERS, body
    assert body["status"] == status
    assert re.fullmatch(rf"https?://[^/]+/problems/{re.escape(slug)}", body["type"]), body["type"]
    assert body["trace_id"] and body["trace_id"] == result.header("X-Request-ID")
    assert body["instance"] == f"urn:request:{body['trace_id']}"
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body
