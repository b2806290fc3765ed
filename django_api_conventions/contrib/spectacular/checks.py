"""Checks of the drf-spectacular set-up: the schema class and split request components."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ...checks.messages import message


def check_openapi_set_up(**kwargs: Any) -> list[checks.CheckMessage]:
    from .schema import ProblemAutoSchema

    drf = getattr(settings, "REST_FRAMEWORK", {})
    value = drf.get("DEFAULT_SCHEMA_CLASS") if isinstance(drf, dict) else None

    try:
        schema_class = import_string(value) if isinstance(value, str) else value
    except ImportError:
        schema_class = None  # DRF reports an unimportable class itself
    errors = []
    if not (isinstance(schema_class, type) and issubclass(schema_class, ProblemAutoSchema)):
        errors.append(message("W030", value=value))
    if not getattr(settings, "SPECTACULAR_SETTINGS", {}).get("COMPONENT_SPLIT_REQUEST"):
        errors.append(message("W031"))
    return errors
