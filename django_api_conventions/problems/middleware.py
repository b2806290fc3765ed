"""Problem details for what happens outside DRF: early checks, exceptions, error responses."""

from __future__ import annotations

import base64
import binascii
import sys
from collections.abc import Callable
from io import BytesIO
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase, UnreadablePostError
from django.http.request import split_domain_port
from django.urls import Resolver404, get_resolver
from django.utils.translation import gettext

from ..content.parsers import view_body_limit
from ..http.hook_middleware import HookMiddleware
from ..http.languages import honour_refused_languages
from ..http.request_attributes import EXCEPTION, get_state, set_state
from .api_paths import html_error_page, is_api_path
from .details import ProblemException, is_problem_response, render_problem
from .django_handlers import not_found_problem
from .error_answers import error_answer_data, headers_beside_body, problem_for_error_answer
from .hosts import checked_host
from .kept_answers import is_kept_answer
from .mapping import INTERNAL_ERROR_DETAIL, problem_for_exception, report_server_failure, request_too_large
from .types import problem_types


class ProblemDetailsMiddleware(HookMiddleware):
    """Problem details for everything that does not pass through DRF's exception handler.

    - refuses, before any other code reads them, a disallowed ``Host`` (or port, or an
      absolute-form target naming another host), a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
      or the view's ``max_body_bytes`` (413), a body without ``Content-Length`` (411), too many
      query fields, and a NUL character in the URL, a header or ``Basic`` credentials (400);
    - answers exceptions raised by any view: a 500 is logged with its trace id and reported to
      ``got_request_exception`` receivers, its text never sent;
    - turns any other error response into a problem with the same status and headers, reading
      a view's own 4xx body as :mod:`.error_answers` does, unless it is kept
      (:func:`~.kept_answers.keep_error_body`, ``KEEP_ERROR_BODY_PATHS``).

    Outside ``API_PATHS`` Django answers as usual (its 400 page, ``handler500``...); only a
    :class:`ProblemException`, raised on purpose, is a problem on every path.
    """

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        # Before any problem is written: in a language the client accepts.
        honour_refused_languages(request)
        try:
            _check_request_target_host(checked_host(request), request)
            _check_content_length(request)
            _check_no_nul(request)  # parsing the query string also raises TooManyFieldsSent
            _check_headers_no_nul(request)
        except (SuspiciousOperation, BadRequest, ProblemException) as exc:
            return self._refuse(request, exc)
        return None

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        try:
            _check_view_body_limit(request, view_body_limit(view_func))
        except (SuspiciousOperation, ProblemException, UnreadablePostError) as exc:
            return self._refuse(request, exc)
        return None

    def _refuse(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if is_api_path(request):
            return self.process_exception(request, exc)
        if isinstance(exc, ProblemException):  # a check Django does not make: a plain error page
            return html_error_page(request, exc)
        raise exc  # Django's own answer: security log, handler400

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ProblemException) and not is_api_path(request):
            return None
        problem = problem_for_exception(exception)
        if problem is None:
            # Error trackers listen to this signal; Django sends it only for what reaches it.
            got_request_exception.send(sender=ProblemDetailsMiddleware, request=request)
            problem = ProblemException("internal-error", INTERNAL_ERROR_DETAIL)
        if problem.status_code >= 500:
            report_server_failure(request, exception, problem.status_code)
        return render_problem(request, problem)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.status_code < 400 or is_problem_response(response):
            return response
        if not is_api_path(request) or is_kept_answer(request, response):
            return response
        exception = get_state(request, EXCEPTION)
        problem = problem_for_exception(exception) if exception is not None else None
        if problem is None:
            problem = _problem_of_error_response(request, response)
        problem_response = render_problem(request, problem)
        for name, value in headers_beside_body(response).items():
            if name not in problem_response.headers:
                problem_response[name] = value
        problem_response.cookies = response.cookies
        return problem_response


def _check_request_target_host(host: str, request: HttpRequest) -> None:
    # An absolute-form target (RFC 9112 3.2.2) names a host too, which Django does not read.
    # gunicorn keeps the raw target in RAW_URI, uWSGI in REQUEST_URI.
    target = request.META.get("RAW_URI") or request.META.get("REQUEST_URI") or ""
    if target.startswith("/") or "://" not in target:
        return
    target_domain, _ = split_domain_port(urlsplit(target).netloc.rpartition("@")[2])
    if target_domain != split_domain_port(host)[0]:
        raise ProblemException(
            "invalid-host", gettext("The absolute-form request target names another host than the Host header.")
        )


