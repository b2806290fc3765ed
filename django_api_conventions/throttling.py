"""Throttling by client id (see :mod:`django_api_conventions.clients`)."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings as drf_settings
from rest_framework.throttling import SimpleRateThrottle

from .clients import get_client_id

logger = logging.getLogger("django_api_conventions.throttling")


class ClientRateThrottle(SimpleRateThrottle):
    """One rate per client id, from ``DEFAULT_THROTTLE_RATES["client"]``.

    The rate is read on each request rather than bound at import time, unlike DRF's
    ``SimpleRateThrottle.THROTTLE_RATES``, so settings changes take effect. For the same
    reason :meth:`wait` departs from DRF's: a history longer than the rate (recorded under a
    higher rate, or by another service with another rate on the same cache) still gives a wait.
    """

    scope = "client"

    def get_rate(self) -> str | None:
        try:
            return drf_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(
                f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'][{self.scope!r}], e.g. '1000/min' "
                "(None disables the throttle)."
            ) from None

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return bool(super().allow_request(request, view))
        except Exception as exc:  # noqa: BLE001 -- whatever the cache backend raises when it is down
            # A throttle protects capacity, not correctness: an unreachable cache (Redis down)
            # lets requests through rather than turning every one into a 500.
            logger.warning("Throttle cache unavailable, request let through: %s", exc)
            return True

    def wait(self) -> float:
        """Seconds until the next slot: when the request that must expire for one to free expires.

        ``history`` is newest first. A request is allowed once fewer than ``num_requests`` remain
        within ``duration``, so every entry from index ``num_requests - 1`` on must expire; the
        newest of them, ``history[num_requests - 1]``, last. DRF spreads the remaining duration
        over the requests still available and returns ``None`` when none is, which left that
        429 without ``Retry-After``.
        """
        if not self.num_requests:
            return float(self.duration)  # a rate of 0: no slot ever frees, ask again after a window
        if len(self.history) < self.num_requests:
            return 0.0  # a slot is free already (only asked of a throttled request, by DRF)
        return max(0.0, self.history[self.num_requests - 1] + self.duration - self.now)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": get_client_id(request)}
