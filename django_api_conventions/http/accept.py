"""Reading ``Accept`` within bounds, so that a 64 KB header costs what a short one does.

Django's ``get_preferred_type()`` and DRF before 3.18.1 parse every range, and uvicorn and
Daphne bound no header. As DRF 3.18.1 does, the ranges read are bounded in characters, in
length and in number; RFC 9110 (12.5.1) lets a server disregard the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpRequest

#: Characters of an ``Accept`` header read: DRF's ``max_accept_header_length``.
MAX_ACCEPT_LENGTH = 8192
#: Media ranges of an ``Accept`` header read: DRF's ``max_accept_tokens``.
MAX_ACCEPT_RANGES = 64
#: Longest media range (or ``Content-Type``) read: DRF's ``max_media_type_length``.
MAX_MEDIA_RANGE_LENGTH = 256


def accept_ranges(header: str) -> list[str]:
    """The media ranges of an ``Accept`` header that are read, in their order, stripped; the
    header is cut at a comma, so that a truncated range is not read as another one."""
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
    """Django's ``request.get_preferred_type(media_types)``, over the ranges that are read."""
    bounded = HttpRequest()
    bounded.META["HTTP_ACCEPT"] = ",".join(accept_ranges(request.headers.get("Accept", "*/*")))
    return bounded.get_preferred_type(media_types)
