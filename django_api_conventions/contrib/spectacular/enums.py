"""Extensible response enums: the values known today, and any other value accepted.

Adding an enum value is a compatible change, but a closed ``enum`` makes generated clients
reject a new value. A response field with choices is written as ``{"anyOf": [{"$ref":
".../OrderStatusEnum"}, {"type": "string"}], "x-extensible-enum": [...]}``, which
openapi-python-client and openapi-typescript type as ``OrderStatusEnum | str``. Two steps, as
drf-spectacular names enums only after every component is built: :func:`extensible` writes the
enum inline, :func:`name_extensible_enums` (postprocessing) moves it to a named component.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

#: The vendor extension that lists the known values of an extensible enum.
EXTENSIBLE_ENUM = "x-extensible-enum"
_ENUM_KEYS = ("type", "enum")


def extensible(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a response field's) with its ``enum``, and its array items', made extensible."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return {**schema, "items": extensible(schema["items"])}
    if not isinstance(schema.get("enum"), list) or "anyOf" in schema:
        return schema
    # drf-spectacular lists "" and None among the choices of a blank or null field: the open
    # variant takes "" anyway, and null stays said by nullable (3.0) or a "null" type (3.1).
    known = [value for value in schema["enum"] if value not in ("", None)]
    types = schema.get("type")
    nullable = isinstance(types, list) and "null" in types
    open_variant = _open_variant(types)
    rest = {key: value for key, value in schema.items() if key not in (*_ENUM_KEYS, "x-spec-enum-id")}
    variants = [{**open_variant, "enum": known}, open_variant, *([{"type": "null"}] if nullable else [])]
    return {"anyOf": variants, **rest, EXTENSIBLE_ENUM: known}


def _open_variant(types: Any) -> dict[str, Any]:
    kinds = [kind for kind in types if kind != "null"] if isinstance(types, list) else [types] if types else []
    return {"type": kinds[0] if len(kinds) == 1 else kinds} if kinds else {}


def name_extensible_enums(schema: dict[str, Any], enum_suffix: str = "Enum", registry: Any = None) -> dict[str, Any]:
    """Move each inline enum of an extensible enum to a component of ``components.schemas``.

    A component with the same values is reused; else it is ``<Field>Enum``, or
    ``<Component><Field>Enum`` when that field name has several sets of values (``Response``
    before the suffix when taken). Idempotent. ``registry`` learns the new components too:
    drf-spectacular's enum hook rebuilds ``components`` from it.
    """
    from inflection import camelize

    components = schema.setdefault("components", {}).setdefault("schemas", {})
    found = list(_inline_enums(components))
    sets_by_field: dict[str, set[tuple[Any, ...]]] = {}
    for _, field, closed in found:
        sets_by_field.setdefault(field, set()).add(_key(closed))
    by_values = {_key(target): name for name, target in components.items() if _is_plain_enum(target)}
    for component, field, closed in found:
        key = _key(closed)
        name = by_values.get(key)
        if name is None:
            base = camelize(field) if len(sets_by_field[field]) == 1 else f"{camelize(component)}{camelize(field)}"
            candidates = [f"{base}{enum_suffix}", f"{camelize(component)}{camelize(field)}Response{enum_suffix}"]
            candidates += [f"{candidates[-1]}{number}" for number in range(2, 100)]
            name = next(candidate for candidate in candidates if candidate not in components)
            components[name] = {key: closed[key] for key in _ENUM_KEYS if key in closed}
            if registry is not None:
                from drf_spectacular.plumbing import ResolvedComponent

                registry.register_on_missing(
                    ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=components[name])
                )
            by_values[key] = name
        closed.clear()
        closed["$ref"] = f"#/components/schemas/{name}"
    if found:
        schema["components"]["schemas"] = dict(sorted(components.items()))
    return schema


def _inline_enums(components: dict[str, Any]) -> Iterator[tuple[str, str, MutableMapping[str, Any]]]:
    for component, target in components.items():
        for field, node in _properties(target):
            if node.get("type") == "array" and isinstance(node.get("items"), dict):
                node = node["items"]
            variants = node.get("anyOf")
            if EXTENSIBLE_ENUM in node and isinstance(variants, list) and variants and "enum" in variants[0]:
                yield component, field, variants[0]


def _properties(node: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    for name, value in (node.get("properties") or {}).items():
        if isinstance(value, dict):
            yield name, value
    for keyword in ("allOf", "anyOf", "oneOf"):
        for member in node.get(keyword) or ():
            yield from _properties(member)


def _is_plain_enum(node: Any) -> bool:
    return isinstance(node, dict) and isinstance(node.get("enum"), list) and set(node) <= {*_ENUM_KEYS, "description"}


def _key(node: Any) -> tuple[Any, ...]:
    kind = node.get("type")
    return (repr(kind), *sorted(repr(value) for value in node["enum"]))
