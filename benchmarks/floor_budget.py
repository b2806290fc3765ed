"""The floors' round trips, counted on the wire as tests/test_round_trip_budget.py counts the
package's: a floor must send what the budget lists for a fresh key or a replay, or less (a floor
that sent more would not be a floor). Run as the task ``floor_round_trips`` (benchmarks.settings)."""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any


def floor_round_trips() -> dict[str, Any]:
    """Statements to PostgreSQL and commands to Redis of each scenario and floor, once warm; and
    the budget's figures for the fresh key and the replay on this store."""
    from unittest import mock

    from django.conf import settings
    from django.test import Client

    from django_api_conventions.maintenance import switches as maintenance
    from tests.test_round_trip_budget import BUDGET
    from tests.wire import postgres_wire, redis_monitor

    from . import floor_views
    from .database import BENCH_USER, prepare_idempotency

    prepare_idempotency([])
    store = settings.API_CONVENTIONS["IDEMPOTENCY_STORE"]
    redis_url = os.environ.get("REDIS_URL") if store == "redis" else None
    client = Client()
    body = json.dumps({"user_id": BENCH_USER})
    run = uuid.uuid4().hex[:8]

    def post(path: str, key: str | None) -> int:
        headers = {"HTTP_X_CLIENT_ID": "floor-budget", **({"HTTP_IDEMPOTENCY_KEY": key} if key else {})}
        return client.post(path, data=body, content_type="application/json", **headers).status_code

    scenarios = {
        "plain": lambda: post("/v2/orders", None),
        "fresh_key": lambda: post("/v2/orders", uuid.uuid4().hex),
        "replay": lambda: post("/v2/orders", f"replay-{run}"),
        "floor_fresh": lambda: post(floor_views.FRESH_PATH, uuid.uuid4().hex),
        "floor_replay": lambda: post(floor_views.REPLAY_PATH, f"floor-replay-{run}"),
    }
    # The maintenance switch read once before, not during (as in tests/test_round_trip_budget.py).
    counted: dict[str, Any] = {}
    with mock.patch.object(maintenance, "SWITCH_POLL_SECONDS", 3600):
        assert post("/v2/orders", f"replay-{run}") == 201
        assert floor_views.prepare_replay(f"floor-replay-{run}", body) == 201
        for action in scenarios.values():
            action()
            action()
        time.sleep(0.01)
        for name, action in scenarios.items():
            if redis_url:
                with redis_monitor(redis_url) as redis_traffic, postgres_wire() as postgres:
                    status = action()
                commands: int | None = len(redis_traffic.commands)
            else:
                with postgres_wire() as postgres:
                    status = action()
                commands = None
            counted[name] = {
                "status": status,
                "statements": len(postgres.statements),
                "redis": commands,
                "sent": postgres.statements + (redis_traffic.commands if redis_url else []),
            }
    database, redis = BUDGET["fresh-key POST"]
    replay_database, replay_redis = BUDGET["replayed POST"]
    budget = {
        "fresh_key": database if store == "database" else redis,
        "replay": replay_database if store == "database" else replay_redis,
    }
    return {
        "counted": counted,
        "budget": {name: {"statements": entry.statements, "redis": entry.redis} for name, entry in budget.items()},
    }
