from django.urls import path

from testproject.urls import handler400, handler403, handler404, handler500
from testproject.urls import urlpatterns as example_urlpatterns

from . import async_views, faults

urlpatterns = [
    *example_urlpatterns,
    path("faults/crash", faults.crash),
    path("faults/django-not-found", faults.django_not_found),
    path("faults/django-permission-denied", faults.django_permission_denied),
    path("faults/django-validation-error", faults.django_validation_error),
    path("faults/database-down", faults.database_down),
    path("faults/drf-database-down", faults.DatabaseDownView.as_view()),
    path("faults/own-json-error", faults.own_json_error),
    path("faults/post-only", faults.post_only),
    path("faults/csrf", faults.csrf_protected),
    path("faults/protected", faults.ProtectedView.as_view()),
    path("faults/throttled", faults.ThrottledView.as_view()),
    path("faults/reserved-names", faults.ReservedNamesView.as_view()),
    path("faults/own-problem", faults.OwnProblemView.as_view()),
    path("idempotency/crash-once", faults.CrashOnceView.as_view()),
    path("idempotency/server-error-once", faults.ServerErrorOnceView.as_view()),
    path("idempotency/conflict-not-kept", faults.ConflictNotKeptView.as_view()),
    path("idempotency/set-cookie", faults.SetCookieView.as_view()),
    path("idempotency/slow", faults.SlowCreateView.as_view()),
    path("idempotency/execution-log", faults.ExecutionLogView.as_view()),
    path("idempotency/protected", faults.ProtectedIdempotentView.as_view()),
    path("idempotency/long-running", faults.LongRunningView.as_view()),
    path("idempotency/header-delayed", faults.HeaderDelayedCreateView.as_view()),
    path("idempotency/dies-after-commit", faults.DiesAfterCommitView.as_view()),
    path("idempotency/durable", faults.DurableCreateView.as_view()),
    path("idempotency/sync-function", faults.sync_function_view),
    path("idempotency/async-function", faults.async_function_view),
    path("idempotency/crash-function", faults.crash_function_view),
    path("idempotency/plain", faults.plain_create_view),
    path("idempotency/database-down", faults.database_down_function_view),
    path("idempotency/streaming", faults.streaming_view),
    path("idempotency/async/create", async_views.AsyncCreateView.as_view()),
    path("idempotency/async/waiting", async_views.AsyncWaitingCreateView.as_view()),
    path("idempotency/async/required", async_views.AsyncRequiredCreateView.as_view()),
    path("idempotency/async/crash-once", async_views.AsyncCrashOnceView.as_view()),
    path("idempotency/async/server-error-once", async_views.AsyncServerErrorOnceView.as_view()),
    path("idempotency/async/conflict-not-kept", async_views.AsyncConflictNotKeptView.as_view()),
    path("idempotency/async/viewset", async_views.AsyncCustomerViewSet.as_view({"get": "list", "post": "create"})),
    path("idempotency/async/renews", async_views.AsyncLeaseRenewingView.as_view()),
    path("idempotency/async/delete", async_views.AsyncDeleteView.as_view()),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
