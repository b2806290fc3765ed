"""Compatibility of two OpenAPI documents: what would break for a client of the old one.

The engine of ``manage.py api_compat`` (add ``"django_api_compat"`` to ``INSTALLED_APPS``), which
compares the document of each served version with its committed baseline (:mod:`.baselines`).

The comparison is pure Python over OpenAPI 3.0 and 3.1 dicts (as drf-spectacular writes them). The rules
are the spec's (versioning, rule 5): adding paths, methods, optional request fields and
parameters, response fields and enum values is compatible; removing a path, a method, a field or
an enum value, changing a type, making a request field or parameter required, removing a
success status, or changing an operationId (generated clients name their functions after it) is
not, and needs a new version.

Enums are open (clients tolerate unknown values), so adding a value is compatible both ways;
removing one is breaking both ways, as the spec says. An extensible enum (``anyOf`` of an enum
and its plain type, as ``ProblemAutoSchema`` writes response enums) is an enum whose other values
are accepted too: making a response enum extensible is compatible, closing a request enum is not.

``compare_openapi(old, new)`` returns every :class:`Finding`, breaking or compatible, each with
its location, e.g. ``GET /v2/invoices 200 data[].status: enum value 'void' removed``.

The modules: :mod:`.shapes` reads a schema whatever its spelling, :mod:`.rules` holds one small
function per kind of change, :mod:`.walk` matches the two documents' elements and applies them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .findings import BREAKING, COMPATIBLE, Direction, Finding, Severity
from .walk import Comparison

__version__ = "0.1.0"

__all__ = [
    "BREAKING",
    "COMPATIBLE",
    "Direction",
    "Finding",
    "Severity",
    "breaking_changes",
    "compare_openapi",
]


def compare_openapi(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """Every difference between ``old`` (the baseline) and ``new`` that a client could notice."""
    return Comparison(old, new).run()


def breaking_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """The differences that break a client written against ``old``."""
    return [finding for finding in compare_openapi(old, new) if finding.breaking]
