"""Checks of idempotency: the store loads, keys outlive their lease, scopes are not shared."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from ..check_messages import message, settings_are_valid
from ..clients.client_ids import default_client_id_resolver
from ..conf import api_settings
from ..http import header_names
from ..http.routes import iter_routes
from .decorators import is_idempotency_exempt
from .mixins import IdempotencyMixin
from .stores import load_store_class


@checks.register(checks.Tags.caches)
def check_idempotency_store(**kwargs: Any) -> list[checks.CheckMessage]:
    """The configured store can be loaded and has what it needs."""
    if not settings_are_valid():
        return []  # the settings themselves are wrong: that is reported on its own
    errors = []
    try:
        store = load_store_class()
    except (ImportError, ImproperlyConfigured) as exc:
        return [message("store_cannot_load", value=api_settings.IDEMPOTENCY_STORE, error=exc)]
    if getattr(store, "needs_redis", False):
        errors.extend(_check_redis_client())
    if api_settings.IDEMPOTENCY_RETENTION_SECONDS < api_settings.IDEMPOTENCY_LEASE_SECONDS:
        errors.append(message("retention_below_lease"))
    return errors


def _check_redis_client() -> list[checks.CheckMessage]:
    """The URL parses, or the cache alias is a Redis cache whose connection the store can use.
    Nothing connects: an unreachable Redis shows at the first keyed request (a 503)."""
    # The store loaded, so redis-py is installed: the adapter can be imported.
    from ..redis import cache_backend, parse_redis_url, redacted

    url, alias = api_settings.IDEMPOTENCY_REDIS_URL, api_settings.IDEMPOTENCY_CACHE
    try:
        if url is not None:
            parse_redis_url(url)
        else:
            cache_backend(alias)
    except ValueError as exc:
        if url is not None:
            return [message("bad_redis_url", value=redacted(url), error=exc)]
        return [message("cache_cannot_lend", value=alias, error=exc)]
    return []


@checks.register(checks.Tags.security)
def check_unidentified_callers(**kwargs: Any) -> list[checks.CheckMessage]:
    """Views that take idempotency keys from callers who may have no identity at all: with the
    default client id resolver and scope, those that send no client id share the scope
    ``anonymous``. Only permission classes known to let anyone in count."""
    if not settings_are_valid():
        return []
    if api_settings.CLIENT_ID_RESOLVER is not default_client_id_resolver:
        return []  # the project tells its callers apart its own way
    warnings = []
    seen: set[str] = set()
    for route in iter_routes():
        view_class = getattr(route.callback, "cls", None)
        if route.display in seen or not (isinstance(view_class, type) and issubclass(view_class, IdempotencyMixin)):
            continue
        if view_class.get_idempotency_scope is not IdempotencyMixin.get_idempotency_scope:
            continue  # the view tells its callers apart its own way
        if _takes_keys(route.callback, view_class) and _lets_anyone_in(view_class):
            seen.add(route.display)
            headers = {"header": header_names.IDEMPOTENCY_KEY, "client_header": header_names.CLIENT_ID}
            warnings.append(message("shared_anonymous_scope", obj=route.display, route=route.display, **headers))
    return warnings


def _takes_keys(callback: Any, view_class: type[Any]) -> bool:
    actions = getattr(callback, "actions", None)  # a viewset's route: its methods and their actions
    if actions is not None:
        methods = {method.upper() for method in actions}
    else:
        methods = {method.upper() for method in view_class.http_method_names if hasattr(view_class, method)}
    keyed = methods & set(getattr(view_class, "idempotency_methods", ()))
    return any(not is_idempotency_exempt(view_class, method, actions) for method in keyed)


def _lets_anyone_in(view_class: type) -> bool:
    from rest_framework.permissions import AllowAny

    return all(permission is AllowAny for permission in getattr(view_class, "permission_classes", ()))
