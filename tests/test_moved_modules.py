"""Dotted paths that moved keep working, with a DeprecationWarning that names the new home."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
from django.utils.module_loading import import_string

from django_api_conventions._moved import MOVED_MODULES, current_path
from django_api_conventions.checks import check_drf_settings, check_error_views


@pytest.fixture
def forget_old_names() -> Any:
    yield
    for old in MOVED_MODULES:
        sys.modules.pop(old, None)


@pytest.mark.parametrize(("old", "new"), MOVED_MODULES.items())
def test_an_old_path_imports_the_new_module_with_a_warning(old: str, new: str, forget_old_names: Any) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new  # the module keeps its own identity


def test_settings_paths_of_the_old_layout_still_resolve(forget_old_names: Any) -> None:
    with pytest.warns(DeprecationWarning):
        handler = import_string("django_api_conventions.exception_handler.problem_exception_handler")
    assert handler is import_string("django_api_conventions.problems.drf_handler.problem_exception_handler")
    with pytest.warns(DeprecationWarning):
        view = import_string("django_api_conventions.handlers.csrf_failure")
    assert view.__module__ == "django_api_conventions.problems.django_handlers"


def test_current_path_translates_only_moved_modules() -> None:
    assert current_path("django_api_conventions.handlers.bad_request") == (
        "django_api_conventions.problems.django_handlers.bad_request"
    )
    assert current_path("django_api_conventions.middleware.TraceIdMiddleware") == (
        "django_api_conventions.middleware.TraceIdMiddleware"
    )
    assert current_path(None) is None


def test_the_checks_accept_the_old_paths(settings: Any, forget_old_names: Any) -> None:
    old = "django_api_conventions.exception_handler.problem_exception_handler"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "EXCEPTION_HANDLER": old}
    settings.CSRF_FAILURE_VIEW = "django_api_conventions.handlers.csrf_failure"
    assert [m.id for m in check_drf_settings()] == []
    assert [m.id for m in check_error_views() if m.id.endswith("W005")] == []
