"""docs/tutorial.md and its part 2, followed to the letter: a fresh project built from its code blocks.

The tutorial names each file it writes in its code block's title (```` ```python
title="orders/views.py" ````, shown above the block) and marks its commands with ``<!-- run -->``
(a ``console`` block of ``$ `` lines, each followed by the output it shows). A page may mark a
file with ``<!-- file: <path> -->`` instead (docs/adopting.md does).
This test writes the files into an empty directory, runs the commands in the page's order
(``runserver`` in the background, on a free port), compares every answer with the page, and
then walks each feature once more with its own assertions, so that a step removed from the
page cannot take its check with it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from .servers import free_port

#: The tutorial's pages, followed in this order as one page.
TUTORIAL_PAGES = [
    Path(__file__).resolve().parent.parent / "docs" / name for name in ("tutorial.md", "tutorial-features.md")
]


def tutorial_text() -> str:
    return "\n".join(page.read_text() for page in TUTORIAL_PAGES)


SHOWN_ORIGIN = "http://127.0.0.1:8000"
SPECTACULAR_URLS = "django_api_conventions.contrib.spectacular.urls"
# How long a worker trusts its last reading of the maintenance switch (the default setting).
MAINTENANCE_POLL_SECONDS = 1.0
WILDCARD = "..."

# Every fenced block, so that fences pair as Markdown pairs them. A file to write: its path as
# the block's title, or in a marker before it; commands to run: a block marked `run`.
_MARKER = re.compile(
    r"^(?:<!-- (?:file: (?P<marked>\S+)|(?P<run>run)) -->\n)?```(?P<info>[^`\n]*)\n(?P<body>.*?)^```$", re.M | re.S
)
_TITLE = re.compile(r'\btitle="(?P<path>[^"]+)"')


@dataclass
class Command:
    line: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Step:
    path: str | None = None  # a file to write
    content: str = ""
    commands: list[Command] = field(default_factory=list)  # or commands to run


def tutorial_steps(text: str) -> list[Step]:
    steps = []
    for match in _MARKER.finditer(text):
        titled = _TITLE.search(match["info"])
        path = titled["path"] if titled else match["marked"]
        if path:
            steps.append(Step(path=path, content=match["body"]))
            continue
        if not match["run"]:
            continue  # a block to read, not to write or run (the install commands, say)
        commands: list[Command] = []
        for line in match["body"].splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:]))
            else:
                assert commands, f"output before any command in a run block: {line!r}"
                commands[-1].expected.append(line)
        steps.append(Step(commands=commands))
    return steps


# --- comparing what the page shows with what the service answers -------------------------------


def matches(expected: Any, actual: Any, where: str = "") -> None:
    """``expected`` as the page shows it: ``"..."`` matches any value, and a ``"..."`` member
    stands for members left out; otherwise objects have exactly the members shown."""
    if expected == WILDCARD:
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where or '/'}: expected an object, got {actual!r}"
        shown = {key: value for key, value in expected.items() if key != WILDCARD}
        if WILDCARD not in expected:
            assert set(actual) == set(shown), f"{where or '/'}: members {sorted(actual)} instead of {sorted(shown)}"
        for key, value in shown.items():
            assert key in actual, f"{where}/{key} is missing from {actual!r}"
            matches(value, actual[key], f"{where}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} is not {expected!r}"
        for index, (item, value) in enumerate(zip(expected, actual, strict=True)):
            matches(item, value, f"{where}/{index}")
    elif isinstance(expected, str) and WILDCARD in expected:
        pattern = ".*".join(re.escape(part) for part in expected.split(WILDCARD))
        assert re.fullmatch(pattern, str(actual), re.S), f"{where}: {actual!r} does not match {expected!r}"
    else:
        assert actual == expected, f"{where}: {actual!r} instead of {expected!r}"


@dataclass
class Answer:
    status: int
    reason: str
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    origin: str, method: str, url: str, *, body: bytes | None = None, headers: dict[str, str] | None = None
) -> Answer:
    parts = urlsplit(url if "://" in url else origin + url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Answer(response.status, response.reason, response.headers, response.read())
    finally:
        connection.close()


def run_curl(origin: str, line: str) -> tuple[Answer, bool]:
    """The request of a ``curl`` command line of the page (``-i -s -X -H -d`` only)."""
    words = shlex.split(line)
    assert words[0] == "curl", line
    method, headers, data, url, include = None, {}, None, None, False
    words = iter(words[1:])
    for word in words:
        if word == "-i":
            include = True
        elif word == "-s":
            pass
        elif word == "-X":
            method = next(words)
        elif word == "-H":
            name, _, value = next(words).partition(":")
            headers[name.strip()] = value.strip()
        elif word in ("-d", "--data"):
            data = next(words).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        else:
            assert not word.startswith("-"), f"the test does not know curl's {word} ({line})"
            url = word
    assert url, line
    headers.setdefault("Accept", "*/*")
    return request(origin, method or ("POST" if data is not None else "GET"), url, body=data, headers=headers), include


def compare_answer(answer: Answer, expected: list[str], include: bool, line: str) -> None:
    lines = list(expected)
    context = f"`{line}` answered {answer.status}: {answer.body[:2000]!r}"
    if include:
        status_line = lines.pop(0).split(maxsplit=2)
        assert status_line[:2] == ["HTTP/1.1", str(answer.status)], context
        # Reason phrases differ between Python versions (422's is "Unprocessable Entity" up to
        # 3.12, "Unprocessable Content" from 3.13): the page shows those of 3.11 and 3.12, and
        # says so.
        if sys.version_info < (3, 13):
            assert status_line[2:] == [answer.reason], f"the page shows {status_line[2:]}; {context}"
        while lines and lines[0].strip():
            name, _, value = lines.pop(0).partition(": ")
            actual = answer.headers.get(name)
            assert actual is not None, f"no {name} header; {context}"
            matches(value, actual, name)
    shown = "\n".join(lines).strip()
    if not shown:
        return
    if shown.startswith(("{", "[")):
        matches(json.loads(shown), answer.json(), "")
    else:
        for part in shown.split(WILDCARD):
            assert part.strip() in answer.body.decode(), context


# --- the project --------------------------------------------------------------------------------


@dataclass
class Project:
    directory: Path
    env: dict[str, str]
    origin: str = ""
    server: subprocess.Popen[bytes] | None = None
    answers: list[tuple[str, Answer]] = field(default_factory=list)  # the page's requests, in order

    @classmethod
    def outside_the_suite(cls, directory: Path) -> Project:
        """A project in ``directory`` run with this environment less the suite's own settings,
        import path and coverage hook, as a user's shell would run it."""
        hidden = ("DJANGO_SETTINGS_MODULE", "PYTHONPATH", "COVERAGE_PROCESS_START")
        return cls(directory, {key: value for key, value in os.environ.items() if key not in hidden})

    def manage(self, *arguments: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run([sys.executable, "manage.py", *arguments], check=check)

    def run(self, command: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(command, cwd=self.directory, env=self.env, capture_output=True, text=True, timeout=60)
        if check:
            assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
        return result

    def start_server(self) -> None:
        port = free_port()
        self.origin = f"http://127.0.0.1:{port}"
        self.server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=self.directory,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                request(self.origin, "GET", "/problems/")
                return
            except OSError:
                if self.server.poll() is not None:
                    raise AssertionError(f"runserver exited: {self.server.stderr.read().decode()}") from None
                assert time.monotonic() < deadline, "runserver did not start"
                time.sleep(0.1)

    def stop_server(self) -> None:
        if self.server is not None:
            self.server.terminate()
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()

    def http(self, method: str, path: str, payload: Any = None, **headers: str) -> Answer:
        body = None if payload is None else json.dumps(payload).encode()
        if body is not None:
            headers.setdefault("Content_Type", "application/json")
        return request(
            self.origin, method, path, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()}
        )


def run_command(project: Project, command: Command) -> None:
    words = shlex.split(command.line)
    if words[0] == "curl":
        answer, include = run_curl(project.origin, command.line.replace(SHOWN_ORIGIN, project.origin))
        project.answers.append((command.line, answer))
        compare_answer(
            answer, [line.replace(SHOWN_ORIGIN, project.origin) for line in command.expected], include, command.line
        )
        return
    if words[:3] == ["python", "manage.py", "runserver"]:
        project.start_server()
        return
    if words[0] == "django-admin":
        words = [sys.executable, "-m", "django", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
    else:
        raise AssertionError(f"the test does not know how to run {command.line!r}")
    result = project.run(words)
    output = result.stdout + result.stderr
    for line in command.expected:
        assert line.strip() in output, f"{command.line!r} did not print {line.strip()!r}:\n{output}"
    if words[2:4] == ["maintenance", "on"] or words[2:4] == ["maintenance", "off"]:
        time.sleep(MAINTENANCE_POLL_SECONDS + 0.2)  # what the page says: "within a second"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The tutorial followed from its first step to its last."""
    project = Project.outside_the_suite(tmp_path_factory.mktemp("tutorial"))
    try:
        for step in tutorial_steps(tutorial_text()):
            if step.path is not None:
                content = step.content
                if step.path == "shop/urls.py" and not _has_spectacular_urls():
                    # Until the package serves /openapi.json, build the rest of the tutorial without it.
                    content = "\n".join(line for line in content.splitlines() if SPECTACULAR_URLS not in line) + "\n"
                target = project.directory / step.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content)
                continue
            for command in step.commands:
                if not _has_spectacular_urls() and ("openapi.json" in command.line or "/docs" in command.line):
                    continue
                run_command(project, command)
        yield project
    finally:
        project.stop_server()


def _has_spectacular_urls() -> bool:
    try:
        return find_spec(SPECTACULAR_URLS) is not None
    except ModuleNotFoundError:
        return False


# --- the tests ----------------------------------------------------------------------------------


def test_the_page_marks_files_and_commands() -> None:
    steps = tutorial_steps(tutorial_text())
    files = {step.path for step in steps if step.path}
    assert {"shop/settings.py", "shop/urls.py", "orders/models.py", "orders/views.py"} <= files
    assert sum(len(step.commands) for step in steps) >= 20


def test_the_project_passed_its_checks_and_migrated(project: Project) -> None:
    # The page's own `check --fail-level WARNING` ran (and printed "no issues") to get here.
    assert (project.directory / "orders" / "migrations" / "0001_initial.py").exists()
    assert (project.directory / "db.sqlite3").exists()


def test_problem_details(project: Project) -> None:
    missing = project.http("GET", "/v2/orders/424242")
    assert missing.status == 404
    assert missing.headers["Content-Type"] == "application/problem+json"
    assert missing.json()["type"].endswith("/problems/not-found")

    invalid = project.http("POST", "/v2/orders", {"customer": "x", "amount": "lots"})
    assert invalid.status == 422
    assert invalid.headers["Content-Type"] == "application/problem+json"
    assert invalid.json()["errors"] == [
        {"pointer": "/amount", "detail": "A valid integer is required.", "code": "invalid"}
    ]


def test_idempotent_post_replayed_and_key_reuse_refused(project: Project) -> None:
    key = "test-tutorial-replay"
    first = project.http("POST", "/v2/orders", {"customer": "bob", "amount": 10}, Idempotency_Key=key)
    again = project.http("POST", "/v2/orders", {"customer": "bob", "amount": 10}, Idempotency_Key=key)
    assert (first.status, first.headers["Idempotent-Replayed"]) == (201, "false")
    assert (again.status, again.headers["Idempotent-Replayed"]) == (201, "true")
    assert again.body == first.body
    other = project.http("POST", "/v2/orders", {"customer": "bob", "amount": 11}, Idempotency_Key=key)
    assert other.status == 422
    assert other.json()["type"].endswith("/problems/idempotency-key-reused")
    unkeyed = project.http("POST", f"/v2/orders/{first.json()['id']}/payments", {"amount": 10})
    assert unkeyed.status == 400
    assert unkeyed.json()["type"].endswith("/problems/idempotency-key-missing")


def test_the_list_is_walked_to_its_end_by_cursor(project: Project) -> None:
    for number in range(5):
        assert project.http("POST", "/v2/orders", {"customer": f"walker-{number}", "amount": 1}).status == 201
    expected = [order["id"] for order in project.http("GET", "/v2/orders?limit=100").json()["data"]]
    seen, cursor, pages = [], None, 0
    while True:
        page = project.http("GET", "/v2/orders?limit=2" + (f"&cursor={cursor}" if cursor else "")).json()
        seen += [order["id"] for order in page["data"]]
        pages += 1
        cursor = page["pagination"]["next_cursor"]
        assert page["pagination"]["has_next"] is (cursor is not None)
        if cursor is None:
            break
    assert seen == expected == sorted(expected, reverse=True)
    assert pages == (len(expected) + 1) // 2
    unknown = project.http("GET", "/v2/orders?colour=red")
    assert unknown.status == 400
    assert unknown.json()["errors"][0]["parameter"] == "colour"


def test_deprecated_version_and_trace_id(project: Project) -> None:
    answer = project.http("GET", "/v1/orders", X_Request_ID="test-tutorial-trace")
    assert answer.status == 200
    assert answer.headers["Deprecation"] == "@1780272000"
    assert answer.headers["Sunset"] == "Tue, 01 Jan 2030 00:00:00 GMT"
    assert 'rel="deprecation"' in answer.headers["Link"]
    assert answer.headers["X-Request-ID"] == "test-tutorial-trace"
    current = project.http("GET", "/v2/orders")
    assert "Deprecation" not in current.headers


def test_maintenance_mode(project: Project) -> None:
    # Switching maintenance on and off costs two processes and two poll intervals: the page's
    # own steps did it, so their answers are read back here.
    during = [answer for line, answer in project.answers if answer.status == 503]
    assert during, "the page never showed the 503 of maintenance mode"
    assert during[0].json()["type"].endswith("/problems/service-unavailable")
    assert during[0].headers["Retry-After"] == "120"
    assert project.http("GET", "/v2/orders").status == 200  # and it was turned off again


def test_openapi_schema_and_docs_are_served(project: Project) -> None:
    pytest.importorskip(SPECTACULAR_URLS)
    schema = project.http("GET", "/openapi.json")
    assert schema.status == 200
    paths = schema.json()["paths"]
    assert set(paths) == {"/v2/orders", "/v2/orders/{id}", "/v2/orders/search", "/v2/orders/{order_id}/payments"}
    keys = {
        name: {p["name"]: p.get("required", False) for p in paths[name]["post"]["parameters"]}["Idempotency-Key"]
        for name in ("/v2/orders", "/v2/orders/{order_id}/payments")
    }
    assert keys == {"/v2/orders": False, "/v2/orders/{order_id}/payments": True}
    response = paths["/v2/orders"]["post"]["responses"]["422"]
    if "$ref" in response:  # a problem response shared by the operations, in components
        response = schema.json()["components"]["responses"][response["$ref"].rpartition("/")[2]]
    assert "application/problem+json" in response["content"]
    older = project.http("GET", "/openapi.json?version=v1").json()
    assert set(older["paths"]) == {path.replace("/v2/", "/v1/") for path in paths}
    assert all(operation["deprecated"] for operation in older["paths"]["/v1/orders"].values())
    docs = project.http("GET", "/docs")
    assert docs.status == 200
    assert b"swagger" in docs.body.lower()
    # The page's `manage.py spectacular ... --file openapi-v2.yaml` wrote the document served.
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load((project.directory / "openapi-v2.yaml").read_text()) == schema.json()


def test_each_log_line_is_written_once(project: Project) -> None:
    # DEBUG is on in the tutorial, which turns on the console handler Django gives its "django"
    # logger; next to the page's root handler, every record of django.* was written twice.
    code = "import logging; logging.getLogger('django.request').warning('tutorial-log-line')"
    result = project.manage("shell", "-c", code)
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "tutorial-log-line" in line]
    assert lines == ["WARNING django.request trace_id=- tutorial-log-line"], lines
