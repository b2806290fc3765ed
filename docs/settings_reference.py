"""The settings reference: what each ``API_CONVENTIONS`` setting takes and means.

docs/settings.md's reference table is generated from :data:`~django_api_conventions.conf.DEFAULTS`
(each setting's name, default, and the comment above it: when a project changes it) and from
:data:`SETTING_DOCS` (its type and meaning), so each fact is written once. After adding or changing
a setting, comment it in conf.py, describe it here and regenerate the table:

    python -m docs.settings_reference docs/settings.md

``--check`` instead of writing exits 1 when the file is out of date (the test suite checks it
too, and fails for a setting of ``DEFAULTS`` without a comment or an entry here).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django_api_conventions import conf
from django_api_conventions.conf import DEFAULTS


@dataclass(frozen=True)
class SettingDoc:
    """One row of the reference: Markdown, with links relative to the docs' pages."""

    type: str  # the values it takes, e.g. "a positive integer"
    meaning: str  # what it does, where it is explained, which check guards it
    default: str | None = None  # Markdown shown instead of the default's literal


#: The documentation of every setting of DEFAULTS, in any order (the table follows DEFAULTS).
SETTING_DOCS: dict[str, SettingDoc] = {
    "PROBLEM_BASE_URL": SettingDoc(
        "a URL string or None",
        (
            'Base of every problem\'s `type`: `<PROBLEM_BASE_URL>/<slug>`. A path (`"/api/problem-types"`) '
            "moves the package's own pages there. `None`: the package's own pages, from the request. No path "
            "segment: error `E003`. See [Problem details](problem-details.md#problem_base_url)."
        ),
    ),
    "API_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "The API's paths, searched in `request.path`: there every error is a problem; elsewhere (the "
            'admin) Django\'s pages answer. `[r"^/(?!admin/)"]` leaves the admin out; unset with the admin '
            "installed: warning `W012`. See [API paths and HTML "
            "pages](problem-details.md#api-paths-and-html-pages)."
        ),
    ),
    "KEEP_ERROR_BODY_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "Paths under `API_PATHS` whose error answers keep their own body (a third-party app's, "
            '`[r"^/api/_allauth/"]`). Invalid pattern: error `E003`. See [Keeping a body as it '
            "is](problem-details.md#keeping-a-body-as-it-is)."
        ),
    ),
    "HTML_ERROR_HANDLERS": SettingDoc(
        "a dict of Django's error handler names to dotted paths",
        (
            'The project\'s own error views (`"handler404"`, ..., `"CSRF_FAILURE_VIEW"`), which answer outside '
            "`API_PATHS`. Error `E003`. See [Your own error views outside the "
            "API](problem-details.md#your-own-error-views-outside-the-api)."
        ),
    ),
    "PROJECT_EXCEPTION_HANDLER": SettingDoc(
        "a dotted path or None",
        (
            "The project's previous DRF exception handler, run first; its answer becomes a problem. Error "
            "`E003`. See [Keeping your DRF exception "
            "handler](problem-details-own-types.md#keeping-your-drf-exception-handler)."
        ),
    ),
    "TRACE_ID_HEADER": SettingDoc(
        "a header name",
        "Header that carries the trace id, out and in. See [Tracing](tracing-and-clients.md#trace-ids).",
    ),
    "TRUST_INCOMING_TRACE_ID": SettingDoc(
        "True or False",
        "Honour a valid incoming trace id header or `traceparent`; `False`: a new id for every request.",
    ),
    "REQUEST_ID_ATTRIBUTE": SettingDoc(
        "an attribute name or None",
        (
            'The request attribute holding the project\'s own request id (`"id"` for `request.id`), which then '
            'is the trace id. `"trace_id"`: error `E003`. See [Your project\'s own request '
            "id](tracing-and-clients.md#your-projects-own-request-id)."
        ),
    ),
    "CLIENT_ID_RESOLVER": SettingDoc(
        "a dotted path",
        (
            "Callable `(request) -> str` giving the client id of a request. See "
            "[CLIENT_ID_RESOLVER](tracing-and-clients.md#client_id_resolver)."
        ),
    ),
    "MAINTENANCE_MODE": SettingDoc(
        "True or False",
        (
            "Static maintenance switch: every non-exempt path answers 503. See "
            "[Operations](operations.md#the-static-setting)."
        ),
    ),
    "MAINTENANCE_SWITCH_STORE": SettingDoc(
        "`'cache'` or `'database'`",
        (
            "Where the run-time maintenance switch lives: the shared `default` cache (a local-memory one is "
            "warning `W007`) or the database. See [Where the switch "
            "lives](operations.md#where-the-switch-lives)."
        ),
    ),
    "MAINTENANCE_RETRY_AFTER": SettingDoc("a positive number of seconds", "`Retry-After` sent during maintenance."),
    "MAINTENANCE_EXEMPT_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            'Paths that keep working during maintenance (`[r"^/admin/"]`), besides the problem pages and the '
            "OpenAPI views. See [Exempt paths](operations.md#exempt-paths)."
        ),
    ),
    "IDEMPOTENCY_STORE": SettingDoc(
        "`'database'`, `'redis'` or the dotted path of a store class",
        (
            "The [database store](idempotency-stores.md#the-database-store), the [Redis "
            "store](idempotency-stores.md#the-redis-store), or your `IdempotencyStore` subclass. Cannot be "
            "loaded: error `E003`."
        ),
    ),
    "IDEMPOTENCY_DATABASE": SettingDoc(
        "a database alias", "The database store's alias, whatever the routers say. Unknown alias: error `E003`."
    ),
    "IDEMPOTENCY_CACHE": SettingDoc(
        "a cache alias",
        (
            "The cache alias whose Redis connection the Redis store uses (django-redis, Django's Redis cache, "
            "django-valkey; else error `E003`). See [the Redis store](idempotency-stores.md#the-redis-store)."
        ),
    ),
    "IDEMPOTENCY_REDIS_URL": SettingDoc(
        "a Redis URL or None",
        (
            "The Redis store's own client instead of `IDEMPOTENCY_CACHE`: `redis://`, `rediss://`, "
            "`redis+sentinel://`, `redis+cluster://`. Malformed: error `E003`. See [the Redis "
            "store](idempotency-stores.md#the-redis-store)."
        ),
    ),
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": SettingDoc(
        "a number of replicas, 0 or more",
        (
            "Redis store: replicas that must acknowledge a claim before the view runs; too few in time: 503 "
            "with `Retry-After`. See [Redis failovers](reliability.md#redis-failovers)."
        ),
    ),
    "IDEMPOTENCY_LEASE_SECONDS": SettingDoc(
        "a positive number of seconds",
        (
            "How long an in-flight key is held before the same request may take it over; a view can set its "
            "own and [renew it](idempotency-concurrency.md#renewing-the-lease)."
        ),
    ),
    "IDEMPOTENCY_RETENTION_SECONDS": SettingDoc(
        "a positive number of seconds",
        (
            "How long a resolved key answers replays (sent as `Idempotency-Retention`). Shorter than the "
            "lease: warning `W008`."
        ),
        default="`86400` (`24 * 60 * 60`)",
    ),
    "IDEMPOTENCY_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "Paths that "
            "[`IdempotencyMiddleware`](idempotency-views.md#idempotencymiddleware-for-views-you-cannot-edit) "
            "protects. Invalid pattern: error `E003`."
        ),
    ),
    "IDEMPOTENCY_REQUIRED": SettingDoc("True or False", "Whether the paths of `IDEMPOTENCY_PATHS` require a key."),
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": SettingDoc(
        "a positive number of bytes, or `None` for no limit",
        (
            "Largest response body stored; a larger one is sent but not stored, and a retry gets 410 "
            "[`idempotency-response-too-large`](idempotency.md#responses-too-large-to-store)."
        ),
        default="`1048576` (`1024 * 1024`)",
    ),
    "IDEMPOTENCY_ENCRYPTION_KEYS": SettingDoc(
        "a list of url-safe base64 keys of 32 bytes",
        (
            "Keys that [encrypt stored answers](idempotency-stores.md#encrypted-stored-answers); the "
            "first encrypts, all decrypt. Malformed, or no `cryptography`: `E003`."
        ),
    ),
    "IDEMPOTENCY_STORE_UNAVAILABLE": SettingDoc(
        '`"fail-closed"` or `"fail-open"`',
        (
            'When the store cannot be reached for a claim: `"fail-closed"` answers 503; `"fail-open"` runs '
            "the view once without the key. See [When the store is "
            "unreachable](idempotency-concurrency.md#when-the-store-is-unreachable)."
        ),
    ),
    "PAGINATION_DEFAULT_LIMIT": SettingDoc(
        "a positive integer", "Page size of a [keyset-paginated list](pagination.md#page-size-limit) without `limit`."
    ),
    "PAGINATION_MAX_LIMIT": SettingDoc(
        "a positive integer", "Largest `limit`; outside 1 to this value: 400 `invalid-parameters`."
    ),
    "EXTRA_QUERY_PARAMS": SettingDoc(
        "a list of query parameter names, families and dicts",
        (
            "Query parameters every [strict](pagination-filters.md#parameters-the-view-declares) view accepts "
            'on any method: names, families (`"attr[*]"`) and dicts (`{"name": "expand", "repeatable": '
            "True}`). Wrong entry: error `E003`. See [Repeated parameters and "
            "families](pagination-filters.md#repeated-parameters-and-families)."
        ),
    ),
    "VERSIONS": SettingDoc(
        "a list of version dicts, oldest first",
        (
            "The API versions, dicts with `name`, `status`, `deprecation`, `sunset`, `migration_guide`; "
            "empty: versioning off. See [The lifecycle](versioning.md#the-lifecycle); errors `E020` to "
            "`E024`."
        ),
    ),
    "VERSION_PATH_REGEX": SettingDoc(
        "a regular expression with a `version` group",
        (
            "Searched in `request.path_info`; its `version` group names the version. No group: error `E003`. "
            "See [URLs in a version](versioning.md#urls-in-a-version)."
        ),
        default='`r"^/(?P<version>v[0-9]+)/"`',
    ),
    "URL_CONVENTION_SILENCED": SettingDoc(
        "a list of regular expressions",
        "Routes the URL convention checks skip, as the warning shows them. Invalid pattern: error `E003`.",
    ),
    "EXTRA_URLCONFS": SettingDoc(
        "a list of dotted module paths",
        (
            "URLconfs served besides `ROOT_URLCONF` (per host, or set as `request.urlconf`), which the checks "
            "read too. See [URL convention checks](versioning.md#url-convention-checks)."
        ),
    ),
}

