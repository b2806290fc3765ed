"""``python -m testproject seed_demo``: demo users, invoices, payments and orders, once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from testproject.billing.models import Customer, Invoice, Order, Payment

USERS = [
    ("ada@example.com", "Ada Lovelace"),
    ("grace@example.com", "Grace Hopper"),
    ("alan@example.com", "Alan Turing"),
    ("edsger@example.com", "Edsger Dijkstra"),
]


class Command(BaseCommand):
    help = "Seed the example service with demo data, unless it already has users (safe to run again)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--invoices-per-user",
            type=int,
            default=12,
            help="Invoices per demo user (default 12: enough for two pages at limit=20).",
        )

    def handle(self, *args: Any, invoices_per_user: int, **options: Any) -> None:
        if Customer.objects.exists():
            self.stdout.write("Demo data: the database already has users; nothing seeded.")
            return
        start = timezone.now() - timedelta(days=30)
        statuses = [Invoice.Status.OPEN, Invoice.Status.PAID, Invoice.Status.DRAFT, Invoice.Status.VOID]
        with transaction.atomic():
            for index, (email, name) in enumerate(USERS):
                user = Customer.objects.create(email=email, name=name, created_at=start + timedelta(hours=index))
                for number in range(invoices_per_user):
                    moment = start + timedelta(days=number * 2, hours=index)
                    status = statuses[(index + number) % len(statuses)]
                    invoice = Invoice.objects.create(
                        user=user, status=status, amount_due=1000 + 250 * number, currency="eur", created_at=moment
                    )
                    if status == Invoice.Status.PAID:
                        Payment.objects.create(
                            invoice=invoice,
                            amount=invoice.amount_due,
                            currency="eur",
                            created_at=moment + timedelta(hours=1),
                        )
                Order.objects.create(user=user, status=Order.Status.PENDING, created_at=start + timedelta(days=index))
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data: {len(USERS)} users, {len(USERS) * invoices_per_user} invoices, with payments and orders."
            )
        )
