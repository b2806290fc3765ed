"""Content negotiation: ``Accept`` and ``?format=`` never hide the real answer; a body has one concrete type."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.encoding import force_str
from django.utils.translation import gettext
from rest_framework.exceptions import NotAcceptable, UnsupportedMediaType
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer

from ..http.accept import MAX_MEDIA_RANGE_LENGTH, accept_ranges
from ..problems.parameters import invalid_parameters, parameter_error

#: A Content-Type longer than this is echoed abridged in the 415's detail.
_LONGEST_ECHOED_TYPE = 80


class FallbackContentNegotiation(DefaultContentNegotiation):
    """Answers in the first renderer's media type when ``Accept`` matches none, and picks a
    parser only for the body's own, concrete media type.

    RFC 9110 (section 12.5.1) lets a server disregard ``Accept`` rather than answer 406.
    DRF negotiates before it authenticates or routes, so a browser's ``Accept: text/html``
    would turn every 401, 404 or 422 into a 406; with this class the client gets the real
    status in JSON.

    The ``?format=`` override (DRF's ``URL_FORMAT_OVERRIDE``) is a query parameter, not part of
    the resource's name: a value that no renderer of the view offers (``xml``, an empty one) is
    a 400 ``invalid-parameters`` problem naming ``format`` and listing the formats the view
    speaks, where DRF answers 404 for a resource that exists. A URL format suffix
    (``/invoices.xml``) names another resource, and keeps DRF's 404.

    For the request body DRF matches wildcards both ways, so ``Content-Type: */*`` (or
    ``application/*``) picks the JSON parser and a body of unknown type is read as JSON. Here
    a wildcard Content-Type is a 415: a body has one type (RFC 9110 section 8.3), and a
    client that does not say it is not sending JSON on purpose. A ``+json`` type (RFC 6839,
    ``application/merge-patch+json``) goes to a parser that declares
    ``structured_syntax_suffix = "+json"``, as :class:`~.parsers.StrictJSONParser` does. The
    415's detail names the type received and the types accepted.
    """

    def select_renderer(  # type: ignore[override]  # DRF passes the view's list, not any iterable
        self, request: Any, renderers: Sequence[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        if not format_suffix:
            self._check_format_override(request, renderers)
        try:
            chosen: tuple[BaseRenderer, str] = super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
        return chosen

    def get_accept_list(self, request: Any) -> list[str]:
        """The ranges of ``Accept`` that are read (:func:`~..http.accept.accept_ranges`): DRF
        before 3.18.1 parses every range of a header of any length."""
        return accept_ranges(request.headers.get("Accept", "*/*"))

    def _check_format_override(self, request: Any, renderers: Sequence[BaseRenderer]) -> None:
        name = self.settings.URL_FORMAT_OVERRIDE
        if not name or name not in request.query_params:
            return
        spoken = list(dict.fromkeys(renderer.format for renderer in renderers if renderer.format))
        # Every value, not only the last one DRF reads: a repetition must not smuggle one through.
        if any(value not in spoken for value in request.query_params.getlist(name)):
            detail = (
                gettext("{name} must be one of: {values}.").format(name=name, values=", ".join(spoken))
                if spoken
                else gettext("{name} is not accepted here.").format(name=name)
            )
            raise invalid_parameters([parameter_error(name, detail, "invalid")])

    def select_parser(  # type: ignore[override]  # DRF passes the view's list, not any iterable
        self, request: Any, parsers: Sequence[BaseParser]
    ) -> BaseParser:
        content_type = request.content_type or ""
        accepted = accepted_media_types(parsers)
        refuse_wildcard_media_type(content_type, accepted)
        parser = super().select_parser(request, parsers)
        longest = getattr(self, "max_media_type_length", None)  # DRF refuses a longer one unparsed
        if parser is None and (longest is None or len(content_type) <= longest):
            parser = _parser_by_suffix(_bare_type(content_type), parsers)
        if parser is None:
            raise unsupported_media_type(content_type, accepted)
        return parser


def accepted_media_types(parsers: Sequence[BaseParser]) -> list[str]:
    """The media types ``parsers`` read, ``*/*+json`` standing for any ``+json`` type."""
    accepted: list[str] = []
    for parser in parsers:
        accepted.append(parser.media_type)
        suffix = getattr(parser, "structured_syntax_suffix", None)
        if suffix:
            accepted.append(f"*/*{suffix}")
    return list(dict.fromkeys(accepted))


def refuse_wildcard_media_type(content_type: str | None, accepted: Sequence[str]) -> None:
    """Raise the 415 for a body whose Content-Type is a wildcard range (``*/*``, ``application/*``)."""
    main_type, _, sub_type = _bare_type(content_type or "").partition("/")
    if "*" in (main_type, sub_type):
        raise unsupported_media_type(content_type or "", accepted)


def unsupported_media_type(content_type: str, accepted: Sequence[str]) -> UnsupportedMediaType:
    """DRF's 415, its detail naming the accepted types too."""
    echoed = content_type if len(content_type) <= _LONGEST_ECHOED_TYPE else f"{content_type[:_LONGEST_ECHOED_TYPE]}..."
    names = [
        gettext("any type ending in {suffix}").format(suffix=name[3:]) if name.startswith("*/*+") else name
        for name in accepted
    ]
    detail = force_str(UnsupportedMediaType.default_detail).format(media_type=echoed)
    if len(content_type) > MAX_MEDIA_RANGE_LENGTH:
        # Refused unread, as DRF 3.18.1 does: say why, or "application/json; charset=..." reads
        # as if JSON were not accepted.
        too_long = gettext("The Content-Type header has {length} characters; at most {maximum} are read.")
        detail = f"{detail} {too_long.format(length=len(content_type), maximum=MAX_MEDIA_RANGE_LENGTH)}"
    accepted_detail = gettext("Accepted: {types}.").format(types=", ".join(names))
    return UnsupportedMediaType(echoed, detail=f"{detail} {accepted_detail}")


def _bare_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _parser_by_suffix(bare_type: str, parsers: Sequence[BaseParser]) -> BaseParser | None:
    main_type, _, sub_type = bare_type.partition("/")
    for parser in parsers:
        suffix = getattr(parser, "structured_syntax_suffix", None)
        if suffix and main_type and sub_type.endswith(suffix) and len(sub_type) > len(suffix):
            return parser
    return None
