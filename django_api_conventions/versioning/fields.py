"""Serializer fields of compatible change: a field rename transition and open enums.

During a rename (``total = RenamedField("amount_due", deprecation=..., sunset=...)``) responses
carry both names and requests may send either; a request that sends the old name gets
``Deprecation`` and ``Link``, and its use is reported. From the sunset on the old name is gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.fields import SkipField, empty

from ..content.parsers import JSONNumber
from .lifecycle import DateLike, Deprecation, parse_moment
from .signals import deprecated_field_used
from .usage import note_deprecation, report_use


@dataclass(frozen=True)
class FieldRename:
    """One rename transition as the deprecations command lists it."""

    serializer: str
    old_name: str
    new_name: str
    deprecation: Deprecation


#: Every rename declared on a serializer class, by (serializer path, old name).
field_renames: dict[tuple[str, str], FieldRename] = {}


class RenamedField(serializers.Field[Any, Any, Any, Any]):
    """The old name of the field ``new_name`` during its rename; the serializer needs :class:`RenamedFieldsMixin`."""

    def __init__(
        self,
        new_name: str,
        *,
        deprecation: DateLike | None,
        sunset: DateLike | None,
        migration_guide: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs["read_only"] = True  # RenamedFieldsMixin reads the old name in requests
        kwargs.setdefault("source", "*")
        super().__init__(**kwargs)
        self.new_name = new_name
        self.deprecation_date = parse_moment(deprecation, what="deprecation")
        self.sunset = parse_moment(sunset, what="sunset")
        self.migration_guide = migration_guide
        if self.deprecation_date and self.sunset and self.sunset < self.deprecation_date:
            raise ImproperlyConfigured(f"The sunset of the rename to {new_name!r} is before its deprecation.")

    def bind(self, field_name: str, parent: Any) -> None:
        owner = type(parent).__name__
        if not isinstance(parent, RenamedFieldsMixin):
            raise ImproperlyConfigured(
                f"{owner}.{field_name} is a RenamedField: add RenamedFieldsMixin first in the bases of {owner}."
            )
        if self.new_name == field_name:
            raise ImproperlyConfigured(f"{owner}.{field_name} is a RenamedField of itself: name the new field.")
        super().bind(field_name, cast("serializers.BaseSerializer[Any]", parent))

    def as_deprecation(self, old_name: str | None = None, owner: str | None = None) -> Deprecation:
        old = old_name or self.field_name
        owner = owner or type(self.parent).__name__
        return Deprecation(
            f"field {owner}.{old}",
            "field",
            self.deprecation_date,
            self.sunset,
            self.migration_guide,
            note=f"field {old} is deprecated: use {self.new_name}",
        )

    def active(self) -> bool:
        return self.sunset is None or timezone.now() < self.sunset

    def get_attribute(self, instance: Any) -> Any:
        if not self.active():
            raise SkipField
        self._serializer.renamed_fields()  # a misnamed rename fails with its own message
        return self._serializer.fields[self.new_name].get_attribute(instance)

    def to_representation(self, value: Any) -> Any:
        return self._serializer.fields[self.new_name].to_representation(value)

    @property
    def _serializer(self) -> Any:
        return self.parent  # a Serializer with RenamedFieldsMixin: bind() checked it


class RenamedFieldsMixin:
    """Reads the old names of :class:`RenamedField` fields in requests; put it first in the bases."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared: Mapping[str, Any] = getattr(cls, "_declared_fields", {})
        path = f"{cls.__module__}.{cls.__qualname__}"
        if "<locals>" in path:
            return  # a serializer built inside a function is no part of the service's contract
        for old_name, field in declared.items():
            if isinstance(field, RenamedField):
                field_renames[(path, old_name)] = FieldRename(
                    path, old_name, field.new_name, field.as_deprecation(old_name, cls.__name__)
                )

    def renamed_fields(self) -> list[tuple[str, RenamedField]]:
        fields = self.fields  # type: ignore[attr-defined]  # a mixin of Serializer
        renamed = [(name, field) for name, field in fields.items() if isinstance(field, RenamedField)]
        for name, field in renamed:
            if field.new_name not in fields:
                raise ImproperlyConfigured(
                    f"{type(self).__name__}.{name} renames to {field.new_name!r}, which is not one of its fields."
                )
        return renamed

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return super().to_internal_value(data)  # type: ignore[misc]  # a mixin of Serializer
        # The names only the old one was sent under: their errors point at what the client sent.
        sent_as = {
            field.new_name: old for old, field in self.renamed_fields() if old in data and field.new_name not in data
        }
        data = self._apply_renames(data)
        try:
            return super().to_internal_value(data)  # type: ignore[misc]  # a mixin of Serializer
        except serializers.ValidationError as exc:
            if sent_as and isinstance(exc.detail, dict):
                # A serializer's errors are keyed by field name; the stubs allow integer keys too.
                exc.detail = {sent_as.get(str(name), str(name)): errors for name, errors in exc.detail.items()}
            raise

    def _apply_renames(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        renames = [(old, field) for old, field in self.renamed_fields() if old in data]
        if not renames:
            return data
        for old, field in renames:
            if not field.active():
                # After the sunset the old name is an error, never silently ignored: a PATCH of
                # only the old name would otherwise answer 2xx and change nothing.
                detail = gettext("{old} was removed on {date}: use {new}.").format(
                    old=repr(old), date=f"{field.sunset:%Y-%m-%d}", new=repr(field.new_name)
                )
                raise serializers.ValidationError({old: [detail]}, code="renamed_field_removed")
        # A QueryDict (form or multipart body) keeps its lists: copy it as one.
        data = data.copy() if hasattr(data, "getlist") else dict(data)  # type: ignore[attr-defined]  # a QueryDict
        request = self.context.get("request")  # type: ignore[attr-defined]  # a mixin of Serializer
        for old, field in renames:
            _move_value(data, old, field.new_name)
            if request is not None:
                deprecation = field.as_deprecation(old, type(self).__name__)
                if note_deprecation(request, deprecation):
                    report_use(request, deprecated_field_used, deprecation, field=old)
        return data


def _move_value(data: Any, old: str, new: str) -> None:
    """Put the value sent under ``old`` under ``new``; another value sent under ``new`` is a conflict."""
    if hasattr(data, "getlist"):
        value, new_value = data.getlist(old), data.getlist(new) or empty
    else:
        value, new_value = data[old], data.get(new, empty)
    if new_value is not empty and not _same_value(new_value, value):
        detail = gettext("{old} is the old name of {new}: send one of them, or both with one value.").format(
            old=repr(old), new=repr(new)
        )
        raise serializers.ValidationError({old: [detail]}, code="rename_conflict")
    data.pop(old)
    if new_value is not empty:
        return
    if hasattr(data, "setlist"):
        data.setlist(new, value)
    else:
        data[new] = value


def _same_value(one: Any, other: Any) -> bool:
    """Equal and of one JSON type; numbers by their exact digits (10.0 is not 9.9999999999999999999)."""
    if type(one) is not type(other):
        return False
    if isinstance(one, JSONNumber):
        return bool(one.exact == other.exact)
    return bool(one == other)


class OpenEnumField(serializers.ChoiceField):
    """An enum clients must treat as open (part 9.7): writes are checked against ``choices``,
    reads return the stored value as it is, also a value added later, never mapped to a default.
    """

    def to_representation(self, value: Any) -> Any:
        return value


__all__ = ["OpenEnumField", "RenamedField", "RenamedFieldsMixin"]
