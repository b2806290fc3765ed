"""Checks over the URLconfs the project serves: resource naming (part 2 of the conventions) and
versioned URLs without versions."""

from __future__ import annotations

import re
from typing import Any

from django.core import checks
from django.urls import URLResolver

from ..check_messages import message, settings_are_valid
from ..conf import api_settings
from ..http.routes import find_naming_problems, is_drf_view, iter_routes, project_resolvers
from ..versioning.lifecycle import get_version_table
from ..versioning.urls import VersionedURLResolver

#: The kind of naming problem ``http.routes`` finds -> its message.
_NAMING_MESSAGES = {"W023": "verb_in_route", "W024": "singular_collection", "W025": "nesting_too_deep"}


def _uses_versioned_urls(resolver: URLResolver) -> bool:
    return any(
        isinstance(entry, VersionedURLResolver) or (isinstance(entry, URLResolver) and _uses_versioned_urls(entry))
        for entry in resolver.url_patterns
    )


@checks.register(checks.Tags.urls)
def check_url_conventions(**kwargs: Any) -> list[checks.CheckMessage]:
    """Part 2 of the conventions over the routes of DRF views: no verbs, plural collections, two levels."""
    if not settings_are_valid():
        return []
    errors = []
    if not get_version_table() and any(_uses_versioned_urls(r) for r in project_resolvers()):
        errors.append(message("versioned_urls_without_versions"))
    silenced = [re.compile(pattern) for pattern in api_settings.URL_CONVENTION_SILENCED]
    seen: set[tuple[str, str]] = set()
    for route in iter_routes():
        if not is_drf_view(route.callback) or any(p.search(route.display) for p in silenced):
            continue
        for finding in find_naming_problems(route):
            if (finding.check_id, finding.route) not in seen:
                seen.add((finding.check_id, finding.route))
                name = _NAMING_MESSAGES[finding.check_id]
                errors.append(message(name, obj=finding.route, route=finding.route, **finding.values))
    return errors
