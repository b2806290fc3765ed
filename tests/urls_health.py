"""The example service with django-health-check's view checking the idempotency store."""

import datetime

from django.urls import path
from health_check.views import HealthCheckView

from django_api_conventions.contrib.health_check import IdempotencyStoreCheck

from .urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]

urlpatterns = [
    *urlpatterns,
    path("health/", HealthCheckView.as_view(checks=[IdempotencyStoreCheck])),
    path(
        "health/quick/",
        HealthCheckView.as_view(checks=[(IdempotencyStoreCheck, {"timeout": datetime.timedelta(seconds=0.3)})]),
    ),
]
