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
        *("AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField"),
        *("PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField"),
    }
)

#: Field types whose values a cursor can hold exactly.
_CURSOR_FIELD_TYPES = INTEGER_FIELD_TYPES | {
    *("CharField", "TextField", "SlugField", "EmailField", "DateTimeField", "DateField"),
    *("DecimalField", "UUIDField", "BooleanField", "FloatField"),
}


@lru_cache(maxsize=1024)
def _resolve_ordering(owner: str, model: type[Model], names: tuple[str, ...]) -> tuple[str, ...]:
    if not names:
        raise ImproperlyConfigured(f"{owner}.ordering must name at least one field.")
    ordering = tuple(("-" if name.startswith("-") else "") + _column(owner, model, name.lstrip("-")) for name in names)
    last_name = ordering[-1].lstrip("-")
    last = _model_field(model, last_name, path=last_name) if LOOKUP_SEP not in last_name else None
    if last is None or not (last.primary_key or (last.unique and not last.null)):
        direction = "-" if ordering[-1].startswith("-") else ""
        ordering = (*ordering, f"{direction}pk")
    return ordering


def resolve_ordering(owner: str, model: type[Model], names: Sequence[str]) -> tuple[str, ...]:
    """``names`` (``"-created_at"``, ``"amount_due"``, ``"-created_at__year"``) as the keyset
    orders by them, ``pk`` appended unless the last one is a unique field that is not nullable
    (NULLs are not unique). ``owner`` names the class for the ``ImproperlyConfigured`` message.

    A foreign key orders by its column (``user`` becomes ``user_id``), never by the related
    model's own ordering; a related path (``user__created_at``) is refused.
    """
    return _resolve_ordering(owner, model, tuple(names))


def _column(owner: str, model: type[Model], path: str) -> str:
    """``path`` (a field, or a transform of one) as the keyset orders by it."""
    field_name, *transforms = path.split(LOOKUP_SEP)
    field = _model_field(model, field_name, path=path)
    if field.is_relation:
        if transforms:
            raise ImproperlyConfigured(f"{model.__name__} has no field {path!r} to order by.")
        return field_name if field_name == "pk" else str(field.attname)
    internal_type = _output_type(model, field, transforms, path=path)
    if internal_type not in _CURSOR_FIELD_TYPES:
        raise ImproperlyConfigured(
            f"{owner} cannot order by {path!r}, a {internal_type}: cursors "
            f"hold {', '.join(sorted(_CURSOR_FIELD_TYPES))}."
        )
    return path


def _output_type(model: type[Model], field: Any, transforms: Sequence[str], *, path: str) -> str:
    """The internal type of ``field`` after ``transforms`` (``year`` of a DateTimeField: an
    IntegerField); ``ImproperlyConfigured`` when one of them is not a transform of it."""
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


@lru_cache(maxsize=1024)
def _nullable_fields(model: type[Model], ordering: tuple[str, ...]) -> frozenset[str]:
    return frozenset(
        name.lstrip("-")
        for name in ordering
        if _model_field(model, name.lstrip("-").split(LOOKUP_SEP)[0], path=name.lstrip("-")).null
    )


def nullable_fields(model: type[Model], ordering: Sequence[str]) -> frozenset[str]:
    """The names of ``ordering`` that may be NULL: those of a nullable field, and the transforms of one."""
    return _nullable_fields(model, tuple(ordering))


def _model_field(model: type[Model], name: str, *, path: str) -> Any:
    """The field ``name`` of ``model`` itself (``pk`` too); ``ImproperlyConfigured`` otherwise."""
    if name == "pk":
        return model._meta.pk
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        raise ImproperlyConfigured(f"{model.__name__} has no field {path!r} to order by.") from None
