"""``manage.py idempotency_purge``: delete expired idempotency records in batches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ...conf import api_settings
from ...idempotency.stores import get_store


class Command(BaseCommand):
    help = "Delete idempotency records whose retention and lease have both passed. Run it from cron."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=1000, help="Records deleted per statement.")
        parser.add_argument("--dry-run", action="store_true", help="Count what would be deleted; delete nothing.")

    def handle(self, *args: Any, batch_size: int, dry_run: bool, **options: Any) -> None:
        store = get_store()
        count = store.purge(batch_size=max(1, batch_size), dry_run=dry_run)
        name = api_settings.IDEMPOTENCY_STORE
        if not store.transactional and count == 0:
            self.stdout.write(f"{name} store: records expire on their own; nothing to purge.")
        elif dry_run:
            self.stdout.write(f"{name} store: {count} expired record(s) would be deleted.")
        else:
            self.stdout.write(f"{name} store: {count} expired record(s) deleted.")
