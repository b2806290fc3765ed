"""The Redis store: ``SET NX``-style claims and compare-and-set scripts on one key each.

Every script touches a single key, so the store is safe on Redis Cluster. Time comes from
the Redis server (``TIME``), so the hosts' clocks never decide whether a lease has passed.
Its client comes from :mod:`~django_api_conventions.redis`: a cache alias
(django-redis, Django's RedisCache, django-valkey) or ``IDEMPOTENCY_REDIS_URL``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any, ClassVar

from ...conf import api_settings
from ...redis import UNAVAILABLE_ERRORS, RedisScript, redis_client_for_cache, redis_client_from_url
from ...redis.clients import client_for_key
from ...redis.errors import refusals_as_unavailable
from ..commit_markers import TransactionStatus, transaction_status
from ..encryption import StoredAnswerUnreadable, content_shown, seal, unseal
from .base import (
    Claim,
    ClaimOutcome,
    IdempotencyStore,
    NotReplicated,
    RecordSummary,
    StoredResponse,
    new_owner_token,
)

__all__ = ["RedisStore"]

KEY_PREFIX = "api-conventions:idempotency:"
logger = logging.getLogger("django_api_conventions.idempotency")


class Script(RedisScript):
    """A script of the store: a server that refuses to run it is unavailable (a 503)."""

    def __call__(self, keys: list[str], args: list[Any], *, client: Any) -> Any:
        with refusals_as_unavailable(logger):
            return super().__call__(keys, args, client=client)


_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS[1] record; ARGV fingerprint, owner, lease ms, ttl ms, owner whose commit is known rolled back.
# A committing record is answered with its marker whether or not its lease has passed: its owner
# marks it resolved after the commit (under WSGI once the response is sent), so a retry may come
# first and ask the database.
_CLAIM = Script(
    _NOW_MS
    + """
local r = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'lease_until', 'status', 'headers', 'body', 'owner',
                      'marker', 'marker_alias')
local lease_until = now + tonumber(ARGV[3])
if not r[1] then
  redis.call('HSET', KEYS[1], 'state', 'started', 'fingerprint', ARGV[1], 'owner', ARGV[2], 'lease_until', lease_until)
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed', ''}
end
if r[2] ~= ARGV[1] then return {'mismatch'} end
if r[1] == 'resolved' then return {'resolved', r[4], r[5], r[6], tostring(redis.call('PTTL', KEYS[1]))} end
local lease_left = tonumber(r[3]) - now
if r[1] == 'committing' and r[7] ~= ARGV[5] then
  return {'committing', r[7], r[8], r[9], r[4], r[5], r[6], tostring(math.max(lease_left, 0))}
end
if (r[1] == 'started' or r[1] == 'committing') and lease_left > 0 then return {'in_flight', tostring(lease_left)} end
redis.call('HSET', KEYS[1], 'state', 'started', 'owner', ARGV[2], 'lease_until', lease_until)
redis.call('HDEL', KEYS[1], 'status', 'headers', 'body', 'marker', 'marker_alias')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'claimed', r[1]}
"""
)

_OWNED = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'started' then
  return 0
end
"""
# The response of a committing key is final once its transaction committed: only its owner
# (right after the commit) or a later claim (which asked the database) marks it resolved.
_OWNED_STARTED_OR_COMMITTING = """
local state = redis.call('HGET', KEYS[1], 'state')
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or (state ~= 'started' and state ~= 'committing') then
  return 0
end
"""

# ARGV owner, status, headers json, body, ttl ms
_COMPLETE = Script(
    _OWNED_STARTED_OR_COMMITTING
    + """
redis.call('HSET', KEYS[1], 'state', 'resolved', 'status', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4])
redis.call('HDEL', KEYS[1], 'marker', 'marker_alias')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""
)
# ARGV owner, status, headers json, body, marker, alias, lease ms
_PREPARE = Script(
    _OWNED
    + _NOW_MS
    + """
redis.call('HSET', KEYS[1], 'state', 'committing', 'status', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4],
           'marker', ARGV[5], 'marker_alias', ARGV[6], 'lease_until', now + tonumber(ARGV[7]))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[7]) then redis.call('PEXPIRE', KEYS[1], ARGV[7]) end
return 1
"""
)
# ARGV owner of the committing key, ttl ms: its transaction committed
_SETTLE = Script("""
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'committing' then
  return 0
