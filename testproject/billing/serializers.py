from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db.models import Value
from django.db.models.functions import Lower
from django.utils.translation import gettext
from rest_framework import serializers

from django_api_conventions.content.fields import StrictIntegerField
from django_api_conventions.versioning import OpenEnumField, RenamedField, RenamedFieldsMixin

from .models import Customer, Invoice, Order, Payment

_CURRENCY = re.compile(r"[a-z]{3}")
AMOUNT_DUE_GUIDE = f"{settings.MIGRATION_GUIDE}#amount-due"
# The largest amount a bigint column holds: a larger one is a 422, not a database overflow (500).
MAX_AMOUNT = 2**63 - 1


def validate_currency(value: str) -> str:
    if not _CURRENCY.fullmatch(value):
        raise serializers.ValidationError(
            gettext("Use a lower-case ISO 4217 code such as 'eur'."), code="invalid_currency"
        )
    return value


class CurrencyField(serializers.CharField):
    """A currency code exactly as sent: DRF's CharField trims white space by default, which would
    read " eur " and "eur\\n" as "eur"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, validators=[validate_currency], **kwargs)


class UserSerializer(serializers.ModelSerializer):
    class Meta:
        model = Customer
        fields = ["id", "email", "name", "created_at"]

    def validate_email(self, value: str) -> str:
        # Unique without regard to case, which the model's expression constraint cannot tell
        # DRF. Runs once the field's own validators passed (a NUL never reaches the query).
        # LOWER() on both sides, as in the constraint and served by its index: the database's
        # idea of case decides, not Python's. A racer that passes this check meets the
        # constraint, which the package answers 409.
        if Customer.objects.alias(email_lower=Lower("email")).filter(email_lower=Lower(Value(value))).exists():
            raise serializers.ValidationError(gettext("A user with this email already exists."), code="unique")
        return value


class InvoiceSerializer(RenamedFieldsMixin, serializers.ModelSerializer):
    user_id = serializers.PrimaryKeyRelatedField(source="user", queryset=Customer.objects.all())
    # Clients must tolerate new statuses: the stored value is sent as it is.
    status = OpenEnumField(choices=["draft", "open"], default="open")
    # Exactly as sent: 9.9999999999999999999, "1_000" or "١٢" is a 422, never 10, 1000 or 12.
    # total, its old name, is read through this field too (RenamedFieldsMixin).
    amount_due = StrictIntegerField(min_value=0, max_value=MAX_AMOUNT)
    currency = CurrencyField()
    # The old name of amount_due, returned and accepted until its sunset.
    total = RenamedField("amount_due", deprecation="2026-11-01", sunset="2027-06-01", migration_guide=AMOUNT_DUE_GUIDE)

    class Meta:
        model = Invoice
        fields = ["id", "user_id", "status", "amount_due", "total", "currency", "created_at"]


class PaymentSerializer(serializers.ModelSerializer):
    invoice_id = serializers.CharField(source="invoice.id", read_only=True)
    amount = StrictIntegerField(min_value=1, max_value=MAX_AMOUNT)
    currency = CurrencyField()

    class Meta:
        model = Payment
        fields = ["payment_id", "invoice_id", "amount", "currency", "status", "created_at"]
        read_only_fields = ["payment_id", "status", "created_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        invoice: Invoice = self.context["invoice"]
        if attrs["currency"] != invoice.currency:
            raise serializers.ValidationError(
                {"currency": gettext("The invoice is billed in {currency!r}.").format(currency=invoice.currency)},
                code="currency_mismatch",
            )
        if invoice.status not in (Invoice.Status.OPEN, Invoice.Status.DRAFT):
            raise serializers.ValidationError(
                gettext("The invoice is {status}; it takes no payment.").format(status=invoice.status),
                code="not_payable",
            )
        return attrs


class OrderSerializer(serializers.ModelSerializer):
    user_id = serializers.PrimaryKeyRelatedField(source="user", queryset=Customer.objects.all())

    class Meta:
        model = Order
        fields = ["id", "user_id", "status", "created_at"]
