"""django-filter FilterSets under StrictFilterBackend: each feature people use, with the strict
backend's guarantees (tests/urls_django_filters.py)."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from django_api_conventions.pagination.filtersets import StrictFilters
from testproject.billing.models import Customer, Invoice

from .strict_lists import (
    START,
    accepted_names,
    codes,
    create_invoices,
    create_users,
    errors_of,
    newest_first,
)
from .urls_django_filters import FeatureInvoices, InvoiceFeatures

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_django_filters")]

#: The filters of ``/v2/features`` in their declaration order, as the list of accepted names
#: and the documents give them.
FEATURE_FILTERS = [
    "amount_due__gte",
    "amount_due__lte",
    "user",
    "status",
    "currency",
    "amount_between",
    "created_after",
    "created_before",
    "email",
    "not_status",
    "paid",
]


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "django-filter"})


@pytest.fixture
def users() -> list[Customer]:
    return create_users("X")


@pytest.fixture
def invoices(users: list[Customer]) -> list[Invoice]:
    # Every 6 hours from 2026-01-01 00:00 UTC: four a day, six days.
    return create_invoices(users, 24, every=timedelta(hours=6))


def ids(client: APIClient, path: str = "/v2/features", **params: Any) -> list[str]:
    """Every id of the list, walking the pages (limit 100 fits them all)."""
    response = client.get(path, {**params, "limit": 100})
    assert response.status_code == 200, response.content
    assert response.json()["pagination"]["has_next"] is False
    return [item["id"] for item in response.json()["data"]]


def bad(client: APIClient, query: str) -> list[tuple[str, str]]:
    return codes(client.get(f"/v2/features?{query}"))


# --- what every parameter must be ----------------------------------------------------------------


def test_an_undeclared_parameter_is_named_and_the_accepted_ones_listed(client: APIClient) -> None:
    errors = errors_of(client.get("/v2/features", {"statuz": "open"}))
    assert [(e["parameter"], e["code"]) for e in errors] == [("statuz", "unknown")]
    assert accepted_names(errors[0]) == [*FEATURE_FILTERS, "cursor", "limit"]


def test_a_single_valued_filter_twice_is_refused_a_multiple_one_is_not(
    client: APIClient,
    invoices: list[Invoice],
    users: list[Customer],
) -> None:
    assert bad(client, f"user={users[0].pk}&user={users[1].pk}") == [("user", "repeated")]
    assert bad(client, "created_after=2026-01-01&created_after=2026-01-02") == [("created_after", "repeated")]
    both = ids(client, status=["draft", "paid"])
    assert both == newest_first([r for r in invoices if r.status in ("draft", "paid")])


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("email=", "email must not be empty."),
        ("currency=eur,", "currency must be comma-separated values, none of them empty."),
        ("amount_due__gte=%20110", "amount_due__gte must not start or end with white space."),
        ("amount_due__gte=1.5e3", "amount_due__gte must be a number in ASCII digits."),
        ("amount_due__gte=%D9%A1%D9%A1%D9%A0", "amount_due__gte must be a number in ASCII digits."),  # Arabic-Indic 110
        ("paid=maybe", "paid must be one of: true, false."),
        ("paid=1", "paid must be one of: true, false."),
        ("created_after=%EF%BC%92026-01-01", "created_after must be written in ASCII characters."),  # fullwidth 2
        ("status=lost", "status must be one of: draft, open, paid, void."),
        ("not_status=lost", "not_status must be one of: draft, open, paid, void."),
        ("user=nobody", "user: Select a valid choice. That choice is not one of the available choices."),
        ("amount_between=105", "amount_between: Range query expects two values."),
    ],
)
def test_a_value_django_would_forgive_or_refuse_is_a_400_naming_it(client: APIClient, query: str, detail: str) -> None:
    errors = errors_of(client.get(f"/v2/features?{query}"))
    name = query.split("=")[0]
    assert errors == [{"parameter": name, "detail": detail, "code": "invalid"}]


def test_every_bad_value_is_reported_at_once(client: APIClient) -> None:
    assert sorted(bad(client, "email=&status=lost&amount_due__lte=x&created_before=nope")) == [
        ("amount_due__lte", "invalid"),
        ("created_before", "invalid"),
        ("email", "invalid"),
        ("status", "invalid"),
    ]


# --- each feature --------------------------------------------------------------------------------


def test_model_choice_filter(client: APIClient, invoices: list[Invoice], users: list[Customer]) -> None:
    assert ids(client, user=users[1].pk) == newest_first([r for r in invoices if r.user_id == users[1].pk])


def test_base_in_filter(client: APIClient, invoices: list[Invoice]) -> None:
    assert ids(client, currency="eur,gbp") == newest_first([r for r in invoices if r.currency != "usd"])


def test_an_in_filter_takes_its_values_repeated_as_a_multiple_choice_does(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    repeated = client.get("/v2/features?currency=eur&currency=gbp&limit=2")
    joined = client.get("/v2/features?currency=eur,gbp&limit=2")
    assert repeated.status_code == 200, repeated.content
    assert [item["id"] for item in repeated.json()["data"]] == newest_first(
        [r for r in invoices if r.currency != "usd"]
    )[:2]
    assert repeated.json()["data"] == joined.json()["data"]
    # The same cleaned values: a cursor of the one spelling pages the other.
    cursor = joined.json()["pagination"]["next_cursor"]
    assert client.get("/v2/features", {"currency": ["eur", "gbp"], "cursor": cursor, "limit": 2}).status_code == 200
    # Each repeated value is checked as one of a comma-separated list would be.
    assert errors_of(client.get("/v2/features?currency=eur&currency=")) == [
        {"parameter": "currency", "detail": "currency must not be empty.", "code": "invalid"}
    ]
    # A range's two values are one pair: repeated, it stays refused.
    assert bad(client, "amount_between=100,101&amount_between=102,103") == [("amount_between", "repeated")]


def test_an_in_filter_takes_an_array_in_a_search_body(client: APIClient, invoices: list[Invoice]) -> None:
    response = client.post("/v2/features/search", {"any": [{"currency": ["eur", "gbp"]}], "limit": 100}, format="json")
    assert response.status_code == 200, response.content
    assert [item["id"] for item in response.json()["data"]] == newest_first(
        [r for r in invoices if r.currency != "usd"]
    )


def test_base_range_filter(client: APIClient, invoices: list[Invoice]) -> None:
    assert ids(client, amount_between="105,110") == newest_first([r for r in invoices if 105 <= r.amount_due <= 110])


def test_date_from_to_range_filter_and_its_two_parameters(client: APIClient, invoices: list[Invoice]) -> None:
    # django-filter's days: from the start of the first to the end of the last, both included.
    after = START + timedelta(days=2)
    assert ids(client, created_after="2026-01-03") == newest_first([r for r in invoices if r.created_at >= after])
    until = START + timedelta(days=1)
    assert ids(client, created_before="2026-01-01") == newest_first([r for r in invoices if r.created_at < until])
    window = ids(client, created_after="2026-01-02", created_before="2026-01-02")
    assert window == newest_first([r for r in invoices if r.created_at.day == 2])
    # Only the wrong one of the two is named.
    assert bad(client, "created_after=soon&created_before=2026-01-02") == [("created_after", "invalid")]
    assert bad(client, "created_after=2026-01-02&created_before=2026-02-30") == [("created_before", "invalid")]


def test_method_filter(client: APIClient, invoices: list[Invoice], users: list[Customer]) -> None:
    assert ids(client, email="x0@EXAMPLE.com") == newest_first([r for r in invoices if r.user_id == users[0].pk])
    assert ids(client, paid="true") == newest_first([r for r in invoices if r.status == "paid"])
    assert ids(client, paid="false") == newest_first([r for r in invoices if r.status != "paid"])


def test_lookup_expressions_of_meta_fields(client: APIClient, invoices: list[Invoice]) -> None:
    found = ids(client, amount_due__gte=110, amount_due__lte=112)
    assert found == newest_first([r for r in invoices if 110 <= r.amount_due <= 112])


def test_exclude(client: APIClient, invoices: list[Invoice]) -> None:
    assert ids(client, not_status="paid") == newest_first([r for r in invoices if r.status != "paid"])


def test_filterset_fields(client: APIClient, invoices: list[Invoice]) -> None:
    assert ids(client, "/v2/fields", status="paid", currency="eur") == newest_first(
        [r for r in invoices if r.status == "paid" and r.currency == "eur"]
    )
    errors = errors_of(client.get("/v2/fields", {"statuz": "paid"}))
    assert errors[0]["detail"] == "Unknown parameter. Accepted: status, currency, cursor, limit."
    assert bad_fields(client, "status=lost") == [("status", "invalid")]


def bad_fields(client: APIClient, query: str) -> list[tuple[str, str]]:
    return [(item["parameter"], item["code"]) for item in errors_of(client.get(f"/v2/fields?{query}"))]


def test_filters_and_together(client: APIClient, invoices: list[Invoice], users: list[Customer]) -> None:
    found = ids(client, user=users[0].pk, status=["draft", "paid", "void"], currency="eur,usd", not_status="void")
    assert found == newest_first(
        [
            r
            for r in invoices
            if r.user_id == users[0].pk and r.status in ("draft", "paid") and r.currency in ("eur", "usd")
        ]
    )


def test_strict_query_parameters_on_other_methods(client: APIClient, invoices: list[Invoice]) -> None:
    errors = errors_of(client.get(f"/v2/features/{invoices[0].pk}", {"status": "paid"}))
    assert errors[0]["detail"] == "Unknown parameter: this request takes no query parameters."


# --- cursors -------------------------------------------------------------------------------------


def test_cursors_are_bound_to_the_cleaned_values(client: APIClient, invoices: list[Invoice]) -> None:
    first = client.get("/v2/features", {"status": ["draft", "open"], "created_after": "2026-01-01", "limit": 3})
    cursor = first.json()["pagination"]["next_cursor"]
    walked = [item["id"] for item in first.json()["data"]]
    while cursor:
        page = client.get(
            "/v2/features", {"status": ["draft", "open"], "created_after": "2026-01-01", "limit": 3, "cursor": cursor}
        ).json()
        walked += [item["id"] for item in page["data"]]
        cursor = page["pagination"]["next_cursor"]
    assert walked == newest_first([r for r in invoices if r.status in ("draft", "open")])
    # Another status, created_after left out, a filter added: each is another list.
    for other in ({"status": "draft"}, {"status": ["draft", "open"]}, {"status": ["draft", "open"], "paid": "true"}):
        replay = client.get("/v2/features", {**other, "cursor": first.json()["pagination"]["next_cursor"]})
        assert errors_of(replay)[0] == {
            "parameter": "cursor",
            "code": "invalid",
            "detail": "The cursor was issued for other filters: send the same filters as for the page before.",
        }


def test_active_filters_are_json_and_stable(invoices: list[Invoice], users: list[Customer], rf: Any) -> None:
    filters = StrictFilters(InvoiceFeatures, view=FeatureInvoices())
    query = {
        "status": ["draft", "paid"],
        "user": [users[0].pk],
        "created_after": ["2026-01-02"],
        "amount_between": ["105,110"],
        "amount_due__gte": ["100"],
        "paid": ["true"],
    }
    bound = filters.from_query(query, allowed_extra=[], request=rf.get("/"), queryset=Invoice.objects.all())
    data = bound.signature_data()
    assert (
        json.loads(json.dumps(data))
        == data
        == {
            "amount_between": ["105", "110"],
            "amount_due__gte": "100",
            "created": ["2026-01-02T00:00:00+00:00", None],
            "paid": True,
            "status": ["draft", "paid"],
            "user": users[0].pk,
        }
    )
    assert list(data) == sorted(data)


# --- search --------------------------------------------------------------------------------------


def test_search_ors_filtersets_in_one_sql_query(
    client: APIClient,
    invoices: list[Invoice],
    users: list[Customer],
) -> None:
    body = {
        "any": [
            {"status": ["draft"], "user": users[0].pk},
            {"amount_between": "120,123"},
            {"email": "X1@example.com", "not_status": "paid", "paid": False},
        ],
        "limit": 100,
    }
    with CaptureQueriesContext(connection) as queries:
        response = client.post("/v2/features/search", body, format="json")
    assert response.status_code == 200, response.content
    expected = [
        r
        for r in invoices
        if (r.status == "draft" and r.user_id == users[0].pk)
        or r.amount_due >= 120
        or (r.user_id == users[1].pk and r.status != "paid")
    ]
    assert [item["id"] for item in response.json()["data"]] == newest_first(expected)
    pages = [q["sql"] for q in queries.captured_queries if 'FROM "billing_invoice"' in q["sql"]]
    assert len(pages) == 1, pages  # the user lookup of ModelChoiceFilter aside


def test_search_pages_with_its_cursor(client: APIClient, invoices: list[Invoice]) -> None:
    body: dict[str, Any] = {"any": [{"status": ["draft", "void"]}, {"currency": "usd"}], "limit": 4}
    walked, cursor = [], None
    while True:
        page = client.post(
            "/v2/features/search", {**body, **({"cursor": cursor} if cursor else {})}, format="json"
        ).json()
        walked += [item["id"] for item in page["data"]]
        cursor = page["pagination"]["next_cursor"]
        if cursor is None:
            break
    assert walked == newest_first([r for r in invoices if r.status in ("draft", "void") or r.currency == "usd"])
    other = client.post(
        "/v2/features/search", {"any": [{"currency": "usd"}], "cursor": page_cursor(client, body)}, format="json"
    )
    assert errors_of(other)[0]["parameter"] == "cursor"


def page_cursor(client: APIClient, body: dict[str, Any]) -> str:
    return client.post("/v2/features/search", body, format="json").json()["pagination"]["next_cursor"]  # type: ignore[no-any-return]


def test_search_body_errors_point_at_each_member(client: APIClient) -> None:
    body = {
        "any": [
            {"status": "lost", "colour": "red"},
            {"user": ["a"], "amount_between": "1"},
            {"created_after": "", "status": [None]},
        ]
    }
    errors = errors_of(client.post("/v2/features/search", body, format="json"), 422)
    assert sorted((e["pointer"], e["code"]) for e in errors) == [
        ("/any/0/colour", "unknown"),
        ("/any/0/status", "invalid"),
        ("/any/1/amount_between", "invalid"),
        ("/any/1/user", "invalid"),
        ("/any/2/created_after", "invalid"),
        ("/any/2/status", "invalid"),
    ]
    details = {e["pointer"]: e["detail"] for e in errors}
    assert details["/any/0/status"] == "status must be one of: draft, open, paid, void."
    assert details["/any/1/user"] == "user must be a string."
    assert details["/any/2/status"] == "status must be a string or an array of strings."


# --- OrderingFilter ------------------------------------------------------------------------------


@pytest.mark.urls("tests.urls_django_filters_ordering")
def test_an_ordering_filter_is_a_check_error_and_a_500() -> None:
    from django_api_conventions.pagination.checks import check_strict_filtersets

    client = APIClient(raise_request_exception=False)
    errors = check_strict_filtersets()
    assert [(e.id, e.obj) for e in errors] == [("django_api_conventions.E040", None)]
    assert errors[0].msg.startswith("OrderedInvoices filters with Ordered, whose order is an OrderingFilter")
    response = client.get("/v2/ordered")
    assert response.status_code == 500
    assert response.json()["type"].endswith("/internal-error")


# --- OpenAPI -------------------------------------------------------------------------------------


@pytest.fixture
def schema() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator(urlconf="tests.urls_django_filters", api_version="v2").get_schema(request=None, public=True)


def test_parameters_are_documented_with_types_enums_and_multiplicity(schema: dict[str, Any]) -> None:
    parameters = {p["name"]: p for p in schema["paths"]["/v2/features"]["get"]["parameters"] if p["in"] == "query"}
    assert set(parameters) == {*FEATURE_FILTERS, "cursor", "limit"}
    assert parameters["status"]["schema"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["draft", "open", "paid", "void"]},
    }
    assert (parameters["status"]["style"], parameters["status"]["explode"]) == ("form", True)
    assert parameters["not_status"]["schema"] == {"type": "string", "enum": ["draft", "open", "paid", "void"]}
    assert parameters["not_status"]["description"] == "status (not exact)"
    assert parameters["user"]["schema"] == {"type": "string", "minLength": 1}
    assert parameters["currency"]["schema"] == {"type": "string", "description": "Comma-separated values."}
    assert parameters["amount_between"]["schema"]["pattern"] == "^[+-]?[0-9]+,[+-]?[0-9]+$"
    assert parameters["amount_due__gte"]["schema"] == {"type": "integer"}
    assert parameters["amount_due__gte"]["description"] == "amount_due (gte)"
    assert parameters["created_after"]["schema"] == {"type": "string", "format": "date"}
    assert parameters["created_before"]["description"] == "created_at (before)"
    assert parameters["paid"]["schema"] == {"type": "boolean"}
    assert parameters["email"]["description"] == "The user's email, in any case."
    assert not any(p["required"] for p in parameters.values())


def test_the_search_body_is_documented(schema: dict[str, Any]) -> None:
    body = schema["paths"]["/v2/features/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    alternative = body["properties"]["any"]["items"]
    assert alternative["additionalProperties"] is False
    assert alternative["properties"]["status"] == {
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "enum": ["draft", "open", "paid", "void"]},
    }
    assert alternative["properties"]["created_after"] == {"type": "string", "format": "date"}
    assert set(alternative["properties"]) == set(FEATURE_FILTERS)


def test_details_speak_the_clients_language(client: APIClient) -> None:
    from django.utils import translation

    try:
        response = client.get("/v2/features?paid=x&user=nobody", headers={"Accept-Language": "de"})
        details = {item["parameter"]: item["detail"] for item in errors_of(response)}
    finally:
        translation.activate("en")  # LocaleMiddleware leaves the request's language active
    assert details["paid"] == "paid muss einer der folgenden Werte sein: true, false."
    # Django's own message, from Django's German catalogue, after the parameter's name.
    assert details["user"].startswith("user: ") and "Select a valid choice" not in details["user"]


def test_a_model_choice_by_an_integer_key_takes_ascii_integers_and_says_integer() -> None:
    from django import forms
    from django.contrib.auth.models import User

    from django_api_conventions.pagination.filter_schema import value_schema
    from django_api_conventions.pagination.parameters import value_problem

    field = forms.ModelChoiceField(queryset=User.objects.all())
    assert value_problem("5", field, csv=False) is None
    for spelling in ("5.0", "\u0665", "1_0", "0x5"):  # int() or Django would read each as a number
        assert value_problem(spelling, field, csv=False) == "must be an integer in ASCII digits"
    assert value_schema(field, None, None) == {"type": "integer"}
    text_key = forms.ModelChoiceField(queryset=Customer.objects.all())
    assert value_problem("\u0665", text_key, csv=False) is None  # a text key is taken as written
    assert value_schema(text_key, None, None) == {"type": "string", "minLength": 1}


# --- no 500, whatever the query string ------------------------------------------------------------

# The amounts last: the strategies below take all but the last three (amount_due__lte, cursor, limit).
FEATURE_PARAMETERS = [*FEATURE_FILTERS[2:], *FEATURE_FILTERS[:2], "cursor", "limit"]
# Any text a URL can carry to a view (no NUL: refused as a malformed request before any view).
_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=10)
_numbers = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["", " 1", "1e3", "1.5", "NaN", "inf", "-0", "\u0661\u0662", "1_0"]),
)
_lists = st.lists(st.one_of(_numbers, st.sampled_from(["eur", "gbp", "draft", "paid", ""]), _text), max_size=3).map(
    ",".join
)
_dates = st.sampled_from(
    [
        "2026-01-02",
        "2026-02-30",
        "2026-W01",
        "2026-01-01T00:00:00Z",
        "2026-01-01T24:00",
        "0001-01-01",
        "9999-12-31",
        "2026-01-01T00:00:00-22:25",
        "\u0662\u0660\u0662\u0666-01-01",
        "20260101",
        "",
    ]
)
# Per parameter, values near what its filter parses, as often as junk.
_values_of = {
    "user": st.sampled_from(["usr_0", "", "nobody", " usr_0"]),
    "email": st.sampled_from(["x0@example.com", "X1@EXAMPLE.COM", "@", "", "a b"]),
    "status": _lists,
    "not_status": st.sampled_from(["draft", "paid", "lost", "", "DRAFT"]),
    "currency": _lists,
    "amount_between": _lists,
    "amount_due__gte": _numbers,
    "amount_due__lte": _numbers,
    "created_after": _dates,
    "created_before": _dates,
    "limit": _numbers,
    "paid": st.sampled_from(["true", "false", "True", "1", "maybe", ""]),
    "format": st.sampled_from(["json", "xml"]),
    "cursor": st.sampled_from(["", "x", "eyJ2IjoxfQ:1:forged"]),
}

#: A valid value for each filter of InvoiceFeatures (``user`` aside: its ids are drawn at random).
EVERY_FILTER_ONCE = {
    "status": "draft",
    "currency": "eur,gbp",
    "amount_between": "100,120",
    "created_after": "2026-01-02",
    "created_before": "2026-01-05",
    "email": "x0@example.com",
    "not_status": "void",
    "paid": "false",
    "amount_due__gte": "101",
    "amount_due__lte": "119",
}


@st.composite
def _pairs(draw: Any) -> list[tuple[str, str]]:
    pairs = []
    for _ in range(draw(st.integers(0, 5))):
        # Mostly declared names (one_of draws its branches alike): the values are where they differ.
        name = draw(st.one_of(*[st.sampled_from(FEATURE_PARAMETERS)] * 6, _text))
        pairs.append((name, draw(st.one_of(*[_values_of.get(name, _text)] * 3, _text))))
    return pairs


@pytest.mark.parametrize("path", ["/v2/features", "/v2/fields"])
def test_no_query_string_is_a_500(client: APIClient, invoices: list[Invoice], path: str) -> None:
    """Every django-filter feature the docs support (tests/urls_django_filters.py), any query:
    a 200 list or a 400 problem naming parameters, never a 500."""

    @settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(pairs=_pairs())
    @example(pairs=list(EVERY_FILTER_ONCE.items()))  # each filter's code runs at least once
    def check(pairs: list[tuple[str, str]]) -> None:
        query = urlencode(pairs)
        with transaction.atomic():  # each request in its own savepoint, as in production
            response = client.get(f"{path}?{query}")
        assert response.status_code in (200, 400), (query, response.status_code, response.content)
        if response.status_code == 400:
            assert response["Content-Type"] == "application/problem+json", query
            assert all("parameter" in item for item in response.json()["errors"]), query

    check()


def test_no_search_body_is_a_500(client: APIClient, invoices: list[Invoice]) -> None:
    @settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")) // 2,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        alternatives=st.lists(
            st.dictionaries(
                st.sampled_from(FEATURE_PARAMETERS[:-3]),
                st.one_of(
                    _numbers, _lists, _dates, st.lists(_lists, max_size=3), st.none(), st.booleans(), st.integers()
                ),
            ),
            min_size=1,
            max_size=3,
        )
    )
    @example(alternatives=[EVERY_FILTER_ONCE, {"paid": True}])
    def check(alternatives: list[dict[str, Any]]) -> None:
        with transaction.atomic():
            response = client.post("/v2/features/search", {"any": alternatives}, format="json")
        assert response.status_code in (200, 422), (alternatives, response.status_code, response.content)

    check()


def test_the_parameters_follow_filters_an_instance_adds() -> None:
    """The parameter table is kept per FilterSet class, and read again when an instance's
    filters differ from the last ones read (a filter added in ``__init__``, per request)."""
    import django_filters

    from django_api_conventions.pagination.parameters import parameters_of

    class Dynamic(django_filters.FilterSet):  # type: ignore[misc]
        status = django_filters.CharFilter()

        def __init__(self, *args: Any, extra: bool = False, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if extra:
                self.filters["number"] = django_filters.NumberFilter(field_name="amount_due")

        class Meta:
            model = Invoice
            fields: list[str] = []

    plain = Invoice.objects.none()
    assert list(parameters_of(Dynamic(queryset=plain))) == ["status"]
    assert list(parameters_of(Dynamic(queryset=plain, extra=True))) == ["status", "number"]
    assert list(parameters_of(Dynamic(queryset=plain))) == ["status"]
    assert parameters_of(Dynamic(queryset=plain)) is parameters_of(Dynamic(queryset=plain))


def test_a_search_of_one_alternative_on_the_lists_own_columns_is_the_lists_query(
    client: APIClient, invoices: list[Invoice]
) -> None:
    """No primary-key subquery: on SQLite it would sort every matching row instead of walking
    the ordering's index."""
    with CaptureQueriesContext(connection) as queries:
        response = client.post("/v2/features/search", {"any": [{"status": ["draft"]}], "limit": 100}, format="json")
    assert response.status_code == 200, response.content
    assert [item["id"] for item in response.json()["data"]] == newest_first(
        [r for r in invoices if r.status == "draft"]
    )
    (page,) = [q["sql"] for q in queries.captured_queries if 'FROM "billing_invoice"' in q["sql"]]
    assert "IN (SELECT" not in page.upper()


def test_a_search_of_one_alternative_through_a_join_keeps_its_subquery(
    client: APIClient, invoices: list[Invoice], users: list[Customer]
) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            "/v2/features/search", {"any": [{"email": "X1@example.com"}], "limit": 100}, format="json"
        )
    assert response.status_code == 200, response.content
    assert [item["id"] for item in response.json()["data"]] == newest_first(
        [r for r in invoices if r.user_id == users[1].pk]
    )
    (page,) = [q["sql"] for q in queries.captured_queries if 'FROM "billing_invoice"' in q["sql"]]
    assert "IN (SELECT" in page.upper()
