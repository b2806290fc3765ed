"""Reading ``Accept`` within bounds, so that a 64 KB header costs what a short one does.

No server in front of Django need bound a header's length (gunicorn stops at 8190 bytes,
uvicorn and Daphne at none), and Django parses every range of ``Accept`` for
``request.get_preferred_type()``, DRF before 3.18.1 every range for its negotiation: a header
of 10,000 ranges costs 10,000 parses. Here, as DRF 3.18.1 does it, the first
:data:`MAX_ACCEPT_LENGTH` characters are read, cut at their last comma so that a truncated range
is not read as another one; a range longer than :data:`MAX_MEDIA_RANGE_LENGTH` is skipped; and
reading stops at the :data:`MAX_ACCEPT_RANGES`-th range. The rest is ignored, as RFC 9110
(12.5.1) lets a server disregard ``Accept``: the answer is then in the view's first media type,
not a 4xx that a client could not act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from django.http import HttpRequest
from django.http.request import MediaType

__all__: list[str] = []  # the package's own: content negotiation and the problem pages use it

#: Characters of an ``Accept`` header read: DRF's ``max_accept_header_length``.
MAX_ACCEPT_LENGTH = 8192
#: Media ranges of an ``Accept`` header read: DRF's ``max_accept_tokens``.
MAX_ACCEPT_RANGES = 64
#: Longest media range (or ``Content-Type``) read: DRF's ``max_media_type_length``.
MAX_MEDIA_RANGE_LENGTH = 256


def accept_ranges(header: str) -> list[str]:
    """The media ranges of an ``Accept`` header that are read, in their order, stripped."""
    if len(header) > MAX_ACCEPT_LENGTH:
        cut = header.rfind(",", 0, MAX_ACCEPT_LENGTH)
        header = header[:cut] if cut != -1 else ""
    ranges: list[str] = []
    for media_range in header.split(","):
        media_range = media_range.strip()
        if not media_range or len(media_range) > MAX_MEDIA_RANGE_LENGTH:
            continue  # an over-long range does not hide the usable ones after it
        ranges.append(media_range)
        if len(ranges) == MAX_ACCEPT_RANGES:
            break
    return ranges


def preferred_type(request: HttpRequest, media_types: Sequence[str]) -> str | None:
    """Django's ``request.get_preferred_type(media_types)``, over the ranges that are read.

    The most specific range that matches an offered type gives it its weight; of the offered
    types, the one whose range comes first by weight wins; ``None`` when none is acceptable.
    """
    accepted = sorted(
        (
            media_type
            for media_range in accept_ranges(request.headers.get("Accept", "*/*"))
            if (media_type := MediaType(media_range)).quality != 0
        ),
        key=attrgetter("quality", "specificity"),
        reverse=True,
    )
    by_precedence = sorted(accepted, key=attrgetter("specificity", "quality"), reverse=True)
    best: tuple[int, str] | None = None
    for offered in media_types:
        offered_type = MediaType(offered)
        # Django's match() takes a parsed MediaType as well as a string (the stubs say str only).
        match = next((candidate for candidate in by_precedence if offered_type.match(candidate)), None)  # type: ignore[arg-type]
        if match is None:
            continue
        rank = accepted.index(match)
        if best is None or rank < best[0]:
            best = (rank, offered)
    return best[1] if best else None
