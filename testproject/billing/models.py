"""Users, invoices, payments and orders of the example billing service."""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from django_api_conventions.soft_delete.models import SoftDeleteModel


def _opaque_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(10)}"


def new_user_id() -> str:
    return _opaque_id("usr")


def new_invoice_id() -> str:
    return _opaque_id("inv")


def new_payment_id() -> str:
    return _opaque_id("pay")


def new_order_id() -> str:
    return _opaque_id("ord")


class Customer(models.Model):
    """A user of the billing service, served at ``/v2/users``."""

    id = models.CharField(primary_key=True, max_length=32, default=new_user_id, editable=False)
    # Unique without regard to case (the constraint below), stored as the client spelled it.
    email = models.EmailField()
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["-created_at", "-id"], name="customer_newest_first")]
        constraints = [models.UniqueConstraint(Lower("email"), name="customer_email_unique_ci")]

    def __str__(self) -> str:
        return self.email


class Invoice(SoftDeleteModel):
    class Status(models.TextChoices):
        DRAFT = "draft"
        OPEN = "open"
        PAID = "paid"
        VOID = "void"

    id = models.CharField(primary_key=True, max_length=32, default=new_invoice_id, editable=False)
    user = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="invoices")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    amount_due = models.PositiveBigIntegerField()
    currency = models.CharField(max_length=3)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        base_manager_name = "all_objects"
        indexes = [
            # Read forwards and backwards, each serves a declared sort in both directions.
            models.Index(fields=["-created_at", "-id"], name="invoice_newest_first"),
            models.Index(fields=["-amount_due", "-id"], name="invoice_amount_due"),
        ]

    def __str__(self) -> str:
        return self.id


class Payment(models.Model):
    payment_id = models.CharField(primary_key=True, max_length=32, default=new_payment_id, editable=False)
    invoice = models.ForeignKey(Invoice, on_delete=models.PROTECT, related_name="payments")
    amount = models.PositiveBigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, default="succeeded")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["invoice", "-created_at", "-payment_id"], name="payment_newest_first")]

    def __str__(self) -> str:
        return self.payment_id


class Order(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        SHIPPED = "shipped"
        CANCELLED = "cancelled"

    id = models.CharField(primary_key=True, max_length=32, default=new_order_id, editable=False)
    user = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["-created_at", "-id"], name="order_newest_first")]

    def __str__(self) -> str:
        return self.id
