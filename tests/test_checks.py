from __future__ import annotations

from typing import Any

import pytest
from django.core import checks as django_checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.middleware.locale import LocaleMiddleware
from django.test import override_settings
from django.urls import path
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from django_api_conventions import check_messages, checks
from django_api_conventions.check_messages import MESSAGES
from django_api_conventions.checks.settings import REPLACED_SETTINGS, SETTING_TYPES
from django_api_conventions.conf import DEFAULTS
from django_api_conventions.content import StrictJSONParser
from django_api_conventions.idempotency import checks as idempotency_checks
from django_api_conventions.pagination import checks as pagination_checks
from django_api_conventions.problems import checks as problem_checks
from testproject.billing.models import Invoice


def ids(messages: list[Any]) -> list[str]:
    return [m.id for m in messages]


@pytest.mark.django_db
def test_the_example_service_passes_every_check() -> None:
    call_command("check", "--fail-level", "WARNING")


@pytest.mark.django_db
def test_checks_are_registered_by_the_app_config() -> None:
    with override_settings(API_CONVENTIONS={"PAGINATION_MAX_LIMT": 3}), pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert "django_api_conventions.E002" in str(raised.value)
    assert "Did you mean 'PAGINATION_MAX_LIMIT'?" in str(raised.value)


@pytest.mark.parametrize("name", sorted(REPLACED_SETTINGS))
def test_a_replaced_setting_says_what_replaced_it(name: str) -> None:
    assert name not in DEFAULTS
    with override_settings(API_CONVENTIONS={name: 1}):
        (error,) = checks.settings.check_settings()
    assert error.id == "django_api_conventions.E002"
    assert error.hint == f"{name} is not a setting: {REPLACED_SETTINGS[name]}."


def test_a_replaced_setting_names_its_replacement() -> None:
    with override_settings(API_CONVENTIONS={"JSON_MAX_DEPTH": 64}):
        (error,) = checks.settings.check_settings()
    assert error.hint == "JSON_MAX_DEPTH is not a setting: subclass StrictJSONParser and set max_depth."


def test_every_setting_has_a_declared_type() -> None:
    assert set(SETTING_TYPES) == set(DEFAULTS)


def test_every_message_formats() -> None:
    names = (
        "type",
        "key",
        "suggestion",
        "expected",
        "value",
        "error",
        "middleware",
        "other",
        "handler",
        "view",
        "backend",
        "model",
        "ordering",
        "fields",
        "subject",
        "sunset",
        "deprecation",
        "count",
        "name",
        "current",
        "days",
        "minimum",
        "earliest",
        "route",
        "segment",
        "depth",
        "pattern",
        "sort",
        "index",
        "header",
        "client_header",
        "urlconf",
        "where",
    )
    values = dict.fromkeys(names, "x")
    for check_id, name in MESSAGES:
        assert check_messages.message(name, **values).id == f"django_api_conventions.{check_id}"


@pytest.mark.parametrize(
    ("user_settings", "expected"),
    [
        ("not a dict", ["E001"]),
        ({"NOPE": 1}, ["E002"]),
        ({"PAGINATION_MAX_LIMIT": "64"}, ["E003"]),
        ({"PAGINATION_MAX_LIMIT": True}, ["E003"]),
        ({"PAGINATION_MAX_LIMIT": 0}, ["E003"]),
        ({"MAINTENANCE_SWITCH_STORE": "disk"}, ["E003"]),
        ({"EXTRA_URLCONFS": "urls"}, ["E003"]),
        ({"IDEMPOTENCY_STORE_UNAVAILABLE": "open"}, ["E003"]),
        ({"TRUST_INCOMING_TRACE_ID": "yes"}, ["E003"]),
        ({"IDEMPOTENCY_REQUIRED": 1}, ["E003"]),
        ({"IDEMPOTENCY_STORE_UNAVAILABLE": "fail-open"}, []),
        ({"IDEMPOTENCY_REDIS_WAIT_REPLICAS": 1}, []),
        ({"IDEMPOTENCY_REDIS_WAIT_REPLICAS": -1}, ["E003"]),
        ({"IDEMPOTENCY_REDIS_WAIT_REPLICAS": True}, ["E003"]),
        ({"CLIENT_ID_RESOLVER": "no.such.module.resolver"}, ["E003"]),
        ({"PROBLEM_BASE_URL": "problems"}, ["E003"]),
        ({"PROBLEM_BASE_URL": "https://api.example.com"}, ["E003"]),  # the pages would take the root
        ({"PROBLEM_BASE_URL": "/api/problem-types"}, []),
        ({"PROBLEM_BASE_URL": "https://api.example.com/problems"}, []),
        ({"MAINTENANCE_EXEMPT_PATHS": ["("]}, ["E003"]),
        ({"MAINTENANCE_EXEMPT_PATHS": [r"^/health$"]}, []),
        ({"API_PATHS": ["(?!admin/"]}, ["E003"]),
        ({"API_PATHS": [r"^/(?!admin/)"]}, []),
        ({"IDEMPOTENCY_LEASE_SECONDS": 0.5}, []),
    ],
)
def test_settings_checks(user_settings: Any, expected: list[str]) -> None:
    with override_settings(API_CONVENTIONS=user_settings):
        assert ids(checks.settings.check_settings()) == [f"django_api_conventions.{i}" for i in expected]


