"""Checks of the drf-spectacular set-up: the schema class and split request components."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ...check_messages import message


@checks.register(checks.Tags.compatibility)
def check_openapi_set_up(**kwargs: Any) -> list[checks.CheckMessage]:
    drf = getattr(settings, "REST_FRAMEWORK", {})
    value = drf.get("DEFAULT_SCHEMA_CLASS") if isinstance(drf, dict) else None
    try:
        schema_class = import_string(value) if isinstance(value, str) else value
    except ImportError:
        schema_class = None  # DRF reports an unimportable class itself
    errors = []
    if not composes_problem_schema(schema_class):
        errors.append(message("schema_class_not_packages", value=value))
    if not getattr(settings, "SPECTACULAR_SETTINGS", {}).get("COMPONENT_SPLIT_REQUEST"):
        errors.append(message("component_split_request_off"))
    return errors


def composes_problem_schema(schema_class: Any) -> bool:
    """Whether ``schema_class`` is an ``AutoSchema`` whose methods ``ProblemSchemaMixin`` extends:
    the mixin before drf-spectacular's ``AutoSchema`` in its MRO (after it, the mixin's methods
    are never reached, since ``AutoSchema``'s do not call ``super()``)."""
    from drf_spectacular.openapi import AutoSchema

    from .schema import ProblemSchemaMixin

    if not (
        isinstance(schema_class, type)
        and issubclass(schema_class, ProblemSchemaMixin)
        and issubclass(schema_class, AutoSchema)
    ):
        return False
    order = schema_class.__mro__
    return order.index(ProblemSchemaMixin) < order.index(AutoSchema)
