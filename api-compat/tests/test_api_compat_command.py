"""``manage.py api_compat`` end to end on the example service: baselines written, compared, enforced."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError

EXAMPLE_URLCONF = "testproject.urls"
#: The repository's root: the example service and its baselines.
ROOT = Path(__file__).resolve().parents[2]
COMMITTED_BASELINES = ROOT / "testproject" / "openapi"


@pytest.fixture(autouse=True)
def before_the_sunset_of_v1() -> Any:
    """The example service serves v1 until 2027-06-01 and v2; v0 is retired."""
    with time_machine.travel(dt.datetime(2026, 11, 22, tzinfo=dt.UTC), tick=False):
        yield


def api_compat(*args: str, **options: Any) -> str:
    out = StringIO()
    call_command("api_compat", *args, urlconf=EXAMPLE_URLCONF, stdout=out, **options)
    return out.getvalue()


def edit_baseline(path: Path, edit: Any) -> None:
    schema = json.loads(path.read_text())
    edit(schema)
    path.write_text(json.dumps(schema))


@pytest.fixture
def baselines(tmp_path: Path) -> Path:
    """Fresh baselines of every served version of the example service, in a temp dir."""
    api_compat("--update", baseline_dir=str(tmp_path))
    return tmp_path


def test_the_example_service_matches_its_committed_baselines() -> None:
    output = api_compat(baseline_dir=str(COMMITTED_BASELINES))
    assert "v1: " in output and "v2: " in output and "BREAKING" not in output


def test_update_writes_one_baseline_per_served_version_and_they_match(baselines: Path) -> None:
    assert sorted(p.name for p in baselines.iterdir()) == ["v1.json", "v2.json"]  # v0 is retired
    v2 = json.loads((baselines / "v2.json").read_text())
    assert "/v2/invoices" in v2["paths"] and not any(path.startswith("/v1/") for path in v2["paths"])
    assert (baselines / "v2.json").read_text().endswith("}\n")
    output = api_compat("--strict", baseline_dir=str(baselines))
    assert output.splitlines() == [f"v1: matches {baselines / 'v1.json'}", f"v2: matches {baselines / 'v2.json'}"]


def test_the_baselines_are_in_openapi_of_the_current_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api_compat("--update", "--api-version", "v2", baseline_dir=str(tmp_path / "openapi"))
    monkeypatch.chdir(tmp_path)
    assert api_compat("--api-version", "v2").startswith("v2: matches openapi/v2.json")


def test_a_missing_baseline_is_an_error_that_says_how_to_write_it(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"No baseline .*v1\.json\. Write it with `manage.py api_compat --update`"):
        api_compat(baseline_dir=str(tmp_path))


def test_a_breaking_change_fails_and_names_each_finding(baselines: Path) -> None:
    # The baseline had an enum value and a response field the code no longer has.
    def with_more(schema: dict[str, Any]) -> None:
        invoice = schema["components"]["schemas"]["Invoice"]
        invoice["properties"]["legacy_ref"] = {"type": "string", "readOnly": True}
        schema["components"]["schemas"]["OrderStatusEnum"]["enum"].append("returned")

    edit_baseline(baselines / "v2.json", with_more)
    out = StringIO()
    with pytest.raises(CommandError, match=r"Breaking changes in v2\. A breaking change belongs in a new version"):
        call_command("api_compat", urlconf=EXAMPLE_URLCONF, baseline_dir=str(baselines), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"v1: matches {baselines / 'v1.json'}"
    assert lines[1].startswith("v2: ") and "breaking change(s)" in lines[1]
    assert "  BREAKING GET /v2/orders 200 data[].status: enum value 'returned' removed" in lines
    assert "  BREAKING GET /v2/invoices 200 data[].legacy_ref: field removed" in lines
    assert "  BREAKING GET /v2/invoices/{id} 200 legacy_ref: field removed" in lines


def test_additive_changes_pass_and_strict_asks_to_record_them(baselines: Path) -> None:
    # The baseline lacked a response field and an operation the code now has.
    def with_less(schema: dict[str, Any]) -> None:
        del schema["components"]["schemas"]["Invoice"]["properties"]["created_at"]
        schema["components"]["schemas"]["Invoice"]["required"].remove("created_at")
        del schema["paths"]["/v2/invoices/search"]

    edit_baseline(baselines / "v2.json", with_less)
    output = api_compat(baseline_dir=str(baselines))
    assert "v2: compatible with" in output and "not yet recorded (record them with --update)" in output
    assert "compatible GET" not in output
    listed = api_compat(baseline_dir=str(baselines), verbosity=2)
    assert "  compatible GET /v2/invoices 200 data[].created_at: field added" in listed.splitlines()
    assert "  compatible /v2/invoices/search: path added" in listed.splitlines()
    with pytest.raises(CommandError, match="Unrecorded changes in v2"):
        api_compat("--strict", baseline_dir=str(baselines))
    updated = api_compat("--update", baseline_dir=str(baselines))
    assert f"v2: wrote {baselines / 'v2.json'} (0 breaking, " in updated
    api_compat("--strict", baseline_dir=str(baselines))


def test_update_lists_what_it_accepts_at_verbosity_2(baselines: Path) -> None:
    edit_baseline(baselines / "v2.json", lambda s: s["paths"].pop("/v2/invoices/search"))
    output = api_compat("--update", "--api-version", "v2", baseline_dir=str(baselines), verbosity=2)
    assert "  compatible /v2/invoices/search: path added" in output.splitlines()


def test_one_version_can_be_checked_alone(baselines: Path) -> None:
    (baselines / "v1.json").unlink()
    assert api_compat("--api-version", "v2", baseline_dir=str(baselines)).startswith("v2: matches")
    with pytest.raises(CommandError, match=r"Not a served version: v0, v9; served: v1, v2\."):
        api_compat("--api-version", "v0", "--api-version", "v9", baseline_dir=str(baselines))


def test_an_api_without_versions_has_one_baseline(settings: Any, tmp_path: Path) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": []}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_VERSIONING_CLASS": None}
    api_compat("--update", baseline_dir=str(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["openapi.json"]
    assert api_compat(baseline_dir=str(tmp_path)).startswith("the API: matches")
    with pytest.raises(CommandError, match=r"served: none: VERSIONS is empty"):
        api_compat("--api-version", "v2", baseline_dir=str(tmp_path))


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("{not json", r"Cannot read the baseline .*v2\.json"),
        ("[]", r"The baseline .*v2\.json is not an OpenAPI document"),
        (
            '{"paths": {"/v2/users": {"get": {"responses": {"200": {"$ref": "#/components/responses/Gone"}}}}}}',
            r"v2: cannot compare with .*v2\.json: cannot resolve \$ref '#/components/responses/Gone'",
        ),
    ],
)
def test_an_unreadable_baseline_is_an_error_that_names_it(baselines: Path, content: str, error: str) -> None:
    (baselines / "v2.json").write_text(content)
    with pytest.raises(CommandError, match=error):
        api_compat("--api-version", "v2", baseline_dir=str(baselines))


def test_without_a_drf_spectacular_schema_class_the_error_says_what_to_set(settings: Any, tmp_path: Path) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_SCHEMA_CLASS": "rest_framework.schemas.openapi.AutoSchema",
    }
    with pytest.raises(
        CommandError,
        match=r"not a drf-spectacular AutoSchema: set it to "
        r"'django_api_conventions\.contrib\.spectacular\.ProblemAutoSchema'",
    ):
        api_compat(baseline_dir=str(tmp_path))


def test_a_baseline_outside_the_current_directory_is_shown_as_given(tmp_path: Path, monkeypatch: Any) -> None:
    elsewhere = tmp_path / "elsewhere"
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert str(elsewhere / "v1.json") in api_compat("--update", baseline_dir=str(elsewhere))
    monkeypatch.chdir(tmp_path)
    assert "v1: matches elsewhere/v1.json" in api_compat(baseline_dir="elsewhere")


def test_the_command_line_exits_1_with_the_reason_on_stderr(tmp_path: Path) -> None:
    """What CI sees: `python -m testproject api_compat` (the example service's manage.py)."""
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    result = subprocess.run(
        [sys.executable, "-m", "testproject", "api_compat", "--baseline-dir", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert f"CommandError: No baseline {tmp_path}/v" in result.stderr  # real time: v1 or, after its sunset, v2
