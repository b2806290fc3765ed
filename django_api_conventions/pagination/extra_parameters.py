"""The query parameters a project's own serializers and views read: the ``EXTRA_QUERY_PARAMS``
setting and a view's ``extra_query_params``.

Each entry is a name (``"brief"``: sent at most once), a family (``"attr[*]"``: every
``attr[<key>]``, each sent at most once; OpenAPI's ``deepObject``) or a dict (``{"name": "expand",
"repeatable": True, "description": "..."}``: a name or family that may be repeated, with its
OpenAPI description). The package checks the names only; the values are the project's to read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.core.exceptions import ImproperlyConfigured

_FAMILY_SUFFIX = "[*]"
#: What an entry may be, for the messages that refuse one.
SHAPES = "a name ('brief'), a family ('attr[*]') or a dict ({'name': 'expand', 'repeatable': True})"


@dataclass(frozen=True)
class _ExtraParameter:
    """One entry: a parameter name, or a family's pattern (``attr[*]``)."""

    name: str
    repeatable: bool = False
    description: str = ""

    @property
    def family(self) -> str | None:
        """The family's prefix (``attr`` of ``attr[*]``); ``None`` for a plain name."""
        return self.name.removesuffix(_FAMILY_SUFFIX) if self.name.endswith(_FAMILY_SUFFIX) else None

    def openapi_parameter(self) -> dict[str, Any]:
        """A string; a repeatable one an array of them (``style: form``, ``explode: true``); a
        family a ``deepObject`` whose members are its keys."""
        value: dict[str, Any] = {"type": "string"}
        if self.repeatable:
            value = {"type": "array", "items": value}
        parameter: dict[str, Any] = {"name": self.family or self.name, "in": "query", "required": False}
        if self.description:
            parameter["description"] = str(self.description)
        if self.family is not None:
            parameter.update(style="deepObject", explode=True, schema={"type": "object", "additionalProperties": value})
        else:
            parameter["schema"] = value
            if self.repeatable:
                parameter.update(style="form", explode=True)
        return parameter


def extra_parameter(entry: Any) -> _ExtraParameter:
    """``entry`` read, or a ``ValueError`` that says what is wrong with it (after :data:`SHAPES`)."""
    if isinstance(entry, str):
        return _ExtraParameter(_name(entry))
    if not isinstance(entry, Mapping):
        raise ValueError(f"an entry is {SHAPES}")
    unknown = sorted(str(key) for key in entry if key not in ("name", "repeatable", "description"))
    if unknown:
        raise ValueError(f"a dict takes name, repeatable and description, not {', '.join(unknown)}")
    repeatable = entry.get("repeatable", False)
    if not isinstance(repeatable, bool):
        raise ValueError("repeatable is True or False")
    description = entry.get("description", "")
    if not isinstance(description, str) and not hasattr(description, "_proxy____cast"):  # gettext_lazy() too
        raise ValueError("description is a string")
    if not isinstance(entry.get("name"), str):
        raise ValueError("a dict has a name, a string")
    return _ExtraParameter(_name(entry["name"]), repeatable, description)


def _name(name: str) -> str:
    """A valid name or family pattern: not empty, a ``*`` only in a family's ``[*]`` ending."""
    head = name.removesuffix(_FAMILY_SUFFIX)
    if not head:
        raise ValueError("a name is not empty (a family has a prefix: 'attr[*]')")
    if "*" in head or "[" in head or "]" in head:
        raise ValueError(
            f"{name!r} is no name nor family: a family is written prefix[*] ('attr[*]'), "
            "its prefix without brackets or *"
        )
    return name


class ExtraParameters:
    """The extra parameters of one view, its own first, then the project's."""

    def __init__(self, entries: Sequence[_ExtraParameter]) -> None:
        self._first = {entry.name: entry for entry in reversed(entries)}  # the first entry of a name wins
        #: The names and family patterns, in order: what an "Accepted:" list shows.
        self.names = tuple(dict.fromkeys(entry.name for entry in entries))
        #: The names and family patterns that may be sent more than once.
        self.repeatable = frozenset(name for name in self.names if self._first[name].repeatable)
        self._families = {entry.family: name for name, entry in self._first.items() if entry.family is not None}

    def declared_as(self, name: str) -> str | None:
        """The family pattern a query parameter belongs to (``attr[*]`` for ``attr[color]``), else ``None``."""
        if not self._families or not name.endswith("]"):
            return None
        prefix, bracket, key = name[:-1].partition("[")
        if not bracket or not key or "[" in key or "]" in key:
            return None
        return self._families.get(prefix)

    def openapi_parameters(self) -> list[dict[str, Any]]:
        return [self._first[name].openapi_parameter() for name in self.names]


def extra_parameters_of(view: Any, setting: Sequence[Any]) -> ExtraParameters:
    """The view's ``extra_query_params`` (a class attribute, or a property to choose per request),
    then ``setting``'s entries; an invalid entry is ``ImproperlyConfigured``."""
    entries = (*(getattr(view, "extra_query_params", None) or ()), *setting)
    if all(type(entry) is str for entry in entries):  # the usual case, read once per list of names
        return _read_names(entries)
    return _read_entries(entries)


@lru_cache(maxsize=256)
def _read_names(names: tuple[str, ...]) -> ExtraParameters:
    return _read_entries(names)


def _read_entries(entries: Sequence[Any]) -> ExtraParameters:
    read = []
    for entry in entries:
        try:
            read.append(extra_parameter(entry))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"Extra query parameter {entry!r} (EXTRA_QUERY_PARAMS or a view's extra_query_params): "
                f"each entry is {SHAPES}; {exc}."
            ) from None
    return ExtraParameters(read)
