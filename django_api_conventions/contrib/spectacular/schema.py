"""``ProblemAutoSchema``: drf-spectacular's AutoSchema, saying what the package makes views do.

Each operation gets the package's headers (idempotency key, replay, trace and client id,
deprecation), every problem response it can answer as a shared component, the list envelope
and typed parameters of keyset lists and searches, and versionless names (:mod:`.operations`);
a keyed one, ``x-idempotency`` for client generators.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from django.utils import timezone
from drf_spectacular.drainage import get_override
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance, is_patched_serializer
from drf_spectacular.settings import spectacular_settings
from rest_framework.permissions import AllowAny
from rest_framework.serializers import BaseSerializer
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from ...http import header_names
from ...idempotency.decorators import is_idempotency_exempt
from ...idempotency.mixins import IdempotencyMixin
from ...pagination import KeysetPagination, SearchMixin, StrictFilterBackend, StrictQueryParametersMixin
from ...pagination.drf import extra_declarations, filter_parameter_names, get_filterset_class, strict_filters
from ...problems import PROBLEM_CONTENT_TYPE, problem_types
from ...versioning.deprecation import endpoint_deprecations
from ...versioning.lifecycle import get_version_table
from .components import (
    COMPONENT_SCHEMAS,
    RETRY_AFTER_HEADER,
    client_parameters,
    idempotency_extension,
    idempotency_key_parameter,
    replay_headers,
    trace_id_response_header,
)
from .enums import extensible
from .operations import action_of, own_doc, public_doc, resource_tokens, shares_its_action, summary

DEPRECATION_HEADERS: dict[str, Any] = {
    header_names.DEPRECATION: {
        "description": "RFC 9745: when this operation was deprecated, as `@<seconds since the epoch>`.",
        "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
    },
    header_names.SUNSET: {
        "description": "RFC 8594: from this HTTP-date on, the operation answers 410.",
        "schema": {"type": "string"},
    },
    header_names.LINK: {
        "description": 'The migration guide, with rel="deprecation" and rel="sunset".',
        "schema": {"type": "string"},
    },
}

_WWW_AUTHENTICATE_HEADER: dict[str, Any] = {
    "description": 'RFC 9110: how to authenticate, such as `Basic realm="api"`.',
    "schema": {"type": "string"},
}

_RETRY_AFTER_STATUSES = frozenset({409, 429, 503})
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_BODY_PROBLEMS = (
    "malformed-request",
    "unreadable-request",
    "length-required",
    "request-too-large",
    "unsupported-media-type",
    "validation-error",
)
_IDEMPOTENCY_PROBLEMS = (
    "idempotency-key-invalid",
    "idempotency-key-reused",
    "idempotency-key-in-use",
    "idempotency-lease-expired",
    "idempotency-store-unavailable",
    "idempotency-response-too-large",
)


if TYPE_CHECKING:
    _SchemaBase = AutoSchema
else:
    _SchemaBase = object


class ProblemSchemaMixin(_SchemaBase):
    """The package's headers, problems, lists and deprecations, for any drf-spectacular ``AutoSchema``.

    Put it before a project's own ``AutoSchema`` subclass, whose methods it extends through
    ``super()``::

        class APISchema(ProblemSchemaMixin, ProjectAutoSchema):
            pass

    :class:`ProblemAutoSchema` is this mixin on drf-spectacular's ``AutoSchema``. A subclass
    changes what generated clients get with the class attributes below.
    """

    #: Response fields with choices as extensible enums, so that a value added later does not
    #: break generated clients. ``False``: drf-spectacular's closed ``enum``.
    extensible_response_enums: bool = True
    #: Every field a response serializer writes is ``required`` in its response component.
    response_fields_required: bool = True
    #: Request fields' defaults as ``default`` rather than in their description (openapi-typescript
    #: makes a field with a ``default`` required, in request bodies too).
    request_defaults: bool = False
    #: operationIds and tags without the URL version (``invoices_list``). ``False``:
    #: drf-spectacular's; ``None``: versionless where ``VERSIONS`` is set.
    versionless_names: bool | None = None
    #: The security of an operation anonymous callers may use: ``"omit"`` (none: generated
    #: clients take a plain client) or ``"optional"`` (drf-spectacular's ``[{scheme: []}, {}]``).
    anonymous_security: str = "omit"

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: Any
    ) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is not None and (options := self._idempotency_options()) is not None:
            # Here rather than in get_extensions(), which a view's @extend_schema(extensions=...) replaces.
            operation.setdefault("x-idempotency", idempotency_extension(required=options.required))
        return operation

    def _action(self) -> str:
        return action_of(self.view, self.method, self.method == "GET" and self._is_list_view())

    def _resource_words(self) -> list[str]:
        return resource_tokens(self.path, self.path_prefix, self.view, self._action())

    def _versionless_names(self) -> bool:
        if self.versionless_names is None:
            return bool(get_version_table())
        return self.versionless_names

    def get_operation_id(self) -> str:
        if not self._versionless_names():
            return super().get_operation_id()
        name = "_".join([*(self._resource_words() or ["root"]), self._action()])
        if shares_its_action(self.view, self.method, self.method_mapping):
            # One action, several methods: drf-spectacular would number all but one of the equal
            # names (``_2``, ``_3``: an order clients cannot rely on) and warn, which fails
            # ``spectacular --fail-on-warn``. Its word for the method tells them apart for good.
            is_list = self.method == "GET" and self._is_list_view()
            name = f"{name}_{'list' if is_list else self.method_mapping[self.method.lower()]}"
        return name

    def get_tags(self) -> list[str]:
        # drf-spectacular tags by the first path segment, the URL version: generated clients
        # group their modules by tag (openapi-python-client's api/v2/...).
        if not self._versionless_names():
            return super().get_tags()
        return self._resource_words()[:1] or super().get_tags()

    def _action_method(self) -> Any:
        return getattr(self.view, getattr(self.view, "action", None) or self.method.lower(), None)

    def get_description(self) -> str:  # type: ignore[override]  # AutoSchema's signature, not DRF's
        return own_doc(self._action_method()) or public_doc(type(self.view), APIView)

    def get_summary(self) -> str | None:
        first_line = own_doc(self._action_method()).split("\n", 1)[0].strip()
        return first_line or summary(self._resource_words(), self._action())

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        # openapi-python-client types every operation with a security requirement as taking an
        # AuthenticatedClient, even when `{}` (anonymous) is one of its alternatives.
        if {} in auths and self.anonymous_security == "omit":
            return []
        return auths

    def _map_serializer_field(self, field: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            direction == "response"
            and isinstance(schema, dict)
            and spectacular_settings.COMPONENT_SPLIT_REQUEST
            and self.extensible_response_enums
        ):
            return extensible(schema)
        return schema

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        instance = force_instance(serializer)
        if get_override(instance, "description", None) is None:  # no @extend_schema_serializer's
            description = public_doc(type(instance), BaseSerializer)
            if description:
                schema["description"] = description
            else:
                schema.pop("description", None)
        if not spectacular_settings.COMPONENT_SPLIT_REQUEST:
            return schema
        if direction == "request" and not self.request_defaults:
            _defaults_in_words(schema)
        if direction == "response" and self.response_fields_required and not is_patched_serializer(instance, direction):
            _require_written_fields(schema)
        return schema

    def _process_override_parameters(self, direction: Any = "request") -> dict[Any, Any]:
        # Added as overrides so that they reach every operation; a view's own @extend_schema
        # parameters of the same name and location still win.
        ours = client_parameters()
        options = self._idempotency_options()
        if options is not None:
            ours.append(idempotency_key_parameter(required=options.required))
        ours.extend(self._extra_query_parameters())
        overrides = super()._process_override_parameters(direction)
        return {**{(p["name"], p["in"]): p for p in ours}, **overrides}

    def _extra_query_parameters(self) -> list[dict[str, Any]]:
        # The parameters the project reads, where undeclared ones are refused: a view with strict
        # query parameters, a list under the strict backend; never the search, which reads its body.
        if self._is_search():
            return []
        strict_list = self._is_list_view() and any(
            isinstance(backend, type) and issubclass(backend, StrictFilterBackend)
            for backend in self.get_filter_backends()
        )
        if not (strict_list or isinstance(self.view, StrictQueryParametersMixin)):
            return []
        parameters = extra_declarations(self.view).openapi_parameters()
        if not self._is_list_view():
            return parameters
        filters = set(filter_parameter_names(self.view))  # a filter of the same name is the list's
        return [parameter for parameter in parameters if parameter["name"] not in filters]

    def _header_refs(self, headers: dict[str, Any]) -> dict[str, Any]:
        return {
            name: self._shared_component(ResolvedComponent.HEADER, name, header) for name, header in headers.items()
        }

    def _shared_component(self, kind: str, name: str, definition: dict[str, Any]) -> dict[str, Any]:
        # Another definition under a name already taken gets the name with a digest of its own.
        component = ResolvedComponent(name=name, type=kind, object=name, schema=definition)
        if component in self.registry and self.registry[component].schema != definition:
            named = f"{name}_{_digest(definition)}"
            component = ResolvedComponent(name=named, type=kind, object=named, schema=definition)
        self.registry.register_on_missing(component)
        ref: dict[str, Any] = component.ref
        return ref

    def _idempotency_options(self) -> Any:
        if self.method not in UNSAFE_METHODS or not isinstance(self.view, IdempotencyMixin):
            return None
        options = self.view.get_idempotency_options()
        if self.method not in options.methods:
            return None
        # drf-spectacular, as DRF's generator, gives a viewset's view the route's action_map.
        exempt = is_idempotency_exempt(self.view, self.method, getattr(self.view, "action_map", None))
        return None if exempt else options

    def _is_search(self) -> bool:
        return isinstance(self.view, SearchMixin) and getattr(self.view, "action", None) == "search"

    def _is_list_view(self, serializer: Any = None) -> bool:
        return self._is_search() or super()._is_list_view(serializer)

    def get_filter_backends(self) -> list[Any]:
        return [] if self._is_search() else super().get_filter_backends()

    def _get_pagination_parameters(self) -> list[dict[str, Any]]:
        return [] if self._is_search() else super()._get_pagination_parameters()

    def _get_request_body(self, direction: Any = "request") -> dict[str, Any] | None:
        if not self._is_search():
            body: dict[str, Any] | None = super()._get_request_body(direction)
            return body
        return {"required": True, "content": {"application/json": {"schema": self._search_body_schema()}}}

    def _search_body_schema(self) -> dict[str, Any]:
        view: Any = self.view
        filters = strict_filters(view, get_filterset_class(view))
        properties = filters.body_properties() if filters is not None else {}
        paginator = self._get_paginator()
        cursor_name, limit_name, *sort_name = paginator.get_query_parameter_names()
        limit = next(
            parameter["schema"]
            for parameter in paginator.get_schema_operation_parameters(view)
            if parameter["name"] == limit_name
        )
        sort = (
            {sort_name[0]: {**paginator.sort_schema(), "description": "The order of the results."}} if sort_name else {}
        )
        return {
            "type": "object",
            "description": "Rows that match ANY of the filter objects; inside one object, the filters are ANDed.",
            "required": ["any"],
            "additionalProperties": False,
            "properties": {
                "any": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": view.search_max_alternatives,
                    "items": {
                        "type": "object",
                        "minProperties": 1,
                        "additionalProperties": False,
                        "properties": properties,
                    },
                },
                limit_name: limit,
                cursor_name: {
                    "type": "string",
                    "minLength": 1,
                    "description": "The next_cursor or previous_cursor of the page you are on.",
                },
                **sort,
            },
        }

    def is_deprecated(self) -> bool:
        return super().is_deprecated() or bool(self._deprecations())

    def _deprecations(self) -> list[Any]:
        found: list[Any] = [
            entry
            for entry in endpoint_deprecations(self.view) + endpoint_deprecations(type(self.view))
            if entry.applies_to(self.method)
        ]
        version = get_version_table().get(str(getattr(self.view.request, "version", None) or ""))
        if version is not None and version.is_deprecated(timezone.now()):
            found.append(version)
        return found

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        success_headers = {**trace_id_response_header()}
        if self._idempotency_options() is not None:
            success_headers.update(replay_headers())
        deprecations = self._deprecations()
        if deprecations:
            success_headers.update(DEPRECATION_HEADERS)
        for response in responses.values():
            response.setdefault("headers", {}).update(self._header_refs(success_headers))
        for status, slugs in sorted(self._problem_types().items()):
            own = responses.get(str(status))
            if own is None:
                responses[str(status)] = self._problem_response(status, slugs, bool(deprecations))
            else:  # the view's own @extend_schema response for that status: it gets the headers
                own.setdefault("headers", {}).update(self._header_refs(_problem_headers(status, bool(deprecations))))
        return responses

    def _problem_types(self) -> dict[int, list[str]]:
        """The problem types this operation can answer, by status."""
        found: dict[int, list[str]] = defaultdict(list)
        for slug in dict.fromkeys(self._problem_slugs()):
            found[problem_types[slug].status].append(slug)
        return found

    def _problem_slugs(self) -> Iterator[str]:
        view: Any = self.view
        yield from ("too-many-fields", "internal-error", "service-unavailable", "database-unavailable")
        if "{" in self.path:
            yield "not-found"
        if self.method in BODY_METHODS:
            yield from _BODY_PROBLEMS
        if self.method in UNSAFE_METHODS:
            yield "conflict"
        if self._is_list_view() and isinstance(self._get_paginator(), KeysetPagination):
            yield from ("invalid-parameters", "invalid-cursor")
        elif isinstance(view, StrictQueryParametersMixin):  # an undeclared parameter, on any method
            yield "invalid-parameters"
        options = self._idempotency_options()
        if options is not None:
            yield from _IDEMPOTENCY_PROBLEMS
            if options.required:
                yield "idempotency-key-missing"
        if view.get_throttles():
            yield "rate-limited"
        yield from self._auth_problems()
        if any(getattr(d, "sunset", None) for d in self._deprecations()):
            yield "endpoint-retired"

    def _auth_problems(self) -> Iterator[str]:
        view: Any = self.view
        authenticators = view.get_authenticators()
        if authenticators:
            # Wrong credentials fail even where anonymous callers are welcome. DRF answers with
            # the first authenticator's challenge (401), or 403 when it has none.
            challenge = authenticators[0].authenticate_header(getattr(view, "request", None))
            yield "authentication-required" if challenge else "permission-denied"
        if any(not isinstance(permission, AllowAny) for permission in view.get_permissions()):
            yield from ("authentication-required", "permission-denied")

    def _problem_response(self, status: int, slugs: list[str], deprecated: bool) -> dict[str, Any]:
        # One component per status and list of problems, that every operation answering them shares.
        for name, schema in COMPONENT_SCHEMAS.items():
            self.registry.register_on_missing(
                ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema)
            )
        listed = "; ".join(f"`{slug}` ({problem_types[slug].title})" for slug in slugs)
        response = {
            "description": f"A problem whose `type` ends in one of: {listed}. Each type URL documents itself.",
            "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            "headers": self._header_refs(_problem_headers(status, deprecated)),
            "x-problem-types": slugs,
        }
        return self._shared_component(ResolvedComponent.RESPONSE, f"Problem{status}_{_digest(response)}", response)


class ProblemAutoSchema(ProblemSchemaMixin, AutoSchema):
    """drf-spectacular's AutoSchema plus the package's headers, problems, lists and deprecations."""


def _problem_headers(status: int, deprecated: bool) -> dict[str, Any]:
    headers = trace_id_response_header()
    if status in _RETRY_AFTER_STATUSES:
        headers[header_names.RETRY_AFTER] = RETRY_AFTER_HEADER
    if status == 401:
        headers[header_names.WWW_AUTHENTICATE] = _WWW_AUTHENTICATE_HEADER
    if deprecated:
        headers.update(DEPRECATION_HEADERS)
    return headers


def _digest(definition: dict[str, Any]) -> str:
    # Only the package's own strings: plain JSON, whatever a project's schema class adds elsewhere.
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:8]


def _defaults_in_words(schema: dict[str, Any]) -> None:
    # openapi-typescript reads `default` as "always present", in a request body too: the
    # generated type would make clients send what the server fills in. Said in words instead,
    # as DRF's encoder writes it (a Decimal of a project's schema class, say).
    for prop in schema.get("properties", {}).values():
        if "default" in prop:
            said = f"Default: `{json.dumps(prop.pop('default'), cls=JSONEncoder)}`."
            prop["description"] = f"{prop['description']}\n\n{said}" if prop.get("description") else said


def _require_written_fields(schema: dict[str, Any]) -> None:
    # DRF's to_representation writes every readable field of an object; a deprecated one
    # (a renamed field's old name) goes away at its sunset, so clients must not need it.
    properties = schema.get("properties", {})
    deprecated = {name for name, prop in properties.items() if prop.get("deprecated")}
    present = {name for name, prop in properties.items() if not prop.get("writeOnly")}
    required = (set(schema.get("required", ())) | present) - deprecated
    if required:
        schema["required"] = sorted(required)
    else:
        schema.pop("required", None)