end
redis.call('HSET', KEYS[1], 'state', 'resolved')
redis.call('HDEL', KEYS[1], 'marker', 'marker_alias')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
""")
# A write like the claim's, on a key of its own: PING alone is answered by a Sentinel's port
# too, and by a replica, where no key can be claimed.
_PROBE = Script("redis.call('HSET', KEYS[1], 'probe', 1) redis.call('PEXPIRE', KEYS[1], 60000) return 1")
_PROBE_KEY = KEY_PREFIX + "probe"
_FAIL = Script(_OWNED + "redis.call('HSET', KEYS[1], 'state', 'failed') return 1")
_RELEASE = Script(_OWNED + "redis.call('DEL', KEYS[1]) return 1")
# ARGV owner, lease ms
_RENEW = Script(
    _OWNED
    + _NOW_MS
    + """
redis.call('HSET', KEYS[1], 'lease_until', now + tonumber(ARGV[2]))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""
)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _response(scope: str, key: str, status: bytes, headers: bytes, body: bytes) -> StoredResponse:
    return unseal(scope, key, StoredResponse(int(status), json.loads(headers), bytes(body)))


class RedisStore(IdempotencyStore):
    """Records as Redis hashes that expire on their own.

    On PostgreSQL the response is stored just before the commit as "committing", with the
    transaction's id, and marked resolved after it: a claim that finds it committing asks
    PostgreSQL. Elsewhere it is stored after the commit, and a crash in between lets a retry
    run the view again.
    """

    transactional: ClassVar[bool] = False
    prepares_commits: ClassVar[bool] = True
    #: Its settings (IDEMPOTENCY_REDIS_URL or IDEMPOTENCY_CACHE) are checked at start-up.
    needs_redis: ClassVar[bool] = True
    #: The errors of every supported client that mean Redis cannot answer now, and NotReplicated
    #: (IDEMPOTENCY_REDIS_WAIT_REPLICAS replicas did not acknowledge in time), and a stored answer
    #: no key of IDEMPOTENCY_ENCRYPTION_KEYS decrypts.
    unavailable_errors: ClassVar[tuple[type[BaseException], ...]] = (
        *UNAVAILABLE_ERRORS,
        NotReplicated,
        StoredAnswerUnreadable,
    )
    #: How long, in milliseconds, a write waits for ``IDEMPOTENCY_REDIS_WAIT_REPLICAS`` replicas
    #: before the request answers 503; a subclass (named in ``IDEMPOTENCY_STORE``) waits longer
    #: for slower replicas. Not used while that setting is 0.
    wait_timeout_ms: int = 500

    def __init__(self, alias: str | None = None, *, url: str | None = None) -> None:
        """``alias``: a cache alias; ``url``: a Redis URL; neither: the settings, the URL first."""
        if alias is None and url is None:
            url = api_settings.IDEMPOTENCY_REDIS_URL
            alias = None if url else api_settings.IDEMPOTENCY_CACHE
        self.alias = alias
        self.url = url

    @cached_property
    def client(self) -> Any:
        return redis_client_from_url(self.url) if self.url else redis_client_for_cache(self.alias or "default")

    def ping(self) -> None:
        """One write of a probe key through the store's own client (its connection pool and
        timeouts), as a claim would: the server must be one that can hold the keys."""
        _PROBE([_PROBE_KEY], [], client=self.client)

    @staticmethod
    def record_key(scope: str, key: str) -> str:
        # Hashed: bounded length, and neither scope nor key can forge another record's name.
        return KEY_PREFIX + hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()

    def _replicated(self, script: Script, name: str, args: list[Any]) -> tuple[Any, int]:
        """``script``'s reply on ``name``, and how many replicas ``WAIT`` says hold it: one
        pipeline, so one connection (WAIT counts its writes); EVAL, as it cannot fall back."""
        replicas = api_settings.IDEMPOTENCY_REDIS_WAIT_REPLICAS
        pipe = client_for_key(self.client, name).pipeline(transaction=False)
        pipe.eval(script.source, 1, name, *args)
        pipe.execute_command("WAIT", replicas, self.wait_timeout_ms)
        replies = pipe.execute(raise_on_error=False)  # each error reply as its exception, as sent
        with refusals_as_unavailable(logger):
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
        reply, acknowledged = replies
        return reply, int(acknowledged)

    def _claim_script(self, name: str, args: list[Any]) -> Any:
        replicas = api_settings.IDEMPOTENCY_REDIS_WAIT_REPLICAS
        if not replicas:
            return _CLAIM([name], args, client=self.client)
        reply, acknowledged = self._replicated(_CLAIM, name, args)
        if reply[0] == b"claimed" and acknowledged < replicas:
            # A failover now could bring back a server without this claim, and a retry would
            # run the view a second time: give the key back and answer 503 instead.
            _RELEASE([name], [args[1]], client=self.client)
            raise NotReplicated(replicas, acknowledged)
        return reply

    def claim(self, scope: str, key: str, fingerprint: str, lease_seconds: float, retention_seconds: int) -> Claim:
        owner = new_owner_token()
        ttl = _ms(max(retention_seconds, lease_seconds))
        name = self.record_key(scope, key)
        rolled_back_owner = ""
        for _attempt in range(5):  # another request may settle or take over the key between two calls
            reply = self._claim_script(name, [fingerprint, owner, _ms(lease_seconds), ttl, rolled_back_owner])
            outcome = reply[0].decode()
            if outcome == "claimed":
                return Claim(ClaimOutcome.CLAIMED, owner=owner, taken_over_from=reply[1].decode())
            if outcome == "mismatch":
                return Claim(ClaimOutcome.MISMATCH)
            if outcome == "in_flight":
                return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=int(reply[1]) / 1000)
            if outcome == "resolved":
                return Claim(
                    ClaimOutcome.RESOLVED,
                    response=_response(scope, key, *reply[1:4]),
                    retention_remaining=max(0, int(reply[4])) / 1000,
                )
            # Committing: its owner is around its commit (under WSGI it marks the key resolved
            # once the response is sent), or died there. The database knows which.
            prior_owner, marker, alias = (part.decode() for part in reply[1:4])
            lease_remaining = int(reply[7]) / 1000
            status = transaction_status(alias, marker)
            if status is TransactionStatus.COMMITTED:
                if _SETTLE([name], [prior_owner, _ms(retention_seconds)], client=self.client):
                    return Claim(
                        ClaimOutcome.RESOLVED,
                        response=_response(scope, key, *reply[4:7]),
                        retention_remaining=float(retention_seconds),
                    )
                continue
            if status is TransactionStatus.IN_PROGRESS or lease_remaining > 0:
                # Still committing; or rolled back, the key taken over once its lease has passed.
                return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=lease_remaining or 1.0)
            if status is TransactionStatus.UNKNOWN:
                logger.error("Idempotency key committing for longer than the database remembers: taken over")
            rolled_back_owner = prior_owner
        return Claim(ClaimOutcome.IN_FLIGHT, lease_remaining=1.0)

    def prepare(
        self,
        scope: str,
        key: str,
        owner: str,
        response: StoredResponse,
        marker: str,
        alias: str,
        lease_seconds: float,
    ) -> bool:
        response = seal(scope, key, response)
        args = [owner, response.status, json.dumps(response.headers), response.body, marker, alias, _ms(lease_seconds)]
        name = self.record_key(scope, key)
        replicas = api_settings.IDEMPOTENCY_REDIS_WAIT_REPLICAS
        if not replicas:
            return bool(_PREPARE([name], args, client=self.client))
        # Lost in a failover, the committing record would let a retry run the committed view again
        # once its lease passed: not held by enough replicas, the transaction rolls back (503).
        reply, acknowledged = self._replicated(_PREPARE, name, args)
        if reply and acknowledged < replicas:
            raise NotReplicated(replicas, acknowledged)
        return bool(reply)

    def complete(self, scope: str, key: str, owner: str, response: StoredResponse, retention_seconds: int) -> bool:
        response = seal(scope, key, response)
        args = [owner, response.status, json.dumps(response.headers), response.body, _ms(retention_seconds)]
        return bool(_COMPLETE([self.record_key(scope, key)], args, client=self.client))

    def settle(self, scope: str, key: str, owner: str, retention_seconds: int) -> bool:
        return bool(_SETTLE([self.record_key(scope, key)], [owner, _ms(retention_seconds)], client=self.client))

    def fail(self, scope: str, key: str, owner: str) -> bool:
        return bool(_FAIL([self.record_key(scope, key)], [owner], client=self.client))

    def release(self, scope: str, key: str, owner: str) -> bool:
        return bool(_RELEASE([self.record_key(scope, key)], [owner], client=self.client))

    def renew(self, scope: str, key: str, owner: str, lease_seconds: float) -> bool:
        return bool(_RENEW([self.record_key(scope, key)], [owner, _ms(lease_seconds)], client=self.client))

    def inspect(self, scope: str, key: str) -> RecordSummary | None:
        name = self.record_key(scope, key)
        with refusals_as_unavailable(logger):
            fields = {k.decode(): v for k, v in self.client.hgetall(name).items()}
            pttl = self.client.pttl(name) if fields else 0
        if not fields:
            return None
        status = fields.get("status")
        return RecordSummary(
            state=fields["state"].decode(),
            fingerprint=fields["fingerprint"].decode(),
            response_status=int(status) if status else None,
            lease_expires_at=datetime.fromtimestamp(int(fields["lease_until"]) / 1000, tz=UTC),
            expires_at=datetime.now(tz=UTC) + timedelta(milliseconds=max(0, pttl)),
            extra={"response content": content_shown(json.loads(fields["headers"]) if status else None)},
        )

    def purge(self, *, batch_size: int, dry_run: bool) -> int:
        # Every record carries its own expiry (PEXPIRE): Redis purges them itself.
        return 0
