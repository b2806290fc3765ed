"""The parts of the benchmark that run inside Django, one subprocess per database and store.

``python -m benchmarks.tasks NAME ARGS_JSON OUTPUT_JSON`` with ``DJANGO_SETTINGS_MODULE`` set to
``benchmarks.settings`` and ``DATABASE_URL`` / ``REDIS_URL`` / ``IDEMPOTENCY_STORE`` naming what
to run on. The orchestrator (:mod:`benchmarks.cli`) never imports Django settings itself, so each
task sees exactly the configuration a server would.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import uuid
from base64 import b64encode
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import django

from .database import BENCH_USER, migrate, prepare_idempotency
from .filter_backends import filter_backends_task
from .floor_budget import floor_round_trips
from .purge import purge
from .replica_wait import replica_wait_task
from .stats import alternate, warm_up

SQLITE_LOAD_BATCH = 50_000


def main(argv: list[str]) -> int:
    name, raw_args, output = argv
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")
    django.setup()
    result = TASKS[name](**json.loads(raw_args))
    with open(output, "w") as handle:
        json.dump(result, handle, default=str)
    return 0


# --- idempotency -----------------------------------------------------------------------------


def prepare_payments() -> dict[str, Any]:
    """The invoice the payment modes pay, a cent at a time: never paid up, whatever the run's length."""
    from testproject.billing.models import Customer, Invoice

    from .http_load import BENCH_INVOICE

    user = Customer.objects.get(id=BENCH_USER)
    Invoice.objects.get_or_create(id=BENCH_INVOICE, defaults={"user": user, "amount_due": 10**15, "currency": "eur"})
    return {"invoice": BENCH_INVOICE}


def count_orders(user_ids: list[str]) -> dict[str, int]:
    from django.db.models import Count

    from testproject.billing.models import Order

    counts = dict(Order.objects.filter(user_id__in=user_ids).values_list("user_id").annotate(n=Count("id")))
    return {user: counts.get(user, 0) for user in user_ids}


def inprocess_idempotency(rounds: int, requests_per_round: int, profile: str | None = None) -> dict[str, Any]:
    """POST without a key, with a fresh key, and a replay, through Django's test client: what
    the package's Python costs without a network or a second process in between."""
    from django.test import Client

    prepare_idempotency([])
    client = Client()
    body = json.dumps({"user_id": BENCH_USER})
    run = uuid.uuid4().hex[:8]
    counter = iter(range(10**9))

    def post(key: str | None, path: str = "/v2/orders") -> int:
        headers = {"HTTP_X_CLIENT_ID": "bench-inprocess"}
        if key is not None:
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        return client.post(path, data=body, content_type="application/json", **headers).status_code

    replay_key = f"replay-{run}"
    assert post(replay_key) == 201
    scenarios: dict[str, Callable[[], int]] = {
        "plain": lambda: post(None),
        "fresh_key": lambda: post(f"fresh-{run}-{next(counter)}"),
        "replay": lambda: post(replay_key),
        # The protocol's minimum written by hand, beside them (benchmarks/floor_views.py).
        **floor_scenarios(post, body, run, counter),
    }
    warm_up(scenarios)
    profiler = _start_profiler(profile)
    measured = alternate(scenarios, rounds * requests_per_round)
    _stop_profiler(profiler, profile)
    return measured


def floor_scenarios(post: Callable[[str, str], int], body: str, run: str, counter: Any) -> dict[str, Callable[[], int]]:
    """``floor_fresh`` and ``floor_replay``, sent by ``post(key, path)`` as the other scenarios
    are, the replay's key resolved first."""
    from . import floor_views

    replay_key = f"floor-replay-{run}"
    assert floor_views.prepare_replay(replay_key, body) == 201
    return {
        "floor_fresh": lambda: post(f"floor-{run}-{next(counter)}", floor_views.FRESH_PATH),
        "floor_replay": lambda: post(replay_key, floor_views.REPLAY_PATH),
    }


def prepare_floor_replay(key: str) -> dict[str, Any]:
    """The record ``floor_replay`` reads over HTTP, resolved through ``floor_fresh``."""
    from . import floor_views

    return {"status": floor_views.prepare_replay(key, json.dumps({"user_id": BENCH_USER}))}


