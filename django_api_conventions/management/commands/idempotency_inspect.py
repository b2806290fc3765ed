"""``manage.py idempotency_inspect SCOPE KEY``: the state of one idempotency key."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...idempotency.stores import get_store


class Command(BaseCommand):
    help = "Show the state of one idempotency key of one client (scope), e.g. 'client:acme' 'order-42'."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("scope", help="Whose key: the client id, e.g. 'user:7' or 'client:acme'.")
        parser.add_argument("key", help="The Idempotency-Key value.")

    def handle(self, *args: Any, scope: str, key: str, **options: Any) -> None:
        record = get_store().inspect(scope, key)
        if record is None:
            raise CommandError(f"No idempotency record for key {key!r} in scope {scope!r}.")
        lines = {
            "state": record.state,
            "fingerprint": record.fingerprint,
            "response status": record.response_status if record.response_status is not None else "-",
            "lease expires": record.lease_expires_at,
            "record expires": record.expires_at,
            **record.extra,
        }
        for label, value in lines.items():
            self.stdout.write(f"{label:>16}: {value}")
