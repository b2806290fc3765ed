"""Extensible response enums: the values known today, and any other value accepted.

The conventions make adding an enum value a compatible change, and ask clients to tolerate
values they do not know. A closed ``enum`` in a response schema says the opposite to client
generators: openapi-python-client's generated model raises ``ValueError`` on a new value, and a
TypeScript union rejects it. A response field with choices is therefore written as::

    {"anyOf": [{"$ref": "#/components/schemas/OrderStatusEnum"}, {"type": "string"}],
     "x-extensible-enum": ["pending", "shipped", "cancelled"]}

which both openapi-python-client (``OrderStatusEnum | str``, parsed without error) and
openapi-typescript (``components["schemas"]["OrderStatusEnum"] | string``) turn into a type that
accepts unknown values while still naming the known ones; ``x-extensible-enum`` lists them for
the tools that read it (Zalando's guidelines). Request enums stay closed: the server refuses
another value.

Two steps, because drf-spectacular names enums only after every component is built:
:func:`extensible` writes the enum inline in the ``anyOf`` (already open, with no name);
:func:`name_extensible_enums`, a postprocessing step, moves each inline enum to a named
component, reusing the component drf-spectacular's ``postprocess_schema_enums`` made for the same
values of a request field.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

#: The vendor extension that lists the known values of an extensible enum.
EXTENSIBLE_ENUM = "x-extensible-enum"
_COMPONENTS = "#/components/schemas/"
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
    if isinstance(types, list):
        types = [kind for kind in types if kind != "null"]
        types = types[0] if len(types) == 1 else types or None
    rest = {key: value for key, value in schema.items() if key not in (*_ENUM_KEYS, "x-spec-enum-id")}
    closed = {"type": types, "enum": known} if types else {"enum": known}
    open_variant = {"type": types} if types else {}
    variants = [closed, open_variant, *([{"type": "null"}] if nullable else [])]
    return {"anyOf": variants, **rest, EXTENSIBLE_ENUM: known}


def name_extensible_enums(schema: dict[str, Any], enum_suffix: str = "Enum", registry: Any = None) -> dict[str, Any]:
    """Move each inline enum of an extensible enum to a component of ``components.schemas``.

    A component with the same type and values is reused (drf-spectacular's name for the same
    choices of a request field); else the enum is named ``<Field>Enum`` when only one set of
    values goes by that field name, ``<Component><Field>Enum`` otherwise, with ``Response``
    before the suffix when that name is taken. Idempotent. ``registry``: the generator's
    component registry, which learns the new components too (drf-spectacular's enum hook
    rebuilds ``components`` from it when it runs after this step).
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
        target = {"$ref": f"{_COMPONENTS}{name}"}
        closed.clear()
        closed.update(target)
    if found:
        schema["components"]["schemas"] = dict(sorted(components.items()))
    return schema


def _inline_enums(components: dict[str, Any]) -> Iterator[tuple[str, str, MutableMapping[str, Any]]]:
    """(component, field, the closed variant) of every extensible enum still written inline."""
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
