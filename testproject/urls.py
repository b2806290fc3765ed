from django.contrib import admin
from django.urls import include, path, re_path
from rest_framework.routers import SimpleRouter

from django_api_conventions.versioning import versioned_urls

from .billing.async_views import AsyncInvoicePaymentViewSet
from .billing.views import InvoicePaymentDetail, InvoicePaymentList, InvoiceViewSet, OrderViewSet, UserViewSet
from .pages import IndexView, VersionRootView, migration_guide

router = SimpleRouter(trailing_slash=False)
router.register("users", UserViewSet, basename="user")
router.register("invoices", InvoiceViewSet, basename="invoice")
router.register("orders", OrderViewSet, basename="order")

# One API under every version of API_CONVENTIONS["VERSIONS"]: /v1/..., /v2/...
api = [
    *router.urls,
    path("invoices/<str:invoice_id>/payments", InvoicePaymentList.as_view(), name="invoice-payments"),
    path("invoices/<str:invoice_id>/payments/<str:payment_id>", InvoicePaymentDetail.as_view(), name="invoice-payment"),
    # The same payments through an async (adrf) view.
    path(
        "invoices/<str:invoice_id>/async-payments",
        AsyncInvoicePaymentViewSet.as_view({"post": "create"}),
        name="invoice-async-payments",
    ),
]

urlpatterns = [
    # The versions and the documentation, and the guide the deprecation links point at.
    path("", IndexView.as_view(), name="index"),
    path("guides/migrating-to-v2", migration_guide, name="migration-guide"),
    *versioned_urls(api),
    # Each served version's root, without a trailing slash like every path: the index of its
    # collections. After the versioned URLs, whose resolver answers a retired or unknown
    # version's root (410, 404) itself, with or without the versioning middleware.
    re_path(r"^v[0-9]+$", VersionRootView.as_view(), name="version-root"),
    path("admin/", admin.site.urls),
    path("", include("django_api_conventions.urls")),
    path("", include("django_api_conventions.contrib.spectacular.urls")),
]

handler400 = "django_api_conventions.problems.django_handlers.bad_request"
handler403 = "django_api_conventions.problems.django_handlers.permission_denied"
handler404 = "django_api_conventions.problems.django_handlers.page_not_found"
handler500 = "django_api_conventions.problems.django_handlers.server_error"
