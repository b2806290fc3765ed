"""Throttling by client id (see :mod:`django_api_conventions.clients.client_ids`)."""

from __future__ import annotations

import logging
import math
from typing import Any, cast

from django.core.exceptions import ImproperlyConfigured
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
        cached = self.cache.get(self.key)
        self.slots = cached if isinstance(cached, list) else []
        self.now = self.timer()
        while self.slots and self.slots[-1][0] <= self.now - self.duration:
            self.slots.pop()
        if sum(count for _, count in self.slots) >= self.num_requests:
            return bool(self.throttle_failure())
        return bool(self.throttle_success())

    def throttle_success(self) -> bool:
        # Multiplied before divided: a whole second stays whole (1/60 has no exact float).
        start = math.floor(self.now * SLOTS_PER_PERIOD / self.duration) * self.duration / SLOTS_PER_PERIOD
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
