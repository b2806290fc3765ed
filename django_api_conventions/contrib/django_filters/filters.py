"""django-filter filters that parse as strictly as the package's own (``parse_timestamp``)."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError

from ...pagination.filters import InvalidFilterValue, parse_timestamp

#: The code of a ValidationError whose message is a predicate after the parameter's name
#: ("must be an ISO 8601 date-time ..."): the adapter writes its detail "<name> <predicate>.".
PREDICATE_CODE = "invalid_filter_value"


class TimestampField(forms.Field):
    """A form field of :func:`~django_api_conventions.pagination.parse_timestamp`: ISO 8601 /
    RFC 3339 in ASCII digits, a date alone being its midnight in the current time zone, and the
    value in UTC. Django's ``DateTimeField`` would also take ``01/31/2026 12:00``, a space for
    the ``T`` and other scripts' digits."""

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        try:
            return parse_timestamp(str(value))
        except InvalidFilterValue as exc:
            raise ValidationError(str(exc), code=PREDICATE_CODE) from None


class TimestampFilter(django_filters.Filter):  # type: ignore[misc]
    """``created_after = TimestampFilter(field_name="created_at", lookup_expr="gt")``."""

    field_class = TimestampField
