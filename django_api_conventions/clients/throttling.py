"""Throttling by client id (see :mod:`django_api_conventions.clients.client_ids`)."""

from __future__ import annotations

import logging
import math
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.utils.connection import ConnectionProxy
from rest_framework.settings import api_settings as drf_settings
from rest_framework.throttling import SimpleRateThrottle

from .client_ids import get_client_id

logger = logging.getLogger("django_api_conventions.clients.throttling")

#: A client's requests are counted per slot, this many slots to the rate's period.
SLOTS_PER_PERIOD = 60


class ClientRateThrottle(SimpleRateThrottle):
    """One rate per client id, from ``DEFAULT_THROTTLE_RATES["client"]``.

    The rate is read on each request rather than bound at import time, unlike DRF's
    ``SimpleRateThrottle.THROTTLE_RATES``, so settings changes take effect.

    DRF records one timestamp per request in the cache, and reads and writes the whole list
    on every request: at ``10000/min`` a busy client's list is 10,000 floats, about 90 kB
    unpickled and pickled again each time. Here a client's requests are counted per slot of
    1/60 of the period (a second of a minute), newest first: at most 61 ``[slot start, count]``
    pairs, whatever the rate. A request counts until the period has passed since the start of
    its slot, so it may leave the window up to one slot before a timestamp would have.

    On a Redis cache (django-redis, Django's own, django-valkey) the window is a hash of slot
    counts, read and counted by one script: one round trip per request, and two requests of
    one client at the same instant are both counted (a read and a write of the whole window
    would let the later write drop the earlier's count).
    """

    scope = "client"
    #: Not DRF's ``throttle_%(scope)s_%(ident)s``: the value is slot counts, not DRF's list of
    #: timestamps, and neither may read the other's during a rolling deploy.
    cache_format = "throttle-slots_%(scope)s_%(ident)s"

    #: ``[slot start, requests in it]`` pairs of the client's window, newest first.
    slots: list[list[float]]
    #: Set by ``SimpleRateThrottle.__init__`` from the rate (the stubs leave them out).
    num_requests: int
    duration: int

    def get_rate(self) -> str | None:
        try:
            rates = cast("dict[str, str | None]", drf_settings.DEFAULT_THROTTLE_RATES)  # '1000/min'
            return rates[self.scope]
        except KeyError:
            raise ImproperlyConfigured(
                f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'][{self.scope!r}], e.g. '1000/min' "
                "(None disables the throttle)."
            ) from None

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None or not _handles(view, request.method):
            return True  # a method the view does not handle is its 405, counted or not
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        try:
            return self._allow()
        except Exception as exc:  # noqa: BLE001 -- whatever the cache backend raises when it is down
            # A throttle protects capacity, not correctness: an unreachable cache (Redis down)
            # lets requests through rather than turning every one into a 500.
            logger.warning("Throttle cache unavailable, request let through: %s", exc)
            return True

    def _allow(self) -> bool:
        self.now = self.timer()
        client = _redis_client_of(self.cache)
        if client is not None:
            return self._allow_on_redis(client)
        cached = self.cache.get(self.key)
        self.slots = cached if isinstance(cached, list) else []
        while self.slots and self.slots[-1][0] <= self.now - self.duration:
            self.slots.pop()
        if sum(count for _, count in self.slots) >= self.num_requests:
            return bool(self.throttle_failure())
        return bool(self.throttle_success())

    def _allow_on_redis(self, client: Any) -> bool:
        arguments = [repr(self.now), self.duration, repr(self._slot_start()), self.num_requests]
        kept = _count_in_window()([self.cache.make_key(self.key)], arguments, client=client)
        if kept is None:
            return True
        pairs = [(float(kept[index]), int(kept[index + 1])) for index in range(0, len(kept), 2)]
        self.slots = [[start, count] for start, count in sorted(pairs, reverse=True)]
        return bool(self.throttle_failure())

    def _slot_start(self) -> float:
        # Multiplied before divided: a whole second stays whole (1/60 has no exact float).
        return math.floor(self.now * SLOTS_PER_PERIOD / self.duration) * self.duration / SLOTS_PER_PERIOD

    def throttle_success(self) -> bool:
        start = self._slot_start()
        if self.slots and self.slots[0][0] >= start:
            # The current slot; or, after the rate's period was lengthened, a newer slot of
            # the shorter period's, which leaves the window no earlier.
            self.slots[0][1] += 1
        else:
            self.slots.insert(0, [start, 1])
        self.cache.set(self.key, self.slots, self.duration)
        return True

    def wait(self) -> float:
        """Seconds until the next slot frees: until enough of the oldest requests leave the window.

        A request is allowed once fewer than ``num_requests`` remain within the period, so the
        oldest slots must leave it until fewer remain; the last of them to leave decides. This
        holds also when the window holds more requests than the rate (recorded under a higher
        rate, or by another service with another rate on the same cache), where DRF's
        ``wait()`` returns ``None`` and its 429 has no ``Retry-After``.
        """
        if not self.num_requests:
            return float(self.duration)  # a rate of 0: no slot ever frees, ask again after a window
        must_leave = sum(count for _, count in self.slots) - self.num_requests + 1
        if must_leave <= 0:
            return 0.0  # a slot is free already (only asked of a throttled request, by DRF)
        for start, count in reversed(self.slots):
            must_leave -= count
            if must_leave <= 0:
                return max(0.0, start + self.duration - self.now)
        return 0.0  # not reached: the slots hold more requests than must leave

    def get_cache_key(self, request: Any, view: Any) -> str | None:  # a subclass's None: not throttled
        return self.cache_format % {"scope": self.scope, "ident": get_client_id(request)}


