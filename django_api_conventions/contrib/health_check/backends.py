"""The idempotency store's health: one cheap round trip, answered within a bound.

A store that does not answer (a network partition, a full pool) would hold the check as long
as its client's timeouts allow: the probe runs in a thread, and the check answers "unavailable"
after ``timeout``, or at once while an earlier probe still hangs.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading

from django.db import connections
from health_check.base import HealthCheck
from health_check.exceptions import ServiceReturnedUnexpectedResult, ServiceUnavailable

from ...conf import api_settings
from ...idempotency.stores import IdempotencyStore, get_store

_probe_lock = threading.Lock()
_running: list[threading.Thread] = []


@dataclasses.dataclass
class IdempotencyStoreCheck(HealthCheck):  # type: ignore[misc]  # django-health-check has no types
    """The configured idempotency store answers one round trip (the database store's ``SELECT 1``,
    the Redis store's probe key) within ``timeout``, 1 second by default."""

    timeout: datetime.timedelta = dataclasses.field(default=datetime.timedelta(seconds=1), repr=False)

    def __repr__(self) -> str:
        return f"IdempotencyStoreCheck(store={api_settings.IDEMPOTENCY_STORE!r})"

    def run(self) -> None:
        store = get_store()
        seconds = self.timeout.total_seconds()
        outcome: list[Exception | None] = []
        with _probe_lock:
            if any(thread.is_alive() for thread in _running):
                raise ServiceUnavailable("An earlier probe of the idempotency store has not been answered yet.")
            _running.clear()
            thread = threading.Thread(
                target=_probe, args=(store, outcome), daemon=True, name="api-conventions-idempotency-store-probe"
            )
            _running.append(thread)
            thread.start()
        thread.join(seconds)
        if thread.is_alive():
            raise ServiceUnavailable(f"The idempotency store did not answer within {seconds:g} seconds.")
        (error,) = outcome
        if error is None:
            return
        if isinstance(error, store.unavailable_errors):
            # The message names the kind of failure only: never a URL, host or password.
            raise ServiceUnavailable(f"The idempotency store cannot be reached ({type(error).__name__}).") from error
        if isinstance(error, NotImplementedError):
            raise ServiceReturnedUnexpectedResult(
                f"{type(store).__name__} cannot be checked: give it a ping() method (IdempotencyStore.ping)."
            ) from error
        raise error


def _probe(store: IdempotencyStore, outcome: list[Exception | None]) -> None:
    try:
        store.ping()
    except Exception as exc:  # noqa: BLE001 -- reported (or raised) by the check, in its own thread
        outcome.append(exc)
    else:
        outcome.append(None)
    finally:
        if store.database_alias is not None:
            # This thread's own connection: nobody else will ever close it.
            connections[store.database_alias].close()
