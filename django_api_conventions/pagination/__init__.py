"""Keyset cursor pagination, strict filters (django-filter FilterSets) and OR search.

``TimestampFilter`` needs django-filter (the ``filter`` extra); the rest imports without it.
"""

from typing import Any

from .cursors import Cursor, decode_cursor, encode_cursor
from .drf import StrictFilterBackend, StrictQueryParametersMixin, get_filterset_class
from .keyset import RowValueComparison, keyset_predicate
from .paginator import KeysetPagination
from .search import SearchMixin

__all__ = [
    "Cursor",
    "KeysetPagination",
    "RowValueComparison",
    "SearchMixin",
    "StrictFilterBackend",
    "StrictQueryParametersMixin",
    "TimestampFilter",
    "decode_cursor",
    "encode_cursor",
    "get_filterset_class",
    "keyset_predicate",
]


def __getattr__(name: str) -> Any:
    # Imported on first use: django-filter is needed by the filters alone.
    if name == "TimestampFilter":
        from .filters import TimestampFilter

        return TimestampFilter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
