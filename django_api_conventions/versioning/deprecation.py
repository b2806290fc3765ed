"""Per-endpoint deprecation: one view, or some of its methods, with its own dates.

``@deprecated(deprecation=..., sunset=..., migration_guide=..., methods=["POST"])`` on a view,
or ``api_deprecations = [EndpointDeprecation(...)]`` on a view class.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured

from .lifecycle import DateLike, Deprecation, parse_moment

ATTRIBUTE = "api_deprecations"

ViewT = TypeVar("ViewT", bound=Callable[..., Any])


@dataclass(frozen=True)
class EndpointDeprecation:
    """The dates of a deprecated endpoint; ``methods`` None: every method."""

    deprecation: dt.datetime | None
    sunset: dt.datetime | None = None
    migration_guide: str | None = None
    methods: frozenset[str] | None = None

    @classmethod
    def build(
        cls,
        *,
        deprecation: DateLike | None,
        sunset: DateLike | None = None,
        migration_guide: str | None = None,
        methods: Iterable[str] | None = None,
    ) -> EndpointDeprecation:
        built = cls(
            parse_moment(deprecation, what="deprecation"),
            parse_moment(sunset, what="sunset"),
            migration_guide,
            frozenset(m.upper() for m in methods) if methods is not None else None,
        )
        if built.deprecation and built.sunset and built.sunset < built.deprecation:
            raise ImproperlyConfigured(
                f"The sunset {built.sunset:%Y-%m-%d} of a deprecated endpoint is before its deprecation "
                f"{built.deprecation:%Y-%m-%d}."
            )
        return built

    def applies_to(self, method: str | None) -> bool:
        return self.methods is None or (method or "").upper() in self.methods

    def as_deprecation(self, route: str, method: str | None = None) -> Deprecation:
        methods = method or (", ".join(sorted(self.methods)) if self.methods else "")
        subject = f"endpoint {methods} {route}".replace("  ", " ")
        return Deprecation(subject, "endpoint", self.deprecation, self.sunset, self.migration_guide)


def deprecated(
    *,
    deprecation: DateLike | None,
    sunset: DateLike | None = None,
    migration_guide: str | None = None,
    methods: Iterable[str] | None = None,
) -> Callable[[ViewT], ViewT]:
    """Deprecate a function view or a view class (all its methods, or ``methods``)."""
    entry = EndpointDeprecation.build(
        deprecation=deprecation, sunset=sunset, migration_guide=migration_guide, methods=methods
    )

    def decorate(view: ViewT) -> ViewT:
        existing = tuple(getattr(view, ATTRIBUTE, ()))
        setattr(view, ATTRIBUTE, (*existing, entry))
        return view

    return decorate


def endpoint_deprecations(view_func: Any) -> tuple[EndpointDeprecation, ...]:
    """The deprecations of a resolved view: on the function, its DRF ``cls`` or Django ``view_class``."""
    for holder in (view_func, getattr(view_func, "cls", None), getattr(view_func, "view_class", None)):
        found = getattr(holder, ATTRIBUTE, None) if holder is not None else None
        if found:
            return tuple(found)
    return ()
