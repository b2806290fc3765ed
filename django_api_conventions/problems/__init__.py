"""The error contract: RFC 9457 problem details from every layer.

This part imports no feature (idempotency, pagination, versioning): the features raise its problems.
"""

from .details import (
    PROBLEM_CONTENT_TYPE,
    RESERVED_MEMBERS,
    ErrorItem,
    ProblemException,
    problem_type_url,
    render_problem,
)
from .types import ProblemField, ProblemType, ProblemTypeRegistry, problem_types, register_problem_type

# The package's own types register themselves on import.
from . import built_in  # noqa: F401  # isort: skip

__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "RESERVED_MEMBERS",
    "ErrorItem",
    "ProblemException",
    "ProblemField",
    "ProblemType",
    "ProblemTypeRegistry",
    "problem_type_url",
    "problem_types",
    "register_problem_type",
    "render_problem",
]
