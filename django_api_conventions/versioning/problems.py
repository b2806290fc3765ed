"""The problems of the version lifecycle: 404 for an unknown version, 410 after a sunset and
during a brownout."""

from __future__ import annotations

import datetime as dt

from django.utils.translation import gettext

from ..http import header_names
from ..problems.details import ProblemException, retry_after_header
from .brownouts import Brownout, utc_text
from .headers import deprecation_links, sunset_header_value
from .lifecycle import APIVersion, Deprecation, VersionTable


def unknown_version_problem(name: str, table: VersionTable) -> ProblemException:
    served = table.served()
    return ProblemException(
        "not-found",
        gettext("API version {name} does not exist; the versions served are: {versions}.").format(
            name=repr(name), versions=", ".join(served) or gettext("none")
        ),
        extensions={"versions": served},
    )


def _retired_headers(deprecation: Deprecation) -> dict[str, str]:
    headers = {header_names.LINK: ", ".join(deprecation_links(deprecation))} if deprecation.migration_guide else {}
    if deprecation.sunset is not None:
        headers[header_names.SUNSET] = sunset_header_value(deprecation.sunset)
    return headers


def version_retired_problem(version: APIVersion) -> ProblemException:
    deprecation = version.as_deprecation()
    if version.sunset is not None:
        detail = gettext("API version {name} was retired on {date}; see the migration guide at {guide}.")
    else:
        detail = gettext("API version {name} was retired; see the migration guide at {guide}.")
    return ProblemException(
        "version-retired",
        detail.format(name=version.name, date=_date(version.sunset), guide=version.migration_guide),
        headers=_retired_headers(deprecation),
        extensions={"version": version.name, "migration_guide": version.migration_guide},
    )


def version_brownout_problem(version: APIVersion, brownout: Brownout, now: dt.datetime) -> ProblemException:
    """The 410 of the sunset day, ahead of it, with ``Retry-After`` to the window's end."""
    detail = gettext(
        "API version {name} is unavailable until {end}, a planned brownout before its retirement on {date}; "
        "see the migration guide at {guide}."
    )
    return ProblemException(
        "version-retired",
        detail.format(
            name=version.name, end=utc_text(brownout.end), date=_date(version.sunset), guide=version.migration_guide
        ),
        headers={
            **_retired_headers(version.as_deprecation()),
            **retry_after_header((brownout.end - now).total_seconds()),
        },
        extensions={"version": version.name, "migration_guide": version.migration_guide},
    )


def endpoint_retired_problem(deprecation: Deprecation) -> ProblemException:
    # Whole sentences for translators: with or without a date, with or without a guide. The
    # subject ("endpoint GET /v1/x") is English, for logs and Link titles: only its route is kept.
    dated, guided = deprecation.sunset is not None, bool(deprecation.migration_guide)
    if dated and guided:
        detail = gettext("The endpoint {endpoint} was retired on {date}; see the migration guide at {guide}.")
    elif dated:
        detail = gettext("The endpoint {endpoint} was retired on {date}.")
    elif guided:
        detail = gettext("The endpoint {endpoint} was retired; see the migration guide at {guide}.")
    else:
        detail = gettext("The endpoint {endpoint} was retired.")
    return ProblemException(
        "endpoint-retired",
        detail.format(
            endpoint=deprecation.subject.removeprefix("endpoint "),
            date=_date(deprecation.sunset),
            guide=deprecation.migration_guide,
        ),
        headers=_retired_headers(deprecation),
        extensions={"migration_guide": deprecation.migration_guide},
    )


def _date(moment: object) -> str:
    # ISO 8601 in every language: the date a client compares with Sunset, not a localized one.
    return f"{moment:%Y-%m-%d}" if moment is not None else ""
