"""Clients generated from the example's documents, as consuming teams generate them, work as they are.

For every served version, from the live service's ``/openapi.json?version=...``:

- **Python**: openapi-python-client (no configuration, no override) generates a package; it
  installs into a fresh virtualenv; ``tests/clients/flow.py`` passes ``mypy --strict`` against it
  and runs against the service.
- **TypeScript**: openapi-typescript generates the types; ``tests/clients/flow.ts``, written
  with openapi-fetch, passes ``tsc --noEmit``, is compiled and runs under node.

Each flow creates a user and invoices, pays with a key, replays it, gets the typed 422 of a
reused key, sends keys where the operation's ``x-idempotency`` says and only there (read from
the document the generator consumed: neither generator keeps it), walks a list forward (and
back, where the document's envelope has ``previous_cursor``), reads a 400 problem's ``errors``
and a 409's ``Retry-After`` (two payments under one key while the gateway takes
``PAYMENT_GATEWAY_DELAY_MS``), and parses statuses the document does not list, inserted
directly into the database.

The tools live in ``.venvs/clients`` (``CLIENT_TOOLS_DIR``), installed by ``.ci/run`` from
``tests/clients/requirements.txt`` and ``tests/clients/package.json``. Missing, they fail the run
with ``CI=true`` and skip it elsewhere. The test costs a minute or two, so it runs in one pass of
``./dev test``: the SQLite pass of Python 3.11, the oldest Python the package supports
(``CLIENT_TESTS=always`` runs it in any pass, ``never`` in none).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .example_service import Service, example_service
from .http import send
from .servers import REPOSITORY

pytestmark = pytest.mark.clients

FLOWS = Path(__file__).resolve().parent / "clients"
TOOLS = Path(os.environ.get("CLIENT_TOOLS_DIR") or REPOSITORY / ".venvs" / "clients")
PYTHON_TOOLS = TOOLS / "python" / "bin"
NODE_MODULES = TOOLS / "node" / "node_modules"
GATEWAY_DELAY_MS = 1000
STEP_TIMEOUT = 300
BACKWARD_BLOCK = re.compile(r"\n[ \t]*(#|//) >>> previous_cursor\n.*?(#|//) <<< previous_cursor\n", re.S)
INSTALL = (
    "bash .ci/run installs them; by hand: python3 -m venv .venvs/clients/python && "
    ".venvs/clients/python/bin/pip install -c constraints.txt -r tests/clients/requirements.txt && "
    "mkdir -p .venvs/clients/node && cp tests/clients/package*.json .venvs/clients/node/ && "
    "npm ci --prefix .venvs/clients/node"
)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


def pass_not_selected() -> str | None:
    mode = os.environ.get("CLIENT_TESTS", "auto")
    if mode == "always":
        return None
    if mode == "never":
        return "CLIENT_TESTS=never"
    if os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL") or sys.version_info[:2] != (3, 11):
        return (
            "the generated clients are tested once per ./dev test, in the SQLite pass of Python 3.11 "
            "(CLIENT_TESTS=always runs them here)"
        )
    return None


def missing_tools(language: str) -> list[str]:
    needed = {
        "python": [PYTHON_TOOLS / "openapi-python-client", PYTHON_TOOLS / "mypy", PYTHON_TOOLS / "ruff"],
        "typescript": [
            NODE_MODULES / ".bin" / "openapi-typescript",
            NODE_MODULES / ".bin" / "tsc",
            NODE_MODULES / "openapi-fetch" / "package.json",
        ],
    }[language]
    missing = [str(path) for path in needed if not path.exists()]
    if language == "typescript" and shutil.which("node") is None:
        missing.append("node (apt-get install nodejs)")
    return missing


@pytest.fixture(scope="module")
def selected() -> None:
    reason = pass_not_selected()
    if reason:
        pytest.skip(reason)


def require(language: str) -> None:
    missing = missing_tools(language)
    if not missing:
        return
    message = f"client generation tools missing: {', '.join(missing)}. {INSTALL}"
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def service(selected: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with example_service(
        "sqlite", tmp_path_factory.mktemp("clients"), PAYMENT_GATEWAY_DELAY_MS=str(GATEWAY_DELAY_MS)
    ) as running:
        yield running


@pytest.fixture(scope="module")
def odd_rows(service: Service) -> dict[str, str]:
    """An order and an invoice whose statuses the document does not list, written directly."""
    code = (
        "import json, uuid\n"
        "from testproject.billing.models import Customer, Invoice, Order\n"
        "user = Customer.objects.create(email=f'{uuid.uuid4().hex}@example.com', name='Odd')\n"
        "order = Order.objects.create(user=user, status='returned')\n"
        "invoice = Invoice.objects.create(user=user, status='refunded', amount_due=1, currency='eur')\n"
        "print(json.dumps({'ODD_ORDER_ID': order.id, 'ODD_INVOICE_ID': invoice.id}))\n"
    )
    return dict(json.loads(service.manage("shell", "-c", code).strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def documents(service: Service) -> dict[str, dict[str, Any]]:
    """The document of every served version, as the service serves it."""
    from django_api_conventions.versioning import get_version_table

    found = {}
    for version in get_version_table().served():
        answer = send(service.url, "GET", f"/openapi.json?version={version}")
        assert answer.status == 200, answer.body
        found[str(version)] = answer.json()
    assert found, "no served version"
    return found


def run(command: list[str], cwd: Path, **environment: str) -> str:
    """Run ``command``; its output, or a failure that shows it."""
    env = {**os.environ, "PATH": f"{PYTHON_TOOLS}{os.pathsep}{os.environ.get('PATH', '')}", **environment}
    for name in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV", "COVERAGE_PROCESS_START"):
        env.pop(name, None)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} exited {done.returncode}:\n{output}")
    return output


def flow_source(name: str, document: dict[str, Any]) -> str:
    """The flow, without its backward walk when the document's list envelope cannot walk back."""
    source = (FLOWS / name).read_text()
    pagination = document["components"]["schemas"]["PaginatedInvoiceList"]["properties"]["pagination"]
    if "previous_cursor" not in pagination.get("properties", {}):
        print(
            f"note: {document['info'].get('x-api-version')}: the list envelope has no previous_cursor; "
            f"{name} walks forward only"
        )
        source, count = BACKWARD_BLOCK.subn("\n", source)
        assert count == 1, f"{name}: its previous_cursor markers are missing"
    return source


