"""A 64 KB ``Accept``, ``Accept-Language`` or ``Content-Type`` costs what a short one does.

The timings compare a short and a long header in the same run, each the best of several
repeats taken in turn, so that a loaded machine slows both alike. Before the bounds, a 64 KB
``Accept`` made a problem type page 20 to 120 times slower than a short one.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, RequestFactory
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.request import Request

from django_api_conventions.content.negotiation import FallbackContentNegotiation
from django_api_conventions.content.parsers import StrictJSONParser
from django_api_conventions.http.accept import (
    MAX_ACCEPT_LENGTH,
    MAX_ACCEPT_RANGES,
    MAX_MEDIA_RANGE_LENGTH,
    accept_ranges,
    preferred_type,
)

pytestmark = pytest.mark.django_db

K64 = 64 * 1024
#: A Content-Type far past the package's 256 characters that Django still builds a request for:
#: Django 6.1 refuses one over 10,000 characters itself (``BadRequest``, before any middleware),
#: and gunicorn and nginx refuse a header field over 8 KB before Django sees it.
LONG_CONTENT_TYPE = 9_000
#: How much dearer the long header may be: generous for a loaded machine; unbounded parsing
#: costs 20 times and more.
FACTOR = 5
PAGE = "/problems/validation-error"
API_VIEW = "/faults/own-errors/field-messages"
PAGE_TYPES = ["text/html", "application/json", "application/problem+json"]
factory = RequestFactory()


def repeated(unit: str, length: int = K64) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def best_times(
    short: Callable[[], Any], long: Callable[[], Any], repeats: int = 7, calls: int = 10
) -> tuple[float, float]:
    """The best time of ``calls`` calls of each, over ``repeats`` rounds taken in turn."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for index, call in enumerate((short, long)):
            start = time.perf_counter()
            for _ in range(calls):
                call()
            best[index] = min(best[index], time.perf_counter() - start)
    return best[0], best[1]


def assert_no_dearer(short: Callable[[], Any], long: Callable[[], Any]) -> None:
    short_time, long_time = best_times(short, long)
    assert long_time <= FACTOR * short_time, f"{long_time * 1000:.2f} ms against {short_time * 1000:.2f} ms"


def get(path: str, status: int, **headers: str) -> Callable[[], Any]:
    client = Client(headers={"X-Client-ID": "bounded-headers", **headers})

    def request() -> Any:
        response = client.get(path)
        assert response.status_code == status, response.content[:300]
        return response

    return request


def post_json(content_type: str, status: int) -> Callable[[], Any]:
    client = Client(headers={"X-Client-ID": "bounded-headers"})

    def request() -> Any:
        response = client.generic("POST", "/faults/reserved-names", b"{}", content_type=content_type)
        assert response.status_code == status, response.content[:300]
        return response

    return request


@pytest.mark.parametrize(
    "long_accept",
    [repeated("application/xml;q=0.5,"), repeated("text/xml, "), "text/html;" + repeated("a=b;")],
    ids=["ranges-with-weights", "ranges", "one-range-of-parameters"],
)
def test_a_long_accept_costs_a_problem_page_what_a_short_one_does(long_accept: str) -> None:
    # Both are answered the page's HTML: the short header names no type the page has either.
    assert_no_dearer(get(PAGE, 200, Accept="application/xml;q=0.5"), get(PAGE, 200, Accept=long_accept))


def test_a_long_accept_costs_a_drf_view_what_a_short_one_does() -> None:
    short = get(API_VIEW, 400, Accept="application/xml;q=0.5")
    assert_no_dearer(short, get(API_VIEW, 400, Accept=repeated("application/xml;q=0.5,")))


def test_a_long_accept_language_costs_what_a_short_one_does() -> None:
    # Django reads the first 500 characters of Accept-Language, and the refused-language rule
    # reads what Django parsed.
    short = get(API_VIEW, 400, **{"Accept-Language": "de;q=0, fr"})
    assert_no_dearer(short, get(API_VIEW, 400, **{"Accept-Language": repeated("de;q=0, fr, ")}))


