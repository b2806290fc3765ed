"""``manage.py maintenance on|off|status``: switch maintenance mode at run time."""

from __future__ import annotations

from argparse import ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...conf import SETTINGS_NAME, api_settings
from ...maintenance.switches import SWITCH_CACHE, read_switch, unshared_switch_cache, write_switch


class Command(BaseCommand):
    help = (
        "Switch maintenance mode on or off for every worker sharing the switch store "
        "(API_CONVENTIONS['MAINTENANCE_SWITCH_STORE']), or show its state."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["on", "off", "status"])
        parser.add_argument(
            "--retry-after",
            type=_positive_int,
            default=None,
            metavar="SECONDS",
            help="Retry-After sent while maintenance is on (default: MAINTENANCE_RETRY_AFTER).",
        )

    def handle(self, *args: Any, action: str, retry_after: int | None, **options: Any) -> None:
        local_cache = unshared_switch_cache()
        if local_cache is not None:
            # This command runs in a process of its own: a switch written to its private cache
            # dies with it, and reading one always says "off". Reporting success would be a lie.
            raise CommandError(
                f"The maintenance switch lives in the {local_cache} cache {SWITCH_CACHE!r} "
                f"({SETTINGS_NAME}['MAINTENANCE_SWITCH_STORE'] is 'cache'), which is private to each process: "
                "this command cannot reach the running server, and the server would never see the switch. "
                f"Set {SETTINGS_NAME}['MAINTENANCE_SWITCH_STORE'] = 'database' (after `migrate`), or point "
                f"CACHES[{SWITCH_CACHE!r}] at a cache every worker shares, such as Redis (check W007)."
            )
        try:
            if action != "status":
                write_switch(action == "on", retry_after)
            state = read_switch(strict=True)
        except Exception as exc:
            raise CommandError(f"The maintenance switch store cannot be used: {exc}") from exc
        store = api_settings.MAINTENANCE_SWITCH_STORE
        line = f"maintenance: {'on' if state.enabled else 'off'} (store: {store}"
        line += f", Retry-After: {state.retry_after}s)" if state.enabled else ")"
        if api_settings.MAINTENANCE_MODE:
            line += "; the MAINTENANCE_MODE setting keeps it on regardless"
        self.stdout.write(line)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ArgumentTypeError(f"must be at least 1, not {value}")
    return value
