"""Models of the package."""

from __future__ import annotations

from django.db import models

__all__ = ["IdempotencyRecord", "RuntimeSwitch"]


class RuntimeSwitch(models.Model):
    """A switch flipped at run time and seen by every worker (``MAINTENANCE_SWITCH_STORE = "database"``)."""

    name = models.CharField(max_length=64, unique=True)
    enabled = models.BooleanField(default=False)
    retry_after = models.PositiveIntegerField(default=300)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "runtime switch"
        verbose_name_plural = "runtime switches"

    def __str__(self) -> str:
        return f"{self.name}: {'on' if self.enabled else 'off'}"


class IdempotencyRecord(models.Model):
    """One idempotency key of one client (``scope``) in the database store: its claim, its lease,
    and once resolved its response."""

    class State(models.TextChoices):
        STARTED = "started"
        RESOLVED = "resolved"
        FAILED = "failed"

    scope = models.CharField(max_length=255)
    key = models.CharField(max_length=255)
    state = models.CharField(max_length=8, choices=State.choices)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request; never the request itself.")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    response_body = models.BinaryField(null=True, blank=True)
    lease_owner = models.CharField(max_length=32, blank=True)
    lease_expires_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "idempotency record"
        constraints = [models.UniqueConstraint(fields=["scope", "key"], name="idempotency_scope_key_unique")]
        indexes = [models.Index(fields=["expires_at"], name="idempotency_expires_at")]

    def __str__(self) -> str:
        return f"{self.scope} {self.key[:12]}… {self.state}"
