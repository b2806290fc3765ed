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

    DRF negotiates before it authenticates or routes, so a browser's ``Accept: text/html``
    would turn every 401, 404 or 422 into a 406; RFC 9110 (12.5.1) lets a server disregard
    ``Accept`` instead. A ``?format=`` value no renderer offers is a 400 ``invalid-parameters``
    listing the formats, not DRF's 404 (a URL format suffix keeps it).

    A wildcard Content-Type (``*/*``, ``application/*``), which DRF reads as JSON, is a 415: a
    body has one type (RFC 9110 8.3). A ``+json`` type goes to a parser that declares
    ``structured_syntax_suffix = "+json"``. The 415 names the types accepted.
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
        # Bounded: DRF before 3.18.1 parses every range of a header of any length.
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
        # Refused unread, as DRF 3.18.1 does: say why, or JSON reads as if it were not accepted.
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
