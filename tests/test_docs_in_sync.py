"""The reference pages name every setting, check and problem type the code has."""

from __future__ import annotations

from pathlib import Path

import pytest

from django_api_conventions.check_messages import MESSAGES
from django_api_conventions.conf import DEFAULTS
from django_api_conventions.problems.types import problem_types

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_every_setting_is_documented(name: str) -> None:
    assert f"`{name}`" in (DOCS / "settings.md").read_text()


@pytest.mark.parametrize("check_id", sorted({check_id for check_id, _name in MESSAGES}))
def test_every_check_is_documented(check_id: str) -> None:
    assert check_id in (DOCS / "checks.md").read_text()


@pytest.mark.parametrize("slug", sorted(t.slug for t in problem_types if not t.slug.startswith("invoice-")))
def test_every_built_in_problem_type_is_documented(slug: str) -> None:
    assert f"`{slug}`" in (DOCS / "problem-types.md").read_text()
