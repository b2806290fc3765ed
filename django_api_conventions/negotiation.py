"""Content negotiation that never lets ``Accept`` hide the real answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer


class FallbackContentNegotiation(DefaultContentNegotiation):
    """Answers in the first renderer's media type when ``Accept`` matches none.

    RFC 9110 (section 12.5.1) lets a server disregard ``Accept`` rather than answer 406.
    DRF negotiates before it authenticates or routes, so a browser's ``Accept: text/html``
    would turn every 401, 404 or 422 into a 406; with this class the client gets the real
    status in JSON.
    """

    def select_renderer(
        self, request: Any, renderers: Sequence[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
