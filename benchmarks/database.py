"""The database every benchmark task starts from: migrated, with the user the orders belong to.

The task modules (:mod:`.tasks` and the benchmarks it runs) share these; they import nothing back.
"""

from __future__ import annotations

from typing import Any

BENCH_USER = "usr_bench"


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def prepare_idempotency(duplicate_users: list[str]) -> dict[str, Any]:
    """Migrate, then create the user every benchmark order belongs to, and one user per
    duplicate-burst key (its orders count the executions of that key)."""
    from testproject.billing.models import Customer

    migrate()
    Customer.objects.get_or_create(id=BENCH_USER, defaults={"email": "bench@example.com", "name": "Bench"})
    Customer.objects.bulk_create(
        [Customer(id=user, email=f"{user}@example.com", name="Burst") for user in duplicate_users],
        ignore_conflicts=True,
    )
    return {"users": 1 + len(duplicate_users)}
