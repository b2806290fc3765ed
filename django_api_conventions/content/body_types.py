"""The 415 for a request body no parser of the view reads, decided before anything reads it."""

from __future__ import annotations

from rest_framework.request import Request

from .negotiation import accepted_media_types, unsupported_media_type

__all__ = ["refuse_unsupported_body"]

#: The methods whose Content-Type declares a body for the view, even an empty one.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def refuse_unsupported_body(request: Request) -> None:
    """Raise the 415 ``unsupported-media-type`` when the view has no parser for the body's type.

    DRF picks a parser only when the view reads ``request.data`` of a non-empty body, so it lets
    an empty form body through (a 422 for the missing fields). Checked up front, a POST, PUT or
    PATCH with a Content-Type is refused before a key is claimed or the view runs.
    ``IdempotencyMixin`` calls it; another view can call it from its ``initial()``.
    """
    content_type = request.content_type
    if not content_type or request.method not in _BODY_METHODS:
        return
    parsers = list(request.parsers or ())
    negotiator = request.negotiator
    assert negotiator is not None  # DRF's Request always has one
    # The view's own negotiation decides, as when DRF parses (DRF's returns None, ours raises).
    if negotiator.select_parser(request, parsers) is None:
        raise unsupported_media_type(content_type, accepted_media_types(parsers))
