"""Turning nested validation errors into ``errors`` items addressed by JSON Pointers."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from rest_framework.settings import api_settings as drf_settings

from .details import ErrorItem


def escape_pointer_token(token: object) -> str:
    """One reference token of a JSON Pointer (RFC 6901): ``~`` and ``/`` escaped."""
    return str(token).replace("~", "~0").replace("/", "~1")


def is_validation_detail(value: Any) -> bool:
    """Whether ``value`` is shaped as DRF renders validation errors: strings in lists and objects."""
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return all(is_validation_detail(member) for member in value)
    if isinstance(value, dict):
        return all(is_validation_detail(member) for member in value.values())
    return False


def pointer_items(detail: Any, pointer: str = "") -> list[ErrorItem]:
    """Flatten DRF's error detail into pointer items: ``non_field_errors`` point at their
    object, list members and ``many=True`` rows get indexed pointers."""
    if isinstance(detail, dict):
        items: list[ErrorItem] = []
        for key, value in detail.items():
            child = pointer
            if key not in (drf_settings.NON_FIELD_ERRORS_KEY, NON_FIELD_ERRORS):
                child = f"{pointer}/{escape_pointer_token(key)}"
            items.extend(pointer_items(value, child))
        return items
    if isinstance(detail, (list, tuple)):
        if all(not isinstance(member, (dict, list, tuple)) for member in detail):
            return [_item(pointer, member) for member in detail]
        items = []
        for index, member in enumerate(detail):
            if member:  # many=True reports {} for the valid rows
                items.extend(pointer_items(member, f"{pointer}/{index}"))
        return items
    return [_item(pointer, detail)]


def _item(pointer: str, message: Any) -> ErrorItem:
    return {"pointer": pointer, "detail": str(message), "code": getattr(message, "code", "invalid")}