def floor_answers(key: str) -> dict[str, Any]:
    """What the floors answer (tests/test_benchmarks.py): ``key`` was resolved by ``floor_fresh``."""
    from django.test import Client

    from . import floor_views

    client = Client()
    body = json.dumps({"user_id": BENCH_USER})

    def post(path: str, key: str, data: str = body) -> Any:
        return client.post(path, data=data, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)

    fresh = post(floor_views.FRESH_PATH, f"floor-answers-{uuid.uuid4().hex}")
    replay = post(floor_views.REPLAY_PATH, key)
    other = json.dumps({"user_id": "usr_other"})
    return {
        "fresh": fresh.status_code,
        "replay": replay.status_code,
        "same_bytes": replay.content == post(floor_views.REPLAY_PATH, key).content and b'"id":"ord_' in replay.content,
        "first_headers": [fresh.get("X-Cache-Lookup"), fresh.get("Idempotent-Replayed")],
        "replayed_headers": [replay.get("X-Cache-Lookup"), replay.get("Idempotent-Replayed")],
        "held": post(floor_views.FRESH_PATH, key).status_code,
        "other_body": post(floor_views.REPLAY_PATH, key, other).status_code,
        "unknown_key": post(floor_views.REPLAY_PATH, f"never-{uuid.uuid4().hex}").status_code,
    }


def _start_profiler(path: str | None) -> Any:
    if not path:
        return None
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    profiler.start()
    return profiler


def _stop_profiler(profiler: Any, path: str | None) -> None:
    if profiler is None or not path:
        return
    profiler.stop()
    with open(path, "w") as handle:
        handle.write(profiler.output_text(unicode=False, color=False, show_all=False))


# --- pagination ------------------------------------------------------------------------------


def pagination(
    rows: int,
    depths: list[int],
    rounds: int,
    tie_group: int | None = None,
    walk: bool = False,
    rebuild: bool = False,
    profile: str | None = None,
) -> dict[str, Any]:
    """Build ``rows`` orders (``tie_group`` rows per ``created_at`` if given), then time a page
    at each depth through each paginator, or (``walk``) walk every page and count duplicates and
    skips."""
    from django.db import connection

    migrate()
    started = time.perf_counter()
    built = build_orders(rows, tie_group=tie_group, rebuild=rebuild)
    result: dict[str, Any] = {
        "vendor": connection.vendor,
        "rows": rows,
        "tie_group": tie_group,
        "build_seconds": round(time.perf_counter() - started, 1),
        "built": built,
    }
    if walk:
        result["walks"] = {name: walk_all_pages(name, rows) for name in WALKS}
    else:
        result.update(time_pages(depths, rounds))
        if profile:
            profile_pages(depths, rounds, profile)
        result["counts"] = time_counts(rounds)
    return result


def build_orders(rows: int, *, tie_group: int | None, rebuild: bool) -> bool:
    """Fill the orders table in bulk (COPY on PostgreSQL, batched executemany on SQLite); keep
    a table that already holds this dataset unless ``rebuild``."""
    from django.db import connection, transaction

    from testproject.billing.models import Customer, Order

    label = f"bench rows={rows} tie_group={tie_group}"
    marker = Customer.objects.filter(id=BENCH_USER).values_list("name", flat=True).first()
    if not rebuild and marker == label and Order.objects.count() == rows:
        return False
    table = Order._meta.db_table
    base = datetime(2026, 1, 1, tzinfo=UTC)
    generator = random.Random(7)

    def created_at(index: int) -> datetime:
        step = index // tie_group * 1000 if tie_group else index
        return base + timedelta(milliseconds=step)

    with transaction.atomic():
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(f"TRUNCATE {table}")
            else:
                cursor.execute(f"DELETE FROM {table}")
        Customer.objects.filter(id=BENCH_USER).delete()
        Customer.objects.create(id=BENCH_USER, email="bench@example.com", name=label)
        ids = (f"ord_{generator.getrandbits(80):020x}" for _ in range(rows))
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                copy_sql = f"COPY {table} (id, user_id, status, created_at) FROM STDIN"
                with cursor.cursor.copy(copy_sql) as copy:
                    for index, order_id in enumerate(ids):
                        copy.write_row((order_id, BENCH_USER, "pending", created_at(index)))
        else:
            insert = f"INSERT INTO {table} (id, user_id, status, created_at) VALUES (?, ?, ?, ?)"
            raw = connection.connection
            batch: list[tuple[str, str, str, str]] = []
            for index, order_id in enumerate(ids):
                # Django's own SQLite spelling of an aware UTC datetime, so lookups compare equal.
                batch.append((order_id, BENCH_USER, "pending", str(created_at(index).replace(tzinfo=None))))
                if len(batch) == SQLITE_LOAD_BATCH:
                    raw.executemany(insert, batch)
                    batch.clear()
            raw.executemany(insert, batch)
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}" if connection.vendor == "postgresql" else "ANALYZE")
    return True


