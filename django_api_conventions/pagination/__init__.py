"""Keyset cursor pagination, strict filters, OR search and soft delete."""

from .cursors import Cursor, decode_cursor, encode_cursor
from .filters import Filter, FilterSet, InvalidFilterValue, parse_integer, parse_text, parse_timestamp
from .keyset import RowValueComparison, keyset_predicate
from .paginator import KeysetPagination
from .views import SearchMixin, StrictFilterBackend, StrictQueryParametersMixin

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
    "keyset_predicate",
    "parse_integer",
    "parse_text",
    "parse_timestamp",
]
