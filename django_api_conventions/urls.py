"""``path("", include("django_api_conventions.urls"))``: the problem type pages, at the path of
``PROBLEM_BASE_URL`` (``problems/`` by default); the other spelling of each page redirects (301)."""

from django.urls import path

from .problems.pages import (
    problem_pages_path,
    problem_stylesheet_view,
    problem_type_list_view,
    problem_type_redirect_view,
    problem_type_view,
)

__all__: list[str] = []

app_name = "api_conventions"

_pages = problem_pages_path()

urlpatterns = [
    path(_pages, problem_type_list_view, name="problem-type-list"),
    path(_pages.rstrip("/"), problem_type_redirect_view),
    # Not a slug (it holds a dot): no problem type can take this URL.
    path(f"{_pages}style.css", problem_stylesheet_view, name="problem-stylesheet"),
    path(f"{_pages}<slug:slug>", problem_type_view, name="problem-type"),
    path(f"{_pages}<slug:slug>/", problem_type_redirect_view),
]
