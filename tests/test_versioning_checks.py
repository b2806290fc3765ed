"""System checks of the version lifecycle and of the URL conventions (part 2 of the conventions).

This module is also the URLconf of the URL convention tests.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from django.urls import clear_url_caches, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions import checks
from django_api_conventions.http.routes import display_route, looks_plural, pluralize
from django_api_conventions.versioning import checks as versioning_checks
from django_api_conventions.versioning import deprecated, versioned_urls
from testproject.settings import API_CONVENTIONS as EXAMPLE_SETTINGS

GUIDE = "https://api.example.com/docs/migrate"


class Resource(APIView):
    def get(self, request: Request, **kwargs: Any) -> Response:
        return Response({})


def plain_view(request: Any, **kwargs: Any) -> Any:
    raise AssertionError("never called")


urlpatterns = [
    path("invoices/<str:invoice_id>/pay", Resource.as_view()),
    path("invoice/<str:invoice_id>", Resource.as_view()),
    path("users/<str:user_id>/invoices/<str:invoice_id>/payments", Resource.as_view()),
    path("invoices/<str:invoice_id>/payments", Resource.as_view()),
    path("orders/<str:order_id>/cancel-request", Resource.as_view()),
    path("people/<str:person_id>", Resource.as_view()),
    path("addresses/<str:address_id>", Resource.as_view()),
    path("company/<str:company_id>/approve", Resource.as_view()),
    path("admin-like/thing/<str:id>/delete", plain_view),  # not a DRF view: not checked
]

BAD_ROUTES = {
    ("W023", "/invoices/{invoice_id}/pay"),
    ("W023", "/invoice/{invoice_id}"),
    ("W023", "/users/{user_id}/invoices/{invoice_id}/payments"),
    ("W023", "/orders/{order_id}/cancel-request"),
    ("W023", "/company/{company_id}/approve"),
    ("W023", "/company/{company_id}/approve"),
}


def ids(messages: list[Any]) -> list[str]:
    return [m.id.rsplit(".", 1)[-1] for m in messages]


def with_versions(*versions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**EXAMPLE_SETTINGS, "VERSIONS": list(versions), **extra}


V1 = {
    "name": "v1",
    "status": "deprecated",
    "deprecation": "2026-06-01",
    "sunset": "2027-06-01",
    "migration_guide": GUIDE,
}
V2 = {"name": "v2", "status": "current"}


@pytest.fixture(autouse=True)
def today() -> Iterator[None]:
    with time_machine.travel(dt.datetime(2026, 11, 22, tzinfo=dt.UTC), tick=False):
        yield


# --- the version table ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ([V1, V2], []),
        ([{"name": "v0", "status": "retired", "migration_guide": GUIDE}, V1, V2], []),
        ([{"name": "v1", "status": "current"}], []),
        (["v1"], ["E020"]),
        ([{"name": "v1", "status": "sunset"}], ["E020"]),
        ([{"name": "v 1", "status": "current"}], ["E020"]),
        ([{"name": "v1", "status": "current", "colour": "red"}], ["E020"]),
        ([{**V1, "sunset": "next june"}, V2], ["E020"]),
        ([{**V1, "migration_guide": "/docs/migrate"}, V2], ["E020"]),
        ([{"name": "v1", "status": "deprecated", "migration_guide": GUIDE}, V2], ["E020"]),
        ([{"name": "v0", "status": "retired"}, V2], ["E020"]),
        ([V2, V2], ["E020"]),
    ],
    ids=[
        "ok",
        "ok-with-retired",
        "one-version",
        "not-a-dict",
        "unknown-status",
        "bad-name",
        "unknown-key",
        "bad-date",
        "relative-guide",
        "deprecated-without-dates",
        "retired-without-guide",
        "duplicate",
    ],
)
def test_the_version_table_is_validated(versions: list[Any], expected: list[str]) -> None:
    with override_settings(API_CONVENTIONS=with_versions(*versions)):
        assert ids(checks.settings.check_settings()) == expected


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ([V1, V2], []),
        ([V1, {**V1, "name": "v2"}], ["E020"]),
        ([{"name": "v1", "status": "current"}, V2], ["E020"]),
        ([{"name": "v1", "status": "retired", "migration_guide": GUIDE}, V2], ["E020"]),
        ([{**V1, "deprecation": "2025-01-01", "sunset": "2026-01-01"}, V2], ["W027"]),
    ],
    ids=["ok", "no-current", "two-current", "previous-retired", "previous-past-sunset"],
)
def test_the_current_and_the_previous_version_are_supported(versions: list[Any], expected: list[str]) -> None:
    with override_settings(API_CONVENTIONS=with_versions(*versions)):
        assert ids(versioning_checks.check_versions()) == expected


@pytest.mark.parametrize(
    ("dates", "minimum", "expected"),
    [
        (("2026-06-01", "2026-08-29"), 90, ["E024"]),
        (("2026-06-01", "2026-08-29"), 30, []),
        (("2026-06-01", "2026-08-30"), 90, []),
        (("2026-06-01", "2026-08-30T00:00:00+00:00"), 89, []),
        (("2026-06-01", "2026-05-01"), 30, ["E020"]),
        (("2026-06-01T12:00:00+02:00", "2026-08-30T10:00:00Z"), 90, []),
    ],
    ids=["too-short", "minimum-30", "exactly-90-days", "minimum-set-lower", "sunset-first", "time-zones"],
)
def test_the_support_window(
    dates: tuple[str, str], minimum: int, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = {**V1, "deprecation": dates[0], "sunset": dates[1]}
    monkeypatch.setattr(versioning_checks, "MIN_SUPPORT_DAYS", minimum)
    with (
        time_machine.travel(dt.datetime(2026, 7, 1, tzinfo=dt.UTC), tick=False),
        override_settings(API_CONVENTIONS=with_versions(version, V2)),
    ):
        found = versioning_checks.check_deprecation_dates()
        assert ids(found) == expected
    if expected == ["E024"]:
        assert found[0].msg == (
            "Version v1 is supported for 89 days between its deprecation and its sunset, fewer than "
            "the 90 the conventions ask."
        )
        assert (found[0].hint or "").startswith("Move the sunset to 2026-08-30 or later")


def test_endpoint_and_field_deprecations_get_the_window_too(settings: Any) -> None:
    short = deprecated(deprecation="2026-11-01", sunset="2026-12-01", migration_guide=GUIDE)(Resource.as_view())
    settings.ROOT_URLCONF = __name__
    urlpatterns.append(path("short-lived", short))
    clear_url_caches()
    try:
        found = versioning_checks.check_deprecation_dates()
    finally:
        urlpatterns.pop()
        clear_url_caches()
    assert ids(found) == ["E024"]
    assert found[0].msg.startswith("Endpoint /short-lived is supported for 30 days")


@pytest.mark.parametrize(
    ("regex", "expected"),
    [(r"^/api/(?P<version>v[0-9]+)/", []), (r"^/(v[0-9]+)/", ["E003"]), (r"^/(?P<version>v[0-9+)/", ["E003"])],
)
def test_the_version_path_regex(regex: str, expected: list[str]) -> None:
    with override_settings(API_CONVENTIONS=with_versions(V1, V2, VERSION_PATH_REGEX=regex)):
        assert ids(checks.settings.check_settings()) == expected


def test_versioning_needs_the_middleware_and_the_drf_class(settings: Any) -> None:
    settings.API_CONVENTIONS = with_versions(V1, V2)
    middleware = [m for m in settings.MIDDLEWARE if m != versioning_checks.VERSION_MIDDLEWARE]
    settings.MIDDLEWARE = middleware
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_VERSIONING_CLASS": None}
    assert ids(versioning_checks.check_versions()) == ["W002", "W030"]
    # after ProblemDetails, Maintenance, Idempotency:
    settings.MIDDLEWARE = [*middleware, versioning_checks.VERSION_MIDDLEWARE]
    assert ids(versioning_checks.check_versions()) == ["W003", "W003", "W003", "W030"]
    settings.MIDDLEWARE = [versioning_checks.VERSION_MIDDLEWARE, *middleware]  # before TraceIdMiddleware
    assert ids(versioning_checks.check_versions()) == ["W003", "W030"]
    after_trace = middleware.index("django_api_conventions.middleware.TraceIdMiddleware") + 1  # the right place
    settings.MIDDLEWARE = [*middleware[:after_trace], versioning_checks.VERSION_MIDDLEWARE, *middleware[after_trace:]]
    assert ids(versioning_checks.check_versions()) == ["W030"]


def test_versioned_urls_without_versions_is_a_warning(settings: Any) -> None:
    settings.API_CONVENTIONS = with_versions()
    assert "W026" in ids(checks.routes.check_url_conventions())
    settings.API_CONVENTIONS = with_versions(V1, V2)
    assert "W026" not in ids(checks.routes.check_url_conventions())


@pytest.mark.django_db
def test_version_checks_are_registered() -> None:
    bad = with_versions({"name": "v1", "status": "current"}, {"name": "v2", "status": "current"})
    with override_settings(API_CONVENTIONS=bad), pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert "django_api_conventions.E020" in str(raised.value)


# --- URL conventions ------------------------------------------------------------------------


@pytest.mark.urls(__name__)
def test_verbs_singular_collections_and_deep_nesting_are_warned_with_the_shape_to_use() -> None:
    found = checks.routes.check_url_conventions()
    assert {(m.id.rsplit(".", 1)[-1], m.obj) for m in found} == BAD_ROUTES
    assert len(found) == 6  # /company/{company_id}/approve has a verb and a singular collection
    by_route = {(m.id.rsplit(".", 1)[-1], m.obj): m for m in found}
    pay = by_route[("W023", "/invoices/{invoice_id}/pay")]
    assert pay.msg == "The route /invoices/{invoice_id}/pay has the verb 'pay' as a path segment."
    assert "POST /invoices/{invoice_id}/payments" in (pay.hint or "")
    assert "URL_CONVENTION_SILENCED" in (pay.hint or "")
    singular = by_route[("W023", "/invoice/{invoice_id}")]
    assert "/invoices/{invoice_id}" in (singular.hint or "")
    nested = by_route[("W023", "/users/{user_id}/invoices/{invoice_id}/payments")]
    assert nested.msg.endswith("nests 3 collections; the conventions allow two levels.")
    assert "/payments?invoice_id={id}" in (nested.hint or "")


@pytest.mark.urls(__name__)
def test_url_convention_warnings_are_silenced_per_pattern_or_per_kind(settings: Any) -> None:
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "URL_CONVENTION_SILENCED": [r"/pay$", r"^/invoice/"]}
    routes = {m.obj for m in checks.routes.check_url_conventions()}
    assert "/invoices/{invoice_id}/pay" not in routes and "/invoice/{invoice_id}" not in routes
    assert "/users/{user_id}/invoices/{invoice_id}/payments" in routes
    settings.API_CONVENTIONS = EXAMPLE_SETTINGS
    warnings = checks.routes.check_url_conventions()
    assert warnings and not any(m.is_silenced() for m in warnings)
    # Django's own switch turns a kind of warning off: `manage.py check` does not show it.
    settings.SILENCED_SYSTEM_CHECKS = [f"django_api_conventions.{check_id}" for check_id in ("W023", "W023", "W023")]
    assert all(m.is_silenced() for m in warnings)


def test_an_invalid_silence_pattern_is_an_error() -> None:
    with override_settings(API_CONVENTIONS={"URL_CONVENTION_SILENCED": ["("]}):
        assert ids(checks.settings.check_settings()) == ["E003"]


@pytest.mark.parametrize(
    ("pattern", "shown"),
    [
        (r"^(?P<version>v[0-9]+)/^invoices/(?P<pk>[^/.]+)$", "/{version}/invoices/{pk}"),
        (r"^(?P<version>v[0-9]+)/^invoices\.(?P<format>[a-z0-9]+)/?$", "/{version}/invoices"),
        ("invoices/<str:invoice_id>/payments", "/invoices/{invoice_id}/payments"),
        ("", "/"),
    ],
)
def test_routes_are_shown_in_one_shape(pattern: str, shown: str) -> None:
    assert display_route(pattern) == shown


@pytest.mark.parametrize(
    ("word", "plural", "singular_form"),
    [
        ("invoices", True, "invoice"),
        ("people", True, "person"),
        ("address", False, "address"),
        ("status", False, "status"),
        ("company", False, "company"),
        ("line-items", True, "line-item"),
    ],
)
def test_plural_heuristics(word: str, plural: bool, singular_form: str) -> None:
    assert looks_plural(word) is plural
    if not plural:
        assert looks_plural(pluralize(singular_form))


def test_the_example_service_keeps_the_url_conventions() -> None:
    assert checks.routes.check_url_conventions() == []
    assert versioning_checks.check_versions() == []
    assert versioning_checks.check_deprecation_dates() == []


def test_the_example_service_mounts_its_api_with_versioned_urls() -> None:
    from testproject import urls

    assert any(isinstance(p, type(versioned_urls([])[0])) for p in urls.urlpatterns)


def test_version_table_shape_checks(settings: Any) -> None:
    settings.API_CONVENTIONS = with_versions({**V1, "name": "V1"}, V2)
    assert "E020" in ids(versioning_checks.check_versions())
    settings.API_CONVENTIONS = with_versions(V2, {**V1, "name": "v3"})
    assert "E020" in ids(versioning_checks.check_versions())
    early = {
        "name": "v0",
        "status": "retired",
        "deprecation": "2026-06-01",
        "sunset": "2027-06-01",
        "migration_guide": GUIDE,
    }
    settings.API_CONVENTIONS = with_versions(early, V1, V2)
    assert "W027" in ids(versioning_checks.check_versions())
    settings.API_CONVENTIONS = with_versions(V1, V2)
    assert not {"E020", "W027"} & set(ids(versioning_checks.check_versions()))
