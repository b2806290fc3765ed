"""What a keyset ordering may name: model fields, and transforms of them, whose values a cursor holds."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db.models import Model
from django.db.models.constants import LOOKUP_SEP

#: Model field types whose values are integers.
INTEGER_FIELD_TYPES = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "SmallAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
        "PositiveSmallIntegerField",
    }
)

#: Field types whose values a cursor can hold exactly.
CURSOR_FIELD_TYPES = INTEGER_FIELD_TYPES | frozenset(
    {
        "CharField",
        "TextField",
        "SlugField",
        "EmailField",
        "DateTimeField",
        "DateField",
        "DecimalField",
        "UUIDField",
        "BooleanField",
        "FloatField",
    }
)


def resolve_ordering(owner: str, model: type[Model], names: Sequence[str]) -> tuple[str, ...]:
    """``names`` (``"-created_at"``, ``"amount_due"``, ``"-created_at__year"``) as the keyset
    orders by them, ``pk`` appended unless the last one is a unique field that is not nullable
    (NULLs are not unique). ``owner`` names the class for the ``ImproperlyConfigured`` message.

    A foreign key orders by its column (``user`` becomes ``user_id``), never by the related
    model's own ordering; a related path (``user__created_at``) is refused.

    Resolved once per class, model and names: a paginator asks on every page.
    """
    return _resolve_ordering(owner, model, tuple(names))


@lru_cache(maxsize=1024)
def _resolve_ordering(owner: str, model: type[Model], names: tuple[str, ...]) -> tuple[str, ...]:
    if not names:
        raise ImproperlyConfigured(f"{owner}.ordering must name at least one field.")
    resolved = []
    for name in names:
        bare = name.lstrip("-")
        field_name, *transforms = bare.split(LOOKUP_SEP)
        field = model_field(model, field_name, path=bare)
        if transforms and field.is_relation:
            raise ImproperlyConfigured(f"{model.__name__} has no field {bare!r} to order by.")
        internal_type = output_type(model, field, transforms, path=bare)
        if internal_type not in CURSOR_FIELD_TYPES and not (field.is_relation and not transforms):
            raise ImproperlyConfigured(
                f"{owner} cannot order by {bare!r}, a {internal_type}: cursors "
                f"hold {', '.join(sorted(CURSOR_FIELD_TYPES))}."
            )
        column = field.attname if field.is_relation and field_name != "pk" else field_name
        resolved.append(("-" if name.startswith("-") else "") + LOOKUP_SEP.join([column, *transforms]))
    ordering = tuple(resolved)
    last_name = ordering[-1].lstrip("-")
    last = model_field(model, last_name, path=last_name) if LOOKUP_SEP not in last_name else None
    if last is None or not (last.primary_key or (last.unique and not last.null)):
        direction = "-" if ordering[-1].startswith("-") else ""
        ordering = (*ordering, f"{direction}pk")
    return ordering


def output_type(model: type[Model], field: Any, transforms: Sequence[str], *, path: str) -> str:
    """The internal type of ``field`` after ``transforms`` (``year`` of a DateTimeField: an
    IntegerField); ``ImproperlyConfigured`` when one of them is not a transform of it."""
    if not transforms:
        return str(field.get_internal_type())
    expression: Any = field.get_col(model._meta.db_table)
    for name in transforms:
        transform = expression.output_field.get_transform(name)
        if transform is None:
            raise ImproperlyConfigured(
                f"{model.__name__} cannot order by {path!r}: {name!r} is not a transform of "
                f"{expression.output_field.get_internal_type()}."
            )
        expression = transform(expression)
    return str(expression.output_field.get_internal_type())


def nullable_fields(model: type[Model], ordering: Sequence[str]) -> frozenset[str]:
    """The names of ``ordering`` that may be NULL (their keyset predicate is NULL-safe): those of a
    nullable field, and the transforms of one."""
    return _nullable_fields(model, tuple(ordering))


@lru_cache(maxsize=1024)
def _nullable_fields(model: type[Model], ordering: tuple[str, ...]) -> frozenset[str]:
    return frozenset(
        name.lstrip("-")
        for name in ordering
        if model_field(model, name.lstrip("-").split(LOOKUP_SEP)[0], path=name.lstrip("-")).null
    )


def model_field(model: type[Model], name: str, *, path: str | None = None) -> Any:
    """The field ``name`` of ``model`` itself (``pk`` too); ``ImproperlyConfigured`` otherwise."""
    if name == "pk":
        return model._meta.pk
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        raise ImproperlyConfigured(f"{model.__name__} has no field {path or name!r} to order by.") from None