def test_unknown_key_without_a_close_match_lists_the_known_keys() -> None:
    with override_settings(API_CONVENTIONS={"ZZZZZZZZ": 1}):
        (message,) = checks.settings.check_settings()
    assert "Known keys:" in message.hint and "PAGINATION_MAX_LIMIT" in message.hint


def test_drf_not_pointed_at_the_package() -> None:
    with override_settings(REST_FRAMEWORK={}):
        assert ids(checks.setup.check_drf_settings()) == ["django_api_conventions.W001", "django_api_conventions.W006"]


@pytest.mark.parametrize(
    "throttle",
    [
        "django_api_conventions.clients.ClientRateThrottle",
        "django_api_conventions.clients.throttling.ClientRateThrottle",
    ],
)
def test_throttle_without_its_rate(settings: Any, throttle: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_CLASSES": [throttle],
        "DEFAULT_THROTTLE_RATES": {},
    }
    assert "django_api_conventions.E012" in ids(checks.setup.check_drf_settings())


def test_idempotency_middleware_must_be_last(settings: Any) -> None:
    settings.MIDDLEWARE = [
        *checks.setup.MIDDLEWARE_ORDER,
        "django_api_conventions.idempotency.IdempotencyMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
    ]
    assert ids(checks.setup.check_middleware()) == ["django_api_conventions.W003"]


def test_non_dict_rest_framework_is_left_to_drf(settings: Any) -> None:
    settings.REST_FRAMEWORK = "oops"
    assert checks.setup.check_drf_settings() == []


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"MAINTENANCE_SWITCH_STORE": "cache"}, ["W007"]),
        ({"IDEMPOTENCY_STORE": "no.such.Store"}, ["E003"]),
        ({"IDEMPOTENCY_STORE": "django_api_conventions.conf.APIConventionsSettings"}, ["E003"]),
        ({"IDEMPOTENCY_STORE": "redis", "IDEMPOTENCY_CACHE": "default"}, ["E003"]),
        ({"IDEMPOTENCY_RETENTION_SECONDS": 10, "IDEMPOTENCY_LEASE_SECONDS": 60}, ["W008"]),
        ({"IDEMPOTENCY_DATABASE": "replica"}, None),
    ],
)
def test_shared_state_checks(settings: Any, overrides: dict[str, Any], expected: list[str] | None) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.API_CONVENTIONS = {"MAINTENANCE_SWITCH_STORE": "database", **overrides}
    if expected is None:  # a settings error is reported by check_settings, not twice
        assert ids(checks.settings.check_settings()) == ["django_api_conventions.E003"]
        assert [*checks.setup.check_maintenance_switch(), *idempotency_checks.check_idempotency_store()] == []
        return
    found = [*checks.setup.check_maintenance_switch(), *idempotency_checks.check_idempotency_store()]
    assert ids(found) == [f"django_api_conventions.{i}" for i in expected]


def test_missing_middleware(settings: Any) -> None:
    settings.MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
    settings.API_CONVENTIONS = {"MAINTENANCE_RETRY_AFTER": 60}
    assert ids(checks.setup.check_middleware()) == ["django_api_conventions.W002"] * 3


def test_a_projects_own_maintenance_mode_leaves_the_packages_out(settings: Any) -> None:
    # NetBox keeps its own maintenance mode: no MAINTENANCE_ setting, no maintenance middleware.
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != MAINTENANCE]
    settings.API_CONVENTIONS = {k: v for k, v in settings.API_CONVENTIONS.items() if not k.startswith("MAINTENANCE_")}
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert checks.setup.check_middleware() == []
    assert checks.setup.check_maintenance_switch() == []  # no switch to reach, wherever the cache is


def test_the_maintenance_middleware_is_asked_for_once_maintenance_is_configured(settings: Any) -> None:
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != MAINTENANCE]
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_MODE": True}
    (warning,) = checks.setup.check_middleware()
    assert warning.id == "django_api_conventions.W002" and MAINTENANCE in warning.msg


