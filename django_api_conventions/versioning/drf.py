"""``REST_FRAMEWORK["DEFAULT_VERSIONING_CLASS"] = "django_api_conventions.versioning.drf.LifecycleVersioning"``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.versioning import BaseVersioning, URLPathVersioning

from .lifecycle import get_version_table, version_in_path
from .urls import VERSION_KWARG, reverse_in_version

__all__ = ["LifecycleVersioning"]


class LifecycleVersioning(URLPathVersioning):
    """The version is the path segment ``VERSION_PATH_REGEX`` names, when ``VERSIONS`` knows it;
    unknown and retired versions never reach a view. A ``URLPathVersioning`` for schema
    generators, which build one schema per version from it."""

    version_param = VERSION_KWARG

    def determine_version(  # type: ignore[override]  # None: no version (DRF's request.version may be)
        self, request: Request, *args: Any, **kwargs: Any
    ) -> str | None:
        # A schema generator names the version it documents as a keyword argument.
        name = kwargs.get(self.version_param) or version_in_path(request.path_info)
        if name is None:
            return None
        table = get_version_table()
        return name if not table or table.get(name) is not None else None

    def reverse(
        self,
        viewname: str,
        args: Any = None,
        kwargs: Mapping[str, Any] | None = None,
        request: Request | None = None,
        format: str | None = None,
        **extra: Any,
    ) -> str:
        return reverse_in_version(
            lambda args, kwargs: BaseVersioning.reverse(self, viewname, args, kwargs, request, format, **extra),
            getattr(request, "version", None),
            args,
            kwargs,
        )
