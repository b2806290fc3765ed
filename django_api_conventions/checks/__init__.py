"""System checks: a wrong set-up fails at start-up with a message that says the fix.

Each part keeps its checks next to its code (``problems/checks.py``, ``idempotency/checks.py``,
``pagination/checks.py``, ``versioning/checks.py``, ``contrib/spectacular/checks.py``); the
project-wide ones live here. All share one table of ids, messages and hints,
:data:`.messages.MESSAGES`, and are registered here, by :func:`register_all`.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks

from ..idempotency.checks import check_idempotency_store, check_unidentified_callers
from ..pagination.checks import check_filter_backends, check_paginated_orderings, check_strict_filtersets
from ..problems.checks import check_api_paths, check_error_views
from ..versioning.checks import check_deprecation_dates, check_versions
from .messages import MESSAGES as MESSAGES
from .messages import message as message
from .routes import check_url_conventions
from .settings import SETTING_TYPES as SETTING_TYPES
from .settings import check_settings
from .setup import MIDDLEWARE_ORDER as MIDDLEWARE_ORDER
from .setup import (
    check_drf_settings,
    check_maintenance_switch,
    check_middleware,
    check_project_handlers,
    check_view_parsers,
)

# The checks run by themselves (the app config calls register_all): a project imports nothing
# from here and finds the checks' ids in the settings reference. The aliased imports above are
# for the package's own tools and tests.
__all__: list[str] = []


def check_openapi_schema(**kwargs: Any) -> list[checks.CheckMessage]:
    """The drf-spectacular set-up, where drf-spectacular is installed (importing it needs it)."""
    if not apps.is_installed("drf_spectacular"):
        return []
    from ..contrib.spectacular.checks import check_openapi_set_up

    return check_openapi_set_up()


def register_all() -> None:
    checks.register(check_settings, checks.Tags.compatibility)
    checks.register(check_drf_settings, checks.Tags.compatibility)
    checks.register(check_project_handlers, checks.Tags.compatibility)
    checks.register(check_openapi_schema, checks.Tags.compatibility)
    checks.register(check_middleware, checks.Tags.compatibility)
    checks.register(check_error_views, checks.Tags.urls)
    checks.register(check_api_paths, checks.Tags.urls)
    checks.register(check_maintenance_switch, checks.Tags.caches)
    checks.register(check_idempotency_store, checks.Tags.caches)
    checks.register(check_paginated_orderings, checks.Tags.models)
    checks.register(check_filter_backends, checks.Tags.urls)
    checks.register(check_view_parsers, checks.Tags.urls)
    checks.register(check_strict_filtersets, checks.Tags.urls)
    checks.register(check_versions, checks.Tags.compatibility)
    checks.register(check_deprecation_dates, checks.Tags.urls)
    checks.register(check_url_conventions, checks.Tags.urls)
    checks.register(check_unidentified_callers, checks.Tags.security)