#: Pages timed at each depth: the package's keyset forward, the same page reached backwards (a
#: previous cursor), the keyset with a declared sort (oldest first), and DRF's two paginators;
#: then the keyset list with a filter (``?status=pending``, every row) and its search (``POST
#: .../search`` with ``{"any": [{"status": "pending"}]}``), the same rows.
PAGINATORS = ("keyset", "keyset_back", "keyset_sorted", "cursor", "limitoffset", "keyset_filtered", "search")
#: The filter of ``keyset_filtered`` and ``search``, and the search's body.
SEARCH_FILTER = {"status": "pending"}
#: Full walks over tie groups: the two baselines, the keyset forward, then back from its last
#: page, a declared sort forward then back, and the search forward.
WALKS = ("keyset", "keyset_back", "keyset_sorted", "cursor", "limitoffset", "search")
PAGE_SIZE = 20


def page_url(name: str, depth: int) -> str:
    """The URL of the page that starts after ``depth`` rows, as a client would hold it: for
    ``keyset_back``, the previous cursor of the page after it. (Not the search's: a POST.)"""
    method, url, body = page_request(name, depth)
    assert method == "GET" and body is None, name
    return url


def page_request(name: str, depth: int) -> tuple[str, str, str | None]:
    """The method, URL and JSON body of the page that starts after ``depth`` rows, as a client
    would send it: for ``keyset_back``, the previous cursor of the page after it; for the
    search, a POST whose body holds the filter, the cursor and no limit (the list's default)."""
    from django.urls import resolve

    from testproject.billing.models import Order

    view = "keyset" if name == "keyset_back" else name
    path = "/bench/keyset_filtered/search" if name == "search" else f"/bench/{view}"
    queries = {"keyset_sorted": {"sort": "created_at"}, "keyset_filtered": SEARCH_FILTER}
    query = dict(queries.get(name, {}))

    def request(extra: dict[str, str]) -> tuple[str, str, str | None]:
        if name == "search":
            return "POST", path, json.dumps({"any": [SEARCH_FILTER], **extra})
        parameters = {**query, **extra}
        return "GET", f"{path}?{urlencode(parameters)}" if parameters else path, None

    if name == "keyset_back":
        # The page before the row at depth + PAGE_SIZE: rows depth .. depth + PAGE_SIZE - 1.
        position, direction = depth + PAGE_SIZE, "previous"
    elif depth == 0:
        return request({})
    else:
        position, direction = depth - 1, "next"
    if name == "limitoffset":
        return request({"offset": str(depth)})
    sort = query.get("sort")
    ordering_fields = ("created_at", "id") if sort else ("-created_at", "-id")
    created_at, order_id = Order.objects.order_by(*ordering_fields).values_list("created_at", "id")[position]
    if name == "cursor":
        # DRF's own cursor spelling: the last row's position, offset 0 (timestamps are unique here).
        return request({"cursor": b64encode(urlencode({"p": str(created_at)}).encode("ascii")).decode("ascii")})
    from django_api_conventions.pagination.cursors import Cursor, encode_cursor, filters_signature

    from .pagination_views import PAGINATED_VIEWS, NewestFirst

    paginator = PAGINATED_VIEWS[view].pagination_class() if view in PAGINATED_VIEWS else NewestFirst()
    ordering = paginator.get_ordering(Order, sort)
    endpoint = f"{resolve(path).view_name}:{path}"
    # What the cursor is bound to: the filters StrictFilterBackend validated, or the search's.
    filters = {"any": [SEARCH_FILTER]} if name == "search" else SEARCH_FILTER if name == "keyset_filtered" else {}
    cursor = Cursor((created_at, order_id), ordering, endpoint, filters_signature(filters), direction, sort)
    return request({"cursor": encode_cursor(cursor)})