BEGIN = "<!-- settings reference: generated from docs.settings_reference, do not edit -->"
END = "<!-- end of the generated settings reference -->"


def python_literal(value: Any) -> str:
    """``value`` as it would be written in a settings file, strings in double quotes."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        items = ", ".join(python_literal(item) for item in value)
        return f"[{items}]" if isinstance(value, list) else f"({items})"
    return repr(value)


def default_cell(name: str) -> str:
    doc = SETTING_DOCS[name]
    return doc.default if doc.default is not None else f"`{python_literal(DEFAULTS[name])}`"


def shown_default_value(name: str) -> Any:
    """The value the Default cell shows (its first code span), for the test that it is right."""
    first_code = re.search(r"`([^`]+)`", default_cell(name))
    if not first_code:
        raise ValueError(f"The Default cell of {name} shows no value.")
    return ast.literal_eval(first_code[1])


def change_it_when() -> dict[str, str]:
    """The comment above each entry of ``DEFAULTS`` in conf.py: when a project changes the setting."""
    source = Path(conf.__file__).read_text()
    lines = source.splitlines()
    defaults = next(
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "DEFAULTS"
    )
    assert isinstance(defaults, ast.Dict)
    comments: dict[str, str] = {}
    for key in defaults.keys:
        assert isinstance(key, ast.Constant)
        row, above = key.lineno - 2, list[str]()
        while row >= 0 and lines[row].lstrip().startswith("# "):
            above.insert(0, lines[row].lstrip().removeprefix("# "))
            row -= 1
        comments[str(key.value)] = " ".join(above)
    return comments


def missing_docs() -> list[str]:
    return [name for name in DEFAULTS if name not in SETTING_DOCS]


def render_reference() -> str:
    """The generated part of docs/settings.md, its markers included."""
    missing = missing_docs()
    if missing:
        raise KeyError(f"Describe {', '.join(missing)} in SETTING_DOCS (docs/settings_reference.py).")
    whys = change_it_when()
    uncommented = [name for name in DEFAULTS if not whys.get(name)]
    if uncommented:
        raise KeyError(f"Say when a project changes {', '.join(uncommented)} in a comment above it in conf.py.")
    lines = [BEGIN, "", "| Key | Default | Type | Change it when | Meaning |", "|---|---|---|---|---|"]
    for name in DEFAULTS:
        doc = SETTING_DOCS[name]
        lines.append(f"| `{name}` | {default_cell(name)} | {doc.type} | {whys[name]} | {doc.meaning} |")
    return "\n".join([*lines, "", END])


def with_reference(page: str) -> str:
    """``page`` with the text between the markers replaced by :func:`render_reference`."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"The page has no {BEGIN!r} ... {END!r} section.")
    return page[:start] + render_reference() + page[end + len(END) :]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the settings reference of docs/settings.md.")
    parser.add_argument("page", type=Path, help="the settings page, docs/settings.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date, write nothing")
    options = parser.parse_args(argv)
    page = options.page.read_text()
    updated = with_reference(page)
    if options.check:
        if updated != page:
            print(f"{options.page} is out of date: run python -m docs.settings_reference {options.page}")
            return 1
        return 0
    options.page.write_text(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