def _check_content_length(request: HttpRequest) -> None:
    if "HTTP_TRANSFER_ENCODING" in request.META and not request.META.get("CONTENT_LENGTH"):
        # Under WSGI Django would run the view with an empty body; under ASGI read it unbounded.
        raise ProblemException(
            "length-required",
            gettext("Send the body with a Content-Length header: this service does not accept chunked request bodies."),
        )
    # Django applies the limit only when the body is read, where it becomes a 400 or an HTML
    # page. Multipart bodies stream file parts to disk and are limited field by field.
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # None: no limit (Django's docs)
    if limit is None or request.content_type == "multipart/form-data":
        return
    length = _content_length(request)
    if length <= limit:
        return
    # Only a body over the default costs a look at the view, resolved with the URLconf a
    # middleware before this one set; process_view applies the limit of the view it gets.
    try:
        match = get_resolver(getattr(request, "urlconf", None)).resolve(request.path_info)
    except Resolver404:
        match = None
    view_limit = view_body_limit(match.func) if match is not None else None
    if view_limit is None:
        raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
    if length > view_limit:
        raise request_too_large(view_limit)


def _content_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise SuspiciousOperation("Content-Length is not an integer.") from None


def _check_view_body_limit(request: HttpRequest, limit: int | None) -> None:
    # A view's own limit covers its whole body, file parts included; a view without one keeps
    # the default, in case process_request saw another view.
    if limit is not None and _content_length(request) > limit:
        raise request_too_large(limit)
    default: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # None: no limit (Django's docs)
    if default is None or request.content_type == "multipart/form-data" or _content_length(request) <= default:
        return
    if limit is None:
        raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
    _read_body_past_default_limit(request)


def _read_body_past_default_limit(request: HttpRequest) -> None:
    """Read the body into ``request.body`` exactly as ``HttpRequest.body`` does, but past
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, which ``HttpRequest.body`` applies whatever the view allows.

    The package's one use of Django's private attributes (``_body``, ``_stream``): Django has no
    public way to let the idempotency fingerprint, ``request.POST`` or the view read a body its
    ``max_body_bytes`` allows. ``tests/test_body_limits_per_view.py`` pins the behaviour.
    """
    try:
        request._body = request.read()
    except OSError as exc:
        raise UnreadablePostError(*exc.args) from exc
    finally:
        request._stream.close()
    request._stream = BytesIO(request._body)


def _check_no_nul(request: HttpRequest) -> None:
    # PostgreSQL refuses a NUL in a lookup with an error that would otherwise be a 500.
    query = request.GET
    if "\x00" in request.path or any("\x00" in key or "\x00" in "".join(query.getlist(key)) for key in query):
        raise BadRequest("The URL holds a NUL character.")


def _check_headers_no_nul(request: HttpRequest) -> None:
    # A header value (a client id, a token) and Basic credentials (the user name) reach lookups.
    for name, value in request.headers.items():
        if "\x00" in value:
            raise _nul_in_header(name, gettext("The {header} header holds a NUL character.").format(header=name))
    credentials = _basic_credentials(request.headers.get("Authorization", ""))
    if credentials is not None and "\x00" in credentials:
        raise _nul_in_header(
            "Authorization", gettext("The Basic credentials of the Authorization header hold a NUL character.")
        )


def _basic_credentials(header: str) -> str | None:
    # Decoded as DRF's BasicAuthentication decodes them; None for what it refuses (a 401).
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(parts[1].encode("iso-8859-1"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    try:
        return decoded.decode("utf-8")
    except UnicodeDecodeError:
        return decoded.decode("latin-1")


def _nul_in_header(name: str, detail: str) -> ProblemException:
    return ProblemException(
        "bad-request",
        detail,
        errors=[{"header": name, "detail": gettext("NUL characters are not allowed."), "code": "invalid"}],
    )


def _problem_for_status(request: HttpRequest, status: int) -> ProblemException:
    if status == 404:
        return not_found_problem(request)
    if status == 405:
        return ProblemException(
            "method-not-allowed",
            gettext("{method} is not allowed on {path}.").format(method=request.method, path=request.path),
        )
    if status == 500:
        return ProblemException("internal-error", INTERNAL_ERROR_DETAIL)
    problem_type = problem_types.for_status(status)
    return ProblemException(problem_type, problem_type.title, status=status)


def _problem_of_error_response(request: HttpRequest, response: HttpResponseBase) -> ProblemException:
    # The problem of the status when there is no body to read: an HTML page, a 5xx's text.
    data = error_answer_data(response) if response.status_code < 500 else None
    if data is None:
        return _problem_for_status(request, response.status_code)
    return problem_for_error_answer(response.status_code, data)


@receiver(got_request_exception)
def _remember_exception(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    # Announced before Django renders its error page: process_response picks the precise problem.
    if request is not None:
        set_state(request, EXCEPTION, sys.exc_info()[1])
