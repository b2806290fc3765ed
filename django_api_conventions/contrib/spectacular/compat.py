"""Compatibility of two OpenAPI documents: what would break for a client of the old one.

Pure Python over OpenAPI 3.0 and 3.1 dicts (as drf-spectacular writes them); no Django. The rules
are the spec's (versioning, rule 5): adding paths, methods, optional request fields and
parameters, response fields and enum values is compatible; removing a path, a method, a field or
an enum value, changing a type, making a request field or parameter required, removing a
success status, or changing an operationId (generated clients name their functions after it) is
not, and needs a new version.

Every rule looks at which way the data flows. A client *sends* request bodies and parameters, so
the new document must accept at least what the old one accepted; a client *reads* responses, so
it must still find what the old one promised. Enums are open (clients tolerate unknown values),
so adding a value is compatible both ways; removing one is breaking both ways, as the spec says.
An extensible enum (``anyOf`` of an enum and its plain type, as ``ProblemAutoSchema`` writes
response enums) is an enum whose other values are accepted too: making a response enum
extensible is compatible, closing a request enum is not.

``compare_openapi(old, new)`` returns every :class:`Finding`, breaking or compatible, each with
its location, e.g. ``GET /v2/invoices 200 data[].status: enum value 'void' removed``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

BREAKING = "breaking"
COMPATIBLE = "compatible"
Severity = Literal["breaking", "compatible"]
Direction = Literal["request", "response"]

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON_MEDIA_TYPE = "application/json"
# Far deeper than any real document; a safety net under the recursion guard.
MAX_DEPTH = 64

# A request constraint is tightened when its upper bound goes down or its lower bound goes up.
UPPER_BOUNDS = ("maxLength", "maxItems", "maxProperties", "maximum")
LOWER_BOUNDS = ("minLength", "minItems", "minProperties", "minimum")


@dataclass(frozen=True)
class Finding:
    """One difference between the two documents, where it is and whether it breaks clients."""

    severity: Severity
    location: str
    message: str

    @property
    def breaking(self) -> bool:
        return self.severity == BREAKING

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def compare_openapi(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """Every difference between ``old`` (the baseline) and ``new`` that a client could notice."""
    return _Comparison(old, new).run()


def breaking_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """The differences that break a client written against ``old``."""
    return [finding for finding in compare_openapi(old, new) if finding.breaking]


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _types_text(types: frozenset[str]) -> str:
    return "/".join(sorted(types)) or "any"


def _join(pointer: str, name: str) -> str:
    return f"{pointer}.{name}" if pointer else name


def _at(context: str, pointer: str) -> str:
    return f"{context} {pointer}" if pointer else context


def _path_shape(template: str) -> str:
    """``/v2/invoices/{id}`` and ``/v2/invoices/{pk}`` are the same URL to a client."""
    return re.sub(r"\{[^}/]*\}", "{}", template)


def _path_parameter_names(template: str) -> list[str]:
    return re.findall(r"\{([^}/]*)\}", template)


@dataclass
class _Shape:
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


class _Comparison:
    def __init__(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self.old_doc = old
        self.new_doc = new
        self.findings: list[Finding] = []

    def add(self, severity: Severity, location: str, message: str) -> None:
        self.findings.append(Finding(severity, location, message))

    # -- references -----------------------------------------------------------------------------

    @staticmethod
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
            target: Any = doc
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or part not in target:
                    raise ValueError(f"cannot resolve $ref {ref!r}: {part!r} not found")
                target = target[part]
            node = target
        return node

    def shape(self, doc: Mapping[str, Any], node: Any, active: frozenset[str] = frozenset()) -> _Shape:
        """``node`` resolved and unified; ``active`` holds the references being unfolded, so a
        component that is its own ``allOf`` member stops instead of recursing forever."""
        refs: list[str] = []
        raw = self.resolve(doc, node, refs)
        if not isinstance(raw, Mapping) or active & set(refs):
            return _Shape(identity=tuple(refs))
        active = active | set(refs)
        shape = _Shape(identity=tuple(refs))
        self._merge_keywords(shape, raw)
        for member in raw.get("allOf") or ():
            part = self.shape(doc, member, active)
            shape.identity += part.identity
            self._merge_shape(shape, part)
        variants = list(raw.get("oneOf") or raw.get("anyOf") or ())
        if variants:
            self._merge_variants(doc, shape, variants, active)
        return shape

    @staticmethod
    def _merge_keywords(shape: _Shape, raw: Mapping[str, Any]) -> None:
        kind = raw.get("type")
        types = set(kind) if isinstance(kind, list) else ({kind} if isinstance(kind, str) else set())
        if "null" in types:
            types.discard("null")
            shape.nullable = True
        shape.types = frozenset(types) or shape.types
        shape.nullable = shape.nullable or bool(raw.get("nullable"))
        shape.format = raw.get("format", shape.format)
        if isinstance(raw.get("enum"), list):
            values = raw["enum"]
            if None in values:
                shape.nullable = True
            shape.enum = [value for value in values if value is not None]
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
        for key in (*UPPER_BOUNDS, *LOWER_BOUNDS, "pattern"):
            if key in raw:
                shape.constraints[key] = raw[key]

    @staticmethod
    def _merge_shape(shape: _Shape, part: _Shape) -> None:
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

    def _merge_variants(self, doc: Mapping[str, Any], shape: _Shape, variants: list[Any], active: frozenset[str]
                        ) -> None:
        """``oneOf``/``anyOf``: a null variant makes the schema nullable; enum-only variants (what
        drf-spectacular writes for a choice field with blank and null) are one enum."""
        kept = []
        for variant in variants:
            part = self.shape(doc, variant, active)
            only_null = (part.enum == [] and part.nullable) or (not part.types and part.nullable and part.enum is None)
            if only_null:
                shape.nullable = True
            else:
                kept.append((variant, part))
        if not kept:
            return
        enums = [part for _, part in kept if part.enum is not None and not part.properties]
        plain = [part for _, part in kept if part.enum is None and not part.properties and part.items is None
                 and part.variants is None]
        enum_types = frozenset().union(*(part.types for part in enums))
        if enums and plain and len(enums) + len(plain) == len(kept) and all(
                part.types <= enum_types for part in plain):
            # An extensible enum: the known values, and any other value of their type.
            shape.enum = [value for part in enums for value in part.enum or ()]
            shape.open_enum = True
            shape.types = enum_types
            shape.identity += tuple(ref for part in enums for ref in part.identity)
            shape.nullable = shape.nullable or any(part.nullable for _, part in kept)
        elif all(part.enum is not None and not part.properties for _, part in kept):
            shape.enum = [value for _, part in kept for value in part.enum or ()]
            shape.types = frozenset().union(*(part.types for _, part in kept))
            shape.identity += tuple(ref for _, part in kept for ref in part.identity)
            shape.nullable = shape.nullable or any(part.nullable for _, part in kept)
        elif len(kept) == 1:
            part = kept[0][1]
            shape.identity += part.identity
            self._merge_shape(shape, part)
            shape.nullable = shape.nullable or part.nullable
        else:
            shape.variants = [variant for variant, _ in kept]

    # -- documents, paths, operations --------------------------------------------------------------

    def run(self) -> list[Finding]:
        old_paths = self._paths(self.old_doc)
        new_paths = self._paths(self.new_doc)
        for key, (template, old_item) in old_paths.items():
            if key not in new_paths:
                self.add(BREAKING, template, "path removed")
                continue
            new_template, new_item = new_paths[key]
            self._path_item(template, new_template, old_item, new_item)
        for key, (template, _) in new_paths.items():
            if key not in old_paths:
                self.add(COMPATIBLE, template, "path added")
        return self.findings

    def _paths(self, doc: Mapping[str, Any]) -> dict[str, tuple[str, Mapping[str, Any]]]:
        paths = doc.get("paths") or {}
        return {_path_shape(template): (template, self.resolve(doc, item)) for template, item in paths.items()}

    def _path_item(self, template: str, new_template: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        for method in HTTP_METHODS:
            if method not in old:
                if method in new:
                    self.add(COMPATIBLE, f"{method.upper()} {template}", "method added")
                continue
            context = f"{method.upper()} {template}"
            if method not in new:
                self.add(BREAKING, context, "method removed")
                continue
            self._operation(context, (template, old, old[method]), (new_template, new, new[method]))

    def _operation(self, context: str, old: tuple[str, Mapping[str, Any], Any], new: tuple[str, Mapping[str, Any], Any]
                   ) -> None:
        old_op = self.resolve(self.old_doc, old[2])
        new_op = self.resolve(self.new_doc, new[2])
        if new_op.get("deprecated") and not old_op.get("deprecated"):
            self.add(COMPATIBLE, context, "operation deprecated")
        old_id, new_id = old_op.get("operationId"), new_op.get("operationId")
        if old_id and old_id != new_id:
            # Generated clients name their functions after it: every call site would change.
            self.add(BREAKING, context, f"operationId changed from {old_id!r} to {new_id!r}" if new_id else
                     f"operationId {old_id!r} removed")
        self._parameters(context, self._parameters_of(self.old_doc, *old), self._parameters_of(self.new_doc, *new))
        self._request_body(context, old_op.get("requestBody"), new_op.get("requestBody"))
        self._responses(context, old_op.get("responses") or {}, new_op.get("responses") or {})

    def _parameters_of(self, doc: Mapping[str, Any], template: str, item: Mapping[str, Any], operation: Any
                       ) -> dict[tuple[str, str], Mapping[str, Any]]:
        """Path-level parameters overridden by the operation's, keyed by where a client puts them:
        a path parameter by its position in the template (its name is invisible to clients), a
        header case-insensitively."""
        positions = {name: index for index, name in enumerate(_path_parameter_names(template))}
        found: dict[tuple[str, str], Mapping[str, Any]] = {}
        for node in [*(item.get("parameters") or ()), *(self.resolve(doc, operation).get("parameters") or ())]:
            parameter = self.resolve(doc, node)
            where, name = parameter.get("in", ""), str(parameter.get("name", ""))
            if where == "path" and name in positions:
                key = (where, f"#{positions[name]}")
            else:
                key = (where, name.lower() if where == "header" else name)
            found[key] = parameter
        return found

    def _parameters(self, context: str, old: dict[tuple[str, str], Mapping[str, Any]],
                    new: dict[tuple[str, str], Mapping[str, Any]]) -> None:
        for key, old_parameter in old.items():
            label = f"{old_parameter.get('in')} parameter {old_parameter.get('name')!r}"
            new_parameter = new.get(key)
            if new_parameter is None:
                self.add(BREAKING, context, f"{label} removed")
                continue
            if new_parameter.get("required") and not old_parameter.get("required"):
                self.add(BREAKING, context, f"{label} made required")
            elif old_parameter.get("required") and not new_parameter.get("required"):
                self.add(COMPATIBLE, context, f"{label} made optional")
            self._schema(f"{context} {label}", "", self._parameter_schema(old_parameter),
                         self._parameter_schema(new_parameter), "request")
        for key, new_parameter in new.items():
            if key not in old:
                label = f"{new_parameter.get('in')} parameter {new_parameter.get('name')!r}"
                if new_parameter.get("required"):
                    self.add(BREAKING, context, f"required {label} added")
                else:
                    self.add(COMPATIBLE, context, f"optional {label} added")

    @staticmethod
    def _parameter_schema(parameter: Mapping[str, Any]) -> Any:
        if "schema" in parameter:
            return parameter["schema"]
        for media in (parameter.get("content") or {}).values():
            return media.get("schema")
        return None

    def _request_body(self, context: str, old_node: Any, new_node: Any) -> None:
        old = self.resolve(self.old_doc, old_node) if old_node is not None else None
        new = self.resolve(self.new_doc, new_node) if new_node is not None else None
        if old is None and new is None:
            return
        if new is None:
            self.add(BREAKING, context, "request body removed")
            return
        if old is None:
            if new.get("required"):
                self.add(BREAKING, context, "required request body added")
            else:
                self.add(COMPATIBLE, context, "optional request body added")
            return
        if new.get("required") and not old.get("required"):
            self.add(BREAKING, context, "request body made required")
        self._contents(f"{context} request body", old.get("content") or {}, new.get("content") or {}, "request")

    def _contents(self, context: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction) -> None:
        for media_type, old_media in old.items():
            where = context if media_type == JSON_MEDIA_TYPE or len(old) == 1 else f"{context} ({media_type})"
            if media_type not in new:
                self.add(BREAKING, context, f"media type {media_type!r} removed")
                continue
            self._schema(where, "", (old_media or {}).get("schema"), (new[media_type] or {}).get("schema"), direction)
        for media_type in new:
            if media_type not in old:
                self.add(COMPATIBLE, context, f"media type {media_type!r} added")

    def _responses(self, context: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        for status, old_node in old.items():
            where = f"{context} {status}"
            if status not in new:
                if str(status).startswith("2"):
                    self.add(BREAKING, context, f"success status {status} removed")
                else:
                    self.add(COMPATIBLE, context, f"status {status} no longer documented")
                continue
            old_response = self.resolve(self.old_doc, old_node)
            new_response = self.resolve(self.new_doc, new[status])
            self._headers(where, old_response.get("headers") or {}, new_response.get("headers") or {})
            self._contents(where, old_response.get("content") or {}, new_response.get("content") or {}, "response")
        for status in new:
            if status not in old:
                self.add(COMPATIBLE, context, f"status {status} added")

    def _headers(self, context: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        new_by_name = {name.lower(): header for name, header in new.items()}
        old_names = {name.lower() for name in old}
        for name, old_node in old.items():
            new_node = new_by_name.get(name.lower())
            if new_node is None:
                self.add(BREAKING, context, f"response header {name!r} removed")
                continue
            old_header = self.resolve(self.old_doc, old_node)
            new_header = self.resolve(self.new_doc, new_node)
            self._schema(f"{context} header {name!r}", "", old_header.get("schema"), new_header.get("schema"),
                         "response")
        for name in new:
            if name.lower() not in old_names:
                self.add(COMPATIBLE, context, f"response header {name!r} added")

    # -- schemas ------------------------------------------------------------------------------------

    def _schema(self, context: str, pointer: str, old_node: Any, new_node: Any, direction: Direction,
                stack: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = ()) -> None:
        if old_node is None or new_node is None:
            if old_node is not None and direction == "response":
                self.add(BREAKING, _at(context, pointer), "schema removed")
            return
        old, new = self.shape(self.old_doc, old_node), self.shape(self.new_doc, new_node)
        key = (old.identity, new.identity, direction)
        if (old.identity and new.identity and key in stack) or len(stack) > MAX_DEPTH:
            return  # a recursive component already being compared further up
        stack = (*stack, key)
        where = _at(context, pointer)
        if old.variants is not None or new.variants is not None:
            self._nullable(where, old, new, direction)
            self._variants(context, pointer, (old_node, old), (new_node, new), direction, stack)
            return
        if not self._types(where, old, new, direction):
            return  # a changed type makes everything below it noise
        self._format(where, old, new, direction)
        self._nullable(where, old, new, direction)
        self._enum(where, old, new, direction)
        if direction == "request":
            self._constraints(where, old, new)
        self._properties(context, pointer, old, new, direction, stack)
        if old.items is not None and new.items is not None:
            self._schema(context, f"{pointer}[]", old.items, new.items, direction, stack)
        if isinstance(old.additional, Mapping) and isinstance(new.additional, Mapping):
            self._schema(context, f"{pointer}{{*}}", old.additional, new.additional, direction, stack)

    def _types(self, where: str, old: _Shape, new: _Shape, direction: Direction) -> bool:
        if old.types == new.types:
            return True
        # What the receiving side must cope with: a request's new types must cover the old ones, a
        # response's old types must cover the new ones. An integer is a number; no type is any type.
        narrow, wide = (old.types, new.types) if direction == "request" else (new.types, old.types)
        covered = not wide or (bool(narrow) and all(
            kind in wide or (kind == "integer" and "number" in wide) for kind in narrow))
        change = f"type changed from {_types_text(old.types)} to {_types_text(new.types)}"
        self.add(COMPATIBLE if covered else BREAKING, where, change)
        return covered

    def _format(self, where: str, old: _Shape, new: _Shape, direction: Direction) -> None:
        if old.format == new.format:
            return
        # A format added narrows a value: fine in a response, not in a request; removed, the reverse.
        narrowed = new.format is not None and old.format is None
        compatible = narrowed if direction == "response" else (new.format is None)
        self.add(COMPATIBLE if compatible else BREAKING, where,
                 f"format changed from {old.format or 'none'} to {new.format or 'none'}")

    def _nullable(self, where: str, old: _Shape, new: _Shape, direction: Direction) -> None:
        if old.nullable == new.nullable:
            return
        if direction == "request":
            self.add(BREAKING if old.nullable else COMPATIBLE, where,
                     "null no longer accepted" if old.nullable else "null now accepted")
        else:
            self.add(BREAKING if new.nullable else COMPATIBLE, where,
                     "may now be null" if new.nullable else "no longer null")

    def _enum(self, where: str, old: _Shape, new: _Shape, direction: Direction) -> None:
        if old.enum is None and new.enum is None:
            return
        if old.enum is None:
            if new.open_enum:
                self.add(COMPATIBLE, where, f"known values listed: {', '.join(map(_show, new.enum or ()))}")
                return
            # A response that gets an enum only narrows; a request now rejects the other values.
            self.add(BREAKING if direction == "request" else COMPATIBLE, where,
                     f"now restricted to the values {', '.join(map(_show, new.enum or ()))}")
            return
        if new.enum is None:
            self.add(COMPATIBLE, where, "no longer restricted to enum values")
            return
        if new.open_enum and not old.open_enum:
            self.add(COMPATIBLE, where, "enum made extensible: values it does not list are accepted too")
        elif old.open_enum and not new.open_enum:
            # A request now rejects the values it did not list; a response only narrows.
            self.add(BREAKING if direction == "request" else COMPATIBLE, where,
                     "enum no longer extensible: only the values it lists")
        old_keys = {json.dumps(value, sort_keys=True) for value in old.enum}
        new_keys = {json.dumps(value, sort_keys=True) for value in new.enum}
        for value in old.enum:
            if json.dumps(value, sort_keys=True) not in new_keys:
                self.add(BREAKING, where, f"enum value {_show(value)} removed")
        for value in new.enum:
            if json.dumps(value, sort_keys=True) not in old_keys:
                self.add(COMPATIBLE, where, f"enum value {_show(value)} added")

    def _constraints(self, where: str, old: _Shape, new: _Shape) -> None:
        """A request value the old document accepted must still be accepted."""
        for key in (*UPPER_BOUNDS, *LOWER_BOUNDS):
            before, after = old.constraints.get(key), new.constraints.get(key)
            if after is None or before == after or not isinstance(after, int | float):
                continue
            if before is None:
                self.add(BREAKING, where, f"{key} {after} added")
            elif (after < before) if key in UPPER_BOUNDS else (after > before):
                self.add(BREAKING, where, f"{key} changed from {before} to {after}")
            else:
                self.add(COMPATIBLE, where, f"{key} changed from {before} to {after}")
        before, after = old.constraints.get("pattern"), new.constraints.get("pattern")
        if after is not None and before != after:
            self.add(BREAKING, where, f"pattern changed from {before!r} to {after!r}" if before else
                     f"pattern {after!r} added")

    def _visible(self, doc: Mapping[str, Any], shape: _Shape, direction: Direction) -> dict[str, Any]:
        """The properties a client sends (not read-only) or reads (not write-only)."""
        hidden = "read_only" if direction == "request" else "write_only"
        return {name: node for name, node in shape.properties.items() if not getattr(self.shape(doc, node), hidden)}

    def _properties(self, context: str, pointer: str, old: _Shape, new: _Shape, direction: Direction,
                    stack: tuple[Any, ...]) -> None:
        if not old.properties and not new.properties:
            return
        old_visible = self._visible(self.old_doc, old, direction)
        new_visible = self._visible(self.new_doc, new, direction)
        for name, old_node in old_visible.items():
            here = _at(context, _join(pointer, name))
            if name not in new_visible:
                if name in new.properties:
                    hidden = "read-only" if direction == "request" else "write-only"
                    self.add(BREAKING, here, f"field now {hidden}")
                else:
                    self.add(BREAKING, here, "field removed")
                continue
            if direction == "request" and name in new.required and name not in old.required:
                self.add(BREAKING, here, "field made required")
            elif direction == "response" and name in old.required and name not in new.required:
                self.add(BREAKING, here, "field no longer required (may be absent)")
            self._schema(context, _join(pointer, name), old_node, new_visible[name], direction, stack)
        for name in new_visible:
            if name in old_visible:
                continue
            here = _at(context, _join(pointer, name))
            if direction == "request" and name in new.required:
                self.add(BREAKING, here, "required field added")
            else:
                self.add(COMPATIBLE, here, "optional field added" if direction == "request" else "field added")

    def _variants(self, context: str, pointer: str, old: tuple[Any, _Shape], new: tuple[Any, _Shape],
                  direction: Direction, stack: tuple[Any, ...]) -> None:
        """``oneOf``/``anyOf``: variants matched by their component, else by position; a schema
        that is not a union is a union of itself. A variant removed breaks like an enum value
        removed; one added is compatible, like an enum value (clients tolerate unknown kinds)."""
        where = _at(context, pointer)
        old_variants = dict(self._keyed_variants(self.old_doc, *old))
        new_variants = dict(self._keyed_variants(self.new_doc, *new))
        if not old_variants.keys() & new_variants.keys():
            self.add(BREAKING, where, "no longer a oneOf/anyOf" if new[1].variants is None else
                     "changed to a oneOf/anyOf" if old[1].variants is None else "every variant replaced")
            return
        for key, node in old_variants.items():
            if key not in new_variants:
                self.add(BREAKING, where, f"variant {key} removed")
            else:
                self._schema(context, pointer, node, new_variants[key], direction, stack)
        for key in new_variants:
            if key not in old_variants:
                self.add(COMPATIBLE, where, f"variant {key} added")

    def _keyed_variants(self, doc: Mapping[str, Any], node: Any, shape: _Shape) -> Iterator[tuple[str, Any]]:
        if shape.variants is None:
            yield (shape.identity[-1].rsplit("/", 1)[-1] if shape.identity else "#0"), node
            return
        for index, variant in enumerate(shape.variants):
            identity = self.shape(doc, variant).identity
            yield (identity[-1].rsplit("/", 1)[-1] if identity else f"#{index}"), variant
