from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_missing_migrations() -> None:
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def test_one_initial_migration_creates_every_model() -> None:
    from pathlib import Path

    from django.apps import apps

    folder = Path(apps.get_app_config("django_api_conventions").path) / "migrations"
    assert sorted(path.name for path in folder.glob("0*.py")) == ["0001_initial.py"]
