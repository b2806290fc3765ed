"""Mount one API under every version prefix: ``*versioned_urls(api_patterns)`` serves ``/v1/...``.

The version segment is checked live against ``VERSIONS`` (unknown: 404; retired: 410) and
never passed to the views. :func:`reverse` builds URLs in the request's version.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any, cast

from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, ResolverMatch, URLResolver
from django.urls import reverse as django_reverse
from django.urls.resolvers import RegexPattern

from ..problems.details import render_problem
from .lifecycle import get_version_table
from .problems import unknown_version_problem, version_retired_problem

VERSION_KWARG = "version"


class VersionedURLResolver(URLResolver):
    """A resolver for ``(?P<version>...)/``: checks the version live and hides it from the views."""

    def resolve(self, path: Any) -> ResolverMatch:
        prefix = self.pattern.match(str(path))
        if prefix is None and not str(path).endswith("/"):
            # The version root without its slash (/v0): a retired or unknown version answers for it too.
            prefix = self.pattern.match(f"{path}/")
            prefix = prefix if prefix is not None and prefix[0] == "" else None
        # The version pattern captures a string.
        version = cast("str | None", prefix[2].get(VERSION_KWARG) if prefix else None)
        table = get_version_table()
        if version is not None and table:
            entry = table.get(version)
            if entry is None or entry.is_retired():
                # VersionLifecycleMiddleware normally answers first; this keeps the answer right without it.
                return ResolverMatch(
                    _lifecycle_problem_view,
                    (),
                    {VERSION_KWARG: version},
                    route=str(self.pattern),
                    captured_kwargs={VERSION_KWARG: version},
                    extra_kwargs={},
                )
        match = super().resolve(path)
        match.kwargs.pop(VERSION_KWARG, None)
        return match


def _lifecycle_problem_view(request: HttpRequest, version: str) -> HttpResponse:
    table = get_version_table()
    entry = table.get(version)
    problem = unknown_version_problem(version, table) if entry is None else version_retired_problem(entry)
    return render_problem(request, problem)


def versioned_urls(patterns: Sequence[Any], *, version_regex: str = r"v[0-9]+") -> list[URLResolver]:
    """``patterns`` served under ``<version>/``; ``version_regex`` must match ``VERSION_PATH_REGEX``'s group."""
    pattern = RegexPattern(rf"^(?P<{VERSION_KWARG}>{version_regex})/", is_endpoint=False)
    return [VersionedURLResolver(pattern, list(patterns))]


def reverse(
    viewname: str,
    request: HttpRequest | None = None,
    *,
    args: Sequence[Any] | None = None,
    kwargs: dict[str, Any] | None = None,
    version: str | None = None,
    urlconf: str | None = None,
) -> str:
    """Django's ``reverse`` in the version of ``request`` (or ``version``); other URLs as they are."""
    return reverse_in_version(
        lambda args, kwargs: django_reverse(viewname, urlconf=urlconf, args=args, kwargs=kwargs),
        version or getattr(request, "version", None),
        args,
        kwargs,
    )


def reverse_in_version(attempt: Callable[[Any, Any], str], version: str | None, args: Any, kwargs: Any) -> str:
    """``attempt(args, kwargs)`` with ``version`` among them, else as given (a URL outside
    :func:`versioned_urls`)."""
    if version is not None:
        with contextlib.suppress(NoReverseMatch):
            if args:  # positional: the version is the first captured group of a versioned route
                return attempt([version, *args], kwargs)
            return attempt(args, {**(kwargs or {}), VERSION_KWARG: version})
    return attempt(args, kwargs)