def send(client: Any, request: tuple[str, str, str | None]) -> Any:
    method, url, body = request
    if method == "POST":
        return client.post(url, data=body, content_type="application/json")
    return client.get(url)


def time_pages(depths: list[int], rounds: int) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from testproject.billing.models import Order

    client = Client()
    urls = {(name, depth): page_request(name, depth) for name in PAGINATORS for depth in depths}
    queries: dict[str, dict[int, int]] = {name: {} for name in PAGINATORS}
    deepest_sql = ""
    for (name, depth), url in urls.items():
        with CaptureQueriesContext(connection) as captured:
            response = send(client, url)
        assert response.status_code == 200, (url, response.status_code, response.content[:300])
        body = response.json()
        page = body["data"] if "data" in body else body["results"]
        assert len(page) == PAGE_SIZE, (url, len(page))
        # The page's own queries: not BEGIN/COMMIT of ATOMIC_REQUESTS, not the maintenance switch.
        own = [query["sql"] for query in captured.captured_queries if Order._meta.db_table in query["sql"]]
        queries[name][depth] = len(own)
        if name == "keyset" and depth == max(depths):
            deepest_sql = own[-1]
    samples: dict[str, dict[int, list[float]]] = {name: {depth: [] for depth in depths} for name in PAGINATORS}
    # The CPU time of this thread (the test client, the paginator, SQLite; not PostgreSQL's
    # process): what a page costs in Python, which a shared machine's load hardly moves.
    cpu: dict[str, dict[int, list[float]]] = {name: {depth: [] for depth in depths} for name in PAGINATORS}
    keys = list(urls)
    for round_number in range(rounds):
        random.Random(round_number).shuffle(keys)
        for name, depth in keys:
            started, cpu_started = time.perf_counter(), time.thread_time()
            send(client, urls[name, depth])
            samples[name][depth].append((time.perf_counter() - started) * 1000)
            cpu[name][depth].append((time.thread_time() - cpu_started) * 1000)
    return {
        "samples_ms": samples,
        "cpu_ms": cpu,
        "queries": queries,
        "deepest_keyset_sql": deepest_sql,
        "deepest_keyset_plan": explain(deepest_sql),
    }


#: The pages profiled with --profile: the list's first page, its page at the deepest depth, and
#: DRF's CursorPagination page at that depth; the declared sort's and the search's first and
#: deepest pages.
PROFILED_PAGES = (
    ("keyset", "first"),
    ("keyset", "deepest"),
    ("cursor", "deepest"),
    ("keyset_sorted", "first"),
    ("keyset_sorted", "deepest"),
    ("search", "first"),
    ("search", "deepest"),
)


def profile_pages(depths: list[int], rounds: int, prefix: str) -> None:
    """A pyinstrument profile of each of :data:`PROFILED_PAGES`, requested ``rounds`` * 20
    times in a row, written to ``<prefix>-<paginator>-<page>.txt``."""
    from django.test import Client

    client = Client()
    for name, page in PROFILED_PAGES:
        request = page_request(name, depths[0] if page == "first" else max(depths))
        for _ in range(20):  # warm
            send(client, request)
        path = f"{prefix}-{name}-{page}.txt"
        profiler = _start_profiler(path)
        for _ in range(rounds * 20):
            send(client, request)
        _stop_profiler(profiler, path)


#: First pages with a total: none (the keyset as it is), a capped count, the planner's estimate,
#: and DRF's LimitOffsetPagination, whose first page counts every row.
COUNTED = ("keyset", "keyset_capped", "keyset_estimate", "limitoffset")


