"""The JSON logging recipes of docs/observability.md, configured exactly as the page shows
(each block is read from the page), write lines that carry the request's trace id."""

from __future__ import annotations

import json
import logging
import logging.config
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from django.conf import settings
from opentelemetry import trace
from rest_framework.test import APIClient

PAGE = Path(__file__).resolve().parent.parent / "docs" / "observability.md"
SPAN_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def recipe(name: str) -> str:
    """The ```python block right after ``<!-- recipe: name -->`` on the page."""
    match = re.search(rf"^<!-- recipe: {re.escape(name)} -->\n```python\n(.*?)^```", PAGE.read_text(), re.M | re.S)
    assert match, f"no recipe {name!r} in {PAGE.name}"
    return match[1]


def configure(name: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(recipe(name), f"{PAGE.name}:{name}", "exec"), namespace)  # noqa: S102 -- our own docs
    logging.config.dictConfig(namespace["LOGGING"])
    return namespace


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()
    for handler in logging.getLogger().handlers[:]:
        logging.getLogger().removeHandler(handler)
    logging.config.dictConfig(settings.LOGGING)


def json_lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def remote_span() -> trace.NonRecordingSpan:
    return trace.NonRecordingSpan(trace.SpanContext(int(SPAN_TRACE_ID, 16), 0x00F067AA0BA902B7, True))


@pytest.mark.parametrize("name", ["python-json-logger", "structlog"])
def test_a_request_s_lines_carry_its_trace_id(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    configure(name)
    response = APIClient().get("/v2/nowhere", headers={"X-Request-ID": "recipe-check"})
    assert response.status_code == 404
    lines = json_lines(capsys.readouterr().out)
    (line,) = [line for line in lines if line.get("message", line.get("event")) == "Not Found: /v2/nowhere"]
    assert line["trace_id"] == "recipe-check" == response["X-Request-ID"]
    print(name, json.dumps(line))


@pytest.mark.parametrize("name", ["python-json-logger", "structlog"])
def test_inside_a_span_the_lines_carry_the_span_s_trace_id(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    configure(name)
    with trace.use_span(remote_span()):
        response = APIClient().get("/v2/nowhere")
        logging.getLogger("billing").info("charged")  # outside the request, inside the span
    lines = json_lines(capsys.readouterr().out)
    by_message = {line.get("message", line.get("event")): line for line in lines}
    assert by_message["Not Found: /v2/nowhere"]["trace_id"] == SPAN_TRACE_ID == response["X-Request-ID"]
    assert by_message["charged"]["trace_id"] == SPAN_TRACE_ID


def test_structlog_s_own_loggers_carry_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    configure("structlog")
    with trace.use_span(remote_span()):
        structlog.get_logger("billing").info("charged", amount=100)
    (line,) = json_lines(capsys.readouterr().out)
    assert line == {
        **line,
        "event": "charged",
        "amount": 100,
        "trace_id": SPAN_TRACE_ID,
        "level": "info",
        "logger": "billing",
    }
