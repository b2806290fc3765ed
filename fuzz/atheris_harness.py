"""Coverage-guided fuzzing (atheris) of what reads untrusted input first. Run by hand, not in CI.

    pip install atheris            # wheels for CPython 3.11; may not build on 3.13
    python fuzz/atheris_harness.py cursor      -max_total_time=60
    python fuzz/atheris_harness.py fingerprint -max_total_time=60
    python fuzz/atheris_harness.py problem     -max_total_time=60
    python fuzz/atheris_harness.py json        -max_total_time=60

Each target turns the fuzzer's bytes into input and crashes (with the input saved) on any
exception but the one the package answers with. tests/test_fuzz.py checks the same properties
with hypothesis in CI.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import atheris
import django

# Only the package is instrumented: instrumenting Django too takes minutes at start-up.
with atheris.instrument_imports(include=["django_api_conventions"]):
    django.setup()
    from django.test import RequestFactory
    from rest_framework.exceptions import ParseError

    from django_api_conventions.content.parsers import StrictJSONParser
    from django_api_conventions.idempotency.fingerprint import request_fingerprint
    from django_api_conventions.pagination.cursors import decode_cursor
    from django_api_conventions.problems import RESERVED_MEMBERS, ProblemException, render_problem

factory = RequestFactory()


def fuzz_cursor(data: bytes) -> None:
    token = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
    try:
        decode_cursor(token, ordering=("-created_at", "-pk"), endpoint="invoice-list:/v2/invoices", filters="0" * 16)
    except ProblemException as problem:
        assert problem.problem_type.slug == "invalid-cursor"


def fuzz_fingerprint(data: bytes) -> None:
    assert len(request_fingerprint(factory.post("/v2/orders", data, content_type="application/json"))) == 64


def fuzz_problem(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    detail = provider.ConsumeUnicode(provider.ConsumeIntInRange(0, 4096))
    name = provider.ConsumeUnicode(16)
    extensions = {} if name in RESERVED_MEMBERS else {name: provider.ConsumeUnicode(256)}
    response = render_problem(factory.get("/"), ProblemException("bad-request", detail or None, extensions=extensions))
    body = json.loads(response.content.decode("ascii"))
    assert body["status"] == 400 and body["detail"] == (detail or "Bad request")
    assert {key: body[key] for key in extensions} == extensions


def fuzz_json(data: bytes) -> None:
    request = factory.post("/", data, content_type="application/json")
    with contextlib.suppress(ParseError):
        StrictJSONParser().parse(io.BytesIO(data), "application/json", {"request": request})


TARGETS = {"cursor": fuzz_cursor, "fingerprint": fuzz_fingerprint, "problem": fuzz_problem, "json": fuzz_json}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()
