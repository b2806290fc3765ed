"""URLs of the package: include them at the root, ``path("", include("django_api_conventions.urls"))``."""

from django.urls import path

from .problems.pages import problem_type_list_view, problem_type_view

app_name = "api_conventions"

urlpatterns = [
    path("problems/", problem_type_list_view, name="problem-type-list"),
    path("problems/<slug:slug>", problem_type_view, name="problem-type"),
]
