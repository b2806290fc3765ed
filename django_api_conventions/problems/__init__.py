"""The error contract: RFC 9457 problem details from every layer.

- :mod:`.details`: :class:`ProblemException` and the ``application/problem+json`` response;
- :mod:`.types`: the registry of problem types (what each ``type`` URL names), :mod:`.built_in` the package's own;
- :mod:`.mapping`: which problem each exception becomes, whichever layer raised it;
- :mod:`.error_items`: nested validation errors as ``errors`` items with JSON Pointers;
- :mod:`.error_answers`: an error answer the project built itself, as a problem;
- :mod:`.drf_handler`: DRF's ``EXCEPTION_HANDLER``;
- :mod:`.django_handlers`: Django's ``handler400`` ... ``handler500`` and ``CSRF_FAILURE_VIEW``;
- :mod:`.middleware`: problems for what happens outside DRF;
- :mod:`.pages`: the documentation pages the ``type`` URLs answer (:mod:`.markdown` renders their texts).

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

# The package's own types register themselves on import: whoever imports any module of this
# part finds them in the registry.
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
