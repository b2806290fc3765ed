"""The Redis store: ``SET NX``-style claims and compare-and-set scripts on one key each.

Every script touches a single key, so the store is safe on Redis Cluster. Time comes from
the Redis server (``TIME``), so the hosts' clocks never decide whether a lease has passed.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from ...conf import api_settings
from .base import Claim, ClaimOutcome, IdempotencyStore, RecordSummary, StoredResponse, new_owner_token

try:
    from django_redis import get_redis_connection
    from django_redis.exceptions import ConnectionInterrupted
    from redis.exceptions import BusyLoadingError, NoScriptError, OutOfMemoryError, ReadOnlyError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
except ImportError as exc:  # pragma: no cover - the redis extra is not installed
    raise ImportError("The Redis idempotency store needs: pip install 'django-api-conventions[redis]'") from exc

KEY_PREFIX = "api-conventions:idempotency:"


class Script:
    """A Lua script run by its SHA-1 (``EVALSHA``), loaded on first use on each server."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 -- Redis names scripts by SHA-1

    def __call__(self, keys: list[str], args: list[Any], *, client: Any) -> Any:
        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return client.eval(self.source, len(keys), *keys, *args)

_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS[1] record; ARGV fingerprint, owner, lease ms, ttl ms
_CLAIM = Script(_NOW_MS + """
local r = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'lease_until', 'status', 'headers', 'body')
local lease_until = now + tonumber(ARGV[3])
if not r[1] then
  redis.call('HSET', KEYS[1], 'state', 'started', 'fingerprint', ARGV[1], 'owner', ARGV[2], 'lease_until', lease_until)
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed', ''}
end
if r[2] ~= ARGV[1] then return {'mismatch'} end
if r[1] == 'resolved' then return {'resolved', r[4], r[5], r[6]} end
if r[1] == 'started' and tonumber(r[3]) > now then return {'in_flight', tostring(tonumber(r[3]) - now)} end
redis.call('HSET', KEYS[1], 'state', 'started', 'owner', ARGV[2], 'lease_until', lease_until)
redis.call('HDEL', KEYS[1], 'status', 'headers', 'body')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'claimed', r[1]}
""")

_OWNED = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'started' then
  return 0
end
"""

# ARGV owner, status, headers json, body, ttl ms
_COMPLETE = Script(_OWNED + """
redis.call('HSET', KEYS[1], 'state', 'resolved', 'status', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
""")
_FAIL = Script(_OWNED + "redis.call('HSET', KEYS[1], 'state', 'failed') return 1")
_RELEASE = Script(_OWNED + "redis.call('DEL', KEYS[1]) return 1")
# ARGV owner, lease ms
_RENEW = Script(_OWNED + _NOW_MS + """
redis.call('HSET', KEYS[1], 'lease_until', now + tonumber(ARGV[2]))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
""")


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


class RedisStore(IdempotencyStore):
    """Records as Redis hashes that expire on their own.

    Redis cannot join the database transaction: the response is stored right after the
    business change commits. A crash between the two leaves the key started; after its lease a
    retry runs the view again. Choose the database store where that window matters.
    """

    transactional: ClassVar[bool] = False
    needs_redis_cache: ClassVar[bool] = True
    unavailable_errors: ClassVar[tuple[type[BaseException], ...]] = (
        # OutOfMemoryError under maxmemory noeviction, ReadOnlyError on a replica after a
        # failover, BusyLoadingError while a restarted server loads its data: all transient.
        ConnectionInterrupted, RedisConnectionError, RedisTimeoutError, OutOfMemoryError, ReadOnlyError,
        BusyLoadingError, OSError,
    )

    def __init__(self, alias: str | None = None) -> None:
        self.alias = alias or api_settings.IDEMPOTENCY_CACHE

    @property
    def client(self) -> Any:
        return get_redis_connection(self.alias)

    @staticmethod
    def record_key(scope: str, key: str) -> str:
        # Hashed: bounded length, and neither scope nor key can forge another record's name.
        return KEY_PREFIX + hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()

    def claim(self, scope: str, key: str, fingerprint: str, lease_seconds: float, retention_seconds: int) -> Claim:
        owner = new_owner_token()
        ttl = _ms(max(retention_seconds, lease_seconds))
        reply = _CLAIM([self.record_key(scope, key)], [fingerprint, owner, _ms(lease_seconds), ttl], client=self.client)
        outcome = reply[0].decode()
        if outcome == "claimed":
            return Claim(ClaimOutcome.CLAIMED, owner=owner, taken_over_from=reply[1].decode())
        if outcome == "mismatch":
            return Claim(ClaimOutcome.MISMATCH)
        if outcome == "in_flight":
            return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=int(reply[1]) / 1000)
        status, headers, body = reply[1:4]
        return Claim(ClaimOutcome.RESOLVED, response=StoredResponse(int(status), json.loads(headers), bytes(body)))

    def complete(self, scope: str, key: str, owner: str, response: StoredResponse, retention_seconds: int) -> bool:
        args = [owner, response.status, json.dumps(response.headers), response.body, _ms(retention_seconds)]
        return bool(_COMPLETE([self.record_key(scope, key)], args, client=self.client))

    def fail(self, scope: str, key: str, owner: str) -> bool:
        return bool(_FAIL([self.record_key(scope, key)], [owner], client=self.client))

    def release(self, scope: str, key: str, owner: str) -> bool:
        return bool(_RELEASE([self.record_key(scope, key)], [owner], client=self.client))

    def renew(self, scope: str, key: str, owner: str, lease_seconds: float) -> bool:
        return bool(_RENEW([self.record_key(scope, key)], [owner, _ms(lease_seconds)], client=self.client))

    def inspect(self, scope: str, key: str) -> RecordSummary | None:
        name = self.record_key(scope, key)
        fields = {k.decode(): v for k, v in self.client.hgetall(name).items()}
        if not fields:
            return None
        status = fields.get("status")
        return RecordSummary(
            state=fields["state"].decode(),
            fingerprint=fields["fingerprint"].decode(),
            response_status=int(status) if status else None,
            lease_expires_at=datetime.fromtimestamp(int(fields["lease_until"]) / 1000, tz=UTC),
            expires_at=datetime.now(tz=UTC) + timedelta(milliseconds=max(0, self.client.pttl(name))),
        )

    def purge(self, *, batch_size: int, dry_run: bool) -> int:
        # Every record carries its own expiry (PEXPIRE): Redis purges them itself.
        return 0