def test_middleware_out_of_order(settings: Any) -> None:
    settings.MIDDLEWARE = list(reversed(checks.setup.MIDDLEWARE_ORDER))
    assert ids(checks.setup.check_middleware()) == ["django_api_conventions.W003"] * 2


def test_with_the_admin_installed_api_paths_is_suggested(settings: Any) -> None:
    settings.API_CONVENTIONS = {k: v for k, v in settings.API_CONVENTIONS.items() if k != "API_PATHS"}
    (warning,) = problem_checks.check_api_paths()
    assert warning.id == "django_api_conventions.W012"
    assert "[r'^/(?!admin/)']" in warning.hint
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "API_PATHS": [r"^/"]}
    assert problem_checks.check_api_paths() == []


def test_without_the_admin_api_paths_is_not_suggested(settings: Any) -> None:
    settings.API_CONVENTIONS = {k: v for k, v in settings.API_CONVENTIONS.items() if k != "API_PATHS"}
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "django.contrib.admin"]
    assert problem_checks.check_api_paths() == []


@override_settings(ROOT_URLCONF="tests.urls_without_package", CSRF_FAILURE_VIEW="django.views.csrf.csrf_failure")
def test_error_views_and_problem_urls_missing() -> None:
    assert ids(problem_checks.check_error_views()) == (
        ["django_api_conventions.W001"] * 4 + ["django_api_conventions.W001", "django_api_conventions.E008"]
    )


@override_settings(
    ROOT_URLCONF="tests.urls_without_package",
    API_CONVENTIONS={"PROBLEM_BASE_URL": "https://api.example.com/problems"},
    CSRF_FAILURE_VIEW="django_api_conventions.problems.django_handlers.csrf_failure",
)
def test_a_base_url_replaces_the_problem_urls() -> None:
    assert "django_api_conventions.E008" not in ids(problem_checks.check_error_views())


@override_settings(ROOT_URLCONF="tests.urls_unindexed")
def test_paginated_views_need_an_index_for_their_ordering() -> None:
    warnings = pagination_checks.check_paginated_orderings()
    assert [(w.id, w.msg.split(" pages ")[0]) for w in warnings] == [
        ("django_api_conventions.W010", "PaymentsEverywhere"),
        ("django_api_conventions.W010", "OrdersByStatus"),
    ]
    assert "fields=['-created_at', '-payment_id']" in warnings[0].hint
    assert "fields=['status', 'id']" in warnings[1].hint


@override_settings(ROOT_URLCONF="tests.urls_unindexed_errors")
def test_orderings_a_cursor_cannot_hold_are_errors_at_start_up() -> None:
    errors = pagination_checks.check_paginated_orderings()
    assert [e.id for e in errors] == ["django_api_conventions.E013"]
    assert "cannot order by 'response_body', a BinaryField" in errors[0].msg


@override_settings(ROOT_URLCONF="tests.urls_unindexed_sorts")
def test_a_declared_sort_without_an_index_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    found = pagination_checks.check_paginated_orderings()
    assert [(m.id, m.level) for m in found] == [
        ("django_api_conventions.E015", django_checks.ERROR),
        ("django_api_conventions.E015", django_checks.ERROR),
        ("django_api_conventions.E013", django_checks.ERROR),
        ("django_api_conventions.E013", django_checks.ERROR),
    ]
    status, year, count, default = found
    assert "sort Invoice by 'status' (status, pk)" in status.msg
    assert "models.Index(fields=['status', 'id'], name=...)" in status.hint
    assert "models.Index(ExtractYear('created_at').desc(), F('id').desc(), name=...)" in year.hint
    assert "count must be None or one of capped, estimate, not 'exact'" in count.msg
    assert "default_sort '-total' is not one of its sorts" in default.msg
    # An expression index of the transform serves its sort, read forwards or backwards.
    from django.db.models import F, Index
    from django.db.models.functions import ExtractYear

    indexes = [*Invoice._meta.indexes, Index(ExtractYear("created_at"), F("id"), name="invoice_year")]
    monkeypatch.setattr(Invoice._meta, "indexes", indexes)
    assert [m.msg.split(" (")[0] for m in pagination_checks.check_paginated_orderings() if m.id.endswith("E015")] == [
        "SortableInvoices lets clients sort Invoice by 'status'"
    ]


def test_the_example_service_has_its_indexes() -> None:
    assert pagination_checks.check_paginated_orderings() == []


