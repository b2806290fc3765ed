"""The compatibility rules: one function per kind of change, registered in :data:`RULES`.

A rule looks at one element that both documents may have (a path, an operation, a parameter, a
schema...) and yields a ``(severity, message)`` for each change of its kind it sees there. Which
rules run is decided by the element's kind and by what happened to it: ``removed`` (only the old
document has it), ``added`` (only the new one) or ``changed`` (both; the rule then compares them).
The walker (:mod:`.walk`) reports every verdict at the element's location, in the order the rules
are registered here.

Every rule looks at which way the data flows. A client *sends* request bodies and parameters, so
the new document must accept at least what the old one accepted; a client *reads* responses, so
it must still find what the old one promised.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from .findings import BREAKING, COMPATIBLE, Direction, Severity
from .shapes import LOWER_BOUNDS, UPPER_BOUNDS, Shape

Event = Literal["removed", "added", "changed"]
REMOVED: Event = "removed"
ADDED: Event = "added"
CHANGED: Event = "changed"
Verdict = tuple[Severity, str]
Check = Callable[["Change"], Iterator[Verdict]]


@dataclass(frozen=True)
class Change:
    """One element in both documents: ``old`` is unset when it was added, ``new`` when removed.

    ``name`` is how a message names the element (a method, a parameter, a media type, a status,
    a header, a field, a variant); ``direction`` says whether the client sends or reads it.
    """

    old: Any
    new: Any
    name: str = ""
    direction: Direction = "response"


@dataclass(frozen=True)
class Field:
    """A property of an object schema, with what its parent says of it."""

    node: Any
    required: bool
    #: read-only in a request (the client does not send it), write-only in a response.
    hidden: bool = False


@dataclass(frozen=True)
class VariantSet:
    """A ``oneOf``/``anyOf`` by each variant's key (its component, else its position); a schema
    that is not a union is a set of itself."""

    shape: Shape
    variants: dict[str, Any]

    @property
    def nullable(self) -> bool:
        return self.shape.nullable


@dataclass(frozen=True)
class Rule:
    """``check`` runs on every element of ``kind`` that was ``event``. A rule that ``stops`` ends
    the comparison of its element when it finds a breaking change: what lies below is noise."""

    kind: str
    event: Event
    check: Check
    stops: bool = False


#: Every rule, in the order its findings are reported for one element.
RULES: list[Rule] = []


def rule(kind: str, event: Event, *, stops: bool = False) -> Callable[[Check], Check]:
    """Register the decorated function in :data:`RULES`."""

    def register(check: Check) -> Check:
        RULES.append(Rule(kind, event, check, stops))
        return check

    return register


def rules_by_element() -> dict[tuple[str, Event], list[Rule]]:
    """:data:`RULES` by the kind of element and the event they apply to, in their order."""
    index: dict[tuple[str, Event], list[Rule]] = {}
    for each in RULES:
        index.setdefault((each.kind, each.event), []).append(each)
    return index


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _values(values: list[Any] | None) -> str:
    return ", ".join(map(_show, values or ()))


def _types_text(types: frozenset[str]) -> str:
    return "/".join(sorted(types)) or "any"


def _by_request(direction: Direction) -> Severity:
    """Breaking where the client sends the value, compatible where it only reads a narrower one."""
    return BREAKING if direction == "request" else COMPATIBLE


# -- paths and operations --------------------------------------------------------------------------


@rule("path", REMOVED)
def path_removed(change: Change) -> Iterator[Verdict]:
    """A path removed: every call to it fails."""
    yield BREAKING, "path removed"


@rule("path", ADDED)
def path_added(change: Change) -> Iterator[Verdict]:
    """A new path: no client calls it yet."""
    yield COMPATIBLE, "path added"


@rule("operation", REMOVED)
def method_removed(change: Change) -> Iterator[Verdict]:
    """A method of a path removed: every call with it fails."""
    yield BREAKING, "method removed"


@rule("operation", ADDED)
def method_added(change: Change) -> Iterator[Verdict]:
    """A new method on a path."""
    yield COMPATIBLE, "method added"


@rule("operation", CHANGED)
def operation_deprecated(change: Change) -> Iterator[Verdict]:
    """An operation newly deprecated: it still works."""
    if change.new.get("deprecated") and not change.old.get("deprecated"):
        yield COMPATIBLE, "operation deprecated"


@rule("operation", CHANGED)
def operation_id_changed(change: Change) -> Iterator[Verdict]:
    """An operationId changed or removed: generated clients name their functions after it, so
    every call site would change. A first operationId names nothing a client calls yet."""
    old_id, new_id = change.old.get("operationId"), change.new.get("operationId")
    if old_id and old_id != new_id:
        yield (
            BREAKING,
            (f"operationId changed from {old_id!r} to {new_id!r}" if new_id else f"operationId {old_id!r} removed"),
        )


# -- parameters and request bodies -----------------------------------------------------------------


@rule("parameter", REMOVED)
def parameter_removed(change: Change) -> Iterator[Verdict]:
    """A parameter removed: clients that send it are sending something no longer accepted."""
    yield BREAKING, f"{change.name} removed"


@rule("parameter", ADDED)
def parameter_added(change: Change) -> Iterator[Verdict]:
    """A new parameter: breaking when required, since no client sends it yet."""
    if change.new.get("required"):
        yield BREAKING, f"required {change.name} added"
    else:
        yield COMPATIBLE, f"optional {change.name} added"


@rule("parameter", CHANGED)
def parameter_made_required(change: Change) -> Iterator[Verdict]:
    """An optional parameter made required: clients that leave it out are now rejected."""
    if change.new.get("required") and not change.old.get("required"):
        yield BREAKING, f"{change.name} made required"


@rule("parameter", CHANGED)
def parameter_made_optional(change: Change) -> Iterator[Verdict]:
    """A required parameter made optional: clients still send it."""
    if change.old.get("required") and not change.new.get("required"):
        yield COMPATIBLE, f"{change.name} made optional"


@rule("request body", REMOVED)
def request_body_removed(change: Change) -> Iterator[Verdict]:
    """A request body removed: what clients send is no longer read."""
    yield BREAKING, "request body removed"


@rule("request body", ADDED)
def request_body_added(change: Change) -> Iterator[Verdict]:
    """A request body where there was none: breaking when required."""
    if change.new.get("required"):
        yield BREAKING, "required request body added"
    else:
        yield COMPATIBLE, "optional request body added"


@rule("request body", CHANGED)
def request_body_made_required(change: Change) -> Iterator[Verdict]:
    """An optional request body made required: clients that send none are now rejected."""
    if change.new.get("required") and not change.old.get("required"):
        yield BREAKING, "request body made required"


@rule("media type", REMOVED)
def media_type_removed(change: Change) -> Iterator[Verdict]:
    """A media type of a request or response removed: clients that use it lose it."""
    yield BREAKING, f"media type {change.name!r} removed"


@rule("media type", ADDED)
def media_type_added(change: Change) -> Iterator[Verdict]:
    """A new media type: no client uses it yet."""
    yield COMPATIBLE, f"media type {change.name!r} added"


# -- responses -------------------------------------------------------------------------------------


@rule("response", REMOVED)
def status_removed(change: Change) -> Iterator[Verdict]:
    """A status no longer documented: a success status is what clients rely on; an error
    status they must handle anyway."""
    if change.name.startswith("2"):
        yield BREAKING, f"success status {change.name} removed"
    else:
        yield COMPATIBLE, f"status {change.name} no longer documented"


@rule("response", ADDED)
def status_added(change: Change) -> Iterator[Verdict]:
    """A new documented status."""
    yield COMPATIBLE, f"status {change.name} added"


@rule("header", REMOVED)
def response_header_removed(change: Change) -> Iterator[Verdict]:
    """A response header removed: clients that read it no longer find it."""
    yield BREAKING, f"response header {change.name!r} removed"


@rule("header", ADDED)
def response_header_added(change: Change) -> Iterator[Verdict]:
    """A new response header: clients ignore what they do not read."""
    yield COMPATIBLE, f"response header {change.name!r} added"


# -- schemas ---------------------------------------------------------------------------------------


@rule("schema", REMOVED)
def response_schema_removed(change: Change) -> Iterator[Verdict]:
    """A response that no longer says what it holds: clients cannot rely on what they read."""
    if change.direction == "response":
        yield BREAKING, "schema removed"


@rule("schema", CHANGED, stops=True)
def type_changed(change: Change) -> Iterator[Verdict]:
    """A type changed: compatible only when the receiving side still copes with every value.
    A request's new types must cover the old ones, a response's old types the new ones; an
    integer is a number, and no type is any type."""
    old, new = change.old, change.new
    if old.types == new.types:
        return
    if change.direction == "request":
        narrow, wide = old.types, new.types
    else:
        narrow, wide = new.types, old.types
    covered = not wide or (
        bool(narrow) and all(kind in wide or (kind == "integer" and "number" in wide) for kind in narrow)
    )
    yield (
        COMPATIBLE if covered else BREAKING,
        f"type changed from {_types_text(old.types)} to {_types_text(new.types)}",
    )


@rule("schema", CHANGED)
def format_changed(change: Change) -> Iterator[Verdict]:
    """A format added narrows a value: fine in a response, not in a request; one removed, the
    reverse; one replaced by another breaks both ways."""
    old, new = change.old.format, change.new.format
    if old == new:
        return
    # Compatible only when added (old None) to a response or removed (new None) from a request.
    compatible = old is None if change.direction == "response" else new is None
    yield (COMPATIBLE if compatible else BREAKING, f"format changed from {old or 'none'} to {new or 'none'}")


@rule("schema", CHANGED)
@rule("union", CHANGED)
def nullable_changed(change: Change) -> Iterator[Verdict]:
    """A request value that no longer accepts null, or a response value that may now be null."""
    old, new = change.old.nullable, change.new.nullable
    if old == new:
        return
    if change.direction == "request":
        yield (BREAKING, "null no longer accepted") if old else (COMPATIBLE, "null now accepted")
    else:
        yield (BREAKING, "may now be null") if new else (COMPATIBLE, "no longer null")


@rule("schema", CHANGED)
def enum_imposed(change: Change) -> Iterator[Verdict]:
    """An enum on a value that had none: a request now rejects the other values; a response
    only narrows."""
    old, new = change.old, change.new
    if old.enum is None and new.enum is not None and not new.open_enum:
        yield _by_request(change.direction), f"now restricted to the values {_values(new.enum)}"


@rule("schema", CHANGED)
def known_values_listed(change: Change) -> Iterator[Verdict]:
    """An extensible enum on a value that had none: its known values, any other accepted too."""
    old, new = change.old, change.new
    if old.enum is None and new.enum is not None and new.open_enum:
        yield COMPATIBLE, f"known values listed: {_values(new.enum)}"


@rule("schema", CHANGED)
def enum_lifted(change: Change) -> Iterator[Verdict]:
    """An enum removed: every value of the type is accepted."""
    if change.old.enum is not None and change.new.enum is None:
        yield COMPATIBLE, "no longer restricted to enum values"


@rule("schema", CHANGED)
def enum_made_extensible(change: Change) -> Iterator[Verdict]:
    """An enum made extensible (``anyOf`` of the enum and its plain type)."""
    old, new = change.old, change.new
    if old.enum is not None and new.enum is not None and new.open_enum and not old.open_enum:
        yield COMPATIBLE, "enum made extensible: values it does not list are accepted too"


@rule("schema", CHANGED)
def enum_closed(change: Change) -> Iterator[Verdict]:
    """An extensible enum closed: a request now rejects the values it does not list; a response
    only narrows."""
    old, new = change.old, change.new
    if old.enum is not None and new.enum is not None and old.open_enum and not new.open_enum:
        yield _by_request(change.direction), "enum no longer extensible: only the values it lists"


@rule("schema", CHANGED)
def enum_value_removed(change: Change) -> Iterator[Verdict]:
    """An enum value removed: breaking both ways, as the spec says."""
    old, new = change.old.enum, change.new.enum
    if old is None or new is None:
        return
    kept = {json.dumps(value, sort_keys=True) for value in new}
    for value in old:
        if json.dumps(value, sort_keys=True) not in kept:
            yield BREAKING, f"enum value {_show(value)} removed"


@rule("schema", CHANGED)
def enum_value_added(change: Change) -> Iterator[Verdict]:
    """An enum value added: enums are open, clients tolerate values they do not know."""
    old, new = change.old.enum, change.new.enum
    if old is None or new is None:
        return
    known = {json.dumps(value, sort_keys=True) for value in old}
    for value in new:
        if json.dumps(value, sort_keys=True) not in known:
            yield COMPATIBLE, f"enum value {_show(value)} added"


@rule("schema", CHANGED)
def request_bound_changed(change: Change) -> Iterator[Verdict]:
    """A request bound added, lowered (``max*``) or raised (``min*``): a value the old document
    accepted may be rejected. Responses may shrink: their bounds are not compared."""
    if change.direction != "request":
        return
    for key in (*UPPER_BOUNDS, *LOWER_BOUNDS):
        before, after = change.old.constraints.get(key), change.new.constraints.get(key)
        if after is None or before == after or not isinstance(after, int | float):
            continue
        if before is None:
            yield BREAKING, f"{key} {after} added"
            continue
        tightened = (after < before) if key in UPPER_BOUNDS else (after > before)
        yield BREAKING if tightened else COMPATIBLE, f"{key} changed from {before} to {after}"


@rule("schema", CHANGED)
def request_pattern_changed(change: Change) -> Iterator[Verdict]:
    """A request pattern added or changed: a value the old document accepted may not match."""
    before, after = change.old.constraints.get("pattern"), change.new.constraints.get("pattern")
    if change.direction == "request" and after is not None and before != after:
        yield BREAKING, (f"pattern changed from {before!r} to {after!r}" if before else f"pattern {after!r} added")


# -- object fields ---------------------------------------------------------------------------------


@rule("field", REMOVED)
def field_removed(change: Change) -> Iterator[Verdict]:
    """A field removed: readers no longer find it, and senders send what is not accepted."""
    yield BREAKING, "field removed"


@rule("field", ADDED)
def field_added(change: Change) -> Iterator[Verdict]:
    """A new field: breaking when a request requires it, since no client sends it yet."""
    if change.new.hidden:
        return  # read-only in a request, write-only in a response: not added for this client
    if change.direction == "response":
        yield COMPATIBLE, "field added"
    elif change.new.required:
        yield BREAKING, "required field added"
    else:
        yield COMPATIBLE, "optional field added"


@rule("field", CHANGED, stops=True)
def field_hidden(change: Change) -> Iterator[Verdict]:
    """A field made read-only (for a request) or write-only (for a response): removed for the
    client who sends, or reads, it."""
    if change.new.hidden:
        hidden = "read-only" if change.direction == "request" else "write-only"
        yield BREAKING, f"field now {hidden}"


@rule("field", CHANGED)
def request_field_made_required(change: Change) -> Iterator[Verdict]:
    """An optional request field made required: clients that leave it out are now rejected."""
    if change.direction == "request" and change.new.required and not change.old.required:
        yield BREAKING, "field made required"


@rule("field", CHANGED)
def response_field_no_longer_required(change: Change) -> Iterator[Verdict]:
    """A response field no longer required: clients that read it may not find it."""
    if change.direction == "response" and change.old.required and not change.new.required:
        yield BREAKING, "field no longer required (may be absent)"


# -- unions ----------------------------------------------------------------------------------------


@rule("union", CHANGED, stops=True)
def every_variant_replaced(change: Change) -> Iterator[Verdict]:
    """A union with no variant in common with the old one (or a schema that became, or stopped
    being, a union of other variants): nothing a client handled is left."""
    old, new = change.old, change.new
    if old.variants.keys() & new.variants.keys():
        return
    yield (
        BREAKING,
        (
            "no longer a oneOf/anyOf"
            if new.shape.variants is None
            else "changed to a oneOf/anyOf"
            if old.shape.variants is None
            else "every variant replaced"
        ),
    )


@rule("variant", REMOVED)
def variant_removed(change: Change) -> Iterator[Verdict]:
    """A ``oneOf``/``anyOf`` variant removed: breaks like an enum value removed."""
    yield BREAKING, f"variant {change.name} removed"


@rule("variant", ADDED)
def variant_added(change: Change) -> Iterator[Verdict]:
    """A ``oneOf``/``anyOf`` variant added: compatible like an enum value (clients tolerate
    unknown kinds)."""
    yield COMPATIBLE, f"variant {change.name} added"
