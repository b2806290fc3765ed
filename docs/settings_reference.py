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
            "Absolute base URL of the problem type pages: `type` is `<PROBLEM_BASE_URL>/<slug>`. A path instead "
            '(`"/api/problem-types"`) moves the package\'s own pages there, read when the URLconf loads; `type` '
            "is built from the request. `None`: built from the request and the package's own `/problems/<slug>` "
            "view. Neither form, or no path segment, is error `E005`. See [Problem "
            "details](problem-details.md#problem_base_url)."
        ),
    ),
    "API_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "The API's paths, searched in `request.path`: there every error is a problem. Elsewhere (Django's "
            "admin) Django's error pages and CSRF page answer as usual; DRF views answer problems on every path. "
            'The default is the whole site; `[r"^/(?!admin/)"]` leaves the admin out. Unset with the admin '
            "installed: warning `W012`. See [API paths and HTML pages](problem-details.md#api-paths-and-html-pages)."
        ),
    ),
    "KEEP_ERROR_BODY_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "Paths under `API_PATHS`, searched in `request.path`, whose error answers keep their own body, "
            "members and `Content-Type`, only the trace id header added: a third-party app's whose clients read "
            'its bodies (allauth\'s headless API, `[r"^/api/_allauth/"]`). Exceptions and unrouted paths still '
            "answer problems. Views you can edit are marked with `keep_error_body` instead. An invalid pattern is "
            "error `E006`. See [Keeping a body as it is](problem-details.md#keeping-a-body-as-it-is)."
        ),
    ),
    "HTML_ERROR_HANDLERS": SettingDoc(
        "a dict of Django's error handler names to dotted paths",
        (
            'The project\'s own error views, by Django\'s names: `"handler400"`, `"handler403"`, '
            '`"handler404"`, `"handler500"`, `"CSRF_FAILURE_VIEW"`. Outside `API_PATHS` the package\'s '
            "error views hand over to them (to Django's own for a name left out). Another name, or one of the "
            "package's own views, is error `E003`; a path that cannot be imported, `E004`. See [Your own error "
            "views outside the API](problem-details.md#your-own-error-views-outside-the-api)."
        ),
    ),
    "PROJECT_EXCEPTION_HANDLER": SettingDoc(
        "a dotted path or None",
        (
            'The project\'s own DRF exception handler (its previous `REST_FRAMEWORK["EXCEPTION_HANDLER"]`): '
            "the package's handler runs it first and converts its answer into a problem, keeping its status, "
            "`detail`, field messages and headers (`Retry-After`). A path that cannot be imported is error "
            "`E004`; the package's own handler, `E003`. See [Keeping your DRF exception "
            "handler](problem-details-own-types.md#keeping-your-drf-exception-handler)."
        ),
    ),
    "TRACE_ID_HEADER": SettingDoc(
        "a header name",
        (
            "Response header that carries the trace id; also read on the way in. Set only where the response "
            "has none: a header the project set itself is kept. See [Tracing](tracing-and-clients.md#trace-ids)."
        ),
    ),
    "TRUST_INCOMING_TRACE_ID": SettingDoc(
        "True or False",
        (
            "Honour a valid incoming trace id header or W3C `traceparent`. `False`: every request gets a new id "
            "(or, with opentelemetry-api installed, its span's)."
        ),
    ),
    "REQUEST_ID_ATTRIBUTE": SettingDoc(
        "an attribute name or None",
        (
            "The request attribute where the project's own middleware puts its request id (NetBox's "
            '`request.id`: `"id"`). Once set, that id is the trace id: in problems, log lines and the '
            "`TRACE_ID_HEADER` header, ahead of the span's, the caller's and a new one. `\"trace_id\"`, the "
            "package's own, is error `E003`. See [Your project's own request "
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
            "Where the run-time maintenance switch lives: the `default` cache, which every worker must share (a "
            "local-memory or dummy cache is warning `W007`, and `manage.py maintenance` refuses to run on it), "
            "or the database. See [Where the switch lives](operations.md#where-the-switch-lives)."
        ),
    ),
    "MAINTENANCE_RETRY_AFTER": SettingDoc(
        "a positive number of seconds",
        (
            "`Retry-After` sent during maintenance (the static setting, and the run-time switch when turned on "
            "without `--retry-after`)."
        ),
    ),
    "MAINTENANCE_EXEMPT_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            'Paths that keep working during maintenance, searched in `request.path`, e.g. `[r"^/admin/"]`. '
            "The package's problem type pages, `/openapi.json` and `/docs` keep working without being listed, "
            "wherever they are mounted. See [Exempt paths](operations.md#exempt-paths)."
        ),
    ),
    "IDEMPOTENCY_STORE": SettingDoc(
        "`'database'`, `'redis'` or the dotted path of a store class",
        (
            "Where idempotency records live: the [database store](idempotency-stores.md#the-database-store), "
            "the [Redis store](idempotency-stores.md#the-redis-store), or your own `IdempotencyStore` "
            "subclass. A store that cannot be loaded is error `E009`."
        ),
    ),
    "IDEMPOTENCY_DATABASE": SettingDoc(
        "a database alias",
        (
            "Alias of `DATABASES` of the database store: always this one, whatever the database routers say. Not "
            "an alias of `DATABASES`: error `E010`."
        ),
    ),
    "IDEMPOTENCY_CACHE": SettingDoc(
        "a cache alias",
        (
            "Alias of `CACHES` whose connection the Redis store uses: django-redis (`django_redis.cache.RedisCache`, "
            "its Sentinel client included), Django's `django.core.cache.backends.redis.RedisCache` or django-valkey's "
            "caches; anything else is error `E011`. Not read when `IDEMPOTENCY_REDIS_URL` is set. See [the Redis "
            "store](idempotency-stores.md#the-redis-store)."
        ),
    ),
    "IDEMPOTENCY_REDIS_URL": SettingDoc(
        "a Redis URL or None",
        (
            "The Redis store's own client, used instead of `IDEMPOTENCY_CACHE`: `redis://` or `rediss://` (one "
            "server), `redis+sentinel://sentinel,.../service_name[/db]`, `redis+cluster://node,...`. A URL of "
            "another form is error `E014` at start-up. See [the Redis store](idempotency-stores.md#the-redis-store)."
        ),
    ),
    "IDEMPOTENCY_REDIS_WAIT_REPLICAS": SettingDoc(
        "a number of replicas, 0 or more",
        (
            "Redis store: how many replicas must acknowledge a claim (`WAIT`) before the view runs, and the "
            "committing record before the commit. `0`: Redis' asynchronous replication, and a failover may lose "
            "a claim, so a retry runs again. `N`: fewer than N acknowledgements within half a second "
            "(`RedisStore.wait_timeout_ms`) release the claim and answer 503 `idempotency-store-unavailable` "
            "with `Retry-After`. See [Redis failovers](reliability.md#redis-failovers)."
        ),
    ),
    "IDEMPOTENCY_LEASE_SECONDS": SettingDoc(
        "a positive number of seconds",
        (
            "How long a started (in-flight) key is held before the same request may take it over; a view can set "
            "its own and [renew it](idempotency-concurrency.md#renewing-the-lease)."
        ),
    ),
    "IDEMPOTENCY_RETENTION_SECONDS": SettingDoc(
        "a positive number of seconds",
        (
            "How long a resolved key answers replays, counted from when its response was stored; a started or "
            "failed record lives this long (at least its lease) from its claim. Stored answers say it in "
            "`Idempotency-Retention` (the time left, on a replay), and the OpenAPI `Idempotency-Key` parameter "
            "states it. Shorter than the lease: warning `W008`."
        ),
        default="`86400` (`24 * 60 * 60`)",
    ),
    "IDEMPOTENCY_PATHS": SettingDoc(
        "a list of regular expressions",
        (
            "Paths that "
            "[`IdempotencyMiddleware`](idempotency-views.md#idempotencymiddleware-for-views-you-cannot-edit) "
            "protects, searched in `request.path`. An invalid pattern is error `E006`."
        ),
    ),
    "IDEMPOTENCY_REQUIRED": SettingDoc(
        "True or False",
        "Whether the paths of `IDEMPOTENCY_PATHS` require a key (400 `idempotency-key-missing` without one).",
    ),
    "IDEMPOTENCY_MAX_STORED_BODY_BYTES": SettingDoc(
        "a positive number of bytes, or `None` for no limit",
        (
            "Largest response body stored for replay. A larger response is sent to the first request as usual "
            "but not stored: its key is resolved with the status (and `Location`) only, and a retry gets 410 "
            "[`idempotency-response-too-large`](idempotency.md#responses-too-large-to-store), never a second "
            "run. Logged at `WARNING`. See [Security](security.md#what-is-stored)."
        ),
        default="`1048576` (`1024 * 1024`)",
    ),
    "IDEMPOTENCY_STORE_UNAVAILABLE": SettingDoc(
        '`"fail-closed"` or `"fail-open"`',
        (
            "What a keyed request does when the idempotency store cannot be reached for its claim: "
            '`"fail-closed"` answers 503 `idempotency-store-unavailable` and the view does not run; '
            '`"fail-open"` runs the view once without idempotency, as if no key had been sent (nothing is '
            "stored: a retry runs it again). Another value is error `E003`. See "
            "[When the store is unreachable](idempotency-concurrency.md#when-the-store-is-unreachable)."
        ),
    ),
    "PAGINATION_DEFAULT_LIMIT": SettingDoc(
        "a positive integer",
        (
            "Page size of a [keyset-paginated list](pagination.md#page-size-limit) when the client sends no "
            "`limit`; capped at `PAGINATION_MAX_LIMIT`. Also the `default` of `limit` in the OpenAPI schema."
        ),
    ),
    "PAGINATION_MAX_LIMIT": SettingDoc(
        "a positive integer",
        (
            "Largest `limit` a client may ask for; a `limit` outside 1 to this value is a 400 "
            "`invalid-parameters` (a 422 at `/limit` in a search body). Also the `maximum` of `limit` in the "
            "OpenAPI schema."
        ),
    ),
    "EXTRA_QUERY_PARAMS": SettingDoc(
        "a list of query parameter names, families and dicts",
        (
            "Query parameters every view with "
            "[strict query parameters](pagination-filters.md#parameters-the-view-declares) "
            "accepts besides its filters and its paginator's, on any method: those the project's serializers or "
            'views read (`["brief", "fields"]`). A family, `"attr[*]"`, accepts every `attr[<key>]`; a dict, '
            '`{"name": "expand", "repeatable": True, "description": "..."}`, a name or a family that may be '
            "sent more than once, with its OpenAPI description. A view adds its own with `extra_query_params`. "
            "A wrong entry is error `E003`. See "
            "[Repeated parameters and families](pagination-filters.md#repeated-parameters-and-families)."
        ),
    ),
    "VERSIONS": SettingDoc(
        "a list of version dicts, oldest first",
        (
            'The API versions: each a dict with `name`, `status` (`"current"`, `"deprecated"` or `"retired"`), '
            "`deprecation` and `sunset` dates and a `migration_guide` URL. Empty: versioning off. See [The "
            "lifecycle](versioning.md#the-lifecycle); errors `E020` to `E024`."
        ),
    ),
    "VERSION_PATH_REGEX": SettingDoc(
        "a regular expression with a `version` group",
        (
            "Searched in `request.path_info`; its `version` group names the version of a request. Without the "
            "group: error `E025`. See [URLs in a version](versioning.md#urls-in-a-version)."
        ),
        default='`r"^/(?P<version>v[0-9]+)/"`',
    ),
    "URL_CONVENTION_SILENCED": SettingDoc(
        "a list of regular expressions",
        (
            "Routes the URL convention checks skip, searched in the route as the warning shows it "
            "(`/{version}/invoices/{pk}/pay`). An invalid pattern is error `E006`."
        ),
    ),
    "EXTRA_URLCONFS": SettingDoc(
        "a list of dotted module paths",
        (
            "The URLconfs the project serves besides `ROOT_URLCONF`: per-host URLconfs (django-hosts' "
            "`host_patterns`), those a middleware sets as `request.urlconf`. The checks that read URLconfs "
            "(error handlers `W004`, URL conventions `W023` to `W026`, pagination, idempotency, deprecations) "
            "read each of them too. See [URL convention checks](versioning.md#url-convention-checks)."
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
