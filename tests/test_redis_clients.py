"""The Redis store's client: URLs parsed strictly, the cache backends it takes, the checks that say so.

Nothing here needs a Redis server: building a client connects to nothing (a Cluster client
does, and is exercised unreachable in test_store_unavailable.py).
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.test import override_settings
from redis.sentinel import SentinelConnectionPool

from django_api_conventions import checks
from django_api_conventions.idempotency import checks as idempotency_checks
from django_api_conventions.redis import (
    InvalidRedisURL,
    RedisURL,
    build_client,
    cache_backend,
    parse_redis_url,
    redacted,
    redis_client_for_cache,
)
from testproject.environment import cache_from_url, idempotency_redis_url, shared_cache

SECRET = "s3cr%23t"  # "s3cr#t", percent-encoded


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://localhost", RedisURL("standalone", (("localhost", 6379),))),
        ("redis://cache.internal:6380/2", RedisURL("standalone", (("cache.internal", 6380),), db=2)),
        (f"rediss://app:{SECRET}@[::1]:6390/0", RedisURL("standalone", (("::1", 6390),), True, 0, "app", "s3cr#t")),
        (f"redis://:{SECRET}@10.0.0.1/", RedisURL("standalone", (("10.0.0.1", 6379),), password="s3cr#t")),
        (
            "redis://h?socket_timeout=0.5&socket_connect_timeout=2",
            RedisURL("standalone", (("h", 6379),), options={"socket_timeout": 0.5, "socket_connect_timeout": 2.0}),
        ),
        (
            "redis+sentinel://s1,s2:26380,s3/mymaster",
            RedisURL("sentinel", (("s1", 26379), ("s2", 26380), ("s3", 26379)), service_name="mymaster"),
        ),
        (
            "REDISS+SENTINEL://s1/my-master.1/5",
            RedisURL("sentinel", (("s1", 26379),), True, 5, service_name="my-master.1"),
        ),
        ("redis+cluster://n1:7000,n2:7001", RedisURL("cluster", (("n1", 7000), ("n2", 7001)))),
        ("rediss+cluster://n1/0", RedisURL("cluster", (("n1", 6379),), True)),
    ],
)
def test_the_forms_of_a_redis_url(url: str, expected: RedisURL) -> None:
    assert parse_redis_url(url) == expected


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("memcached://h", "the scheme must be one of"),
        ("redis:/h", "the scheme must be one of"),
        ("redis://", "a host is missing"),
        ("redis://h1,h2", "several hosts need redis+sentinel"),
        ("redis+cluster://h1,,h2", "a host is missing"),
        ("redis://h:0", "from 1 to 65535"),
        ("redis://h:65536", "from 1 to 65535"),
        ("redis://h:06379", "without leading zeros"),
        ("redis://h:", "from 1 to 65535"),
        ("redis://h:63x9", "from 1 to 65535"),
        ("redis://::1", "an IPv6 address goes in brackets"),
        ("redis://[::1", "is not an IPv6 address in brackets"),
        ("redis://[nope]:1", "is not an IPv6 address in brackets"),
        ("redis://h_-/0", "is not a host name"),
        ("redis://h/x", "the database 'x' must be a number"),
        ("redis://h/01", "without leading zeros"),
        ("redis://h/1/2", "the path is the database number only"),
        ("redis://h#frag", "no fragment"),
        ("redis://h/0 ", "white space"),
        ("redis://user@h", "a user name needs its password"),
        ("redis://user:@h", "the password is empty"),
        ("redis://h?db=1", "unknown option 'db'"),
        ("redis://h?socket_timeout=-1", "positive number of seconds"),
        ("redis://h?socket_timeout=nan", "positive number of seconds"),
        ("redis://h?socket_timeout=1e3", "positive number of seconds"),
        ("redis://h?socket_timeout=0", "positive number of seconds"),
        ("redis://h?socket_timeout=1&socket_timeout=2", "given twice"),
        ("redis://h?socket_timeout", "name=value pairs"),
        ("redis+sentinel://s1", "names its service"),
        ("redis+sentinel://s1/", "names its service"),
        ("redis+sentinel://s1/svc/1/2", "/service_name or /service_name/db"),
        ("redis+sentinel://s1/svc/x", "the database 'x'"),
        ("redis+cluster://n1/1", "only database 0"),
    ],
)
def test_a_form_that_cannot_be_used_says_why(url: str, reason: str) -> None:
    with pytest.raises(InvalidRedisURL, match=reason.replace("+", r"\+").replace("(", r"\(")):
        parse_redis_url(url)


def test_messages_never_show_the_password() -> None:
    url = f"redis://app:{SECRET}@h:0/0"
    with pytest.raises(InvalidRedisURL) as raised:
        parse_redis_url(url)
    assert SECRET not in str(raised.value) and "s3cr#t" not in str(raised.value)
    assert redacted(url) == "redis://app:***@h:0/0"
    assert (
        redacted("redis+sentinel://:p@ss@s1,s2/m?socket_timeout=1") == "redis+sentinel://:***@s1,s2/m?socket_timeout=1"
    )
    assert redacted("redis://h/0") == "redis://h/0"


def test_the_clients_built_from_urls() -> None:
    plain = build_client(parse_redis_url(f"rediss://app:{SECRET}@h:6390/3?socket_timeout=2"))
    assert isinstance(plain, redis.Redis)
    kwargs = plain.connection_pool.connection_kwargs
    assert (kwargs["host"], kwargs["port"], kwargs["db"], kwargs["username"], kwargs["password"]) == (
        "h",
        6390,
        3,
        "app",
        "s3cr#t",
    )
    assert kwargs["socket_timeout"] == 2 and plain.connection_pool.connection_class.__name__ == "SSLConnection"
    primary = build_client(parse_redis_url("redis+sentinel://s1,s2:26380/mymaster/2"))
    assert isinstance(primary.connection_pool, SentinelConnectionPool)
    assert primary.connection_pool.service_name == "mymaster"
    assert primary.connection_pool.connection_kwargs["db"] == 2
    assert [
        (s.connection_pool.connection_kwargs["host"], s.connection_pool.connection_kwargs["port"])
        for s in primary.connection_pool.sentinel_manager.sentinels
    ] == [("s1", 26379), ("s2", 26380)]


DJANGO_REDIS = {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
DJANGO_CACHE = {
    "BACKEND": "django.core.cache.backends.redis.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/4,redis://127.0.0.1:2/4",
}


class OwnRedisCache(DjangoRedisCache):
    """A project's own subclass counts as its base."""


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (DJANGO_REDIS, "django_redis.cache.RedisCache"),
        (
            {**DJANGO_REDIS, "OPTIONS": {"CLIENT_CLASS": "django_redis.client.HerdClient"}},
            "django_redis.cache.RedisCache",
        ),
        (cache_from_url("redis+sentinel://s1,s2/mymaster"), "django_redis.cache.RedisCache"),
        (DJANGO_CACHE, "django.core.cache.backends.redis.RedisCache"),
        ({**DJANGO_CACHE, "BACKEND": f"{__name__}.OwnRedisCache"}, "django.core.cache.backends.redis.RedisCache"),
    ],
)
def test_the_cache_backends_the_store_takes(settings: Any, config: dict[str, Any], expected: str) -> None:
    settings.CACHES = {**settings.CACHES, "store": config}
    assert cache_backend("store") == expected
    assert redis_client_for_cache("store") is not None  # connects to nothing yet


