"""Models of the package."""

from __future__ import annotations

from django.db import models


class RuntimeSwitch(models.Model):
    """A switch flipped at run time and seen by every worker on every host (maintenance mode).

    Used when ``MAINTENANCE_SWITCH_STORE`` is ``"database"``.
    """

    name = models.CharField(max_length=64, unique=True)
    enabled = models.BooleanField(default=False)
    retry_after = models.PositiveIntegerField(default=300)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "runtime switch"

    def __str__(self) -> str:
        return f"{self.name}: {'on' if self.enabled else 'off'}"
