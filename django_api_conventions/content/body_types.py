"""The 415 for a request body no parser of the view reads, decided before anything reads it."""

from __future__ import annotations

from rest_framework.request import Request

from .negotiation import accepted_media_types, unsupported_media_type

__all__ = ["refuse_unsupported_body"]

#: The methods whose Content-Type declares a body for the view, even an empty one.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def refuse_unsupported_body(request: Request) -> None:
    """Raise the 415 ``unsupported-media-type`` when the view has no parser for the body's type.

    DRF picks a parser only when the view reads ``request.data`` and the body is not empty, so
    on its own it lets an empty ``multipart/form-data`` or form body through to the view
    (which then answers 422 for the missing fields), and never looks at the type of a body
    that something (an idempotency fingerprint) read before it. Checked up front, the type is
    refused whatever the body's length, before a key is claimed or the view runs. A request
    without a Content-Type is not refused, nor a GET, HEAD, OPTIONS or DELETE: they carry no
    body the view reads. :class:`~django_api_conventions.idempotency.IdempotencyMixin` calls
    it for every request; another view can call it from its ``initial()``.
    """
    content_type = request.content_type
    if not content_type or request.method not in _BODY_METHODS:
        return
    parsers = list(request.parsers or ())
    negotiator = request.negotiator
    assert negotiator is not None  # DRF's Request always has one
    # The view's own negotiation decides, as it does when DRF parses: FallbackContentNegotiation
    # refuses wildcards and reads +json types; DRF's returns None where no parser matches.
    if negotiator.select_parser(request, parsers) is None:
        raise unsupported_media_type(content_type, accepted_media_types(parsers))
