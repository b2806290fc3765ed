"""Throttling by client id (see :mod:`django_api_conventions.clients.client_ids`)."""

from __future__ import annotations

import logging
import math
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings as drf_settings
from rest_framework.throttling import SimpleRateThrottle

from .client_ids import get_client_id
from .ratelimit_fields import ratelimit_fields

logger = logging.getLogger("django_api_conventions.clients.throttling")

#: A client's requests are counted per slot, this many slots to the rate's period.
SLOTS_PER_PERIOD = 60


class ClientRateThrottle(SimpleRateThrottle):
    """One rate per client id, from ``DEFAULT_THROTTLE_RATES["client"]``, read on each request.

    Where DRF keeps one timestamp per request (10,000 floats at ``10000/min``), a client's
    requests are counted per slot of 1/60 of the period: at most 61 ``[slot start, count]``
    pairs, whatever the rate; a request may leave the window up to one slot early. On a Redis
    cache one script reads and counts the window in one round trip, so that two requests at
    the same instant are both counted. Each answer it governs, a 429 too, carries the
    ``RateLimit-Policy`` and ``RateLimit`` fields (:meth:`get_ratelimit_fields`).
    """

    scope = "client"
    #: Not DRF's key: neither may read the other's values during a rolling deploy.
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
            allowed = self._allow()
        except Exception as exc:  # noqa: BLE001 -- whatever the cache backend raises when it is down
            # A throttle protects capacity, not correctness: an unreachable cache (Redis down)
            # lets requests through rather than turning every one into a 500.
            logger.warning("Throttle cache unavailable, request let through: %s", exc)
            return True
        headers = getattr(view, "headers", None)
        if isinstance(headers, dict):  # DRF's finalize_response() adds them to the answer, a 429 too
            for name, value in self.get_ratelimit_fields(allowed).items():
                headers[name] = f"{headers[name]}, {value}" if name in headers else value  # another scope's
        return allowed

    def get_ratelimit_fields(self, allowed: bool) -> dict[str, str]:
        """``RateLimit-Policy`` and ``RateLimit`` after this request: what is left of the rate,
        and the seconds until the oldest counted request leaves the window (none leaves before).
        Return ``{}`` to send neither."""
        if allowed:
            remaining = self.num_requests - int(sum(count for _, count in self.slots))
            seconds = self.slots[-1][0] + self.duration - self.now
        else:
            remaining, seconds = 0, self.wait()  # Retry-After's figure, so it ends no earlier
        return ratelimit_fields(self.scope, self.num_requests, self.duration, remaining, math.ceil(seconds))

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
        pairs = [(float(kept[index]), int(kept[index + 1])) for index in range(0, len(kept), 2)]
        self.slots = [[start, count] for start, count in sorted(pairs, reverse=True)]
        if sum(count for _, count in self.slots) >= self.num_requests:
            return bool(self.throttle_failure())
        self._count_request()  # as the script did, for the RateLimit fields
        return True

    def _slot_start(self) -> float:
        # Multiplied before divided: a whole second stays whole (1/60 has no exact float).
        return math.floor(self.now * SLOTS_PER_PERIOD / self.duration) * self.duration / SLOTS_PER_PERIOD

    def throttle_success(self) -> bool:
        self._count_request()
        self.cache.set(self.key, self.slots, self.duration)
        return True

    def _count_request(self) -> None:
        start = self._slot_start()
        if self.slots and self.slots[0][0] >= start:
            # The current slot; or, after the rate's period was lengthened, a newer slot of
            # the shorter period's, which leaves the window no earlier.
            self.slots[0][1] += 1
        else:
            self.slots.insert(0, [start, 1])

    def wait(self) -> float:
        """Seconds until enough of the oldest requests leave the window; also when it holds more
        than the rate (recorded under a higher one), where DRF's 429 has no ``Retry-After``."""
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
# current). Returned: the window's slots before the count. Another kind of value under the key
# counts as an empty window.
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
return kept
"""


@lru_cache(maxsize=1)
def _count_in_window() -> Any:
    # Built on first use: redis-py is imported only for a Redis cache.
    from ..redis import RedisScript

    return RedisScript(_COUNT_IN_WINDOW)


def _redis_client_of(cache: Any) -> Any | None:
    # ``==``, not ``is``: Django's ConnectionProxy (``django.core.cache.cache``) equals its cache.
    alias = next((alias for alias in settings.CACHES if caches[alias] == cache), None)
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
