"""Maintenance mode: 503 with ``Retry-After`` while a static setting or a run-time switch is on."""

from .middleware import MaintenanceModeMiddleware, maintenance_exempt
from .switches import MaintenanceState, read_switch, write_switch

__all__ = ["MaintenanceModeMiddleware", "MaintenanceState", "maintenance_exempt", "read_switch", "write_switch"]
