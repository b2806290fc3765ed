"""The URLconf of a second host (set as ``request.urlconf`` by a middleware, as django-hosts
does): a root URLconf of its own, with the package's handlers and problem pages, here under a
prefix of its own."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class Tickets(APIView):
    def post(self, request: Request) -> Response:
        raise ValidationError({"seat": ["This seat is taken."]})


urlpatterns = [
    path("tickets", Tickets.as_view()),
    path("help/", include("django_api_conventions.urls")),
]

handler400 = "django_api_conventions.problems.django_handlers.bad_request"
handler403 = "django_api_conventions.problems.django_handlers.permission_denied"
handler404 = "django_api_conventions.problems.django_handlers.page_not_found"
handler500 = "django_api_conventions.problems.django_handlers.server_error"
