"""Header formats, dates, the lifecycle, the fields, the resolver on its own, the deprecations command."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
import time_machine
from asgiref.sync import async_to_sync
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpResponse
from django.test import AsyncClient, RequestFactory
from rest_framework import serializers

from django_api_conventions.management.commands.deprecations import Command as DeprecationsCommand
from django_api_conventions.versioning import (
    EndpointDeprecation,
    OpenEnumField,
    RenamedField,
    RenamedFieldsMixin,
    deprecated,
    get_version_table,
    reverse,
    versioned_urls,
)
from django_api_conventions.versioning.checks import VERSION_MIDDLEWARE
from django_api_conventions.versioning.drf import LifecycleVersioning
from django_api_conventions.versioning.headers import (
    cap_freshness,
    deprecation_header_value,
    link_value,
    sunset_header_value,
)
from django_api_conventions.versioning.lifecycle import APIVersion, parse_moment, version_in_path
from testproject.settings import MIGRATION_GUIDE

UTC = dt.UTC
TODAY = dt.datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def today() -> Iterator[None]:
    with time_machine.travel(TODAY, tick=False):
        yield


# --- header values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "value"),
    [
        (dt.datetime(2026, 6, 1, tzinfo=UTC), "@1780272000"),
        (dt.datetime(1970, 1, 1, tzinfo=UTC), "@0"),
        (dt.datetime(2026, 6, 1, 0, 0, 0, 999_999, tzinfo=UTC), "@1780272000"),
        (dt.datetime(2026, 6, 1, 2, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), "@1780272000"),
    ],
)
def test_deprecation_is_an_rfc_9651_date(moment: dt.datetime, value: str) -> None:
    assert deprecation_header_value(moment) == value


@pytest.mark.parametrize(
    ("moment", "value"),
    [
        (dt.datetime(2027, 6, 1, tzinfo=UTC), "Tue, 01 Jun 2027 00:00:00 GMT"),
        (dt.datetime(2026, 1, 9, 7, 5, 3, tzinfo=UTC), "Fri, 09 Jan 2026 07:05:03 GMT"),
        (dt.datetime(2027, 6, 1, 2, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), "Tue, 01 Jun 2027 00:00:00 GMT"),
    ],
)
def test_sunset_is_an_imf_fixdate(moment: dt.datetime, value: str) -> None:
    assert sunset_header_value(moment) == value


def test_link_titles_are_quoted_strings() -> None:
    assert link_value("https://x.test/a", "deprecation", title='say "hi" \\ bye') == (
        '<https://x.test/a>; rel="deprecation"; type="text/html"; title="say \\"hi\\" \\\\ bye"'
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, "no-cache"),
        ("private", "private, no-cache"),
        ("max-age=60", "max-age=60"),
        ("max-age=999999", "max-age=3600"),
        ("max-age=junk", "max-age=3600"),
        ("public, s-maxage=999999", "public, s-maxage=3600"),
        ("no-store", "no-store"),
    ],
)
def test_freshness_never_reaches_past_the_sunset(given: str | None, expected: str) -> None:
    response = HttpResponse()
    if given is not None:
        response["Cache-Control"] = given
    cap_freshness(response, TODAY + dt.timedelta(hours=1), TODAY)
    assert response["Cache-Control"] == expected


def test_freshness_after_the_sunset_is_zero() -> None:
    response = HttpResponse()
    response["Cache-Control"] = "max-age=60"
    cap_freshness(response, TODAY - dt.timedelta(days=1), TODAY)
    assert response["Cache-Control"] == "max-age=0"


# --- dates and the lifecycle ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2027-06-01", dt.datetime(2027, 6, 1, tzinfo=UTC)),
        ("2027-06-01T12:30:00", dt.datetime(2027, 6, 1, 12, 30, tzinfo=UTC)),
        ("2027-06-01T12:30:00+02:00", dt.datetime(2027, 6, 1, 10, 30, tzinfo=UTC)),
        (dt.date(2027, 6, 1), dt.datetime(2027, 6, 1, tzinfo=UTC)),
        (dt.datetime(2027, 6, 1, 8), dt.datetime(2027, 6, 1, 8, tzinfo=UTC)),
        (None, None),
    ],
)
def test_dates_are_utc_moments(value: Any, expected: dt.datetime | None) -> None:
    assert parse_moment(value) == expected


@pytest.mark.parametrize("value", ["June 2027", "2027-13-01", 20270601])
def test_a_bad_date_says_what_to_write(value: Any) -> None:
    with pytest.raises(ImproperlyConfigured, match="ISO 8601"):
        parse_moment(value)


def test_a_deprecated_version_is_retired_from_its_sunset_on() -> None:
    version = APIVersion.from_setting(
        {
            "name": "v1",
            "status": "deprecated",
            "deprecation": "2026-06-01",
            "sunset": "2027-06-01",
            "migration_guide": "https://x.test/guide",
        }
    )
    assert version.state(dt.datetime(2027, 5, 31, 23, 59, 59, tzinfo=UTC)) == "deprecated"
    assert version.state(dt.datetime(2027, 6, 1, tzinfo=UTC)) == "retired"
    assert version.is_deprecated() and not version.is_retired()


def test_the_version_table_follows_the_settings(settings: Any) -> None:
    assert [v.name for v in get_version_table().versions] == ["v0", "v1", "v2"]
    assert get_version_table().current.name == "v2"  # type: ignore[union-attr]
    settings.API_CONVENTIONS = {"VERSIONS": [{"name": "v7", "status": "current"}]}
    assert get_version_table().served() == ["v7"]


# --- per-endpoint deprecation ---------------------------------------------------------------


def test_an_endpoint_sunset_before_its_deprecation_fails_at_import() -> None:
    with pytest.raises(ImproperlyConfigured, match="before its deprecation"):
        deprecated(deprecation="2027-01-01", sunset="2026-01-01")


def test_deprecations_stack_per_method() -> None:
    @deprecated(deprecation="2026-01-01", methods=["post"])
    @deprecated(deprecation="2026-02-01", methods=["DELETE"])
    def view(request: Any) -> HttpResponse:
        return HttpResponse()

    entries: tuple[EndpointDeprecation, ...] = view.api_deprecations  # type: ignore[attr-defined]
    assert [sorted(e.methods or ()) for e in entries] == [["DELETE"], ["POST"]]
    assert entries[1].applies_to("post") and not entries[1].applies_to("GET")


# --- fields ---------------------------------------------------------------------------------


def test_a_renamed_field_needs_the_mixin() -> None:
    class Plain(serializers.Serializer):
        amount_due = serializers.IntegerField()
        total = RenamedField("amount_due", deprecation="2026-11-01", sunset="2027-06-01")

    with pytest.raises(ImproperlyConfigured, match="add RenamedFieldsMixin first in the bases of Plain"):
        Plain().fields  # noqa: B018


def test_a_rename_with_its_sunset_first_fails() -> None:
    with pytest.raises(ImproperlyConfigured, match="before its deprecation"):
        RenamedField("amount_due", deprecation="2027-06-01", sunset="2026-06-01")


def test_renames_work_without_a_request() -> None:
    class Renamed(RenamedFieldsMixin, serializers.Serializer):
        amount_due = serializers.IntegerField()
        total = RenamedField("amount_due", deprecation="2026-11-01", sunset="2027-06-01")

    serializer = Renamed(data={"total": 5})
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data == {"amount_due": 5}
    assert Renamed({"amount_due": 5}).data == {"amount_due": 5, "total": 5}


def test_an_open_enum_returns_what_is_stored_and_accepts_only_its_choices() -> None:
    field = OpenEnumField(choices=["draft", "open"])
    assert field.to_representation("uncollectible") == "uncollectible"
    assert field.run_validation("open") == "open"
    with pytest.raises(serializers.ValidationError):
        field.run_validation("uncollectible")


# --- the URL resolver alone, reverse, DRF versioning ----------------------------------------


@pytest.mark.django_db
def test_without_the_middleware_the_resolver_still_answers_410_and_404(client: Any, settings: Any) -> None:
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != VERSION_MIDDLEWARE]
    retired = client.get("/v0/users")
    assert retired.status_code == 410 and retired.json()["migration_guide"] == MIGRATION_GUIDE
    unknown = client.get("/v9/users")
    assert unknown.status_code == 404 and unknown.json()["versions"] == ["v1", "v2"]
    assert client.get("/v2/users").status_code == 200
    # The version root without its slash follows the lifecycle too.
    assert client.get("/v0").status_code == 410
    assert client.get("/v9").json()["versions"] == ["v1", "v2"]
    assert client.get("/v2").status_code == 200 and client.get("/v2").json()["version"] == "v2"


@pytest.mark.django_db
def test_without_versions_every_prefix_serves(client: Any, settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": []}
    response = client.get("/v9/users")
    assert response.status_code == 200 and "Deprecation" not in response


def test_reverse_outside_a_version() -> None:
    assert reverse("invoice-detail", version="v1", kwargs={"pk": "a"}) == "/v1/invoices/a"
    assert reverse("api_conventions:problem-type", RequestFactory().get("/"), kwargs={"slug": "gone"}) == (
        "/problems/gone"
    )


@pytest.mark.parametrize(
    ("path", "version"),
    [
        ("/v0", "v0"),
        ("/v0/", "v0"),
        ("/v1/users", "v1"),
        ("/v10", "v10"),
        ("/v0foo", None),
        ("/v0foo/x", None),
        ("/v", None),
        ("/", None),
        ("/problems/v1", None),
    ],
)
def test_the_version_of_a_path_with_or_without_the_roots_slash(path: str, version: str | None) -> None:
    assert version_in_path(path) == version


def test_a_custom_version_regex_reads_the_root_without_its_slash(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSION_PATH_REGEX": r"^/api/(?P<version>v[0-9]+)/"}
    assert version_in_path("/api/v1") == "v1"
    assert version_in_path("/api/v1x") is None
    assert version_in_path("/v1") is None


def test_drf_versioning_reads_only_known_versions(rf: RequestFactory) -> None:
    versioning = LifecycleVersioning()
    assert versioning.determine_version(rf.get("/v1/users")) == "v1"
    assert versioning.determine_version(rf.get("/problems/gone")) is None


@pytest.mark.django_db(transaction=True)
def test_deprecation_headers_under_asgi() -> None:
    response = async_to_sync(AsyncClient().get)("/v1/users")
    assert response.status_code == 200
    assert response["Deprecation"] == "@1780272000" and response["Sunset"] == "Tue, 01 Jun 2027 00:00:00 GMT"
    assert async_to_sync(AsyncClient().get)("/v0/users").status_code == 410


# --- manage.py deprecations -----------------------------------------------------------------


def run_command(*args: str) -> str:
    out = StringIO()
    call_command("deprecations", *args, stdout=out)
    return out.getvalue()


def test_the_command_lists_every_deprecation_and_sunset() -> None:
    output = run_command("--fail-on-past-sunset")
    guide = MIGRATION_GUIDE
    assert output.splitlines() == [
        f"version v0: retired; deprecation 2025-06-01, sunset 2026-01-01, guide {guide}",
        f"version v1: deprecated; deprecation 2026-06-01, sunset 2027-06-01, guide {guide}",
        "version v2: current; deprecation -, sunset -",
        "field testproject.billing.serializers.InvoiceSerializer.total -> amount_due: deprecated; "
        f"deprecation 2026-11-01, sunset 2027-06-01, guide {guide}#amount-due",
    ]


def test_the_command_fails_ci_once_a_sunset_has_passed() -> None:
    with time_machine.travel(dt.datetime(2027, 6, 1, tzinfo=UTC), tick=False):
        assert "version v1: past sunset, still 'deprecated'" in run_command()
        with pytest.raises(CommandError, match="Past their sunset and still declared: version v1, field "):
            run_command("--fail-on-past-sunset")
        with pytest.raises(SystemExit) as exited:
            DeprecationsCommand().run_from_argv(["manage.py", "deprecations", "--fail-on-past-sunset"])
        assert exited.value.code == 1


def test_the_command_with_nothing_deprecated(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "VERSIONS": []}
    with time_machine.travel(dt.datetime(2020, 1, 1, tzinfo=UTC), tick=False):
        assert "deprecation announced" in run_command()


@pytest.mark.urls("tests.test_versioning_live")
def test_the_command_lists_deprecated_endpoints() -> None:
    output = run_command()
    assert (
        "endpoint POST /{version}/probe-searches: deprecated; deprecation 2026-09-01, sunset 2027-03-01, "
        "guide https://billing.example.com/docs/probe-search"
    ) in output.splitlines()
    assert "endpoint /{version}/probe-reports: deprecated; deprecation 2026-10-01, sunset 2027-01-01" in output
    with (
        time_machine.travel(dt.datetime(2027, 1, 1, tzinfo=UTC), tick=False),
        pytest.raises(CommandError, match=r"endpoint /\{version\}/probe-reports"),
    ):
        run_command("--fail-on-past-sunset")


@pytest.mark.django_db
def test_a_view_class_can_hold_its_deprecations(client: Any, settings: Any) -> None:
    from django.urls import clear_url_caches, path

    from tests import test_versioning_live as live

    class Legacy(live.VersionProbe):
        api_deprecations = [EndpointDeprecation.build(deprecation="2026-10-01", sunset="2027-10-01")]

    settings.ROOT_URLCONF = "tests.test_versioning_live"
    live.urlpatterns.insert(0, *versioned_urls([path("legacy", Legacy.as_view())]))
    clear_url_caches()
    try:
        response = client.get("/v2/legacy")
    finally:
        live.urlpatterns.pop(0)
        clear_url_caches()
    assert response.status_code == 200
    assert response["Deprecation"] == "@1790812800" and response["Sunset"] == "Fri, 01 Oct 2027 00:00:00 GMT"
    assert "Link" not in response  # no guide given


def test_links_of_the_view_are_kept() -> None:
    from django_api_conventions.versioning.headers import apply_deprecation_headers
    from django_api_conventions.versioning.lifecycle import Deprecation

    response = HttpResponse()
    response["Link"] = '<https://x.test/users?cursor=abc>; rel="next"'
    deprecation = Deprecation("version v1", "version", TODAY, TODAY + dt.timedelta(days=90), "https://x.test/guide")
    apply_deprecation_headers(response, [deprecation, deprecation], TODAY)
    assert response["Link"] == (
        '<https://x.test/users?cursor=abc>; rel="next", '
        '<https://x.test/guide>; rel="deprecation"; type="text/html", '
        '<https://x.test/guide>; rel="sunset"; type="text/html"'
    )


# --- review fixes ------------------------------------------------------------------------------


def _amounts_serializer() -> type[serializers.Serializer]:
    # Built in a function: a module-level one would join the service's list of renames.
    class Amounts(RenamedFieldsMixin, serializers.Serializer):
        amount_due = serializers.IntegerField()
        name = serializers.CharField()
        total = RenamedField("amount_due", deprecation="2026-06-01", sunset="2027-06-01")

    return Amounts


_Amounts = _amounts_serializer()


def test_form_bodies_keep_their_lists_when_renamed() -> None:
    from django.http import QueryDict

    serializer = _Amounts(data=QueryDict("total=5&name=x"))
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data == {"amount_due": 5, "name": "x"}


def test_same_value_of_another_type_is_a_conflict_and_the_new_name_wins_otherwise() -> None:
    assert not _Amounts(data={"total": True, "amount_due": 1, "name": "x"}).is_valid()
    agreeing = _Amounts(data={"total": 3, "amount_due": 3, "name": "x"})
    assert agreeing.is_valid() and agreeing.validated_data["amount_due"] == 3


def test_many_items_with_the_old_name_are_reported_once(caplog: pytest.LogCaptureFixture) -> None:
    from rest_framework.request import Request

    request = Request(RequestFactory().post("/v2/x"))
    with caplog.at_level("INFO", logger="django_api_conventions.deprecation"):
        serializer = _Amounts(
            data=[{"total": i, "name": "x"} for i in range(5)], many=True, context={"request": request}
        )
        assert serializer.is_valid(), serializer.errors
    assert len([r for r in caplog.records if r.name == "django_api_conventions.deprecation"]) == 1


@pytest.mark.parametrize("new_name", ["total", "nowhere"])
def test_a_misnamed_rename_fails_with_its_own_message(new_name: str) -> None:
    class Broken(RenamedFieldsMixin, serializers.Serializer):
        amount_due = serializers.IntegerField()
        total = RenamedField(new_name, deprecation="2026-06-01", sunset="2027-06-01")

    with pytest.raises(ImproperlyConfigured, match=r"RenamedField of itself|not one of its fields"):
        Broken(data={"total": 1}).is_valid()


def test_positional_reverse_keeps_the_version() -> None:
    from django.urls import re_path

    urls = type(
        "urls",
        (),
        {"urlpatterns": versioned_urls([re_path(r"^items/([0-9]+)$", lambda r: None, name="positional-item")])},
    )
    import sys

    sys.modules["tests._positional_urls"] = urls  # type: ignore[assignment]
    path = reverse("positional-item", version="v1", args=["5"], urlconf="tests._positional_urls")
    assert path == "/v1/items/5"


def test_links_are_not_repeated() -> None:
    from django_api_conventions.versioning.headers import add_link

    response = HttpResponse()
    response["Link"] = '<https://a.example/x>; rel="next", <https://g.example/m>; rel="deprecation"'
    add_link(response, ['<https://g.example/m>; rel="deprecation"', '<https://g.example/m>; rel="sunset"'])
    assert response["Link"].count('rel="deprecation"') == 1 and response["Link"].endswith('rel="sunset"')
