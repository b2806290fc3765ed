"""The version table of ``API_CONVENTIONS["VERSIONS"]`` and the dates of every deprecation, read
live, so a sunset that passes retires a version without a code change."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from ..conf import api_settings
from .brownouts import Brownout, parse_brownouts

Status = Literal["current", "deprecated", "retired"]
STATUSES: tuple[Status, ...] = ("current", "deprecated", "retired")
DateLike = str | dt.date | dt.datetime


def parse_moment(value: DateLike | None, *, what: str = "date") -> dt.datetime | None:
    """An aware UTC datetime from an ISO 8601 string, a date (midnight UTC) or a datetime (naive: UTC)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value) if "T" in value or " " in value else dt.date.fromisoformat(value)
        except ValueError:
            raise ImproperlyConfigured(f"{what} {value!r} is not an ISO 8601 date such as '2027-06-01'.") from None
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    else:
        raise ImproperlyConfigured(f"{what} {value!r} must be an ISO 8601 string, a date or a datetime.")
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


@dataclass(frozen=True)
class Deprecation:
    """The dates of one deprecated version, endpoint or field: ``sunset`` is when it stops answering
    (410), or when a field's old name disappears."""

    subject: str
    kind: Literal["version", "endpoint", "field"] = "version"
    deprecation: dt.datetime | None = None
    sunset: dt.datetime | None = None
    migration_guide: str | None = None
    #: Words that name the deprecated thing in a ``Link`` title, e.g. "field total: use amount_due".
    note: str | None = None

    @property
    def sunsets_resource(self) -> bool:
        """Whether the sunset ends the resource (a version, an endpoint), not just a field's old name."""
        return self.kind != "field"

    def sunset_passed(self, now: dt.datetime | None = None) -> bool:
        return self.sunset is not None and (now or timezone.now()) >= self.sunset

    def support_days(self) -> float | None:
        if self.deprecation is None or self.sunset is None:
            return None
        return (self.sunset - self.deprecation).total_seconds() / 86400


@dataclass(frozen=True)
class APIVersion:
    """One entry of ``VERSIONS``."""

    name: str
    status: Status
    deprecation: dt.datetime | None = None
    sunset: dt.datetime | None = None
    migration_guide: str | None = None
    #: Planned windows before the sunset in which the version answers 410 (:mod:`.brownouts`).
    brownouts: tuple[Brownout, ...] = ()

    @classmethod
    def from_setting(cls, entry: Mapping[str, Any]) -> APIVersion:
        """Build from one ``VERSIONS`` dict; :class:`ImproperlyConfigured` says what is wrong."""
        if not isinstance(entry, Mapping):
            raise ImproperlyConfigured(f"each version must be a dict, not {entry!r}")
        allowed = ("name", "status", "deprecation", "sunset", "migration_guide", "brownouts")
        unknown = set(entry) - set(allowed)
        if unknown:
            raise ImproperlyConfigured(f"unknown key(s) {sorted(unknown)}; allowed: {', '.join(allowed)}")
        name = entry.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ImproperlyConfigured(f"'name' must be a path segment such as 'v1', not {name!r}")
        status = entry.get("status")
        if status not in STATUSES:
            raise ImproperlyConfigured(f"{name}: 'status' must be one of {', '.join(STATUSES)}, not {status!r}")
        guide = entry.get("migration_guide")
        if guide is not None and (not isinstance(guide, str) or not re.fullmatch(r"https?://[^\s<>\"]+", guide)):
            raise ImproperlyConfigured(f"{name}: 'migration_guide' must be an absolute http(s) URL, not {guide!r}")
        sunset = parse_moment(entry.get("sunset"), what=f"{name}: 'sunset'")
        version = cls(
            name,
            status,
            parse_moment(entry.get("deprecation"), what=f"{name}: 'deprecation'"),
            sunset,
            guide,
            parse_brownouts(entry.get("brownouts"), name=name, sunset=sunset),
        )
        version._require_what_its_status_needs()
        return version

    def _require_what_its_status_needs(self) -> None:
        if self.brownouts and self.status == "current":
            raise ImproperlyConfigured(f"{self.name}: the current version has no brownouts; deprecate it first")
        if self.status == "deprecated" and None in (self.deprecation, self.sunset, self.migration_guide):
            raise ImproperlyConfigured(
                f"{self.name}: a deprecated version needs 'deprecation', 'sunset' and 'migration_guide'"
            )
        if self.status == "retired" and self.migration_guide is None:
            raise ImproperlyConfigured(f"{self.name}: a retired version needs 'migration_guide' (its 410 links it)")

    def is_retired(self, now: dt.datetime | None = None) -> bool:
        """Retired in the settings, or deprecated with a sunset that has passed."""
        return self.status == "retired" or (self.status == "deprecated" and self.as_deprecation().sunset_passed(now))

    def is_deprecated(self, now: dt.datetime | None = None) -> bool:
        return self.status == "deprecated" and not self.is_retired(now)

    def brownout_at(self, now: dt.datetime | None = None) -> Brownout | None:
        """The window of :attr:`brownouts` that holds ``now``, if any."""
        moment = now or timezone.now()
        return next((window for window in self.brownouts if window.covers(moment)), None)

    def state(self, now: dt.datetime | None = None) -> Status:
        if self.is_retired(now):
            return "retired"
        return self.status

    def as_deprecation(self) -> Deprecation:
        return Deprecation(f"version {self.name}", "version", self.deprecation, self.sunset, self.migration_guide)


def load_versions(entries: Iterable[Mapping[str, Any]]) -> list[APIVersion]:
    """Parse a ``VERSIONS`` value; :class:`ImproperlyConfigured` names the first bad entry."""
    versions = [APIVersion.from_setting(entry) for entry in entries]
    names = [v.name for v in versions]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ImproperlyConfigured(f"version name(s) {duplicates} appear more than once")
    return versions


class VersionTable:
    """The parsed ``VERSIONS`` setting, oldest first."""

    def __init__(self, versions: list[APIVersion]) -> None:
        self.versions = versions
        self._by_name = {v.name: v for v in versions}

    def __bool__(self) -> bool:
        return bool(self.versions)

    def get(self, name: str) -> APIVersion | None:
        return self._by_name.get(name)

    @property
    def current(self) -> APIVersion | None:
        return next((v for v in self.versions if v.status == "current"), None)

    def served(self, now: dt.datetime | None = None) -> list[str]:
        """Names of the versions that answer (current and deprecated ones before their sunset)."""
        return [v.name for v in self.versions if not v.is_retired(now)]


_parsed: dict[int, tuple[Any, VersionTable]] = {}


def get_version_table() -> VersionTable:
    """The live version table; parsed once per distinct ``VERSIONS`` value."""
    entries = api_settings.VERSIONS
    cached = _parsed.get(id(entries))
    if cached is not None and cached[0] is entries:
        return cached[1]
    table = VersionTable(load_versions(entries or []))
    _parsed.clear()
    _parsed[id(entries)] = (entries, table)
    return table


def version_in_path(path: str) -> str | None:
    """The version named by ``VERSION_PATH_REGEX`` in ``path``, if any; also in the version root
    without its slash (``/v0``, but not ``/v0foo``)."""
    regex = api_settings.VERSION_PATH_REGEX
    match = re.search(regex, path)
    if match is None and not path.endswith("/"):
        match = re.search(regex, path + "/")
        if match is not None and match.end() != len(path) + 1:
            match = None
    return match.group("version") if match else None
