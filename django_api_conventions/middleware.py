"""The package's middleware, importable from one place. Put them first in ``MIDDLEWARE``, in this order::

    "django_api_conventions.middleware.TraceIdMiddleware",
    "django_api_conventions.middleware.ProblemDetailsMiddleware",
    "django_api_conventions.middleware.MaintenanceModeMiddleware",

(with ``versioning.middleware.VersionLifecycleMiddleware`` right after the first when you version
the API, and ``idempotency.IdempotencyMiddleware`` last when you key paths rather than views).
Each lives with the part it serves: tracing, the error contract, maintenance.
"""

from .maintenance.middleware import MaintenanceModeMiddleware
from .problems.middleware import ProblemDetailsMiddleware
from .tracing.trace_ids import TraceIdMiddleware

__all__ = ["MaintenanceModeMiddleware", "ProblemDetailsMiddleware", "TraceIdMiddleware"]
