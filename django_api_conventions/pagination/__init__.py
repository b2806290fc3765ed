"""Keyset cursor pagination, strict filters and OR search.

Soft delete lives in :mod:`django_api_conventions.soft_delete`.
"""

from .cursors import Cursor, decode_cursor, encode_cursor
from .drf import SearchMixin, StrictFilterBackend, StrictQueryParametersMixin, get_filterset_class
from .filters import Filter, FilterSet, InvalidFilterValue, parse_integer, parse_text, parse_timestamp
from .keyset import RowValueComparison, keyset_predicate
from .paginator import KeysetPagination

__all__ = [
    "Cursor",
    "Filter",
    "FilterSet",
    "InvalidFilterValue",
    "KeysetPagination",
    "RowValueComparison",
    "SearchMixin",
    "StrictFilterBackend",
    "StrictQueryParametersMixin",
    "decode_cursor",
    "encode_cursor",
    "get_filterset_class",
    "keyset_predicate",
    "parse_integer",
    "parse_text",
    "parse_timestamp",
]
