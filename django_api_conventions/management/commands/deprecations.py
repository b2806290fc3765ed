"""``manage.py deprecations``: every deprecation and sunset, for people and for CI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from ...http.routes import iter_routes
from ...versioning.deprecation import endpoint_deprecations
from ...versioning.fields import field_renames
from ...versioning.lifecycle import Deprecation, get_version_table
from ...versioning.nginx import nginx_deprecation_maps


def _day(moment: Any) -> str:
    return f"{moment:%Y-%m-%d}" if moment is not None else "-"


class Command(BaseCommand):
    help = (
        "List every deprecated or retired version (and its brownouts), deprecated endpoint and field rename "
        "with its dates. "
        "--fail-on-past-sunset exits 1 when something past its sunset is still in the code or settings."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--fail-on-past-sunset",
            action="store_true",
            help="Exit 1 if a version is still 'deprecated', or an endpoint or field rename still declared, "
            "after its sunset: retire the version, delete the endpoint or the old field name.",
        )
        parser.add_argument(
            "--nginx",
            action="store_true",
            help="Print, as JSON, the values of the nginx recipe's placeholders DEPRECATION_MAP, SUNSET_MAP "
            "and DEPRECATION_LINK_MAP: the deprecation headers nginx's own answers carry (docs/deployment.md).",
        )

    def handle(self, *args: Any, fail_on_past_sunset: bool, nginx: bool = False, **options: Any) -> None:
        now = timezone.now()
        if nginx:
            self.stdout.write(json.dumps(nginx_deprecation_maps(get_version_table(), now), indent=2))
            return
        rows = list(self._rows(now))
        if not rows:
            self.stdout.write("No versions, deprecated endpoints or field renames.")
        past_sunset = []
        for subject, state, deprecation in rows:
            self.stdout.write(
                f"{subject}: {state}; deprecation {_day(deprecation.deprecation)}, sunset {_day(deprecation.sunset)}"
                + (f", guide {deprecation.migration_guide}" if deprecation.migration_guide else "")
            )
            if state.startswith("past sunset"):
                past_sunset.append(subject)
        for version in get_version_table().versions:
            for window in version.brownouts:
                when = "past" if window.end <= now else "now" if window.covers(now) else "planned"
                self.stdout.write(f"version {version.name}: brownout {window}, {when}")
        if fail_on_past_sunset and past_sunset:
            raise CommandError(f"Past their sunset and still declared: {', '.join(past_sunset)}.")

    def _rows(self, now: Any) -> Iterator[tuple[str, str, Deprecation]]:
        for version in get_version_table().versions:
            state: str = version.state(now)
            if version.status == "deprecated" and state == "retired":
                state = "past sunset, still 'deprecated'"
            yield f"version {version.name}", state, version.as_deprecation()
        seen: list[Deprecation] = []
        for route in iter_routes():  # loads the URLconf, hence the views and their serializers
            for entry in endpoint_deprecations(route.callback):
                deprecation = entry.as_deprecation(route.display)
                if deprecation not in seen:
                    seen.append(deprecation)
                    yield deprecation.subject, self._state(deprecation, now), deprecation
        for rename in sorted(field_renames.values(), key=lambda r: (r.serializer, r.old_name)):
            subject = f"field {rename.serializer}.{rename.old_name} -> {rename.new_name}"
            yield subject, self._state(rename.deprecation, now), rename.deprecation

    @staticmethod
    def _state(deprecation: Deprecation, now: Any) -> str:
        if deprecation.sunset_passed(now):
            return "past sunset, still declared"
        if deprecation.deprecation is not None and deprecation.deprecation > now:
            return "deprecation announced"
        return "deprecated"