def test_a_long_charset_costs_what_a_short_one_does() -> None:
    long = post_json("application/json; charset=" + repeated("u", LONG_CONTENT_TYPE), 415)
    assert_no_dearer(post_json("application/json; charset=utf-8", 422), long)


def test_accept_is_read_to_64_ranges_of_its_first_8_kb() -> None:
    ranges = accept_ranges(repeated("text/xml, "))
    assert ranges == ["text/xml"] * MAX_ACCEPT_RANGES
    # The 8 KB bound falls inside "application/json-seq": the range it cuts is not read as
    # "application/json". (The first range, too long to be read, fills the rest.)
    filler = "text/" + "x" * (MAX_ACCEPT_LENGTH - len("application/json") - len("text/,")) + ","
    header = filler + "application/json-seq"
    assert header[:MAX_ACCEPT_LENGTH].endswith(",application/json")
    assert accept_ranges(header) == []
    assert accept_ranges("a" * (MAX_ACCEPT_LENGTH + 1)) == []


def test_an_over_long_range_does_not_hide_the_ones_after_it() -> None:
    long_range = "text/html;" + "a=b;" * MAX_MEDIA_RANGE_LENGTH
    assert accept_ranges(f"{long_range}, application/json;q=0.9, ,*/*") == ["application/json;q=0.9", "*/*"]


@pytest.mark.parametrize(
    "accept",
    [
        "",
        "*/*",
        "text/html",
        "application/json",
        "application/json;q=0.5, text/html",
        "text/html;q=0.9, application/problem+json",
        "text/*;q=0, application/*",
        "application/*;q=0.2, */*;q=0.1",
        "application/json;q=0",
        "image/png",
        "text/html;level=1, application/json;q=0.8",
    ],
)
def test_the_preferred_type_is_djangos_for_a_short_header(accept: str) -> None:
    request = factory.get("/", HTTP_ACCEPT=accept)
    assert preferred_type(request, PAGE_TYPES) == request.get_preferred_type(PAGE_TYPES)


@pytest.mark.parametrize(
    ("ranges_before", "variant"), [(MAX_ACCEPT_RANGES - 1, "application/json"), (MAX_ACCEPT_RANGES, "text/html")]
)
def test_a_page_reads_only_the_first_64_ranges(ranges_before: int, variant: str) -> None:
    accept = "image/png, " * ranges_before + "application/json"
    response = Client().get(PAGE, headers={"Accept": accept})
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == variant


def test_drfs_negotiation_reads_the_bounded_ranges() -> None:
    # DRF before 3.18.1 parses every range; the package's negotiation class never does.
    request = Request(factory.get("/", HTTP_ACCEPT=repeated("application/xml;q=0.5,")))
    assert FallbackContentNegotiation().get_accept_list(request) == ["application/xml;q=0.5"] * MAX_ACCEPT_RANGES


def test_a_long_content_type_is_a_415_that_says_why() -> None:
    content_type = "application/json; charset=" + repeated("u", LONG_CONTENT_TYPE)
    response = Client().generic("POST", "/faults/reserved-names", b"{}", content_type=content_type)
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    detail = response.json()["detail"]
    assert f"The Content-Type header has {len(content_type)} characters; at most 256 are read." in detail
    assert len(detail) < 300  # the header is not echoed whole


def test_the_parser_refuses_a_long_content_type_unread_whatever_chose_it() -> None:
    # A negotiation class that does not bound the Content-Type (DRF's before 3.18.1) hands the
    # parser a charset of any length: it is neither looked up nor echoed.
    content_type = "application/json; charset=" + repeated("u")
    http_request = factory.post("/", b"{}", content_type="application/json")
    http_request.META["CONTENT_TYPE"] = content_type
    with pytest.raises(UnsupportedMediaType) as raised:
        StrictJSONParser().parse(io.BytesIO(b"{}"), "application/json", {"request": Request(http_request)})
    assert "at most 256 are read" in str(raised.value.detail)
    assert len(str(raised.value.detail)) < 300
