"""The sizes a maintainer keeps the package to (docs/development.md, "Budgets"): how many
system-check ids, how much documentation and how large a page. Each test names what to do
when it fails: merge, cut or split, never raise the figure without a reason in the changelog."""

from __future__ import annotations

import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
DOCS = REPOSITORY / "docs"

MAX_CHECK_IDS = 25
MAX_DOCS_BYTES = 350_000
MAX_PAGE_BYTES = 25_000


def check_ids() -> set[str]:
    table = (REPOSITORY / "django_api_conventions" / "check_messages.py").read_text()
    return set(re.findall(r'"([EW]\d{3})"', table))


def test_check_ids_stay_few() -> None:
    """One id a kind of mistake: a new message joins the id of the mistake it reports."""
    ids = check_ids()
    assert 10 <= len(ids) <= MAX_CHECK_IDS, sorted(ids)


def test_the_docs_stay_readable_in_an_afternoon() -> None:
    """Say a thing once, on the page a user looks for it, and link to it from the others."""
    total = sum(page.stat().st_size for page in DOCS.glob("*.md"))
    assert total <= MAX_DOCS_BYTES, f"docs/*.md hold {total:,} bytes, more than {MAX_DOCS_BYTES:,}"


def test_no_page_is_too_long() -> None:
    """A page over the limit is split by the questions it answers."""
    long_pages = {page.name: page.stat().st_size for page in DOCS.glob("*.md") if page.stat().st_size > MAX_PAGE_BYTES}
    assert long_pages == {}