def test_django_redis_sentinel_lends_its_primary(settings: Any) -> None:
    settings.CACHES = {**settings.CACHES, "store": cache_from_url("redis+sentinel://s1,s2:26380/mymaster/2")}
    pool = redis_client_for_cache("store").connection_pool
    assert isinstance(pool, SentinelConnectionPool) and pool.is_master and pool.service_name == "mymaster"


def test_djangos_cache_lends_its_first_server_where_it_writes(settings: Any) -> None:
    settings.CACHES = {**settings.CACHES, "store": DJANGO_CACHE}
    kwargs = redis_client_for_cache("store").connection_pool.connection_kwargs
    assert (kwargs["port"], kwargs["db"]) == (1, 4)


@pytest.mark.parametrize(
    ("caches", "reason"),
    [
        ({}, "'store' is not an alias of CACHES"),
        ({"store": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}, "is not a Redis cache"),
        ({"store": {"BACKEND": "no.such.Backend"}}, "cannot be imported"),
        ({"store": {**DJANGO_REDIS, "OPTIONS": {"CLIENT_CLASS": "django_redis.client.ShardClient"}}}, "ShardClient"),
    ],
)
def test_a_cache_the_store_cannot_use_says_why(settings: Any, caches: dict[str, Any], reason: str) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}, **caches}
    with pytest.raises(ValueError, match=reason):
        cache_backend("store")


