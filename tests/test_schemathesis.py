"""Schemathesis against the example service's own /openapi.json, over real HTTP.

Every response must conform to the documented schema (status, content type, headers, body), no
answer may be a 5xx, and data the schema forbids must be refused. The run is bounded: a fixed
number of examples per operation and a fixed seed, so a failure reproduces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .example_service import Service, example_service

CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "unsupported_method",
]
MAX_EXAMPLES = os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "20")
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261122")
# On Python 3.11, two threads parsing source at once (hypothesis describes its lambdas with
# ast.parse) can trip CPython's recursion-depth check of the AST constructor: "SystemError: AST
# constructor recursion depth mismatch" failed a CI run inside schemathesis. One worker there.
WORKERS = "1" if sys.version_info < (3, 12) else "2"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    services_set = os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")
    with example_service(
        "postgres+redis" if services_set else "sqlite",
        tmp_path_factory.mktemp("schemathesis"),
        THROTTLE_RATE="1000000/min",
    ) as running:
        yield running


# The checks, and one exception: a list that takes QUERY (RFC 10008) says so in an x-query
# extension, since OpenAPI 3.0 has no query operation, so schemathesis would take QUERY there
# for a method the path does not declare. (A check named on the command line would override
# the exception: they are all named here.)
CONFIG = "\n".join(
    [
        "[checks]",
        "enabled = false",
        *(f"{check}.enabled = true" for check in CHECKS),
        "[[operations]]",
        'include-path-regex = "^/v[12]/invoices$"',
        "checks.unsupported_method.enabled = false",
    ]
)


def test_the_schema_holds_for_generated_requests(service: Service, tmp_path: Path) -> None:
    executable = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    run = subprocess.run(
        [
            executable,
            "--config-file",
            str(config),
            "run",
            f"{service.url}/openapi.json",
            "--max-examples",
            MAX_EXAMPLES,
            "--seed",
            SEED,
            "--phases",
            "examples,coverage,fuzzing",
            "--workers",
            WORKERS,
            "--no-color",
            "--warnings",
            "off",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    assert "generated" in run.stdout and " passed" in run.stdout
