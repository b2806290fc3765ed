"""The ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594), ``Link`` (RFC 8288) and
``Cache-Control`` headers of deprecated things."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence

from django.http import HttpResponseBase
from django.utils.http import http_date

from ..http import header_names
from .lifecycle import Deprecation

# One link-value: a <URI>, then parameters whose quoted strings may hold commas.
_LINK_VALUE = re.compile(r'<[^>]*>(?:"(?:\\.|[^"\\])*"|[^,"])*')


def deprecation_header_value(moment: dt.datetime) -> str:
    return f"@{math.floor(moment.timestamp())}"


def sunset_header_value(moment: dt.datetime) -> str:
    return http_date(math.floor(moment.timestamp()))


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def link_value(url: str, rel: str, *, title: str | None = None) -> str:
    """One link-value: ``<url>; rel="deprecation"; type="text/html"`` (and a ``title``)."""
    value = f'<{url}>; rel={_quoted(rel)}; type="text/html"'
    if title:
        value += f"; title={_quoted(title)}"
    return value


def deprecation_links(deprecation: Deprecation, *, with_sunset: bool = True) -> list[str]:
    if deprecation.migration_guide is None:
        return []
    links = [link_value(deprecation.migration_guide, header_names.REL_DEPRECATION, title=deprecation.note)]
    if with_sunset and deprecation.sunset is not None:
        links.append(link_value(deprecation.migration_guide, header_names.REL_SUNSET, title=deprecation.note))
    return links


def add_link(response: HttpResponseBase, links: Sequence[str]) -> None:
    """Append ``links`` to the response's ``Link`` header, each once."""
    existing = response.get(header_names.LINK)
    values = [existing] if existing else []
    present = {link.strip() for link in _LINK_VALUE.findall(existing or "")}
    for link in links:
        if link not in present:
            values.append(link)
            present.add(link)
    if values:
        response[header_names.LINK] = ", ".join(values)


def cap_freshness(response: HttpResponseBase, sunset: dt.datetime, now: dt.datetime) -> None:
    """Lower ``max-age`` and ``s-maxage`` to the seconds left before ``sunset``; without either
    (and not ``no-store``), ``no-cache``."""
    directives: dict[str, str | None] = {}
    for part in response.get(header_names.CACHE_CONTROL, "").split(","):
        name, equals, value = part.strip().partition("=")
        if name:
            directives[name.lower()] = value.strip() if equals else None
    if "no-store" in directives:
        return
    left = max(0, math.floor((sunset - now).total_seconds()))
    if "max-age" not in directives and "s-maxage" not in directives:
        directives["no-cache"] = None
    for name in ("max-age", "s-maxage"):
        if name in directives:
            current = directives[name] or ""
            directives[name] = str(min(int(current), left) if current.isdigit() else left)
    response[header_names.CACHE_CONTROL] = ", ".join(
        name if value is None else f"{name}={value}" for name, value in directives.items()
    )


def apply_deprecation_headers(
    response: HttpResponseBase, deprecations: Sequence[Deprecation], now: dt.datetime
) -> None:
    """Announce ``deprecations`` on ``response``: the earliest dates, every migration guide; a
    field's sunset is not the resource's, so never its ``Sunset``."""
    if not deprecations:
        return
    dated = [d.deprecation for d in deprecations if d.deprecation is not None]
    if dated:
        response[header_names.DEPRECATION] = deprecation_header_value(min(dated))
    sunsets = [d.sunset for d in deprecations if d.sunset is not None and d.sunsets_resource]
    if sunsets:
        sunset = min(sunsets)
        response[header_names.SUNSET] = sunset_header_value(sunset)
        cap_freshness(response, sunset, now)
    links: list[str] = []
    for deprecation in deprecations:
        links.extend(deprecation_links(deprecation, with_sunset=deprecation.sunsets_resource))
    add_link(response, links)
