"""The problems of the version lifecycle: 404 for an unknown version, 410 after a sunset."""

from __future__ import annotations

from .. import header_names
from ..problems.details import ProblemException
from .headers import deprecation_links, sunset_header_value
from .lifecycle import APIVersion, Deprecation, VersionTable


def unknown_version_problem(name: str, table: VersionTable) -> ProblemException:
    served = table.served()
    return ProblemException(
        "not-found",
        f"API version {name!r} does not exist; the versions served are: {', '.join(served) or 'none'}.",
        extensions={"versions": served},
    )


def _retired_headers(deprecation: Deprecation) -> dict[str, str]:
    headers = {header_names.LINK: ", ".join(deprecation_links(deprecation))} if deprecation.migration_guide else {}
    if deprecation.sunset is not None:
        headers[header_names.SUNSET] = sunset_header_value(deprecation.sunset)
    return headers


def version_retired_problem(version: APIVersion) -> ProblemException:
    deprecation = version.as_deprecation()
    when = f" on {version.sunset:%Y-%m-%d}" if version.sunset is not None else ""
    return ProblemException(
        "version-retired",
        f"API version {version.name} was retired{when}; see the migration guide at {version.migration_guide}.",
        headers=_retired_headers(deprecation),
        extensions={"version": version.name, "migration_guide": version.migration_guide},
    )


def endpoint_retired_problem(deprecation: Deprecation) -> ProblemException:
    when = f" on {deprecation.sunset:%Y-%m-%d}" if deprecation.sunset is not None else ""
    guide = f"; see the migration guide at {deprecation.migration_guide}" if deprecation.migration_guide else ""
    return ProblemException(
        "endpoint-retired",
        f"The {deprecation.subject} was retired{when}{guide}.",
        headers=_retired_headers(deprecation),
        extensions={"migration_guide": deprecation.migration_guide},
    )