def test_a_generated_python_client_works_as_it_is(
    documents: dict[str, dict[str, Any]],
    odd_rows: dict[str, str],
    service: Service,
    tmp_path: Path,
) -> None:
    require("python")
    for version, document in documents.items():
        folder = tmp_path / version
        folder.mkdir()
        (folder / "openapi.json").write_text(json.dumps(document))
        output = run(
            [
                str(PYTHON_TOOLS / "openapi-python-client"),
                "generate",
                "--path",
                "openapi.json",
                "--output-path",
                "client",
            ],
            folder,
        )
        assert "warning" not in output.lower(), output
        # A fresh virtualenv: what the generated package needs, it declares.
        venv.create(folder / "venv", with_pip=True)
        python = folder / "venv" / "bin" / "python"
        run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "./client"], folder)
        (folder / "flow.py").write_text(flow_source("flow.py", document))
        run(
            [
                str(PYTHON_TOOLS / "mypy"),
                "--strict",
                "--python-executable",
                str(python),
                "--cache-dir",
                str(TOOLS / "mypy-cache"),
                "flow.py",
            ],
            folder,
        )
        output = run([str(python), "flow.py"], folder, SERVICE_URL=service.url, **odd_rows)
        assert "python flow: ok" in output, output


def test_a_generated_typescript_client_works_as_it_is(
    documents: dict[str, dict[str, Any]],
    odd_rows: dict[str, str],
    service: Service,
    tmp_path: Path,
) -> None:
    require("typescript")
    for version, document in documents.items():
        folder = tmp_path / version
        folder.mkdir()
        (folder / "openapi.json").write_text(json.dumps(document))
        (folder / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
        (folder / "package.json").write_text('{"type": "module"}\n')
        shutil.copy(FLOWS / "tsconfig.json", folder / "tsconfig.json")
        run([str(NODE_MODULES / ".bin" / "openapi-typescript"), "openapi.json", "-o", "schema.d.ts"], folder)
        # openapi-fetch calls operations by path, and the paths carry the version.
        (folder / "flow.ts").write_text(flow_source("flow.ts", document).replace('"/v2/', f'"/{version}/'))
        tsc = str(NODE_MODULES / ".bin" / "tsc")
        run([tsc, "--noEmit", "-p", "."], folder)
        run([tsc, "-p", "."], folder)
        output = run(["node", "out/flow.js"], folder, SERVICE_URL=service.url, **odd_rows)
        assert "typescript flow: ok" in output, output
