"""The package's middleware, to put first in ``MIDDLEWARE`` in this order (docs/installation.md)::

"django_api_conventions.middleware.TraceIdMiddleware",
"django_api_conventions.middleware.ProblemDetailsMiddleware",
"django_api_conventions.middleware.MaintenanceModeMiddleware",
"""

from .maintenance.middleware import MaintenanceModeMiddleware
from .problems.middleware import ProblemDetailsMiddleware
from .tracing.trace_ids import TraceIdMiddleware

__all__ = ["MaintenanceModeMiddleware", "ProblemDetailsMiddleware", "TraceIdMiddleware"]
