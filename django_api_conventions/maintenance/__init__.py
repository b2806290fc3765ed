"""Maintenance mode: 503 with ``Retry-After`` while a static setting or a run-time switch is on."""

from .middleware import MaintenanceModeMiddleware, maintenance_exempt
from .switches import SWITCH_POLL_SECONDS, MaintenanceState, read_switch, write_switch

__all__ = [
    "SWITCH_POLL_SECONDS",
    "MaintenanceModeMiddleware",
    "MaintenanceState",
    "maintenance_exempt",
    "read_switch",
    "write_switch",
]
