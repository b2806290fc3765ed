"""The walk over two OpenAPI documents: it matches their elements and applies the rules to each.

Paths are matched by their shape (``{id}`` and ``{pk}`` are one URL to a client), methods by
name, parameters by where a client puts them, statuses, media types and response headers by key,
fields by name and union variants by their component. For every element the walker applies the
rules of :mod:`.rules` registered for its kind and what happened to it, then, when both
documents have it and no rule stopped there, walks into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .findings import BREAKING, Direction, Finding
from .rules import ADDED, CHANGED, REMOVED, Change, Event, Field, VariantSet, rules_by_element
from .shapes import Shape, resolve, shape_of

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON_MEDIA_TYPE = "application/json"
# Far deeper than any real document; a safety net under the recursion guard.
MAX_DEPTH = 64

#: An element of a collection: the key it is matched by, its name in messages, the element.
Entry = tuple[Any, str, Any]
#: The pairs of components being compared, outermost first, and in which direction.
StackKey = tuple[tuple[str, ...], tuple[str, ...], str]
Stack = tuple[StackKey, ...]
#: Walks into an element both documents have: its name, the old one, the new one.
Descend = Callable[[str, Any, Any], None]


def _join(pointer: str, name: str) -> str:
    return f"{pointer}.{name}" if pointer else name


def _at(context: str, pointer: str) -> str:
    return f"{context} {pointer}" if pointer else context


def _path_shape(template: str) -> str:
    """``/v2/invoices/{id}`` and ``/v2/invoices/{pk}`` are the same URL to a client."""
    return re.sub(r"\{[^}/]*\}", "{}", template)


def _path_parameter_names(template: str) -> list[str]:
    return re.findall(r"\{([^}/]*)\}", template)


def _entries(mapping: Mapping[Any, Any]) -> list[Entry]:
    return [(key, str(key), value) for key, value in mapping.items()]


def _event(in_old: bool, in_new: bool) -> Event | None:
    if in_old:
        return CHANGED if in_new else REMOVED
    return ADDED if in_new else None


def _deeper(stack: Stack, key: StackKey) -> Stack | None:
    """``stack`` with ``key`` on top, or None when the two components are already being compared
    further up (a recursive schema) or the walk is deeper than any real document."""
    old_identity, new_identity, _ = key
    if (old_identity and new_identity and key in stack) or len(stack) > MAX_DEPTH:
        return None
    return (*stack, key)


def _parameter_label(parameter: Mapping[str, Any]) -> str:
    return f"{parameter.get('in')} parameter {parameter.get('name')!r}"


def _parameter_schema(parameter: Mapping[str, Any]) -> Any:
    if "schema" in parameter:
        return parameter["schema"]
    for media in (parameter.get("content") or {}).values():
        return media.get("schema")
    return None


def _keyed_variants(doc: Mapping[str, Any], node: Any, shape: Shape) -> Iterator[tuple[str, Any]]:
    """Each variant by its component's name, else by its position; a schema that is not a
    union is its only variant."""
    if shape.variants is None:
        yield (shape.identity[-1].rsplit("/", 1)[-1] if shape.identity else "#0"), node
        return
    for index, variant in enumerate(shape.variants):
        identity = shape_of(doc, variant).identity
        yield (identity[-1].rsplit("/", 1)[-1] if identity else f"#{index}"), variant


class Comparison:
    """One comparison of ``old`` (the baseline) with ``new``; :meth:`run` returns its findings."""

    def __init__(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self.old_doc = old
        self.new_doc = new
        self.findings: list[Finding] = []
        self.rules = rules_by_element()

    def run(self) -> list[Finding]:
        self.each("path", str, self._paths(self.old_doc), self._paths(self.new_doc), self._path_item)
        return self.findings

    def apply(self, kind: str, event: Event, where: str, change: Change) -> bool:
        """Apply the rules for ``kind`` and ``event``; False when one stopped the comparison."""
        for each in self.rules.get((kind, event), ()):
            verdicts = list(each.check(change))
            self.findings.extend(Finding(severity, where, message) for severity, message in verdicts)
            if each.stops and any(severity == BREAKING for severity, _ in verdicts):
                return False
        return True

    def each(
        self,
        kind: str,
        where: Callable[[str], str],
        old: list[Entry],
        new: list[Entry],
        descend: Descend,
        direction: Direction = "response",
    ) -> None:
        """Match two collections by key: each old element removed or changed (then walked
        into), then each new one added. ``where`` turns an element's name into the location
        its findings are reported at."""
        new_by_key = {key: element for key, _, element in new}
        for key, name, element in old:
            if key not in new_by_key:
                self.apply(kind, REMOVED, where(name), Change(element, None, name, direction))
                continue
            change = Change(element, new_by_key[key], name, direction)
            if self.apply(kind, CHANGED, where(name), change):
                descend(name, element, new_by_key[key])
        old_keys = {key for key, _, _ in old}
        for key, name, element in new:
            if key not in old_keys:
                self.apply(kind, ADDED, where(name), Change(None, element, name, direction))

    # -- paths and operations ----------------------------------------------------------------------

    @staticmethod
    def _paths(doc: Mapping[str, Any]) -> list[Entry]:
        paths = {
            _path_shape(template): (template, resolve(doc, item)) for template, item in (doc.get("paths") or {}).items()
        }
        return [(key, template, (template, item)) for key, (template, item) in paths.items()]

    def _path_item(self, template: str, old: tuple[str, Any], new: tuple[str, Any]) -> None:
        """The methods in the order of :data:`HTTP_METHODS`, added ones among them."""
        (_, old_item), (new_template, new_item) = old, new
        for method in HTTP_METHODS:
            event = _event(method in old_item, method in new_item)
            where = f"{method.upper()} {template}"
            if event == CHANGED:
                self._operation(
                    where, (template, old_item, old_item[method]), (new_template, new_item, new_item[method])
                )
            elif event is not None:
                change = Change(old_item.get(method), new_item.get(method), method)
                self.apply("operation", event, where, change)

    def _operation(
        self, where: str, old: tuple[str, Mapping[str, Any], Any], new: tuple[str, Mapping[str, Any], Any]
    ) -> None:
        old_op, new_op = resolve(self.old_doc, old[2]), resolve(self.new_doc, new[2])
        if not self.apply("operation", CHANGED, where, Change(old_op, new_op)):
            return

        def parameter(label: str, old_parameter: Any, new_parameter: Any) -> None:
            self._schema(
                f"{where} {label}", "", _parameter_schema(old_parameter), _parameter_schema(new_parameter), "request"
            )

        def response(status: str, old_response: Any, new_response: Any) -> None:
            self._response(f"{where} {status}", old_response, new_response)

        self.each(
            "parameter",
            lambda _: where,
            self._parameters_of(self.old_doc, *old),
            self._parameters_of(self.new_doc, *new),
            parameter,
            "request",
        )
        self._request_body(where, old_op.get("requestBody"), new_op.get("requestBody"))
        self.each(
            "response",
            lambda _: where,
            _entries(old_op.get("responses") or {}),
            _entries(new_op.get("responses") or {}),
            response,
        )

    def _parameters_of(
        self, doc: Mapping[str, Any], template: str, item: Mapping[str, Any], operation: Any
    ) -> list[Entry]:
        """Path-level parameters overridden by the operation's, keyed by where a client puts
        them: a path parameter by its position in the template (its name is invisible to
        clients), a header case-insensitively."""
        positions = {name: index for index, name in enumerate(_path_parameter_names(template))}
        found: dict[tuple[str, str], Mapping[str, Any]] = {}
        operation = resolve(doc, operation)
        for node in [*(item.get("parameters") or ()), *(operation.get("parameters") or ())]:
            parameter = resolve(doc, node)
            where, name = parameter.get("in", ""), str(parameter.get("name", ""))
            if where == "path" and name in positions:
                key = (where, f"#{positions[name]}")
            else:
                key = (where, name.lower() if where == "header" else name)
            found[key] = parameter
        return [(key, _parameter_label(parameter), parameter) for key, parameter in found.items()]

    def _request_body(self, where: str, old_node: Any, new_node: Any) -> None:
        old = resolve(self.old_doc, old_node) if old_node is not None else None
        new = resolve(self.new_doc, new_node) if new_node is not None else None
        event = _event(old is not None, new is not None)
        if event is None:
            return
        if self.apply("request body", event, where, Change(old, new, direction="request")) and (
            old is not None and new is not None
        ):
            self._contents(f"{where} request body", old.get("content") or {}, new.get("content") or {}, "request")

    def _contents(self, context: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction) -> None:
        """Media types; a schema is located by its media type unless it is the only one or JSON."""

        def media(media_type: str, old_media: Any, new_media: Any) -> None:
            named = media_type == JSON_MEDIA_TYPE or len(old) == 1
            old_schema = (old_media or {}).get("schema")
            new_schema = (new_media or {}).get("schema")
            self._schema(context if named else f"{context} ({media_type})", "", old_schema, new_schema, direction)

        self.each("media type", lambda _: context, _entries(old), _entries(new), media, direction)

    def _response(self, where: str, old_node: Any, new_node: Any) -> None:
        old, new = resolve(self.old_doc, old_node), resolve(self.new_doc, new_node)
        self._headers(where, old.get("headers") or {}, new.get("headers") or {})
        self._contents(where, old.get("content") or {}, new.get("content") or {}, "response")

    def _headers(self, context: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        """Response headers, matched whatever their case."""

        def header(name: str, old_node: Any, new_node: Any) -> None:
            old_header = resolve(self.old_doc, old_node)
            new_header = resolve(self.new_doc, new_node)
            self._schema(
                f"{context} header {name!r}", "", old_header.get("schema"), new_header.get("schema"), "response"
            )

        def entries(headers: Mapping[str, Any]) -> list[Entry]:
            return [(name.lower(), name, node) for name, node in headers.items()]

        self.each("header", lambda _: context, entries(old), entries(new), header)

    # -- schemas -----------------------------------------------------------------------------------

    def _schema(
        self, context: str, pointer: str, old_node: Any, new_node: Any, direction: Direction, stack: Stack = ()
    ) -> None:
        where = _at(context, pointer)
        if old_node is None or new_node is None:
            if old_node is not None:
                self.apply("schema", REMOVED, where, Change(old_node, None, direction=direction))
            return
        old, new = shape_of(self.old_doc, old_node), shape_of(self.new_doc, new_node)
        deeper = _deeper(stack, (old.identity, new.identity, direction))
        if deeper is None:
            return  # a recursive component already being compared further up
        if old.variants is not None or new.variants is not None:
            self._union(context, pointer, (old_node, old), (new_node, new), direction, deeper)
        elif self.apply("schema", CHANGED, where, Change(old, new, direction=direction)):
            self._members(context, pointer, (old, new), direction, deeper)

    def _members(
        self, context: str, pointer: str, shapes: tuple[Shape, Shape], direction: Direction, stack: Stack
    ) -> None:
        """What a schema holds: its fields, its items, the values of its map."""
        old, new = shapes
        if old.properties or new.properties:
            self._fields(context, pointer, shapes, direction, stack)
        if old.items is not None and new.items is not None:
            self._schema(context, f"{pointer}[]", old.items, new.items, direction, stack)
        if isinstance(old.additional, Mapping) and isinstance(new.additional, Mapping):
            self._schema(context, f"{pointer}{{*}}", old.additional, new.additional, direction, stack)

    def _fields(
        self, context: str, pointer: str, shapes: tuple[Shape, Shape], direction: Direction, stack: Stack
    ) -> None:
        def field(name: str, old_field: Field, new_field: Field) -> None:
            self._schema(context, _join(pointer, name), old_field.node, new_field.node, direction, stack)

        old = [entry for entry in self._field_entries(self.old_doc, shapes[0], direction) if not entry[2].hidden]
        new = self._field_entries(self.new_doc, shapes[1], direction)
        self.each("field", lambda name: _at(context, _join(pointer, name)), old, new, field, direction)

    @staticmethod
    def _field_entries(doc: Mapping[str, Any], shape: Shape, direction: Direction) -> list[Entry]:
        """The properties, each hidden when the client does not see it: read-only ones in a
        request (never sent), write-only ones in a response (never read)."""
        hidden = "read_only" if direction == "request" else "write_only"
        return [
            (name, name, Field(node, name in shape.required, getattr(shape_of(doc, node), hidden)))
            for name, node in shape.properties.items()
        ]

    def _union(
        self,
        context: str,
        pointer: str,
        old: tuple[Any, Shape],
        new: tuple[Any, Shape],
        direction: Direction,
        stack: Stack,
    ) -> None:
        """``oneOf``/``anyOf``: variants matched by their component, else by position."""

        def variant(_: str, old_node: Any, new_node: Any) -> None:
            self._schema(context, pointer, old_node, new_node, direction, stack)

        where = _at(context, pointer)
        old_set = VariantSet(old[1], dict(_keyed_variants(self.old_doc, *old)))
        new_set = VariantSet(new[1], dict(_keyed_variants(self.new_doc, *new)))
        if self.apply("union", CHANGED, where, Change(old_set, new_set, direction=direction)):
            self.each(
                "variant", lambda _: where, _entries(old_set.variants), _entries(new_set.variants), variant, direction
            )
