"""docs/settings.md's reference table is generated from DEFAULTS, its comments and SETTING_DOCS, up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from django_api_conventions.conf import DEFAULTS
from docs import settings_reference as settings_docs
from docs.settings_reference import (
    BEGIN,
    END,
    SETTING_DOCS,
    change_it_when,
    main,
    python_literal,
    render_reference,
    shown_default_value,
    with_reference,
)

PAGE = Path(__file__).resolve().parent.parent / "docs" / "settings.md"
REGENERATE = "python -m docs.settings_reference docs/settings.md"


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_every_setting_is_described(name: str) -> None:
    assert name in SETTING_DOCS, f"Describe {name} in SETTING_DOCS (docs/settings_reference.py)"
    doc = SETTING_DOCS[name]
    assert doc.type.strip() and doc.meaning.strip()
    why = change_it_when()[name]
    assert why.strip(), f"Say when a project changes {name} in a comment above it in conf.py, or make it a constant"
    assert "|" not in doc.type + doc.meaning + why, "a | would break the Markdown table"


def test_at_most_32_settings() -> None:
    # What no project needs to change is a class attribute or a constant of its module; a
    # setting is what a project cannot say on a class of its own (a third-party app's paths).
    assert len(DEFAULTS) <= 32, sorted(DEFAULTS)


@pytest.mark.parametrize("name", list(SETTING_DOCS))
def test_every_description_belongs_to_a_setting_and_shows_its_default(name: str) -> None:
    assert name in DEFAULTS, f"SETTING_DOCS describes {name}, which is not a setting"
    assert shown_default_value(name) == DEFAULTS[name]


def test_the_committed_page_is_the_generated_one() -> None:
    page = PAGE.read_text()
    assert with_reference(page) == page, f"docs/settings.md is out of date: run {REGENERATE}"


def test_a_setting_without_description_fails_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DEFAULTS, "BRAND_NEW_SETTING", 1)
    with pytest.raises(KeyError, match="Describe BRAND_NEW_SETTING in SETTING_DOCS"):
        render_reference()


def test_a_setting_without_comment_fails_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DEFAULTS, "BRAND_NEW_SETTING", 1)
    monkeypatch.setitem(SETTING_DOCS, "BRAND_NEW_SETTING", settings_docs.SettingDoc("a number", "Does new things."))
    with pytest.raises(KeyError, match="when a project changes BRAND_NEW_SETTING in a comment above it"):
        render_reference()


def test_the_comment_above_a_setting_is_its_change_it_when() -> None:
    assert (
        change_it_when()["MAINTENANCE_RETRY_AFTER"] == "Your maintenances usually last more or less than five minutes."
    )


def test_a_new_setting_gets_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DEFAULTS, "BRAND_NEW_SETTING", ["a", 'b"c'])
    monkeypatch.setitem(SETTING_DOCS, "BRAND_NEW_SETTING", settings_docs.SettingDoc("a list", "Does new things."))
    whys = {**change_it_when(), "BRAND_NEW_SETTING": "New things are needed."}
    monkeypatch.setattr(settings_docs, "change_it_when", lambda: whys)
    row = '| `BRAND_NEW_SETTING` | `["a", "b\\"c"]` | a list | New things are needed. | Does new things. |'
    assert row in render_reference()


def test_python_literals() -> None:
    assert python_literal(None) == "None"
    assert python_literal(("a", 1.5)) == '("a", 1.5)'
    assert python_literal("back\\slash") == '"back\\\\slash"'


def test_the_command_checks_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "settings.md"
    page.write_text(f"# Settings\n\n{BEGIN}\nstale\n{END}\n\nThe rest.\n")
    assert main([str(page), "--check"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert main([str(page)]) == 0
    assert page.read_text() == f"# Settings\n\n{render_reference()}\n\nThe rest.\n"
    assert main([str(page), "--check"]) == 0


def test_a_page_without_markers_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="section"):
        with_reference("# Settings\n")


def test_a_shown_default_must_hold_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        SETTING_DOCS, "PAGINATION_MAX_LIMIT", settings_docs.SettingDoc("a number", "Largest.", default="none")
    )
    with pytest.raises(ValueError, match="PAGINATION_MAX_LIMIT shows no value"):
        shown_default_value("PAGINATION_MAX_LIMIT")
