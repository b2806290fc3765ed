from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from django_api_conventions.problems import ProblemException
from django_api_conventions.problems.types import ProblemType, ProblemTypeRegistry, problem_types, register_problem_type


def test_registry_refuses_a_conflicting_slug() -> None:
    registry = ProblemTypeRegistry()
    registry.register(ProblemType("card-declined", "Card declined", 402, "The card was declined."))
    registry.register(ProblemType("card-declined", "Card declined", 402, "The card was declined."))
    with pytest.raises(ImproperlyConfigured, match="already registered"):
        registry.register(ProblemType("card-declined", "Declined", 402, "Other text."))


@pytest.mark.parametrize(("slug", "status"), [("Bad Slug", 400), ("ok", 302), ("ok", 600)])
def test_problem_types_are_validated(slug: str, status: int) -> None:
    with pytest.raises(ImproperlyConfigured):
        ProblemType(slug, "t", status, "d")


def test_unknown_slug() -> None:
    assert problem_types.get("no-such-type") is None
    with pytest.raises(KeyError):
        problem_types["no-such-type"]


def test_every_error_status_has_a_type() -> None:
    assert problem_types.for_status(404).slug == "not-found"
    assert problem_types.for_status(418).title == "I'm a Teapot"
    assert problem_types.for_status(499).title == "Client error"
    assert problem_types.for_status(599).title == "Server error"


def test_users_register_their_own_types() -> None:
    register_problem_type("order-already-shipped", "Order already shipped", 409, "A shipped order is final.")
    problem = ProblemException("order-already-shipped", "Order ord_1 shipped.", extensions={"order": "ord_1"})
    assert problem.status_code == 409
    assert problem_types["order-already-shipped"].status == 409


def test_extensions_cannot_overwrite_reserved_members() -> None:
    with pytest.raises(ValueError, match="reserved members"):
        ProblemException("conflict", extensions={"status": 200})


def test_documentation_pages() -> None:
    client = Client()
    html = client.get("/problems/rate-limited")
    assert html.status_code == 200 and b"Retry-After" in html.content
    as_json = client.get("/problems/rate-limited", headers={"Accept": "application/json"})
    assert as_json.json()["status"] == 429
    generic = client.get("/problems/http-418", headers={"Accept": "application/json"})
    assert generic.json()["title"] == "I'm a Teapot"
    listing = client.get("/problems/", headers={"Accept": "application/json"})
    assert {"not-found", "validation-error"} <= {t["slug"] for t in listing.json()}
    assert b"<h1>Problem types</h1>" in client.get("/problems/").content


def test_unknown_type_page_is_a_problem() -> None:
    response = Client().get("/problems/no-such-type")
    assert response.status_code == 404 and response["Content-Type"] == "application/problem+json"


def test_documentation_pages_are_read_only() -> None:
    response = Client().post("/problems/not-found")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert response["Content-Type"] == "application/problem+json"
