from __future__ import annotations

import logging

import pytest
from django.test import RequestFactory, override_settings

from django_api_conventions.tracing.trace_ids import TraceIdFilter, assign_trace_id, current_trace_id, incoming_trace_id

factory = RequestFactory()


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"X-Request-ID": "abc-123"}, "abc-123"),
        ({"X-Request-ID": "a" * 128}, "a" * 128),
        ({"X-Request-ID": "a" * 129}, None),
        ({"X-Request-ID": "has space"}, None),
        ({"X-Request-ID": "bad\u00e9"}, None),
        ({"X-Request-ID": "-leading-dash"}, None),
        (
            {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ),
        ({"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, None),
        ({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}, None),
        ({"traceparent": "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}, None),
        ({"traceparent": "garbage"}, None),
        (
            {"X-Request-ID": "bad id", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ),
        ({}, None),
    ],
)
def test_incoming_trace_ids(headers: dict[str, str], expected: str | None) -> None:
    request = factory.get("/", headers=headers)
    assert incoming_trace_id(request) == expected


def test_generated_ids_are_w3c_trace_ids() -> None:
    trace_id = assign_trace_id(factory.get("/"))
    assert len(trace_id) == 32 and int(trace_id, 16) != 0


def test_incoming_ids_can_be_distrusted() -> None:
    request = factory.get("/", headers={"X-Request-ID": "caller-chosen"})
    with override_settings(API_CONVENTIONS={"TRUST_INCOMING_TRACE_ID": False}):
        assert assign_trace_id(request) != "caller-chosen"


def test_a_request_keeps_its_trace_id() -> None:
    request = factory.get("/")
    assert assign_trace_id(request) == assign_trace_id(request) == current_trace_id.get()


def test_log_filter_adds_the_current_trace_id() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "message", None, None)
    current_trace_id.set(None)
    TraceIdFilter().filter(record)
    assert record.trace_id == "-"
    current_trace_id.set("abc")
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "message", None, None)
    assert TraceIdFilter().filter(record) and record.trace_id == "abc"


def test_log_filter_keeps_an_explicit_trace_id() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "message", None, None)
    record.trace_id = "explicit"
    TraceIdFilter().filter(record)
    assert record.trace_id == "explicit"


def test_trace_id_is_forgotten_when_the_request_finishes() -> None:
    from django.test import Client

    Client().get("/problems/not-found", headers={"X-Request-ID": "finished-1"})
    assert current_trace_id.get() is None


def test_the_log_filter_works_before_django_is_configured() -> None:
    """A logging filter must never raise: without settings it does not look for a span."""
    import os
    import subprocess
    import sys

    code = (
        "import logging\n"
        "from django_api_conventions.tracing.trace_ids import TraceIdFilter\n"
        "record = logging.LogRecord('x', logging.INFO, 'x.py', 1, 'message', None, None)\n"
        "TraceIdFilter().filter(record)\n"
        "print(record.trace_id)\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "-\n", "")
