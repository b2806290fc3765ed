"""Versioning over real HTTP against the example service: headers byte for byte, 410s, renames.

The example service serves v2 (current) and v1 (deprecated 2026-06-01, sunset 2027-06-01);
v0 is retired. Time is frozen with time-machine, which also holds in the live server's thread.
This module is also the URLconf of its tests: the example service plus probe views.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse as drf_reverse
from rest_framework.views import APIView

from django_api_conventions.versioning import deprecated, reverse, versioned_urls
from django_api_conventions.versioning.signals import (
    deprecated_endpoint_used,
    deprecated_field_used,
    deprecated_version_used,
)
from testproject.billing.serializers import AMOUNT_DUE_GUIDE
from testproject.settings import MIGRATION_GUIDE
from tests.urls import handler400, handler403, handler404, handler500
from tests.urls import urlpatterns as test_urlpatterns

from .http import HTTPResult, send
from .problem_assertions import assert_problem

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls(__name__)]

GUIDE = MIGRATION_GUIDE
ENDPOINT_GUIDE = "https://billing.example.com/docs/probe-search"
V1_DEPRECATION = "@1780272000"  # 2026-06-01T00:00:00Z
V1_SUNSET = "Tue, 01 Jun 2027 00:00:00 GMT"
V1_LINK = f'<{GUIDE}>; rel="deprecation"; type="text/html", <{GUIDE}>; rel="sunset"; type="text/html"'
TODAY = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)
V1_SUNSET_MOMENT = dt.datetime(2027, 6, 1, tzinfo=dt.UTC)

# RFC 9651 sf-date: "@" sf-integer, sf-integer = ["-"] 1*15DIGIT (RFC 9745 section 2.1).
SF_DATE = re.compile(r"@-?[0-9]{1,15}")
# RFC 9110 IMF-fixdate, the HTTP-date senders must generate (RFC 8594 section 3).
IMF_FIXDATE = re.compile(
    r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} "
    r"[0-9]{2}:[0-9]{2}:[0-9]{2} GMT"
)
# RFC 8288 section 3: link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param ),
# link-param = token BWS [ "=" BWS ( token / quoted-string ) ], values joined by "," OWS.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_PARAM = rf"[ \t]*;[ \t]*{_TOKEN}(?:[ \t]*=[ \t]*(?:{_TOKEN}|{_QUOTED}))?"
LINK_VALUE = re.compile(rf"<[^<>\s]*>(?:{_PARAM})*")
LINK = re.compile(rf"{LINK_VALUE.pattern}(?:[ \t]*,[ \t]*{LINK_VALUE.pattern})*")


# --- probe views, mounted under every version ----------------------------------------------


class VersionProbe(APIView):
    """What a DRF view sees: its version, its kwargs, URLs reversed in its version."""

    def get(self, request: Request, **kwargs: Any) -> Response:
        response = Response(
            {
                "version": request.version,
                "kwargs": kwargs,
                "drf_reverse": drf_reverse("invoice-detail", kwargs={"pk": "inv_1"}, request=request),
                "reverse": reverse("invoice-detail", request, kwargs={"pk": "inv_1"}),
                "unversioned": drf_reverse("api_conventions:problem-type", kwargs={"slug": "gone"}, request=request),
            }
        )
        if "max_age" in request.query_params:
            response["Cache-Control"] = request.query_params["max_age"]
        return response


def function_probe(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    return JsonResponse(
        {"version": getattr(request, "version", None), "kwargs": kwargs, "reverse": reverse("version-probe", request)}
    )


@deprecated(deprecation="2026-09-01", sunset="2027-03-01", migration_guide=ENDPOINT_GUIDE, methods=["POST"])
class DeprecatedSearch(APIView):
    def get(self, request: Request) -> Response:
        return Response({"ok": True})

    def post(self, request: Request) -> Response:
        return Response({"ok": True})


@deprecated(deprecation="2026-10-01", sunset="2027-01-01", migration_guide=ENDPOINT_GUIDE)
def deprecated_function(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"ok": True})


urlpatterns = [
    *versioned_urls(
        [
            path("version-probe", VersionProbe.as_view(), name="version-probe"),
            path("function-probe", function_probe),
            path("probe-searches", DeprecatedSearch.as_view()),
            path("probe-reports", deprecated_function),
        ]
    ),
    *test_urlpatterns,
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


# --- helpers --------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def today() -> Iterator[None]:
    with time_machine.travel(TODAY, tick=False):
        yield


def create_user(base: str, version: str = "v2", email: str = "ada@example.com") -> dict[str, Any]:
    result = send(base, "POST", f"/{version}/users", json_body={"email": email, "name": "Ada"})
    assert result.status == 201, result.body
    return result.json()


def create_invoice(base: str, payload: dict[str, Any], version: str = "v2") -> HTTPResult:
    return send(base, "POST", f"/{version}/invoices", json_body={"currency": "eur", **payload})


def assert_v1_headers(result: HTTPResult) -> None:
    assert result.header("Deprecation") == V1_DEPRECATION
    assert result.header("Sunset") == V1_SUNSET
    assert result.header("Link") == V1_LINK
    assert SF_DATE.fullmatch(result.header("Deprecation") or "")
    assert IMF_FIXDATE.fullmatch(result.header("Sunset") or "")
    assert LINK.fullmatch(result.header("Link") or "")


def assert_not_deprecated(result: HTTPResult) -> None:
    for name in ("Deprecation", "Sunset", "Link"):
        assert result.header(name) is None, (name, result.header(name))


# --- versions -------------------------------------------------------------------------------


def test_v1_responses_carry_deprecation_sunset_and_link(live_server: Any) -> None:
    user = create_user(live_server.url, "v1")
    result = send(live_server.url, "GET", f"/v1/users/{user['id']}")
    assert result.status == 200 and result.json()["id"] == user["id"]
    assert_v1_headers(result)
    # A deprecated response is not kept by any cache beyond the sunset.
    assert result.header("Cache-Control") == "no-cache"
    # The trace id header is still there, the v1 and v2 resources are the same.
    assert result.header("X-Request-ID")
    assert send(live_server.url, "GET", f"/v2/users/{user['id']}").json() == result.json()


@pytest.mark.parametrize(
    ("method", "path", "options", "status", "slug"),
    [
        ("GET", "/v1/no-such-collection", {}, 404, "not-found"),
        ("GET", "/v1/users/usr_missing", {}, 404, "not-found"),
        ("DELETE", "/v1/users", {}, 405, "method-not-allowed"),
        ("POST", "/v1/users", {"json_body": {"email": "no"}}, 422, "validation-error"),
        ("POST", "/v1/users", {"body": "{", "headers": {"Content-Type": "application/json"}}, 400, "malformed-request"),
        # Answered by ProblemDetailsMiddleware before any view: announced all the same.
        (
            "POST",
            "/v1/users",
            {"body": b"{" + b" " * 3_000_000 + b"}", "headers": {"Content-Type": "application/json"}},
            413,
            "request-too-large",
        ),
        ("GET", "/v1/users", {"headers": {"Host": "evil.example"}}, 400, "invalid-host"),
        ("GET", "/v1/users%00", {}, 400, "bad-request"),
    ],
    ids=["routing-404", "drf-404", "405", "422", "400", "413", "disallowed-host", "nul-in-url"],
)
def test_v1_errors_carry_the_headers_too(
    live_server: Any, method: str, path: str, options: dict[str, Any], status: int, slug: str
) -> None:
    result = send(live_server.url, method, path, **options)
    assert_problem(result, status, slug)
    assert_v1_headers(result)


def test_v2_responses_are_not_deprecated(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/v2/users")
    assert result.status == 200
    assert_not_deprecated(result)
    assert result.header("Cache-Control") is None


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("path", ["/v0/users", "/v0/invoices/inv_1/payments", "/v0/no-such-thing"])
def test_retired_version_answers_410_linking_the_migration_guide(live_server: Any, method: str, path: str) -> None:
    result = send(live_server.url, method, path, json_body={} if method == "POST" else None)
    body = assert_problem(result, 410, "version-retired")
    assert body["migration_guide"] == GUIDE
    assert body["version"] == "v0"
    assert GUIDE in body["detail"]
    assert result.header("Link") == V1_LINK
    assert result.header("Sunset") == "Thu, 01 Jan 2026 00:00:00 GMT"
    assert result.header("Location") is None  # never a redirect


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("path", ["/v0", "/v0/"])
def test_the_retired_version_root_answers_410_with_or_without_its_slash(
    live_server: Any, method: str, path: str
) -> None:
    result = send(live_server.url, method, path, json_body={} if method == "POST" else None)
    body = assert_problem(result, 410, "version-retired")
    assert body["migration_guide"] == GUIDE and body["version"] == "v0"
    assert result.header("Sunset") == "Thu, 01 Jan 2026 00:00:00 GMT"


def test_the_deprecated_version_root_answers_its_index_with_the_headers(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/v1")
    assert result.status == 200, result.body[:300]
    assert json.loads(result.body)["version"] == "v1"
    assert_v1_headers(result)


def test_a_deprecated_version_root_with_a_slash_is_still_announced(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/v1/")
    assert_problem(result, 404, "not-found")  # paths have no trailing slash
    assert_v1_headers(result)


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/v9", "not-found"),
        ("/v10", "not-found"),
        ("/v0foo", "not-found"),
        ("/v1foo", "not-found"),
        ("/v10/users", "not-found"),
    ],
)
def test_a_version_root_lookalike_is_no_retired_or_deprecated_version(live_server: Any, path: str, slug: str) -> None:
    result = send(live_server.url, "GET", path)
    assert_problem(result, 404, slug)
    assert_not_deprecated(result)


def test_unknown_version_answers_404(live_server: Any) -> None:
    body = assert_problem(send(live_server.url, "GET", "/v9/users"), 404, "not-found")
    assert body["versions"] == ["v1", "v2"]
    assert "'v9'" in body["detail"]


def test_a_sunset_in_the_past_turns_v1_into_410_without_a_code_change(live_server: Any) -> None:
    with time_machine.travel(V1_SUNSET_MOMENT - dt.timedelta(seconds=1), tick=False):
        before = send(live_server.url, "GET", "/v1/users")
        assert before.status == 200
        assert_v1_headers(before)
    with time_machine.travel(V1_SUNSET_MOMENT, tick=False):
        body = assert_problem(send(live_server.url, "GET", "/v1/users"), 410, "version-retired")
        assert body["migration_guide"] == GUIDE
        assert send(live_server.url, "GET", "/v2/users").status == 200


def test_cached_v1_responses_cannot_outlive_the_sunset(live_server: Any) -> None:
    left = int((V1_SUNSET_MOMENT - TODAY).total_seconds())
    capped = send(live_server.url, "GET", "/v1/version-probe?max_age=public,%20max-age=999999999")
    assert capped.header("Cache-Control") == f"public, max-age={left}"
    shared = send(live_server.url, "GET", "/v1/version-probe?max_age=max-age=60,%20s-maxage=999999999")
    assert shared.header("Cache-Control") == f"max-age=60, s-maxage={left}"
    unstored = send(live_server.url, "GET", "/v1/version-probe?max_age=no-store")
    assert unstored.header("Cache-Control") == "no-store"
    current = send(live_server.url, "GET", "/v2/version-probe?max_age=max-age=999999999")
    assert current.header("Cache-Control") == "max-age=999999999"


# --- URLs -----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_views_see_their_version_and_no_version_kwarg(live_server: Any, version: str) -> None:
    probe = send(live_server.url, "GET", f"/{version}/version-probe").json()
    assert probe["version"] == version
    assert probe["kwargs"] == {}
    assert probe["drf_reverse"] == f"{live_server.url}/{version}/invoices/inv_1"
    assert probe["reverse"] == f"/{version}/invoices/inv_1"
    assert probe["unversioned"] == f"{live_server.url}/problems/gone"
    function = send(live_server.url, "GET", f"/{version}/function-probe").json()
    assert function == {"version": version, "kwargs": {}, "reverse": f"/{version}/version-probe"}


def test_location_of_a_created_resource_keeps_the_version(live_server: Any) -> None:
    result = send(live_server.url, "POST", "/v1/users", json_body={"email": "v1@example.com", "name": "V"})
    assert result.status == 201
    assert re.fullmatch(rf"{re.escape(live_server.url)}/v1/users/usr_[0-9a-f]+", result.header("Location") or "")


# --- per-endpoint deprecation ---------------------------------------------------------------


def test_a_deprecated_method_is_announced_with_its_own_dates(live_server: Any) -> None:
    post = send(live_server.url, "POST", "/v2/probe-searches", json_body={})
    assert post.status == 200
    assert post.header("Deprecation") == "@1788220800"  # 2026-09-01
    assert post.header("Sunset") == "Mon, 01 Mar 2027 00:00:00 GMT"
    assert post.header("Link") == (
        f'<{ENDPOINT_GUIDE}>; rel="deprecation"; type="text/html", <{ENDPOINT_GUIDE}>; rel="sunset"; type="text/html"'
    )
    assert_not_deprecated(send(live_server.url, "GET", "/v2/probe-searches"))


def test_a_deprecated_endpoint_on_a_deprecated_version_announces_the_earliest_dates(live_server: Any) -> None:
    result = send(live_server.url, "POST", "/v1/probe-searches", json_body={})
    assert result.header("Deprecation") == V1_DEPRECATION  # v1's, earlier than the endpoint's
    assert result.header("Sunset") == "Mon, 01 Mar 2027 00:00:00 GMT"  # the endpoint's, earlier than v1's
    links = result.header("Link") or ""
    assert LINK.fullmatch(links) and GUIDE in links and ENDPOINT_GUIDE in links


def test_a_deprecated_endpoint_answers_410_after_its_sunset(live_server: Any) -> None:
    with time_machine.travel(dt.datetime(2027, 3, 1, tzinfo=dt.UTC), tick=False):
        retired = send(live_server.url, "POST", "/v2/probe-searches", json_body={})
        body = assert_problem(retired, 410, "endpoint-retired")
        assert body["migration_guide"] == ENDPOINT_GUIDE
        assert send(live_server.url, "GET", "/v2/probe-searches").status == 200
        assert_problem(send(live_server.url, "GET", "/v2/probe-reports"), 410, "endpoint-retired")
        # Inside the deprecated v1, the 410 names the endpoint's own (earlier) sunset.
        in_v1 = send(live_server.url, "POST", "/v1/probe-searches", json_body={})
        assert_problem(in_v1, 410, "endpoint-retired")
        assert in_v1.header("Sunset") == "Mon, 01 Mar 2027 00:00:00 GMT"


def test_a_deprecated_function_view_is_announced(live_server: Any) -> None:
    result = send(live_server.url, "GET", "/v2/probe-reports")
    assert result.status == 200
    assert result.header("Deprecation") == "@1790812800"  # 2026-10-01
    assert result.header("Sunset") == "Fri, 01 Jan 2027 00:00:00 GMT"


# --- the rename of total to amount_due -----------------------------------------------------


def test_responses_carry_both_names(live_server: Any) -> None:
    user = create_user(live_server.url)
    created = create_invoice(live_server.url, {"user_id": user["id"], "amount_due": 500})
    assert created.status == 201
    assert created.json()["amount_due"] == 500 and created.json()["total"] == 500
    assert_not_deprecated(created)  # the new name only: nothing deprecated was used
    fetched = send(live_server.url, "GET", f"/v2/invoices/{created.json()['id']}").json()
    assert fetched["amount_due"] == fetched["total"] == 500
    listed = send(live_server.url, "GET", "/v2/invoices").json()["data"][0]
    assert listed["amount_due"] == listed["total"] == 500


def test_the_old_name_is_accepted_and_announced(live_server: Any) -> None:
    user = create_user(live_server.url)
    created = create_invoice(live_server.url, {"user_id": user["id"], "total": 700})
    assert created.status == 201, created.body
    assert created.json()["amount_due"] == 700 and created.json()["total"] == 700
    assert created.header("Deprecation") == "@1793491200"  # 2026-11-01, the rename's deprecation
    assert created.header("Sunset") is None  # the resource stays; only the field's old name goes
    assert created.header("Link") == (
        f'<{AMOUNT_DUE_GUIDE}>; rel="deprecation"; type="text/html"; title="field total is deprecated: use amount_due"'
    )
    assert LINK.fullmatch(created.header("Link") or "")


def test_both_names_with_the_same_value_are_accepted(live_server: Any) -> None:
    user = create_user(live_server.url)
    created = create_invoice(live_server.url, {"user_id": user["id"], "total": 300, "amount_due": 300})
    assert created.status == 201 and created.json()["amount_due"] == 300


def test_both_names_with_different_values_are_422(live_server: Any) -> None:
    user = create_user(live_server.url)
    result = create_invoice(live_server.url, {"user_id": user["id"], "total": 300, "amount_due": 301})
    body = assert_problem(result, 422, "validation-error")
    assert body["errors"] == [
        {
            "pointer": "/total",
            "code": "rename_conflict",
            "detail": "'total' is the old name of 'amount_due': send one of them, or both with one value.",
        }
    ]


def test_the_old_name_disappears_after_its_sunset(live_server: Any) -> None:
    user = create_user(live_server.url)
    invoice = create_invoice(live_server.url, {"user_id": user["id"], "amount_due": 900}).json()
    with time_machine.travel(dt.datetime(2027, 6, 1, tzinfo=dt.UTC), tick=False):
        fetched = send(live_server.url, "GET", f"/v2/invoices/{invoice['id']}")
        assert fetched.json()["amount_due"] == 900 and "total" not in fetched.json()
        old_name = create_invoice(live_server.url, {"user_id": user["id"], "total": 900})
        body = assert_problem(old_name, 422, "validation-error")
        # The old name is refused, not ignored: a PATCH of it alone would otherwise change nothing.
        detail = "'total' was removed on 2027-06-01: use 'amount_due'."
        assert body["errors"] == [{"pointer": "/total", "detail": detail, "code": "renamed_field_removed"}]


# --- unknown enum values --------------------------------------------------------------------


def test_a_status_added_later_is_returned_as_it_is(live_server: Any) -> None:
    from testproject.billing.models import Invoice

    user = create_user(live_server.url)
    invoice = create_invoice(live_server.url, {"user_id": user["id"], "amount_due": 1}).json()
    Invoice.objects.filter(pk=invoice["id"]).update(status="uncollectible")
    assert send(live_server.url, "GET", f"/v2/invoices/{invoice['id']}").json()["status"] == "uncollectible"
    rejected = create_invoice(live_server.url, {"user_id": user["id"], "amount_due": 1, "status": "uncollectible"})
    assert assert_problem(rejected, 422, "validation-error")["errors"][0]["pointer"] == "/status"


# --- who still calls it ---------------------------------------------------------------------


def test_each_deprecated_use_is_signalled_and_logged_with_the_client_id(
    live_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    received: list[tuple[str, dict[str, Any]]] = []

    def receiver(signal: Any, sender: Any, **kwargs: Any) -> None:
        received.append((sender, kwargs))

    for signal in (deprecated_version_used, deprecated_endpoint_used, deprecated_field_used):
        signal.connect(receiver, weak=False)
    caplog.set_level(logging.INFO, logger="django_api_conventions.deprecation")
    client = {"X-Client-ID": "acme-billing"}
    try:
        user = create_user(live_server.url)
        send(live_server.url, "GET", "/v1/users", headers=client)
        send(live_server.url, "POST", "/v2/probe-searches", json_body={}, headers=client)
        send(
            live_server.url,
            "POST",
            "/v2/invoices",
            headers=client,
            json_body={"user_id": user["id"], "total": 5, "currency": "eur"},
        )
        send(live_server.url, "GET", "/v0/users", headers=client)
    finally:
        for signal in (deprecated_version_used, deprecated_endpoint_used, deprecated_field_used):
            signal.disconnect(receiver)
    assert [(sender, kwargs["client_id"], kwargs["retired"]) for sender, kwargs in received] == [
        ("version", "client:acme-billing", False),
        ("endpoint", "client:acme-billing", False),
        ("field", "client:acme-billing", False),
        ("version", "client:acme-billing", True),
    ]
    assert received[0][1]["version"] == "v1" and received[2][1]["field"] == "total"
    messages = [r.getMessage() for r in caplog.records if r.name == "django_api_conventions.deprecation"]
    assert messages == [
        "Deprecated version v1 used by client:acme-billing: GET /v1/users (sunset 2027-06-01T00:00:00+00:00)",
        "Deprecated endpoint POST /{version}/probe-searches used by client:acme-billing: POST /v2/probe-searches "
        "(sunset 2027-03-01T00:00:00+00:00)",
        "Deprecated field InvoiceSerializer.total used by client:acme-billing: POST /v2/invoices "
        "(sunset 2027-06-01T00:00:00+00:00)",
        "Retired version v0 used by client:acme-billing: GET /v0/users (sunset 2026-01-01T00:00:00+00:00)",
    ]
    assert all(
        getattr(r, "client_id", None) == "client:acme-billing"
        for r in caplog.records
        if r.name == "django_api_conventions.deprecation"
    )
