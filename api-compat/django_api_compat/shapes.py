"""A schema as the comparison sees it: references resolved, its spellings of one thing unified.

OpenAPI says the same thing in several ways: 3.0 ``nullable`` and 3.1 ``type: [..., "null"]``,
a reference wrapped in a one-member ``allOf``, drf-spectacular's ``oneOf`` of a choice enum with
``BlankEnum`` and ``NullEnum``. :func:`shape_of` reads any of them as one :class:`Shape`, so the
rules compare meaning, not spelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# A request constraint is tightened when its upper bound goes down or its lower bound goes up.
UPPER_BOUNDS = ("maxLength", "maxItems", "maxProperties", "maximum")
LOWER_BOUNDS = ("minLength", "minItems", "minProperties", "minimum")
CONSTRAINTS = (*UPPER_BOUNDS, *LOWER_BOUNDS, "pattern")


@dataclass
class Shape:
    """A schema with its references resolved and its spellings of the same thing unified
    (3.0 ``nullable`` and 3.1 ``"null"`` types, ``allOf`` merges, oneOf of enums)."""

    identity: tuple[str, ...] = ()
    types: frozenset[str] = frozenset()
    format: str | None = None
    nullable: bool = False
    enum: list[Any] | None = None
    open_enum: bool = False
    properties: dict[str, Any] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    items: Any = None
    additional: Any = None
    variants: list[Any] | None = None
    read_only: bool = False
    write_only: bool = False
    constraints: dict[str, Any] = field(default_factory=dict)


def resolve(doc: Mapping[str, Any], node: Any, refs: list[str] | None = None) -> Any:
    """Follow ``$ref`` chains inside ``doc``; the references passed are appended to ``refs``."""
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            raise ValueError(f"cannot resolve $ref {ref!r}: only local, non-circular references are supported")
        seen.add(ref)
        if refs is not None:
            refs.append(ref)
        node = _target(doc, ref)
    return node


def _target(doc: Mapping[str, Any], ref: str) -> Any:
    """The node a local JSON pointer names (``~1`` is ``/``, ``~0`` is ``~``)."""
    target: Any = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            raise ValueError(f"cannot resolve $ref {ref!r}: {part!r} not found")
        target = target[part]
    return target


def shape_of(doc: Mapping[str, Any], node: Any, active: frozenset[str] = frozenset()) -> Shape:
    """``node`` resolved and unified; ``active`` holds the references being unfolded, so a
    component that is its own ``allOf`` member stops instead of recursing forever."""
    refs: list[str] = []
    raw = resolve(doc, node, refs)
    if not isinstance(raw, Mapping) or active & set(refs):
        return Shape(identity=tuple(refs))
    active = active | set(refs)
    shape = Shape(identity=tuple(refs))
    _merge_keywords(shape, raw)
    for member in raw.get("allOf") or ():
        part = shape_of(doc, member, active)
        shape.identity += part.identity
        _merge_shape(shape, part)
    variants = list(raw.get("oneOf") or raw.get("anyOf") or ())
    if variants:
        _merge_variants(shape, [(variant, shape_of(doc, variant, active)) for variant in variants])
    return shape


def _merge_keywords(shape: Shape, raw: Mapping[str, Any]) -> None:
    _merge_type(shape, raw)
    shape.format = raw.get("format", shape.format)
    _merge_enum(shape, raw)
    if isinstance(raw.get("properties"), Mapping):
        shape.properties = {**shape.properties, **raw["properties"]}
    if isinstance(raw.get("required"), list):
        shape.required = shape.required | frozenset(raw["required"])
    if "items" in raw:
        shape.items = raw["items"]
    if "additionalProperties" in raw:
        shape.additional = raw["additionalProperties"]
    shape.read_only = shape.read_only or bool(raw.get("readOnly"))
    shape.write_only = shape.write_only or bool(raw.get("writeOnly"))
    shape.constraints.update({key: raw[key] for key in CONSTRAINTS if key in raw})


def _merge_type(shape: Shape, raw: Mapping[str, Any]) -> None:
    """``type`` as a set; a 3.1 ``"null"`` member and 3.0 ``nullable`` both make it nullable."""
    kind = raw.get("type")
    types = set(kind) if isinstance(kind, list) else ({kind} if isinstance(kind, str) else set())
    if "null" in types:
        types.discard("null")
        shape.nullable = True
    shape.types = frozenset(types) or shape.types
    shape.nullable = shape.nullable or bool(raw.get("nullable"))


def _merge_enum(shape: Shape, raw: Mapping[str, Any]) -> None:
    """A ``None`` among the enum values is the nullable flag, not a value."""
    if not isinstance(raw.get("enum"), list):
        return
    values = raw["enum"]
    if None in values:
        shape.nullable = True
    shape.enum = [value for value in values if value is not None]


def _merge_shape(shape: Shape, part: Shape) -> None:
    """``allOf``: the schema is every member at once."""
    shape.types = shape.types or part.types
    shape.format = shape.format or part.format
    shape.enum = shape.enum if shape.enum is not None else part.enum
    shape.properties = {**part.properties, **shape.properties}
    shape.required = shape.required | part.required
    shape.items = shape.items if shape.items is not None else part.items
    shape.additional = shape.additional if shape.additional is not None else part.additional
    shape.variants = shape.variants if shape.variants is not None else part.variants
    shape.read_only = shape.read_only or part.read_only
    shape.write_only = shape.write_only or part.write_only
    shape.constraints = {**part.constraints, **shape.constraints}


def _merge_variants(shape: Shape, variants: list[tuple[Any, Shape]]) -> None:
    """``oneOf``/``anyOf``: a null variant makes the schema nullable; enum-only variants (what
    drf-spectacular writes for a choice field with blank and null) are one enum; an enum beside
    its plain type is an extensible enum; a single variant left is the schema itself."""
    kept = [(variant, part) for variant, part in variants if not _only_null(part)]
    shape.nullable = shape.nullable or len(kept) < len(variants)
    if kept:
        _merge_kept_variants(shape, kept)


def _merge_kept_variants(shape: Shape, kept: list[tuple[Any, Shape]]) -> None:
    parts = [part for _, part in kept]
    if _is_extensible_enum(parts):
        _merge_enums(shape, [part for part in parts if _is_enum(part)], parts)
        shape.open_enum = True
    elif all(_is_enum(part) for part in parts):
        _merge_enums(shape, parts, parts)
    elif len(parts) == 1:
        shape.identity += parts[0].identity
        _merge_shape(shape, parts[0])
        shape.nullable = shape.nullable or parts[0].nullable
    else:
        shape.variants = [variant for variant, _ in kept]


def _only_null(part: Shape) -> bool:
    """``{"enum": [null]}`` or ``{"type": "null"}``: the variant that says "or null"."""
    return (part.enum == [] and part.nullable) or (not part.types and part.nullable and part.enum is None)


def _is_enum(part: Shape) -> bool:
    return part.enum is not None and not part.properties


def _is_plain(part: Shape) -> bool:
    """A bare type (``{"type": "string"}``): any value of it."""
    return part.enum is None and not part.properties and part.items is None and part.variants is None


def _is_extensible_enum(parts: list[Shape]) -> bool:
    """Enums and plain types of no other type than theirs: the known values, or any other."""
    enums = [part for part in parts if _is_enum(part)]
    plain = [part for part in parts if _is_plain(part)]
    enum_types = frozenset().union(*(part.types for part in enums))
    return (
        bool(enums and plain)
        and len(enums) + len(plain) == len(parts)
        and all(part.types <= enum_types for part in plain)
    )


def _merge_enums(shape: Shape, enums: list[Shape], parts: list[Shape]) -> None:
    """The values of every enum in ``enums`` as one enum of their types."""
    shape.enum = [value for part in enums for value in part.enum or ()]
    shape.types = frozenset().union(*(part.types for part in enums))
    shape.identity += tuple(ref for part in enums for ref in part.identity)
    shape.nullable = shape.nullable or any(part.nullable for part in parts)
