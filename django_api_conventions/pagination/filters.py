"""Strict, declared filters: named query parameters, typed and validated; anything else is a 400."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..problems import ErrorItem, ProblemException
from ..problems.parameters import invalid_parameters, parameter_error, refuse_undeclared


class InvalidFilterValue(ValueError):
    """A value a filter cannot take; the message is shown to the client after the parameter's
    name (``"limit " + message``): a predicate such as ``"must not be empty"``, translated."""


def parse_text(value: str) -> str:
    if not value:
        raise InvalidFilterValue(gettext("must not be empty"))
    return value


#: An integer as its OpenAPI pattern spells it; int() would also take " 5", "1_000" and other
#: scripts' digits (Arabic-Indic, fullwidth).
_INTEGER = re.compile(r"[+-]?[0-9]{1,4000}")

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


def parse_integer(value: str) -> int:
    if not _INTEGER.fullmatch(value):
        raise InvalidFilterValue(gettext("must be an integer in ASCII digits"))
    return int(value)


def parse_timestamp(value: str) -> datetime:
    """ISO 8601 / RFC 3339, ASCII digits only: ``2026-01-31T12:00:00Z``, ``2026-01-31T12:00+01:00``,
    ``2026-01-31T12:00:00.5``, ``2026-01-31``. A value without an offset is read in the current
    time zone; a date alone is its midnight there."""
    if not _TIMESTAMP.fullmatch(value):
        raise InvalidFilterValue(str(_TIMESTAMP_EXPECTED))
    try:
        parsed = datetime.fromisoformat(value.upper())
    except ValueError:  # month 13, 25:00, an offset of 24 hours or more ...
        raise InvalidFilterValue(
            gettext("{expected}; {value} is no such moment").format(expected=_TIMESTAMP_EXPECTED, value=repr(value))
        ) from None
    try:
        aware = parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)
        # In UTC: databases store UTC (year 1 or 9999 may not survive the shift), and PostgreSQL
        # refuses offsets beyond 15:59 that ISO 8601 allows (-22:25).
        return aware.astimezone(UTC)
    except (OverflowError, ValueError):
        raise InvalidFilterValue(gettext("is out of the range of date-times the service stores")) from None


@dataclass(frozen=True)
class Filter:
    """One query parameter: ``field`` (a model field path), a ``lookup`` and a parser.

    ``lookup="in"`` takes comma-separated values. ``choices`` restricts the values.
    """

    field: str
    lookup: str = "exact"
    parse: Callable[[str], Any] = parse_text
    choices: Sequence[str] | None = None
    description: str = ""
    #: The OpenAPI schema of one value; derived from ``parse`` and ``choices`` when left out.
    schema: Mapping[str, Any] | None = None

    def clean(self, raw: str) -> Any:
        if "\x00" in raw:  # PostgreSQL text cannot hold NUL: refuse it before the database does
            raise InvalidFilterValue("must not contain a NUL character")
        values = raw.split(",") if self.lookup == "in" else [raw]
        cleaned = []
        for value in values:
            if self.choices is not None and value not in self.choices:
                raise InvalidFilterValue(f"must be one of: {', '.join(self.choices)}")
            cleaned.append(self.parse(value))
        return cleaned if self.lookup == "in" else cleaned[0]

    def q(self, value: Any) -> Q:
        return Q(**{f"{self.field}__{self.lookup}": value})


@dataclass
class FilterSet:
    """The filters of one list, declared as class attributes:

        class InvoiceFilters(FilterSet):
            status = Filter("status", lookup="in", choices=["draft", "open", "paid", "void"])
            user_id = Filter("user_id")
            created_after = Filter("created_at", lookup="gt", parse=parse_timestamp)
            created_before = Filter("created_at", lookup="lt", parse=parse_timestamp)

    Several filters AND together; :meth:`any_of` ORs groups of them (the search endpoint).
    """

    filters: ClassVar[dict[str, Filter]] = {}
    values: dict[str, Any] = field(default_factory=dict)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.filters = {
            name: value for klass in reversed(cls.__mro__) for name, value in vars(klass).items()
            if isinstance(value, Filter)
        }

    @classmethod
    def from_query(cls, query: Mapping[str, Sequence[str]], *, allowed_extra: Iterable[str] = ()) -> FilterSet:
        """Validate a query string: unknown or repeated parameters and bad values are a 400."""
        refuse_undeclared(query, [*cls.filters, *allowed_extra])
        return cls(cls.clean({name: values[0] for name, values in query.items() if name in cls.filters}))

    @classmethod
    def clean(cls, raw: Mapping[str, str], *, pointer: str | None = None) -> dict[str, Any]:
        """The cleaned values of ``raw`` (declared filter names to their text), or every bad value
        at once: a 400 ``invalid-parameters`` naming each query parameter, or, with ``pointer``
        (a JSON Pointer to the object holding them in a body), a 422 ``validation-error`` whose
        errors point at ``<pointer>/<name>``."""
        values: dict[str, Any] = {}
        errors: list[ErrorItem] = []
        for name, value in raw.items():
            try:
                values[name] = cls.filters[name].clean(value)
            except InvalidFilterValue as exc:
                detail = gettext("{name} {reason}.").format(name=name, reason=exc)
                if pointer is None:
                    errors.append(parameter_error(name, detail, "invalid"))
                else:
                    errors.append({"pointer": f"{pointer}/{name}", "detail": detail, "code": "invalid"})
        if errors:
            raise invalid_parameters(errors) if pointer is None else ProblemException(
                "validation-error", gettext("The search body breaks the rules of the filters."), errors=errors
            )
        return values

    def q(self) -> Q:
        query = Q()
        for name, value in self.values.items():
            query &= self.filters[name].q(value)
        return query

    def signature_data(self) -> dict[str, Any]:
        return {name: self.values[name] for name in sorted(self.values)}