def _handles(view: Any, method: str) -> bool:
    name = method.lower()
    return view is None or (name in getattr(view, "http_method_names", ()) and hasattr(view, name))


# KEYS[1] the client's window, a hash of slot start -> requests in it; ARGV now, the period in
# seconds, the current slot's start, the rate. Slots that left the window are dropped; under the
# rate the request is counted (in the newest slot when a shorter period left one newer than the
# current) and nil is returned; at the rate, the window's slots, uncounted. Another kind of
# value under the key counts as an empty window.
_COUNT_IN_WINDOW = """
local now, period, start, rate = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
local window = redis.call('HGETALL', KEYS[1])
local kept, total, newest, newest_field = {}, 0, nil, nil
for i = 1, #window, 2 do
  local slot = tonumber(window[i])
  if slot == nil or slot <= now - period then
    redis.call('HDEL', KEYS[1], window[i])
  else
    total = total + tonumber(window[i + 1])
    kept[#kept + 1] = window[i]
    kept[#kept + 1] = window[i + 1]
    if newest == nil or slot > newest then newest, newest_field = slot, window[i] end
  end
end
if total >= rate then return kept end
local field = ARGV[3]
if newest ~= nil and newest >= start then field = newest_field end
redis.call('HINCRBY', KEYS[1], field, 1)
redis.call('PEXPIRE', KEYS[1], math.ceil(period * 1000))
return false
"""


@lru_cache(maxsize=1)
def _count_in_window() -> Any:
    """The script, built on first use: redis-py is imported only for a Redis cache."""
    from ..redis import RedisScript

    return RedisScript(_COUNT_IN_WINDOW)


def _redis_client_of(cache: Any) -> Any | None:
    """The raw client of ``cache`` when it is a Redis cache of :mod:`~..redis`, else ``None``."""
    alias: str | None = cache.__dict__["_alias"] if isinstance(cache, ConnectionProxy) else _alias_of(cache)
    if alias is None:
        return None
    backend = str(settings.CACHES[alias].get("BACKEND", "")).lower()
    if "redis" not in backend and "valkey" not in backend:
        return None  # before importing redis-py, which a project without Redis may not have
    from ..redis import redis_client_for_cache

    try:
        return redis_client_for_cache(alias)
    except ValueError:
        return None  # a Redis cache the package cannot script (sharded): the whole window is read


def _alias_of(cache: Any) -> str | None:
    return next((alias for alias in settings.CACHES if caches[alias] is cache), None)
