"""Versions in the URL path, their lifecycle, deprecated endpoints and field renames (part 9 of
the conventions; docs/versioning.md). The DRF versioning class lives in :mod:`.drf`."""

from .deprecation import EndpointDeprecation, deprecated
from .fields import OpenEnumField, RenamedField, RenamedFieldsMixin
from .lifecycle import APIVersion, Deprecation, get_version_table
from .middleware import VersionLifecycleMiddleware
from .urls import reverse, versioned_urls

__all__ = [
    "APIVersion",
    "Deprecation",
    "EndpointDeprecation",
    "OpenEnumField",
    "RenamedField",
    "RenamedFieldsMixin",
    "VersionLifecycleMiddleware",
    "deprecated",
    "get_version_table",
    "reverse",
    "versioned_urls",
]
