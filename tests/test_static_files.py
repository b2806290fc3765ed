"""The example service's static files (the admin's): served, and a missing one is Django's plain 404."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_admin_stylesheet_is_served() -> None:
    answer = Client().get("/static/admin/css/base.css")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/css")


@pytest.mark.parametrize("path", ["/static/admin/css/no-such.css", "/static/", "/static/nothing"])
def test_a_missing_static_file_is_djangos_plain_404_not_a_problem(path: str) -> None:
    # A browser refuses a stylesheet answered as application/problem+json; /static/ is no API.
    answer = Client().get(path)
    assert answer.status_code == 404
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    assert b"<title>Not Found</title>" in answer.content


def test_the_api_keeps_its_problems() -> None:
    answer = Client().get("/staticky")
    assert answer.status_code == 404 and answer["Content-Type"] == "application/problem+json"
