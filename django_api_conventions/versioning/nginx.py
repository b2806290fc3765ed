"""The deprecation headers of each version as entries of the nginx recipe's maps (one per header,
keyed by the request target), so that nginx's own answers carry them: ``manage.py deprecations
--nginx``."""

from __future__ import annotations

import datetime as dt
import re

from django.utils import timezone

from ..conf import api_settings
from .headers import deprecation_header_value, deprecation_links, sunset_header_value
from .lifecycle import VersionTable

__all__: list[str] = []  # read through manage.py deprecations --nginx


def _quoted(value: str, *, key: bool = False) -> str:
    # An nginx single-quoted string: a quote and a backslash escaped. In a value `$` would name
    # a variable; in a key, a regex, it is the end of the target.
    if "$" in value and not key:
        raise ValueError(f"nginx cannot send {value!r} as it is: it holds a '$'")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _target_pattern(name: str) -> str:
    """The request targets of version ``name``: its root, with a query, or any path below it."""
    regex: str = api_settings.VERSION_PATH_REGEX
    group = re.search(r"\(\?P<version>", regex)
    assert group is not None  # the settings check requires the group
    prefix = regex[: group.start()]
    return "~" + prefix + re.escape(name) + "(?:[/?]|$)"


def nginx_deprecation_maps(table: VersionTable, now: dt.datetime | None = None) -> dict[str, str]:
    """``DEPRECATION_MAP``, ``SUNSET_MAP`` and ``DEPRECATION_LINK_MAP``: nginx map entries (one
    per deprecated version still served, on one line) giving the value of each header."""
    now = now or timezone.now()
    entries: dict[str, list[str]] = {"DEPRECATION_MAP": [], "SUNSET_MAP": [], "DEPRECATION_LINK_MAP": []}
    for version in table.versions:
        if version.state(now) != "deprecated":
            continue  # the current version has no such headers; a retired one is the service's 410
        target = _quoted(_target_pattern(version.name), key=True)
        if version.deprecation is not None:
            entries["DEPRECATION_MAP"].append(f"{target} {_quoted(deprecation_header_value(version.deprecation))};")
        if version.sunset is not None:
            entries["SUNSET_MAP"].append(f"{target} {_quoted(sunset_header_value(version.sunset))};")
        links = deprecation_links(version.as_deprecation())
        if links:
            entries["DEPRECATION_LINK_MAP"].append(f"{target} {_quoted(', '.join(links))};")
    return {name: " ".join(lines) for name, lines in entries.items()}
