"""The pages a user reads speak of the package, not of the work that made it.

README.md, CHANGELOG.md, every docs page and every docstring of the package (module, class and
function, which the API reference renders and ``help()`` shows) name no issue of our tracker
(`issue 17`, `#17`), no round of work (`round eight`), no commit hash and no working session.
Hashes are spotted as git prints them, 7 to 12 or 40 hexadecimal characters with a digit and a
letter among them, so that trace ids (32) and span ids (16) in examples pass. "session" passes
in its HTTP, Django and database senses, listed in ``_SESSION_SENSES``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md")])

SOURCE = ROOT / "django_api_conventions"
MODULES = sorted(SOURCE.rglob("*.py"))

_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"

_INTERNAL = {
    "an issue number": re.compile(r"\bissues?\s+#?\d+\b|(?<![\w&/#])#\d+\b", re.I),
    "a round of work": re.compile(rf"\brounds?\s+(?:{_NUMBER_WORDS}|\d+)\b", re.I),
    "a commit hash": re.compile(
        r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])(?:[0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-])"
    ),
    "a working session": re.compile(r"\bsessions?\b", re.I),
}

#: An exponent such as ``1e999999`` is a number, not a hash.
_NUMBER = re.compile(r"\d+e\d+")

#: What "session" means in these pages: Django's sessions, a browser's, a database's.
_SESSION_SENSES = re.compile(
    r"contrib\.sessions|browser\s+session|session\s+user|session\s+cookie|session\s+`SET`s"
    r"|needs\s+no\s+session|touches\s+the\s+session|reads\s+the\s+session|(?:request|caller)'s\s+session",
    re.I,
)


def internal_vocabulary(text: str) -> list[str]:
    """Each hit as ``line N: <what>: <text>``."""
    allowed = [match.span() for match in _SESSION_SENSES.finditer(text)]
    hits = []
    for what, pattern in _INTERNAL.items():
        for match in pattern.finditer(text):
            if what == "a commit hash" and _NUMBER.fullmatch(match[0]):
                continue
            if what == "a working session" and any(start <= match.start() < end for start, end in allowed):
                continue
            hits.append(f"line {text.count(chr(10), 0, match.start()) + 1}: {what}: {match[0]!r}")
    return hits


@pytest.mark.parametrize("path", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_internal_vocabulary(path: Path) -> None:
    hits = internal_vocabulary(path.read_text())
    assert not hits, (
        f"{path.relative_to(ROOT)} speaks of the work, not of the package (say what exists, as a "
        f"user sees it; a legitimate sense of 'session' goes into _SESSION_SENSES): {hits}"
    )


def docstrings(path: Path) -> Iterator[tuple[str, str]]:
    """Each docstring of the module at ``path``, with the object it documents."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "name", "the module"), text


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_internal_vocabulary_in_docstrings(path: Path) -> None:
    hits = [f"{name}: {hit}" for name, text in docstrings(path) for hit in internal_vocabulary(text)]
    assert not hits, (
        f"{path.relative_to(ROOT)}: a docstring speaks of the work, not of the code (say what it does "
        f"and why, as a reader of the code needs it): {hits}"
    )


def test_docstrings_are_found() -> None:
    found = dict(docstrings(SOURCE / "conf.py"))
    assert "the module" in found and "APIConventionsSettings" in found
    assert sum(1 for path in MODULES for _ in docstrings(path)) > 500


@pytest.mark.parametrize(
    "text",
    [
        "Fixed in issue 17.",
        "see #31",
        "as round eight measured",
        "Round 3 of the benchmarks",
        "since commit 3434a3c",
        "at 2284e52a1b0c",
        "full hash b41bb483ab568ce96e6eef8e254b7a7b6e308a4c",
        "on a VM shared with other sessions",
        "This session moved the module.",
    ],
)
def test_the_patterns_find_internal_vocabulary(text: str) -> None:
    assert internal_vocabulary(text)


@pytest.mark.parametrize(
    "text",
    [
        "X-Request-ID: 6e218b2e48884e779a26922a7b150b58",
        "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "a literal such as 1e999999 is refused",
        "one round trip sooner",
        '"django.contrib.sessions",',
        "a browser session request",
        "reads the\nsession, only Accept-Language",
        "HTML entity &#8217; and a link [x](page.md#3-steps)",
        "a UUID 123e4567-e89b-12d3-a456-426614174000",
    ],
)
def test_the_patterns_leave_legitimate_text_alone(text: str) -> None:
    assert not internal_vocabulary(text)