def store_checks(**user_settings: Any) -> list[tuple[str, str]]:
    with override_settings(API_CONVENTIONS={"IDEMPOTENCY_STORE": "redis", **user_settings}):
        return [(m.id.rpartition(".")[2], m.msg) for m in idempotency_checks.check_idempotency_store()]


@override_settings(
    CACHES={
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "django": DJANGO_CACHE,
        "redis": DJANGO_REDIS,
    }
)
def test_the_check_accepts_each_supported_choice() -> None:
    assert store_checks(IDEMPOTENCY_CACHE="django") == []
    assert store_checks(IDEMPOTENCY_CACHE="redis") == []
    # The URL is used instead of the cache alias, which is then not checked.
    assert store_checks(IDEMPOTENCY_REDIS_URL="redis+cluster://n1,n2") == []


@override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}})
def test_the_check_refuses_a_cache_or_url_the_store_cannot_use() -> None:
    ((check_id, text),) = store_checks()
    assert check_id == "E003" and "is not a Redis cache the store can use" in text
    ((check_id, text),) = store_checks(IDEMPOTENCY_REDIS_URL=f"redis://:{SECRET}@h1,h2/0")
    assert check_id == "E003" and "several hosts" in text and SECRET not in text and "***" in text


def test_an_empty_url_is_refused_with_the_settings() -> None:
    with override_settings(API_CONVENTIONS={"IDEMPOTENCY_REDIS_URL": ""}):
        assert [m.id for m in checks.settings.check_settings()] == ["django_api_conventions.E003"]


def test_the_example_service_reads_each_form_of_redis_url() -> None:
    assert cache_from_url(None)["BACKEND"].endswith("LocMemCache")
    assert cache_from_url("redis://h:6379/1") == {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "redis://h:6379/1",
    }
    sentinel = cache_from_url(f"redis+sentinel://:{SECRET}@s1,s2:26380/mymaster/2?socket_timeout=1")
    assert sentinel["LOCATION"] == f"redis://:{SECRET}@mymaster/2"
    assert sentinel["OPTIONS"]["SENTINELS"] == [("s1", 26379), ("s2", 26380)]
    assert sentinel["OPTIONS"]["SOCKET_TIMEOUT"] == 1.0
    # A Cluster serves the idempotency store only: no Django cache speaks it.
    assert cache_from_url("redis+cluster://n1,n2")["BACKEND"].endswith("LocMemCache")
    assert idempotency_redis_url("redis+cluster://n1,n2") == "redis+cluster://n1,n2"
    assert idempotency_redis_url("redis://h") is None and idempotency_redis_url(None) is None
    assert (shared_cache("redis://h"), shared_cache("redis+cluster://n1"), shared_cache(None)) == (True, False, False)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("memcached://h", "the scheme must be one of"),
        (f"redis://:{SECRET}@h1,h2", "several hosts"),
        ("redis+sentinel://s1/MyMaster", "lower-cases the Sentinel service name"),
    ],
)
def test_the_example_service_refuses_a_redis_url_it_cannot_use(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as raised:
        cache_from_url(url)
    assert SECRET not in str(raised.value)


@pytest.mark.parametrize(
    "reply",
    [
        "unknown command 'EVALSHA', with args beginning with: 'abc' '1' 'key'",
        "NOREPLICAS Not enough good replicas to write. script: 6f1c, on @user_script:3.",
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
        "Wrong number of args calling Redis command from script script: 4034, on @user_script:1.",
    ],
)
def test_an_error_reply_means_the_server_cannot_serve_the_store(reply: str) -> None:
    """Whatever its text, which is never parsed: the store's commands are fixed and tested."""
    import logging

    from django_api_conventions.redis import CommandsRefused, refusals_as_unavailable

    with pytest.raises(CommandsRefused) as raised, refusals_as_unavailable(logging.getLogger("tests")):
        raise redis.ResponseError(reply)
    assert isinstance(raised.value.__cause__, redis.ResponseError)


def test_an_outage_is_not_a_refusal() -> None:
    import logging

    from django_api_conventions.redis import refusals_as_unavailable

    with pytest.raises(redis.ReadOnlyError), refusals_as_unavailable(logging.getLogger("tests")):
        raise redis.ReadOnlyError("READONLY You can't write against a read only replica.")


def test_an_acl_without_the_store_s_commands_is_unavailable() -> None:
    from django_api_conventions.redis import UNAVAILABLE_ERRORS

    assert issubclass(redis.exceptions.NoPermissionError, UNAVAILABLE_ERRORS)
