"""The one table of the checks' messages (each names its fix) and whether the settings are valid.

Every part's ``checks.py`` imports this module only: it imports nothing of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core import checks
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

PACKAGE = "django_api_conventions"
DOCS = _("See the settings reference (docs/settings.md) of django-api-conventions.")

#: (check id, message name) -> (message, hint). One id covers one mistake and may have several
#: messages; an id starting with E is an error, with W a warning. Messages and hints are lazy
#: translations, formatted with the check's values when it runs and spelled out in full for the
#: translators: API_CONVENTIONS is conf.SETTINGS_NAME, django_api_conventions is PACKAGE.
MESSAGES: dict[tuple[str, str], tuple[StrOrPromise, StrOrPromise]] = {
    ("E001", "settings_not_a_dict"): (
        _("API_CONVENTIONS must be a dict, not {type}."),
        _("Set API_CONVENTIONS = {{...}} in your settings."),
    ),
    ("E002", "unknown_setting"): (_("API_CONVENTIONS has an unknown key {key!r}."), "{suggestion}"),
    ("E003", "wrong_setting"): (_("API_CONVENTIONS[{key!r}] must be {expected}, not {value!r}."), DOCS),
    ("E003", "not_importable"): (
        _("API_CONVENTIONS[{key!r}] = {value!r} cannot be imported: {error}."),
        _("Give the dotted path of a callable."),
    ),
    ("E003", "bad_problem_base_url"): (
        _(
            "API_CONVENTIONS['PROBLEM_BASE_URL'] = {value!r} is neither an absolute http(s) URL nor a path, "
            "with at least one segment."
        ),
        _(
            "Use e.g. 'https://api.example.com/problems', or a path such as '/api/problem-types' to move the "
            "package's pages on this service."
        ),
    ),
    ("E003", "bad_pattern"): (
        _("API_CONVENTIONS[{key!r}] has an invalid pattern {value!r}: {error}."),
        _("Give regular expressions matched against request.path."),
    ),
    ("E003", "store_cannot_load"): (
        _("API_CONVENTIONS['IDEMPOTENCY_STORE'] = {value!r} cannot be loaded: {error}."),
        _(
            "Use 'database', 'redis' (pip install 'django-api-conventions[redis]') or the dotted path "
            "of an IdempotencyStore subclass."
        ),
    ),
    ("E003", "unknown_database"): (
        _("API_CONVENTIONS['IDEMPOTENCY_DATABASE'] = {value!r} is not in DATABASES."),
        _("Name the alias of your primary database."),
    ),
    ("E003", "cache_cannot_lend"): (
        _("API_CONVENTIONS['IDEMPOTENCY_CACHE'] = {value!r} cannot lend the Redis store its connection: {error}."),
        _(
            "Name a CACHES entry whose BACKEND is 'django_redis.cache.RedisCache', "
            "'django.core.cache.backends.redis.RedisCache' or django-valkey's ValkeyCache, or give the "
            "store its own API_CONVENTIONS['IDEMPOTENCY_REDIS_URL']."
        ),
    ),
    ("E003", "bad_redis_url"): (
        _("API_CONVENTIONS['IDEMPOTENCY_REDIS_URL'] = {value!r} cannot be used: {error}."),
        _(
            "Use redis://[[user]:password@]host[:port][/db], "
            "redis+sentinel://host[:port][,host[:port]...]/service_name[/db] or "
            "redis+cluster://host[:port][,host[:port]...] (rediss... for TLS); see docs/idempotency.md."
        ),
    ),
    ("E003", "bad_encryption_keys"): (
        _("API_CONVENTIONS['IDEMPOTENCY_ENCRYPTION_KEYS'] cannot be used: {error}."),
        _(
            "Give a list of url-safe base64 keys of 32 random bytes each, e.g. "
            "base64.urlsafe_b64encode(os.urandom(32)).decode(), and pip install "
            "'django-api-conventions[encryption]'."
        ),
    ),
    ("E003", "regex_without_version"): (
        _("API_CONVENTIONS['VERSION_PATH_REGEX'] = {value!r} has no group named 'version'."),
        _("Capture the version segment as (?P<version>...), e.g. r'^/(?P<version>v[0-9]+)/'."),
    ),
    ("E008", "problem_pages_unrouted"): (
        _(
            "Problem type URLs cannot be built: PROBLEM_BASE_URL is unset and the "
            "'api_conventions:problem-type' URL is not routed."
        ),
        _(
            "Add path('', include('django_api_conventions.urls')) to your root URLconf, or set "
            "API_CONVENTIONS['PROBLEM_BASE_URL']."
        ),
    ),
    ("E012", "client_rate_missing"): (
        _(
            "ClientRateThrottle is a default throttle class but DEFAULT_THROTTLE_RATES has no "
            "'client' rate: every request would fail."
        ),
        _("Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['client'], e.g. '1000/min' (None disables it)."),
    ),
    ("E013", "not_keyset_paginable"): (
        _("{view} cannot be keyset-paginated: {error}"),
        _("Order by fields whose values a cursor can hold (numbers, text, dates, UUIDs)."),
    ),
    ("E015", "sort_unindexed"): (
        _(
            "{view} lets clients sort {model} by {sort!r} ({ordering}) but no index of {model} matches "
            "that ordering: every page of that sort would scan the table."
        ),
        _("Add to {model}.Meta.indexes: {index}, or remove the sort."),
    ),
    ("E020", "versions_invalid"): (
        _("API_CONVENTIONS['VERSIONS'] is invalid: {error}."),
        _(
            "Each version is a dict such as {{'name': 'v1', 'status': 'deprecated', 'deprecation': "
            "'2026-06-01', 'sunset': '2027-06-01', 'migration_guide': "
            "'https://api.example.com/docs/v1-to-v2'}}, oldest first; see docs/versioning.md."
        ),
    ),
    ("E020", "sunset_before_deprecation"): (
        _("{subject}: the sunset {sunset} is before the deprecation {deprecation}."),
        _("Put the sunset after the deprecation, at least {minimum} days later."),
    ),
    ("E020", "not_one_current"): (
        _("API_CONVENTIONS['VERSIONS'] has {count} versions with status 'current'; exactly one must be."),
        _("Mark the newest served version 'current' and the older ones 'deprecated' or 'retired'."),
    ),
    ("E020", "previous_retired"): (
        _(
            "Version {name}, the one before the current {current}, is retired: at least the current "
            "and the previous version must be supported."
        ),
        _("Mark {name} 'deprecated' with a sunset in the future; retire it once a newer version replaces {current}."),
    ),
    ("E020", "version_unrequestable"): (
        _("Version {name!r} can never be requested: VERSION_PATH_REGEX does not read it from /{name}/."),
        _("Name versions like the regex expects (v1, v2 ...), or change VERSION_PATH_REGEX."),
    ),
    ("E020", "version_after_current"): (
        _("Version {name!r} is newer than the current {current!r} but not current itself."),
        _("List VERSIONS oldest first: retired and deprecated versions before the current one, none after."),
    ),
    ("E024", "support_window_short"): (
        _(
            "{subject} is supported for {days} days between its deprecation and its sunset, fewer "
            "than the {minimum} the conventions ask."
        ),
        _(
            "Move the sunset to {earliest} or later. An internal service whose clients move faster "
            "may add 'django_api_conventions.E024' to SILENCED_SYSTEM_CHECKS."
        ),
    ),
    ("E040", "ordering_filter_in_strict_filterset"): (
        _(
            "{view} filters with {name}, whose {fields} is an OrderingFilter: StrictFilterBackend "
            "refuses it, since a keyset list has a fixed ordering that its cursors hold."
        ),
        _("Remove the OrderingFilter from {name}: the list is ordered by the ordering of its pagination class."),
    ),
    ("W001", "drf_handler_not_problems"): (
        _("REST_FRAMEWORK['EXCEPTION_HANDLER'] is {value!r}: DRF errors will not be problem details."),
        _(
            "Set REST_FRAMEWORK['EXCEPTION_HANDLER'] = "
            "'django_api_conventions.problems.drf_handler.problem_exception_handler'."
        ),
    ),
    ("W001", "error_handler_not_problems"): (
        _("The URLconf {urlconf}'s {handler} is {value!r}: some errors will lose their precise problem."),
        _("Set {handler} = 'django_api_conventions.problems.django_handlers.{view}' in {urlconf}."),
    ),
    ("W001", "csrf_view_not_problems"): (
        _("CSRF_FAILURE_VIEW is {value!r}: CSRF failures will not be problem details."),
        _("Set CSRF_FAILURE_VIEW = 'django_api_conventions.problems.django_handlers.csrf_failure'."),
    ),
    ("W002", "middleware_missing"): (
        _("{middleware} is not in MIDDLEWARE."),
        _(
            "Add it near the top of MIDDLEWARE: TraceIdMiddleware, ProblemDetailsMiddleware, "
            "MaintenanceModeMiddleware, then Django's."
        ),
    ),
    ("W002", "version_middleware_missing"): (
        _(
            "API_CONVENTIONS['VERSIONS'] is set but VersionLifecycleMiddleware is not in MIDDLEWARE: "
            "deprecations are not announced and sunsets pass unnoticed."
        ),
        _(
            "Add 'django_api_conventions.versioning.middleware.VersionLifecycleMiddleware' right "
            "after TraceIdMiddleware."
        ),
    ),
    ("W003", "middleware_out_of_order"): (
        _("{middleware} must come before {other} in MIDDLEWARE."),
        _(
            "Order: TraceIdMiddleware, VersionLifecycleMiddleware, ProblemDetailsMiddleware, "
            "MaintenanceModeMiddleware, then the rest; IdempotencyMiddleware last."
        ),
    ),
    ("W003", "idempotency_not_last"): (
        _(
            "IdempotencyMiddleware is not the last entry of MIDDLEWARE: it runs the view itself, so "
            "the process_view of the middleware after it would be skipped."
        ),
        _("Move 'django_api_conventions.idempotency.IdempotencyMiddleware' to the end of MIDDLEWARE."),
    ),
    ("W003", "runs_first_middleware_late"): (
        _(
            "{middleware} comes after {other} in MIDDLEWARE: the problems answered before it runs miss what "
            "it sets, such as the client's language (they are in LANGUAGE_CODE)."
        ),
        _(
            "Put {middleware} before the package's middleware: Django's LocaleMiddleware reads only the "
            "Accept-Language header and the language cookie, so nothing needs to run before it. A "
            "middleware of the project's that needs the session or the user stays where it is with the "
            "class attribute api_conventions_first = False."
        ),
    ),
    ("W006", "lax_json_parser"): (
        _("{where} names DRF's JSONParser: deeply nested JSON raises a 500 there."),
        _("Use 'django_api_conventions.content.StrictJSONParser' instead."),
    ),
    ("W007", "unshared_maintenance_switch"): (
        _(
            "The maintenance switch lives in the {backend} cache {value!r}, which other processes and "
            "hosts do not share: a switch written there would not reach them, so `manage.py "
            "maintenance` refuses to run."
        ),
        _("Use a shared cache (Redis) or API_CONVENTIONS['MAINTENANCE_SWITCH_STORE'] = 'database'."),
    ),
    ("W008", "retention_below_lease"): (
        _(
            "API_CONVENTIONS['IDEMPOTENCY_RETENTION_SECONDS'] is shorter than the lease: a key could "
            "expire while its request still runs."
        ),
        _("Keep the retention (default 24 h) well above IDEMPOTENCY_LEASE_SECONDS."),
    ),
    ("W010", "ordering_unindexed"): (
        _("{view} pages {model} by {ordering} but no index of {model} matches that ordering: deep pages will scan."),
        _("Add to {model}.Meta.indexes: models.Index(fields={fields!r}, name=...)."),
    ),
    ("W012", "admin_inside_api_paths"): (
        _(
            "django.contrib.admin is installed but API_CONVENTIONS['API_PATHS'] is unset: every path is "
            "API, so the admin's errors (a CSRF failure at its login, its 404s) answer "
            "application/problem+json to browsers."
        ),
        _(
            "Name the API's paths, e.g. API_CONVENTIONS['API_PATHS'] = [r'{pattern}'] (every path but the "
            "admin's); set it to [r'^/'] to keep the whole site API."
        ),
    ),
    ("W013", "shared_anonymous_scope"): (
        _(
            "{route} takes an {header} from callers without credentials: all of them that send no "
            "{client_header} share one scope, 'anonymous', and one can be answered another's stored "
            "response."
        ),
        _(
            "Require authentication on the view (permission_classes), give API_CONVENTIONS a "
            "CLIENT_ID_RESOLVER that tells such callers apart, or, if every such caller sends "
            "{client_header}, add 'django_api_conventions.W013' to SILENCED_SYSTEM_CHECKS."
        ),
    ),
    ("W023", "verb_in_route"): (
        _("The route {route} has the verb {segment!r} as a path segment."),
        _(
            "Make the action a sub-resource that is created, e.g. {suggestion}, or use the HTTP "
            "method. To keep it, add a pattern of the route to "
            "API_CONVENTIONS['URL_CONVENTION_SILENCED']."
        ),
    ),
    ("W023", "singular_collection"): (
        _("The route {route} names the collection {segment!r} in the singular."),
        _(
            "Name collections with plural nouns: {suggestion}. To keep it, add a pattern of the route "
            "to API_CONVENTIONS['URL_CONVENTION_SILENCED']."
        ),
    ),
    ("W023", "nesting_too_deep"): (
        _("The route {route} nests {depth} collections; the conventions allow two levels."),
        _(
            "Address the last collection at the root and filter it: {suggestion}. To keep it, add a "
            "pattern of the route to API_CONVENTIONS['URL_CONVENTION_SILENCED']."
        ),
    ),
    ("W026", "versioned_urls_without_versions"): (
        _("versioned_urls() is in the URLconf but VERSIONS is empty: every /v<n>/ prefix serves the API."),
        _("List the versions in API_CONVENTIONS['VERSIONS'] (see docs/versioning.md)."),
    ),
    ("W027", "retired_before_sunset"): (
        _(
            "Version {name!r} is marked retired but its sunset, {sunset}, is still ahead: it answers "
            "410 before the date its clients were promised."
        ),
        _("Mark it 'deprecated' until its sunset; it turns into 410 on that day on its own."),
    ),
    ("W027", "previous_past_sunset"): (
        _(
            "Version {name}, the one before the current {current}, passed its sunset on {sunset}: "
            "only the current version is still supported."
        ),
        _("Mark it 'retired' and move the next sunset so that two versions are always served."),
    ),
    ("W030", "versioning_class_not_packages"): (
        _(
            "REST_FRAMEWORK['DEFAULT_VERSIONING_CLASS'] is {value!r}: DRF views see request.version "
            "None and reverse() drops the version."
        ),
        _(
            "Set REST_FRAMEWORK['DEFAULT_VERSIONING_CLASS'] = "
            "'django_api_conventions.versioning.drf.LifecycleVersioning'."
        ),
    ),
    ("W030", "schema_class_not_packages"): (
        _(
            "drf-spectacular is installed but REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is {value!r}: "
            "the schema will not show idempotency keys, problem responses or deprecations."
        ),
        _(
            "Set REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] = "
            "'django_api_conventions.contrib.spectacular.ProblemAutoSchema'; to keep your own AutoSchema "
            "subclass, name a class that puts ProblemSchemaMixin before it: "
            "class APISchema(ProblemSchemaMixin, YourAutoSchema)."
        ),
    ),
    ("W030", "component_split_request_off"): (
        _(
            "SPECTACULAR_SETTINGS['COMPONENT_SPLIT_REQUEST'] is not True: request bodies are "
            "documented with the response's read-only fields, and generated clients send them."
        ),
        _("Set SPECTACULAR_SETTINGS = {{'COMPONENT_SPLIT_REQUEST': True, ...}}."),
    ),
    ("W040", "keyset_lax_filter_backend"): (
        _(
            "{view} is keyset-paginated but filtered by {backend}, which cannot refuse an undeclared "
            "query parameter: a misspelt filter (?statuz=open) answers the whole list."
        ),
        _(
            "Use 'django_api_conventions.pagination.StrictFilterBackend' instead (it takes django-filter "
            "FilterSets too). Until then, the list's cursors are bound to all of its query parameters but "
            "the paginator's."
        ),
    ),
    ("W040", "strict_view_lax_filter_backends"): (
        _(
            "{view} refuses undeclared query parameters but its own filter_backends ({backend}) leave "
            "out StrictFilterBackend: its list lets a misspelt filter (?statuz=open) through and answers "
            "the whole list."
        ),
        _(
            "Add 'django_api_conventions.pagination.StrictFilterBackend' to {view}.filter_backends (a "
            "view that sets filter_backends does not get DEFAULT_FILTER_BACKENDS'), before the backends "
            "it keeps; a DjangoFilterBackend subclass of your own becomes a StrictFilterBackend subclass "
            "with the same get_filterset_kwargs()."
        ),
    ),
}


_BY_NAME = {name: (check_id, text, hint) for (check_id, name), (text, hint) in MESSAGES.items()}


def message(name: str, /, obj: Any = None, **values: Any) -> checks.CheckMessage:
    """The check message ``name`` of :data:`MESSAGES`, formatted with ``values``."""
    check_id, text, hint = _BY_NAME[name]
    level = checks.Error if check_id.startswith("E") else checks.Warning
    return level(text.format(**values), hint=hint.format(**values), obj=obj, id=f"{PACKAGE}.{check_id}")


#: The tag of the settings check (``checks/settings.py``), which :func:`settings_are_valid` runs.
SETTINGS_TAG = "api_conventions_settings"

_settings_verdict: list[bool] = []


def settings_are_valid() -> bool:
    """Whether the settings check finds nothing, cached until a setting changes: the checks that
    read settings skip themselves when they are wrong, which the settings check reports once."""
    if not _settings_verdict:
        _settings_verdict.append(not checks.run_checks(tags=[SETTINGS_TAG]))
    return _settings_verdict[0]


@receiver(setting_changed)
def _forget_verdict(**kwargs: Any) -> None:
    _settings_verdict.clear()
