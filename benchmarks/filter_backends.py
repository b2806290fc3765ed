"""What the strict filter backend costs a list against django-filter's own backend
(``--only filters``).

One invoice list behind a django-filter ``FilterSet`` of 50 filters (``filter_views.py``),
served through ``StrictFilterBackend`` and through ``DjangoFilterBackend`` (the same view,
queryset, serializer, paginator and FilterSet), requested through Django's test client under
typical queries: none, one, two and three filters, django-filter's ``null`` value; each query
on both lists, in a new random order request by request (``stats.alternate``). A bad value
(refused by both) is timed beside them and left out of the ratio. The two lists must answer the
same pages.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from . import services
from .stats import alternate, ratio, summary, warm_up

#: The typical queries, name -> (parameter, value) pairs; a pair repeated is a repeated parameter.
QUERIES: dict[str, list[tuple[str, str]]] = {
    "no filter": [],
    "1 filter": [("status", "open")],
    "2 filters": [("user_id", "usr_bf_007"), ("created_at__gte", "2026-01-01T00:00:00Z")],
    "3 filters": [
        ("status__in", "open"),
        ("status__in", "paid"),
        ("amount_due__gte", "1000"),
        ("user__name__ic", "customer 0"),
    ],
    "null value": [("user_id", "null")],
}
#: A value the filter refuses, timed apart from the ratio: a 400 problem from the strict backend,
#: django-filter's ValidationError (a 422 problem through the package's exception handler).
BAD_QUERY = ("bad value (refused)", [("amount_due__gt", "lots")])
BACKENDS = ("strict", "django_filter")
TARGET = 1.05
CUSTOMERS = 50
STATUSES = ("draft", "open", "paid", "void")
CURRENCIES = ("eur", "usd", "gbp", "chf")


def run(plan: Any, base_postgres: str | None, profile: bool = False) -> dict[str, Any]:
    """The scenario on PostgreSQL if given (database ``<name>_filters``, kept between runs),
    and on SQLite when the plan has it and no servers (the smoke run)."""
    databases: list[tuple[str, str]] = []
    if base_postgres:
        url = services.postgres_url(base_postgres, "filters")
        assert url is not None
        services.create_database(url, recreate=False)
        databases.append(("postgresql", url))
    if "sqlite" in plan.backends and not plan.http:
        databases.append(("sqlite", services.sqlite_url(plan.sqlite_file("filters"))))
    out: dict[str, Any] = {}
    for vendor, url in databases:
        profile_path = str(services.WORK_DIR / f"profile-filters-{vendor}.txt") if profile else None
        raw = services.run_task(
            "filter_backends",
            {
                "rows": plan.filter_rows,
                "requests": plan.filter_requests,
                "profile": profile_path,
            },
            services.task_environment(DATABASE_URL=url),
        )
        out[vendor] = {
            "rows": plan.filter_rows,
            "filters": raw["filters"],
            "same_answers": raw["same_answers"],
            "scenarios": {name: summary(samples) for name, samples in raw["samples_ms"].items()},
            "cpu": {name: summary(samples) for name, samples in raw["cpu_ms"].items()},
            "statuses": raw["statuses"],
            "profile": profile_path,
        }
    return out


def scenario_name(backend: str, query: str) -> str:
    return f"{backend}: {query}"


# --- inside Django (python -m benchmarks.tasks filter_backends ...) -------------------------------


def filter_backends_task(rows: int, requests: int, profile: str | None = None) -> dict[str, Any]:
    from django.test import Client

    from .database import migrate
    from .filter_views import PATHS, InvoiceFilterSet

    # Each refused request would log a warning: thousands of lines on the terminal.
    logging.getLogger("django.request").setLevel(logging.ERROR)
    migrate()
    build_invoices(rows)
    client = Client()
    queries = {**QUERIES, BAD_QUERY[0]: BAD_QUERY[1]}

    def request(backend: str, pairs: list[tuple[str, str]]) -> Callable[[], Any]:
        url = f"/{PATHS[backend]}" + (f"?{urlencode(pairs)}" if pairs else "")
        return lambda: client.get(url)

    calls = {
        scenario_name(backend, query): request(backend, pairs)
        for query, pairs in queries.items()
        for backend in BACKENDS
    }
    same = {
        query: _same_page(calls[scenario_name("strict", query)](), calls[scenario_name("django_filter", query)]())
        for query in QUERIES
    }
    scenarios = {name: (lambda call=call: call().status_code) for name, call in calls.items()}
    warm_up(scenarios)
    measured = alternate(scenarios, requests)
    if profile:
        _profile(calls, profile)
    return {**measured, "same_answers": same, "filters": len(InvoiceFilterSet.base_filters)}


def _same_page(strict: Any, plain: Any) -> bool:
    """Both lists answered 200 with the same rows."""
    if strict.status_code != 200 or plain.status_code != 200:
        return False
    return bool(strict.json()["data"] == plain.json()["data"])


def build_invoices(rows: int) -> None:
    """``CUSTOMERS`` customers and ``rows`` invoices, a payment on every fifth; kept when the
    tables already hold this dataset."""
    from django.db import connection, transaction

    from testproject.billing.models import Customer, Invoice, Payment

    label = f"bench filters rows={rows}"
    if Customer.objects.filter(id="usr_bf_marker", name=label).exists():
        return
    generator = random.Random(7)
    base = datetime(2025, 6, 1, tzinfo=UTC)
    with transaction.atomic():
        # Only this scenario's rows: the smoke run shares one SQLite file with the other parts.
        ours = Customer.objects.filter(id__startswith="usr_bf_")
        Payment.objects.filter(invoice__user__in=ours).delete()
        Invoice.all_objects.filter(user__in=ours).hard_delete()
        ours.delete()
        customers = [
            Customer(
                id=f"usr_bf_{index:03d}",
                email=f"c{index:03d}@example.com",
                name=f"Customer {index:03d}",
                created_at=base,
            )
            for index in range(CUSTOMERS)
        ]
        Customer.objects.bulk_create(
            [*customers, Customer(id="usr_bf_marker", email="marker@example.com", name=label, created_at=base)]
        )
        invoices = [
            Invoice(
                id=f"inv_{generator.getrandbits(80):020x}",
                user=customers[index % CUSTOMERS],
                status=STATUSES[index % len(STATUSES)],
                amount_due=generator.randrange(100_000),
                currency=CURRENCIES[index % len(CURRENCIES)],
                created_at=base + timedelta(minutes=index * 600_000 // max(rows, 1)),
            )
            for index in range(rows)
        ]
        Invoice.all_objects.bulk_create(invoices, batch_size=5_000)
        Payment.objects.bulk_create(
            [
                Payment(
                    payment_id=f"pay_{index:020d}",
                    invoice=invoice,
                    amount=1,
                    currency=invoice.currency,
                    created_at=invoice.created_at,
                )
                for index, invoice in enumerate(invoices[::5])
            ],
            batch_size=5_000,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE" if connection.vendor == "sqlite" else "VACUUM ANALYZE")


def _profile(calls: dict[str, Callable[[], Any]], path: str, rounds: int = 50) -> None:
    """cProfile of each list under the typical queries, the two backends' requests interleaved
    (so a busy machine weighs on both alike): each one's top functions by own time, then the
    functions the strict list calls more often than django-filter's, per request. Call counts
    do not depend on the machine's load; cProfile's times inflate call-heavy code."""
    import cProfile
    import io
    import pstats

    profilers = {backend: cProfile.Profile() for backend in BACKENDS}
    order = list(BACKENDS)
    for _ in range(rounds):
        for query in QUERIES:
            order.reverse()
            for backend in order:
                profilers[backend].enable()
                calls[scenario_name(backend, query)]()
                profilers[backend].disable()
    requests = rounds * len(QUERIES)
    stats = {backend: pstats.Stats(profiler) for backend, profiler in profilers.items()}
    with open(path, "w") as handle:
        for backend, one in stats.items():
            text = io.StringIO()
            one.stream = text  # type: ignore[attr-defined]
            one.sort_stats("tottime").print_stats(30)
            handle.write(
                f"=== {backend}: {requests} requests, {one.total_calls / requests:,.0f} calls "  # type: ignore[attr-defined]
                f"a request, by own time\n{text.getvalue()}\n"
            )
        handle.write(f"=== calls a request, strict - django-filter (per request, over {requests})\n")
        handle.write(_call_differences(stats["strict"], stats["django_filter"], requests))


def _call_differences(strict: Any, plain: Any, requests: int, rows: int = 40) -> str:
    """The functions whose calls a request differ most between the two profiles, with the
    cumulative milliseconds a request of each (cProfile's, inflated alike in both)."""
    ours, theirs = strict.stats, plain.stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
    lines = []
    for key in set(ours) | set(theirs):
        mine, other = ours.get(key, (0, 0, 0.0, 0.0, {})), theirs.get(key, (0, 0, 0.0, 0.0, {}))
        extra = (mine[1] - other[1]) / requests
        if extra:
            lines.append((extra, key, mine[3] * 1000 / requests, other[3] * 1000 / requests))
    lines.sort(key=lambda line: -abs(line[0]))
    out = [f"{'calls +/-':>10} {'cum ms strict':>14} {'cum ms d-f':>11}  function"]
    for extra, (file, line, name), mine_ms, other_ms in lines[:rows]:
        out.append(f"{extra:>+10.1f} {mine_ms:>14.3f} {other_ms:>11.3f}  {file}:{line}({name})")
    return "\n".join(out) + "\n"


# --- the table and the targets ------------------------------------------------------------------


def mix(data: dict[str, Any], key: str, backend: str) -> float:
    """The sum of the medians over the typical queries: what the mix of them costs."""
    series = data["scenarios"] if key == "wall" else data["cpu"]
    return sum(series[scenario_name(backend, query)]["p50_ms"] for query in QUERIES)


def tables(results: dict[str, Any]) -> list[str]:
    from .tables import format_ms as ms
    from .tables import format_ratio as x
    from .tables import text_table as table

    found = []
    for vendor, data in results.get("filters", {}).items():
        rows = []
        for query in [*QUERIES, BAD_QUERY[0]]:
            strict, plain = (data["scenarios"][scenario_name(b, query)] for b in BACKENDS)
            strict_cpu, plain_cpu = (data["cpu"][scenario_name(b, query)] for b in BACKENDS)
            statuses = " / ".join(
                ", ".join(
                    f"{status}: {count}" for status, count in sorted(data["statuses"][scenario_name(b, query)].items())
                )
                for b in BACKENDS
            )
            rows.append(
                [
                    query,
                    ms(strict["p50_ms"]),
                    ms(plain["p50_ms"]),
                    x(ratio(strict["p50_ms"], plain["p50_ms"])),
                    ms(strict["p99_ms"]),
                    ms(plain["p99_ms"]),
                    ms(strict_cpu["p50_ms"]),
                    ms(plain_cpu["p50_ms"]),
                    x(ratio(strict_cpu["p50_ms"], plain_cpu["p50_ms"])),
                    str(strict["n"]),
                    statuses,
                    {True: "yes", False: "NO"}.get(data["same_answers"].get(query), "-"),
                ]
            )
        found.append(
            table(
                f"A list behind a django-filter FilterSet of {data['filters']} filters on {vendor}, {data['rows']:,} "
                "invoices: StrictFilterBackend (strict) against DjangoFilterBackend (django-filter), "
                "same view and paginator, alternating requests (Django test client)",
                [
                    "query",
                    "strict p50 ms",
                    "django-filter p50",
                    "ratio",
                    "strict p99",
                    "django-filter p99",
                    "strict CPU p50",
                    "django-filter CPU p50",
                    "CPU ratio",
                    "requests",
                    "answers (strict / django-filter)",
                    "same page",
                ],
                rows,
            )
        )
    return found


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for vendor, data in results.get("filters", {}).items():
        for key, label in (("wall", ""), ("cpu", ", CPU")):
            strict, plain = mix(data, key, "strict"), mix(data, key, "django_filter")
            value = ratio(strict, plain)
            found.append(
                {
                    "target": f"{vendor}: {data['filters']}-filter list, strict backend / DjangoFilterBackend "
                    f"(p50 sum of {len(QUERIES)} queries{label})",
                    "value": f"{value:.2f} ({strict:.2f} / {plain:.2f} ms)",
                    "limit": f"<= {TARGET}",
                    "met": bool(value <= TARGET),
                }
            )
        same = all(data["same_answers"].values())
        found.append(
            {
                "target": f"{vendor}: strict backend and DjangoFilterBackend answer the same pages",
                "value": "yes" if same else "no",
                "limit": "yes",
                "met": same,
            }
        )
    return found
