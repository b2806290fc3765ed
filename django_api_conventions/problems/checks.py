"""Checks that every layer answers problems: DRF's handler, Django's error views, the type URLs;
and that HTML pages beside the API (the admin) are left out of it."""

from __future__ import annotations

import re
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.urls import NoReverseMatch, reverse

from ..check_messages import PACKAGE, message
from ..conf import SETTINGS_NAME
from ..http.routes import project_resolvers

HANDLERS = f"{PACKAGE}.problems.django_handlers"
EXCEPTION_HANDLER = f"{PACKAGE}.problems.drf_handler.problem_exception_handler"
_ERROR_HANDLERS = {
    "handler400": "bad_request",
    "handler403": "permission_denied",
    "handler404": "page_not_found",
    "handler500": "server_error",
}


@checks.register(checks.Tags.urls)
def check_error_views(**kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    unrouted_pages: list[checks.CheckMessage] = []
    user_settings = getattr(settings, SETTINGS_NAME, {})
    base = user_settings.get("PROBLEM_BASE_URL") if isinstance(user_settings, dict) else ""
    needs_pages = base is None or (isinstance(base, str) and base.startswith("/"))  # a path: the pages' own
    # Django takes the error handlers from the URLconf of the request (request.urlconf), and the
    # type URLs are reversed in it: each URLconf the project serves needs both.
    for resolver in project_resolvers():
        urlconf_name = str(getattr(resolver.urlconf_module, "__name__", resolver.urlconf_name))
        for handler, view in _ERROR_HANDLERS.items():
            value = getattr(resolver.urlconf_module, handler, None)
            if value != f"{HANDLERS}.{view}" and getattr(value, "__module__", None) != HANDLERS:
                values = {"handler": handler, "view": view, "value": value, "urlconf": urlconf_name}
                errors.append(message("error_handler_not_problems", **values))
        if needs_pages:
            try:
                # Django's reverse() takes a URLconf module as well as its dotted path.
                urlconf: Any = resolver.urlconf_name
                reverse("api_conventions:problem-type", kwargs={"slug": "not-found"}, urlconf=urlconf)
            except NoReverseMatch:
                unrouted_pages.append(message("problem_pages_unrouted", obj=urlconf_name))
    csrf_failure_view = settings.CSRF_FAILURE_VIEW
    if csrf_failure_view != f"{HANDLERS}.csrf_failure":
        errors.append(message("csrf_view_not_problems", value=csrf_failure_view))
    return errors + unrouted_pages


@checks.register(checks.Tags.urls)
def check_api_paths(**kwargs: Any) -> list[checks.CheckMessage]:
    """With the admin installed, ``API_PATHS`` should leave its pages to Django's error views."""
    user_settings = getattr(settings, SETTINGS_NAME, {})
    if not apps.is_installed("django.contrib.admin") or not isinstance(user_settings, dict):
        return []
    if "API_PATHS" in user_settings:
        return []
    try:
        admin_path = reverse("admin:index")
    except NoReverseMatch:
        admin_path = "/admin/"
    return [message("admin_inside_api_paths", pattern=f"^/(?!{re.escape(admin_path.lstrip('/'))})")]
