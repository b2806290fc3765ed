"""A view that scopes its rows in get_queryset(), as multi-tenant services do."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from testproject.billing.models import Invoice
from testproject.billing.views import InvoiceViewSet


class ScopedInvoices(InvoiceViewSet):
    """Only the invoices of the user named by the X-Tenant header."""

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return Invoice.objects.filter(user_id=self.request.headers.get("X-Tenant", ""))


router = SimpleRouter(trailing_slash=False)
router.register("scoped", ScopedInvoices, basename="scoped")
urlpatterns = [path("", include(router.urls))]
