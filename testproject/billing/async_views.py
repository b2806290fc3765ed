"""The payment endpoint as an adrf async viewset: ``IdempotencyMixin`` on an async view."""

from __future__ import annotations

from adrf.viewsets import ViewSet
from asgiref.sync import sync_to_async
from django.db.models import Sum
from django.shortcuts import aget_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.pagination import StrictQueryParametersMixin

from . import gateway
from .models import Invoice
from .serializers import PaymentSerializer


class AsyncInvoicePaymentViewSet(IdempotencyMixin, StrictQueryParametersMixin, ViewSet):
    """``POST /v2/invoices/{id}/async-payments``: ``POST .../payments``, served by an async view
    (a viewset, so that its one action is a ``create``: a 201 in the OpenAPI document).

    The same payment, the same rules (an undeclared query parameter is a 400) and the same
    required ``Idempotency-Key``; the fake gateway's latency is awaited. The mixin runs this
    handler inside the request's transaction: the ORM calls below (``aget``, ``asave``,
    ``sync_to_async``) reach that transaction's connection, so the payment and the stored
    response commit together, as in the sync view.
    """

    idempotency_required = True
    serializer_class = PaymentSerializer

    async def create(self, request: Request, invoice_id: str) -> Response:
        # Locked like the sync view's: concurrent payments of one invoice queue on its row.
        invoice = await aget_object_or_404(Invoice.objects.select_for_update(), pk=invoice_id)
        context = {"request": request, "view": self, "invoice": invoice}
        serializer = PaymentSerializer(data=request.data, context=context)
        await sync_to_async(serializer.is_valid)(raise_exception=True)
        status = await gateway.acharge(serializer.validated_data["amount"], invoice.currency)
        payment = await sync_to_async(serializer.save)(invoice=invoice, status=status)
        paid = (await invoice.payments.aaggregate(total=Sum("amount")))["total"] or 0
        if paid >= invoice.amount_due:
            invoice.status = Invoice.Status.PAID
            await invoice.asave(update_fields=["status"])
        data = await sync_to_async(lambda: PaymentSerializer(payment, context=context).data)()
        response = Response(data, status=201)
        # The payment is an ordinary one: read it where the sync endpoint's payments are.
        collection = request.path.rsplit("/", 1)[0]
        response["Location"] = request.build_absolute_uri(f"{collection}/payments/{payment.payment_id}")
        return response