def time_counts(rounds: int) -> dict[str, Any]:
    """The first page of each list of :data:`COUNTED`, alternating: what a total costs."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from testproject.billing.models import Order

    client = Client()
    queries: dict[str, int] = {}
    totals: dict[str, Any] = {}
    for name in COUNTED:
        with CaptureQueriesContext(connection) as captured:
            body = client.get(f"/bench/{name}").json()
        queries[name] = len([q for q in captured.captured_queries if Order._meta.db_table in q["sql"]])
        totals[name] = {
            key: value
            for key, value in body.get("pagination", body).items()
            if key in ("total", "total_is_lower_bound", "total_is_estimate", "count")
        }
    samples: dict[str, list[float]] = {name: [] for name in COUNTED}
    names = list(COUNTED)
    for round_number in range(rounds):
        random.Random(round_number).shuffle(names)
        for name in names:
            started = time.perf_counter()
            client.get(f"/bench/{name}")
            samples[name].append((time.perf_counter() - started) * 1000)
    return {"samples_ms": samples, "queries": queries, "totals": totals}


def explain(sql: str) -> str:
    from django.db import connection

    if not sql:
        return ""
    prefix = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
    with connection.cursor() as cursor:
        cursor.execute(prefix + sql)
        return "\n".join(" ".join(str(column) for column in row) for row in cursor.fetchall())


def walk_all_pages(name: str, rows: int) -> dict[str, Any]:
    """Follow ``next`` from the first page to the last, 100 rows a page; count what repeats and
    what never came. ``keyset_back`` and ``keyset_sorted`` (oldest first) then walk back from
    the last page by ``previous_cursor``, and count on that walk, which must serve the pages of
    the walk forward in the same order (``same_pages``)."""
    from django.test import Client

    from testproject.billing.models import Order

    client = Client()
    view = "keyset" if name == "keyset_back" else name
    sort = {"sort": "created_at"} if name == "keyset_sorted" else {}
    # The search is a POST with the cursor in its body: there, url stands for the cursor ("" first).
    url: str | None = "" if name == "search" else f"/bench/{view}?{urlencode({**sort, 'limit': 100})}"
    forward: list[list[str]] = []
    visited: set[str] = set()
    loops = False
    started = time.perf_counter()
    body: dict[str, Any] = {}
    while url is not None and (url or not visited):
        if url in visited or sum(map(len, forward)) > 2 * rows:
            loops = True  # the paginator sent us back to a page it already served: it never ends
            break
        visited.add(url)
        if name == "search":
            search = {"any": [SEARCH_FILTER], "limit": 100, **({"cursor": url} if url else {})}
            body = send(client, ("POST", "/bench/keyset_filtered/search", json.dumps(search))).json()
            forward.append([row["id"] for row in body["data"]])
            url = body["pagination"]["next_cursor"]
            continue
        body = client.get(url).json()
        if view.startswith("keyset"):
            forward.append([row["id"] for row in body["data"]])
            cursor = body["pagination"]["next_cursor"]
            url = f"/bench/{view}?{urlencode({**sort, 'limit': 100, 'cursor': cursor})}" if cursor else None
        else:
            forward.append([row["id"] for row in body["results"]])
            url = _path_and_query(body["next"]) if body["next"] else None
    result: dict[str, Any] = {}
    pages = forward
    if name in ("keyset_back", "keyset_sorted") and not loops:
        back = [forward[-1]]
        cursor = body["pagination"]["previous_cursor"]
        while cursor and len(back) <= len(forward):
            body = client.get(f"/bench/{view}?{urlencode({**sort, 'limit': 100, 'cursor': cursor})}").json()
            back.insert(0, [row["id"] for row in body["data"]])
            cursor = body["pagination"]["previous_cursor"]
        result["same_pages"] = back == forward
        pages = back
    seen = [row for page in pages for row in page]
    everything = set(Order.objects.values_list("id", flat=True))
    distinct = set(seen)
    return {
        **result,
        "pages": len(pages),
        "rows_returned": len(seen),
        "duplicates": len(seen) - len(distinct),
        "skips": len(everything - distinct),
        "loops": loops,
        "seconds": round(time.perf_counter() - started, 2),
    }


def _path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


TASKS: dict[str, Callable[..., Any]] = {
    "prepare_idempotency": prepare_idempotency,
    "count_orders": count_orders,
    "prepare_payments": prepare_payments,
    "inprocess_idempotency": inprocess_idempotency,
    "prepare_floor_replay": prepare_floor_replay,
    "floor_answers": floor_answers,
    "floor_round_trips": floor_round_trips,
    "pagination": pagination,
    "purge": purge,
    "replica_wait": replica_wait_task,
    "filter_backends": filter_backends_task,
}

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