@pytest.mark.parametrize(
    ("permissions", "warned"),
    [
        ([], True),
        (["rest_framework.permissions.AllowAny"], True),
        (["rest_framework.permissions.IsAuthenticated"], False),
        (["rest_framework.permissions.IsAuthenticatedOrReadOnly"], False),  # keyed methods are not read-only
    ],
)
def test_keyed_views_open_to_callers_without_credentials_are_named(
    settings: Any, permissions: list[str], warned: bool
) -> None:
    from django.utils.module_loading import import_string

    from testproject.billing.views import OrderViewSet

    classes = [import_string(path) for path in permissions]
    original = OrderViewSet.permission_classes
    OrderViewSet.permission_classes = classes
    try:
        found = [m for m in idempotency_checks.check_unidentified_callers() if "orders" in str(m.obj)]
    finally:
        OrderViewSet.permission_classes = original
    # The collection takes POST; the detail route only reads, and takes no key.
    assert [m.obj for m in found] == (["/{version}/orders"] if warned else [])
    assert all(m.id == "django_api_conventions.W013" and "'anonymous'" in m.msg for m in found)


def test_a_project_that_tells_callers_apart_is_not_warned(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "CLIENT_ID_RESOLVER": "tests.test_clients.tenant_resolver"}
    assert idempotency_checks.check_unidentified_callers() == []


MAINTENANCE = "django_api_conventions.middleware.MaintenanceModeMiddleware"
TRACE = "django_api_conventions.middleware.TraceIdMiddleware"


class ProjectLocaleMiddleware(LocaleMiddleware):
    """A project's own LocaleMiddleware, recognised as one by its base class."""


class SessionLocaleMiddleware(LocaleMiddleware):
    """A project's locale middleware that reads the user's language: it needs the session."""

    api_conventions_first = False


class ProjectRequestIdMiddleware:
    """A project's request id middleware that reads only headers: marked to run first."""

    api_conventions_first = True

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response


def _with(settings: Any, name: str, *, first: bool) -> list[Any]:
    """MIDDLEWARE with ``name`` first, or right after TraceIdMiddleware."""
    others = [m for m in settings.MIDDLEWARE if m != "django.middleware.locale.LocaleMiddleware"]
    if first:
        return [name, *others]
    after = others.index(TRACE) + 1
    return [*others[:after], name, *others[after:]]


@pytest.mark.parametrize(
    "middleware",
    [f"{__name__}.ProjectLocaleMiddleware", f"{__name__}.ProjectRequestIdMiddleware"],
)
def test_a_projects_own_locale_or_request_id_middleware_is_recognised(settings: Any, middleware: str) -> None:
    settings.MIDDLEWARE = _with(settings, middleware, first=True)
    assert checks.setup.check_middleware() == []
    settings.MIDDLEWARE = _with(settings, middleware, first=False)
    (warning,) = checks.setup.check_middleware()
    assert warning.id == "django_api_conventions.W003"
    assert warning.msg.startswith(f"{middleware} comes after TraceIdMiddleware")


def test_a_locale_middleware_that_needs_the_session_may_stay_after(settings: Any) -> None:
    settings.MIDDLEWARE = [
        "django.middleware.locale.LocaleMiddleware",
        *_with(settings, f"{__name__}.SessionLocaleMiddleware", first=False),
    ]
    assert checks.setup.check_middleware() == []


class LaxParserView(APIView):
    parser_classes = [JSONParser, MultiPartParser]


class StrictParserView(APIView):
    parser_classes = [StrictJSONParser, MultiPartParser]


class DefaultParserView(APIView):
    pass


class NotesViewSet(viewsets.ViewSet):
    def list(self, request: Any) -> Response:
        return Response([])

    @action(detail=False, methods=["post"], parser_classes=[JSONParser])
    def imports(self, request: Any) -> Response:
        return Response({})


_notes = SimpleRouter()
_notes.register("notes", NotesViewSet, basename="note")
urlpatterns = [
    path("lax", LaxParserView.as_view()),
    path("strict", StrictParserView.as_view()),
    path("default", DefaultParserView.as_view()),
    *_notes.urls,
]


def test_a_view_naming_drfs_json_parser_in_its_own_parser_classes(settings: Any) -> None:
    assert checks.setup.check_view_parsers() == []  # the recommended configuration: StrictJSONParser
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "EXTRA_URLCONFS": [__name__]}
    warnings = checks.setup.check_view_parsers()
    assert ids(warnings) == ["django_api_conventions.W006"] * 2
    assert [w.obj for w in warnings] == [LaxParserView, NotesViewSet]
    assert warnings[0].msg.startswith(f"{__name__}.LaxParserView.parser_classes names DRF's JSONParser")
    assert "an action's parser_classes" in warnings[1].msg
