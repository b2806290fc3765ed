"""OpenTelemetry (contrib/opentelemetry): one trace id per request, and the idempotency outcomes
on spans and in a counter, through real requests to the example service, read back from the
SDK's in-memory span exporter and metric reader."""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from rest_framework.test import APIClient

from django_api_conventions.apps import _connect_opentelemetry
from django_api_conventions.contrib.opentelemetry import idempotency as otel_idempotency
from django_api_conventions.idempotency import get_store
from django_api_conventions.tracing import trace_ids as tracing

from .test_store_unavailable import redis_store_down

SPANS = InMemorySpanExporter()
_tracer_provider = TracerProvider()
_tracer_provider.add_span_processor(SimpleSpanProcessor(SPANS))
#: Not the global tracer provider: a span is current through the context, whoever made it.
tracer = _tracer_provider.get_tracer("tests")

METRICS = InMemoryMetricReader()
# The package's counter goes through the API's global meter provider, which can be set once.
metrics.set_meter_provider(MeterProvider(metric_readers=[METRICS]))

SPAN_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.fixture(autouse=True)
def _no_spans_left() -> Iterator[None]:
    SPANS.clear()
    yield
    SPANS.clear()


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "acme"})


def remote_span(trace_id: str = SPAN_TRACE_ID, sampled: bool = False) -> trace.NonRecordingSpan:
    """What a propagator extracts from an incoming traceparent: a valid, non-recording span."""
    flags = trace.TraceFlags(trace.TraceFlags.SAMPLED if sampled else trace.TraceFlags.DEFAULT)
    return trace.NonRecordingSpan(trace.SpanContext(int(trace_id, 16), 0x00F067AA0BA902B7, True, flags))


def hex_trace_id(span: trace.Span) -> str:
    return trace.format_trace_id(span.get_span_context().trace_id)


# --- the trace id --------------------------------------------------------------------------


def test_a_requests_trace_id_is_its_spans_in_the_problem_and_the_header(client: APIClient) -> None:
    with tracer.start_as_current_span("GET /v2/nowhere") as span:
        response = client.get("/v2/nowhere", headers={"X-Request-ID": "caller-chosen"})
    trace_id = hex_trace_id(span)
    assert response.status_code == 404
    assert response.json()["trace_id"] == trace_id == response["X-Request-ID"]
    assert len(trace_id) == 32 and trace_id == trace_id.lower() and trace_id != "caller-chosen"


def test_a_non_recording_span_names_the_trace_too(client: APIClient) -> None:
    with trace.use_span(remote_span()):
        response = client.get("/v2/nowhere")
    assert response.json()["trace_id"] == SPAN_TRACE_ID == response["X-Request-ID"]


def test_the_span_wins_even_when_incoming_ids_are_distrusted(client: APIClient, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "TRUST_INCOMING_TRACE_ID": False}
    with trace.use_span(remote_span()):
        assert client.get("/v2/nowhere")["X-Request-ID"] == SPAN_TRACE_ID


def test_without_a_valid_span_the_caller_s_id_is_kept(client: APIClient) -> None:
    assert not trace.get_current_span().get_span_context().is_valid
    response = client.get("/v2/nowhere", headers={"X-Request-ID": "caller-chosen"})
    assert response.json()["trace_id"] == "caller-chosen" == response["X-Request-ID"]


