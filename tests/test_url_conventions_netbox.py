"""The URL convention checks over a NetBox-shaped project: DRF's format-suffix routes and
multi-word collection names are no warnings, every URLconf the project serves is read (its root
one and the per-host ones of EXTRA_URLCONFS), and an existing version is left out with
URL_CONVENTION_SILENCED while the new one is checked.

This module is also the URLconf of the version tests: v1 and v2 mounted apart, v1 keeping
names the conventions refuse.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import path

from django_api_conventions import checks
from django_api_conventions.http.routes import Route, display_route, find_naming_problems
from django_api_conventions.pagination import checks as pagination_checks
from django_api_conventions.problems import checks as problem_checks
from django_api_conventions.versioning import versioned_urls
from testproject.settings import API_CONVENTIONS as EXAMPLE_SETTINGS

from .urls_netbox_shaped import StatusView

OTHER_HOST = "tests.urls_netbox_other_host"
VERSIONS = [{"name": "v1", "status": "current"}, {"name": "v2", "status": "current"}]

urlpatterns = [
    *versioned_urls([path("invoice/<str:invoice_id>/pay", StatusView.as_view())], version_regex="v1"),
    *versioned_urls(
        [
            path("invoices/<str:invoice_id>/pay", StatusView.as_view()),
            path("invoices/<str:invoice_id>/payments", StatusView.as_view()),
        ],
        version_regex="v2",
    ),
]


def found(messages: list[Any]) -> set[tuple[str, str]]:
    return {(m.id.rsplit(".", 1)[-1], str(m.obj)) for m in messages}


def findings(display: str) -> list[tuple[str, str]]:
    return [(f.check_id, f.values.get("segment", "")) for f in find_naming_problems(Route(display, None))]


@pytest.mark.urls("tests.urls_netbox_shaped")
def test_a_netbox_shaped_api_that_keeps_the_conventions_has_no_url_warning() -> None:
    assert checks.routes.check_url_conventions() == []


@pytest.mark.django_db
@pytest.mark.urls("tests.urls_netbox_shaped")
def test_the_netbox_shaped_project_passes_check_at_warning_level() -> None:
    call_command("check", fail_level="WARNING")


@pytest.mark.parametrize(
    ("pattern", "shown"),
    [
        ("api/extras/^export-templates\\.(?P<format>[a-z0-9]+)/?$", "/api/extras/export-templates"),
        ("api/^\\.(?P<format>[a-z0-9]+)/?$", "/api"),  # a router's root view
        ("api/<drf_format_suffix:format>", "/api"),
        ("api/status<drf_format_suffix_json_api:format>", "/api/status"),
        ("api/devices/<int:pk><drf_format_suffix:format>", "/api/devices/{pk}"),
        ("^api/swagger(?P<format>.json|.yaml)$", "/api/swagger"),
        ("^(?P<version>v1)/invoices/(?P<pk>[^/.]+)$", "/v1/invoices/{pk}"),
        ("^(?P<version>v[0-9]+)/invoices/(?P<pk>[^/.]+)$", "/{version}/invoices/{pk}"),
    ],
)
def test_format_suffixes_are_left_out_and_a_literal_version_is_shown(pattern: str, shown: str) -> None:
    assert display_route(pattern) == shown


@pytest.mark.parametrize(
    ("display", "expected"),
    [
        ("/api/extras/export-templates/{pk}", []),
        ("/api/extras/import-jobs", []),
        ("/api/ipam/ip-addresses/{pk}", []),
        ("/api/dcim/virtual-chassis/{pk}", []),
        ("/api/extras/export-templates/{pk}/export", [("W023", "export")]),
        ("/api/extras/export-templates/{pk}/export-pdf", [("W023", "export-pdf")]),
        ("/api/portal/report/{pk}", [("W024", "report")]),
    ],
)
def test_a_hyphenated_plural_is_a_collection_and_a_verb_is_still_one(display: str, expected: list[Any]) -> None:
    assert findings(display) == expected


@pytest.mark.urls("tests.urls_netbox_shaped")
def test_the_urlconfs_of_other_hosts_are_checked_when_named(settings: Any) -> None:
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "EXTRA_URLCONFS": [OTHER_HOST]}
    assert found(checks.routes.check_url_conventions()) == {
        ("W023", "/api/portal/data-sources/{pk}/sync"),
        ("W023", "/api/portal/export-jobs/{pk}/cancel"),
        ("W023", "/api/portal/report/{pk}"),
    }
    assert len(checks.routes.check_url_conventions()) == 3  # a route and its ".json" twin: one warning


@pytest.mark.urls("tests.urls_netbox_shaped")
def test_the_error_handlers_of_every_urlconf_are_checked(settings: Any) -> None:
    assert [m for m in problem_checks.check_error_views() if m.id.endswith("W001")] == []
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "EXTRA_URLCONFS": [OTHER_HOST]}
    warned = [m for m in problem_checks.check_error_views() if m.id.endswith("W001")]
    assert len(warned) == 4
    assert warned[3].msg == (
        f"The URLconf {OTHER_HOST}'s handler500 is None: some errors will lose their precise problem."
    )
    assert warned[3].hint == (
        f"Set handler500 = 'django_api_conventions.problems.django_handlers.server_error' in {OTHER_HOST}."
    )


@pytest.mark.urls("tests.urls_netbox_shaped")
def test_the_pagination_checks_read_the_other_urlconfs(settings: Any) -> None:
    assert pagination_checks.check_paginated_orderings() == []
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "EXTRA_URLCONFS": ["tests.urls_unindexed"]}
    assert [m.id.rsplit(".", 1)[-1] for m in pagination_checks.check_paginated_orderings()] == ["W010", "W010"]


def test_extra_urlconfs_must_be_module_paths() -> None:
    with override_settings(API_CONVENTIONS={**EXAMPLE_SETTINGS, "EXTRA_URLCONFS": [OTHER_HOST, 3]}):
        assert [m.id.rsplit(".", 1)[-1] for m in checks.settings.check_settings()] == ["E003"]


@pytest.mark.urls(__name__)
def test_an_existing_version_is_left_as_it_is_and_the_new_one_checked(settings: Any) -> None:
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "VERSIONS": VERSIONS}
    assert found(checks.routes.check_url_conventions()) == {
        ("W023", "/v1/invoice/{invoice_id}/pay"),
        ("W023", "/v1/invoice/{invoice_id}/pay"),
        ("W023", "/v2/invoices/{invoice_id}/pay"),
    }
    settings.API_CONVENTIONS = {**EXAMPLE_SETTINGS, "VERSIONS": VERSIONS, "URL_CONVENTION_SILENCED": [r"^/v1/"]}
    assert found(checks.routes.check_url_conventions()) == {("W023", "/v2/invoices/{invoice_id}/pay")}
