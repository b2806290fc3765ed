"""django-filter filters that parse as strictly as the strict backend: ``TimestampFilter``."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

try:
    import django_filters
except ImportError as exc:  # the strict filter parts are optional: say which extra brings them
    raise ImportError(
        "The strict filter parts of django-api-conventions apply django-filter FilterSets: "
        'pip install "django-api-conventions[filter]".',
        name=exc.name,
    ) from exc
from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

__all__ = ["TimestampField", "TimestampFilter"]

#: The code of a ValidationError whose message is a predicate after the parameter's name
#: ("must be an ISO 8601 date-time ..."): the strict backend writes its detail "<name> <predicate>.".
PREDICATE_CODE = "invalid_filter_value"

#: ISO 8601 / RFC 3339 in ASCII digits: a calendar date, optionally a time (seconds and up to six
#: fraction digits optional) and an offset. No week (2020-W01) or ordinal (2020-001) dates, no
#: basic format (20200101), no space for the T, no comma for the point: one spelling per moment.
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?)?"
)
# Translators: a predicate after a query parameter's name, "created_after must be ...".
_TIMESTAMP_EXPECTED = _(
    "must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z (or a date, 2026-01-31), in ASCII digits"
)


def parse_timestamp(value: str) -> datetime:
    """ISO 8601 / RFC 3339 in ASCII digits (``2026-01-31T12:00:00Z``, ``2026-01-31``), in UTC; a
    value without an offset is read in the current time zone. Else a ``ValidationError`` whose
    message is a predicate (code :data:`PREDICATE_CODE`)."""
    if not _TIMESTAMP.fullmatch(value):
        raise ValidationError(str(_TIMESTAMP_EXPECTED), code=PREDICATE_CODE)
    try:
        parsed = datetime.fromisoformat(value.upper())
    except ValueError:  # month 13, 25:00, an offset of 24 hours or more ...
        detail = gettext("{expected}; {value} is no such moment").format(
            expected=_TIMESTAMP_EXPECTED, value=repr(value)
        )
        raise ValidationError(detail, code=PREDICATE_CODE) from None
    try:
        aware = parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)
        # In UTC: databases store UTC (year 1 or 9999 may not survive the shift), and PostgreSQL
        # refuses offsets beyond 15:59 that ISO 8601 allows (-22:25).
        return aware.astimezone(UTC)
    except (OverflowError, ValueError):
        detail = gettext("is out of the range of date-times the service stores")
        raise ValidationError(detail, code=PREDICATE_CODE) from None


class TimestampField(forms.Field):
    """A form field of :func:`parse_timestamp`: ISO 8601 / RFC 3339 in ASCII digits, a date alone
    being its midnight in the current time zone, and the value in UTC. Django's
    ``DateTimeField`` would also take ``01/31/2026 12:00``, a space for the ``T`` and other
    scripts' digits."""

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        return parse_timestamp(str(value))


class TimestampFilter(django_filters.Filter):  # type: ignore[misc]  # django-filter has no types
    """``created_after = TimestampFilter(field_name="created_at", lookup_expr="gt")``."""

    field_class = TimestampField