def test_log_lines_of_the_request_carry_the_span_s_trace_id(
    client: APIClient, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    caplog.handler.addFilter(tracing.TraceIdFilter())
    with caplog.at_level(logging.WARNING, logger="django.request"), trace.use_span(remote_span()):
        client.get("/v2/nowhere")
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.trace_id == SPAN_TRACE_ID  # type: ignore[attr-defined]


def test_outside_a_request_the_log_filter_takes_the_current_span_s() -> None:
    tracing.current_trace_id.set(None)
    record = logging.LogRecord("task", logging.INFO, __file__, 1, "message", None, None)
    with trace.use_span(remote_span()):
        tracing.TraceIdFilter().filter(record)
    assert record.trace_id == SPAN_TRACE_ID  # type: ignore[attr-defined]
    record = logging.LogRecord("task", logging.INFO, __file__, 1, "message", None, None)
    tracing.TraceIdFilter().filter(record)
    assert record.trace_id == "-"  # type: ignore[attr-defined]


def test_without_opentelemetry_the_lookup_is_resolved_at_start_up_and_answers_none(
    client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = "django_api_conventions.contrib.opentelemetry"
    for name in [name for name in sys.modules if name.startswith(("opentelemetry", ours))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import opentelemetry: ModuleNotFoundError
    monkeypatch.setattr(tracing, "_span_trace_id_lookup", tracing._span_trace_id_lookup)
    _connect_opentelemetry()
    assert tracing._span_trace_id_lookup is None
    imported = set(sys.modules)
    response = client.get("/v2/nowhere", headers={"X-Request-ID": "caller-chosen"})
    assert tracing.span_trace_id() is None
    assert response["X-Request-ID"] == "caller-chosen"
    assert not [name for name in set(sys.modules) - imported if name.startswith(ours)], "imported on a request"


def test_an_import_error_of_our_own_is_not_taken_for_a_missing_opentelemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "django_api_conventions.contrib.opentelemetry.spans", None)
    monkeypatch.setattr(tracing, "_span_trace_id_lookup", tracing._span_trace_id_lookup)
    with pytest.raises(ImportError):
        _connect_opentelemetry()


def test_the_app_resolves_the_lookup_when_opentelemetry_is_installed() -> None:
    from django_api_conventions.contrib.opentelemetry.spans import current_span_trace_id

    assert tracing._span_trace_id_lookup is current_span_trace_id


# --- the idempotency outcomes ----------------------------------------------------------------


def outcome_counts() -> dict[str, int]:
    """The counter's cumulative value per outcome."""
    counts: dict[str, int] = {}
    data = METRICS.get_metrics_data()
    for resource_metrics in data.resource_metrics if data else ():
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                if metric.name == otel_idempotency.COUNTER:
                    for point in metric.data.data_points:
                        counts[str(point.attributes[otel_idempotency.OUTCOME])] = int(point.value)
    return counts


def create_user(client: APIClient, body: dict[str, str], key: str) -> Any:
    return client.generic(
        "POST", "/v2/users", json.dumps(body), content_type="application/json", headers={"Idempotency-Key": key}
    )


def traced(client: APIClient, body: dict[str, str], key: str) -> tuple[Any, ReadableSpan]:
    """The response of one keyed request made inside a span, and that span once ended."""
    with tracer.start_as_current_span("POST /v2/users"):
        response = create_user(client, body, key)
    (span, *_) = [span for span in SPANS.get_finished_spans() if span.name == "POST /v2/users"][-1:]
    return response, span


def outcome_of(span: ReadableSpan) -> tuple[str, list[str]]:
    assert span.attributes is not None
    return str(span.attributes[otel_idempotency.OUTCOME]), [event.name for event in span.events]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("store_name")
def test_each_outcome_is_on_the_span_and_counted(client: APIClient) -> None:
    before = outcome_counts()
    body = {"email": f"{uuid.uuid4().hex}@example.com", "name": "O"}
    key = uuid.uuid4().hex

    first, span = traced(client, body, key)
    assert first.status_code == 201 and outcome_of(span) == ("miss", ["idempotency.miss"])
    key_hash = span.attributes[otel_idempotency.KEY_HASH]  # type: ignore[index]
    assert isinstance(key_hash, str) and len(key_hash) == 16 and key not in str(span.attributes)

    again, span = traced(client, body, key)
    assert again["Idempotent-Replayed"] == "true" and outcome_of(span) == ("hit", ["idempotency.hit"])

    other, span = traced(client, {**body, "name": "P"}, key)
    assert other.status_code == 422 and outcome_of(span) == ("mismatch", ["idempotency.mismatch"])

    # A first request still running (a claim nobody completes), then one whose worker died.
    store = get_store()
    fingerprint = store.inspect("client:acme", key).fingerprint  # type: ignore[union-attr]
    busy_key, dead_key = uuid.uuid4().hex, uuid.uuid4().hex
    store.claim("client:acme", busy_key, fingerprint, 60, 3600)
    busy, span = traced(client, body, busy_key)
    assert busy.status_code == 409 and outcome_of(span) == ("conflict", ["idempotency.conflict"])
    store.claim("client:acme", dead_key, fingerprint, 0.05, 3600)
    time.sleep(0.2)
    _, span = traced(client, body, dead_key)
    assert outcome_of(span) == ("takeover", ["idempotency.takeover"])

    after = outcome_counts()
    # Only the outcomes this test changed: the counter is cumulative over the session, so an outcome
    # an earlier test counted (store_unavailable, say) is still there, unchanged.
    changed = {
        outcome: after[outcome] - before.get(outcome, 0)
        for outcome in after
        if after[outcome] != before.get(outcome, 0)
    }
    assert changed == {"miss": 1, "hit": 1, "mismatch": 1, "conflict": 1, "takeover": 1}


@pytest.mark.faults
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("policy", ["fail-closed", "fail-open"])
def test_an_unreachable_store_is_on_the_span_and_counted(client: APIClient, settings: Any, policy: str) -> None:
    redis_store_down(settings, policy)
    before = outcome_counts().get("store_unavailable", 0)
    response, span = traced(client, {"email": f"{uuid.uuid4().hex}@example.com", "name": "U"}, uuid.uuid4().hex)
    assert response.status_code == (201 if policy == "fail-open" else 503)
    assert outcome_of(span) == ("store_unavailable", ["idempotency.store_unavailable"])
    (event,) = span.events
    assert event.attributes is not None and event.attributes[otel_idempotency.FAIL_OPEN] is (policy == "fail-open")
    assert str(event.attributes[otel_idempotency.ERROR_TYPE]).startswith("redis.")
    assert outcome_counts()["store_unavailable"] == before + 1


@pytest.mark.django_db(transaction=True)
def test_a_request_without_a_key_records_no_outcome(client: APIClient) -> None:
    before = outcome_counts()
    with tracer.start_as_current_span("GET /v2/users") as span:
        assert client.get("/v2/users").status_code == 200
    assert not span.events and outcome_counts() == before  # type: ignore[attr-defined]
