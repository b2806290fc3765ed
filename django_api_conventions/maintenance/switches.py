"""The maintenance switch: a static setting, or a switch flipped at run time in the cache or database."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches

from ..conf import api_settings

logger = logging.getLogger("django_api_conventions.maintenance")

SWITCH_NAME = "maintenance"
CACHE_KEY = "api_conventions:maintenance"
#: The cache of the run-time switch with ``MAINTENANCE_SWITCH_STORE = "cache"``: every worker must share it.
SWITCH_CACHE = "default"
#: How long one process trusts its last reading of the run-time switch, in seconds.
SWITCH_POLL_SECONDS = 1.0

# Cache backends private to one process: a switch written there never reaches a server.
_PROCESS_LOCAL_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache": "local-memory",
    "django.core.cache.backends.dummy.DummyCache": "dummy",
}


def unshared_switch_cache() -> str | None:
    """The kind of process-local cache ("local-memory", "dummy") the run-time switch lives in, if any."""
    if api_settings.MAINTENANCE_SWITCH_STORE != "cache":
        return None
    backend = settings.CACHES.get(SWITCH_CACHE, {}).get("BACKEND")
    return _PROCESS_LOCAL_CACHES.get(backend) if backend else None


@dataclass(frozen=True)
class MaintenanceState:
    enabled: bool
    retry_after: int


def read_switch(*, strict: bool = False) -> MaintenanceState:
    """The run-time switch as stored; off when the store cannot be read, unless ``strict``."""
    stored = None
    try:
        if api_settings.MAINTENANCE_SWITCH_STORE == "database":
            from ..models import RuntimeSwitch

            switch = RuntimeSwitch.objects.filter(name=SWITCH_NAME).first()
            stored = switch and {"enabled": switch.enabled, "retry_after": switch.retry_after}
        else:
            stored = caches[SWITCH_CACHE].get(CACHE_KEY)
    except Exception as exc:
        if strict:
            raise
        # An unreachable store must not take the whole API down with it: requests that need
        # the database answer 503 on their own.
        logger.warning("Maintenance switch unreadable, treated as off: %s", exc)
    if not stored:
        return MaintenanceState(False, api_settings.MAINTENANCE_RETRY_AFTER)
    return MaintenanceState(bool(stored["enabled"]), int(stored["retry_after"]))


def write_switch(enabled: bool, retry_after: int | None = None) -> MaintenanceState:
    """Turn the run-time switch on or off for every worker sharing the store."""
    if retry_after is None:
        retry_after = api_settings.MAINTENANCE_RETRY_AFTER
    if retry_after < 1:
        raise ValueError(f"retry_after must be at least 1 second, not {retry_after}.")
    state = MaintenanceState(enabled, retry_after)
    if api_settings.MAINTENANCE_SWITCH_STORE == "database":
        from ..models import RuntimeSwitch

        RuntimeSwitch.objects.update_or_create(
            name=SWITCH_NAME, defaults={"enabled": state.enabled, "retry_after": state.retry_after}
        )
    else:
        caches[SWITCH_CACHE].set(CACHE_KEY, {"enabled": state.enabled, "retry_after": state.retry_after}, timeout=None)
    _last_reading.clear()
    return state


# One reading per process, trusted for SWITCH_POLL_SECONDS: no round trip on most requests.
_last_reading: dict[str, tuple[float, MaintenanceState]] = {}


def _fresh_reading(now: float) -> MaintenanceState | None:
    reading = _last_reading.get(SWITCH_NAME)
    return reading[1] if reading is not None and now - reading[0] < SWITCH_POLL_SECONDS else None


def maintenance_retry_after() -> int | None:
    """Seconds for ``Retry-After`` while maintenance is on, ``None`` while it is off."""
    if api_settings.MAINTENANCE_MODE:
        return int(api_settings.MAINTENANCE_RETRY_AFTER)
    now = time.monotonic()
    state = _fresh_reading(now)
    if state is None:
        state = read_switch()
        _last_reading[SWITCH_NAME] = (now, state)
    return state.retry_after if state.enabled else None


async def amaintenance_retry_after() -> int | None:
    """:func:`maintenance_retry_after`, reading a stale switch in a thread."""
    if api_settings.MAINTENANCE_MODE:
        return int(api_settings.MAINTENANCE_RETRY_AFTER)
    state = _fresh_reading(time.monotonic())
    if state is None:
        return await sync_to_async(maintenance_retry_after)()
    return state.retry_after if state.enabled else None
