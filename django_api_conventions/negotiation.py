"""Content negotiation that never lets ``Accept`` or ``?format=`` hide the real answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer

from .query_parameters import invalid_parameters, parameter_error


class FallbackContentNegotiation(DefaultContentNegotiation):
    """Answers in the first renderer's media type when ``Accept`` matches none.

    RFC 9110 (section 12.5.1) lets a server disregard ``Accept`` rather than answer 406.
    DRF negotiates before it authenticates or routes, so a browser's ``Accept: text/html``
    would turn every 401, 404 or 422 into a 406; with this class the client gets the real
    status in JSON.

    The ``?format=`` override (DRF's ``URL_FORMAT_OVERRIDE``) is a query parameter, not part of
    the resource's name: a value that no renderer of the view offers (``xml``, an empty one) is
    a 400 ``invalid-parameters`` problem naming ``format`` and listing the formats the view
    speaks, where DRF answers 404 for a resource that exists. A URL format suffix
    (``/invoices.xml``) names another resource, and keeps DRF's 404.
    """

    def select_renderer(
        self, request: Any, renderers: Sequence[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        if not format_suffix:
            self._check_format_override(request, renderers)
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type

    def _check_format_override(self, request: Any, renderers: Sequence[BaseRenderer]) -> None:
        name = self.settings.URL_FORMAT_OVERRIDE
        if not name or name not in request.query_params:
            return
        spoken = list(dict.fromkeys(renderer.format for renderer in renderers if renderer.format))
        # Every value, not only the last one DRF reads: a repetition must not smuggle one through.
        if any(value not in spoken for value in request.query_params.getlist(name)):
            detail = f"{name} must be one of: {', '.join(spoken)}." if spoken else f"{name} is not accepted here."
            raise invalid_parameters([parameter_error(name, detail, "invalid")])
