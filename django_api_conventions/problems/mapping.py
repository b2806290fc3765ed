"""Which problem each exception becomes, whichever layer raised it: the project's mappings
(:func:`map_exception`) first, then the package's own."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    DisallowedHost,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.urls import Resolver404
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions as drf
from rest_framework.fields import get_error_detail

from ..http import header_names
from ..tracing.trace_ids import assign_trace_id
from .details import ProblemException, retry_after_header
from .error_items import pointer_items
from .hosts import InvalidHostPort
from .types import problem_types
from .unique_violations import UniqueViolation, unique_violation

__all__ = ["map_exception", "problem_for_exception", "unmap_exception"]

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

logger = logging.getLogger("django_api_conventions.problems")

PERMISSION_DENIED_DETAIL = cast("StrPromise", drf.PermissionDenied.default_detail)  # a gettext_lazy text
# Seconds before retrying a request that lost a uniqueness race: by then the winner has
# committed, and the retry gets the definitive answer (a 422, usually).
_UNIQUE_CONFLICT_RETRY_AFTER = 1
#: Seconds before retrying when the database cannot be reached: a restart or failover is over.
DATABASE_UNAVAILABLE_RETRY_AFTER = 5
INTERNAL_ERROR_DETAIL = _("The service failed to answer this request. Quote the trace_id when you contact support.")


def report_server_failure(request: HttpRequest, exc: BaseException, status: int) -> None:
    """Log a failure answered with a 5xx, with its traceback and trace id (the body never has them)."""
    logger.error(
        "%s on %s %s",
        "Internal Server Error" if status == 500 else f"Server failure answered {status}",
        request.method,
        request.path,
        exc_info=exc,
        extra={"status_code": status, "request": request, "trace_id": assign_trace_id(request)},
    )


_ExceptionMapper = Callable[[Any], "ProblemException | None"]
_MapperT = TypeVar("_MapperT", bound=_ExceptionMapper)

_project_mappings: dict[type[BaseException], _ExceptionMapper] = {}


def map_exception(
    exc_type: type[BaseException], mapper: _MapperT | None = None
) -> _MapperT | Callable[[_MapperT], _MapperT]:
    """Answer ``exc_type``, and its subclasses, with the problem ``mapper(exc)`` returns.

    ``mapper`` returns a :class:`ProblemException`, or ``None`` to leave the exception to the
    mapping of its base classes, then to the package's. The nearest class in the exception's MRO
    wins, ahead of the package's own mapping (``Http404`` can be re-mapped), in every layer.
    Call it in an ``AppConfig.ready()``; without ``mapper``, it is a decorator::

        @map_exception(LockedError)
        def locked(exc):
            return ProblemException("conflict", str(exc), headers=retry_after_header(exc.wait))
    """
    if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
        raise TypeError(f"map_exception() maps an exception class, not {exc_type!r}.")
    if mapper is None:
        return lambda function: map_exception(exc_type, function)  # type: ignore[return-value]  # returns function
    if not callable(mapper):
        raise TypeError(f"The mapper of {exc_type.__name__} must be callable, not {mapper!r}.")
    _project_mappings[exc_type] = mapper
    return mapper


def unmap_exception(exc_type: type[BaseException]) -> None:
    """Forget the project's mapping of ``exc_type`` (its subclasses' own mappings stay)."""
    _project_mappings.pop(exc_type, None)


def mapped_problem(exc: BaseException) -> ProblemException | None:
    """The problem the project's mappings (:func:`map_exception`) give ``exc``, if any."""
    for cls in type(exc).__mro__:
        mapper = _project_mappings.get(cls)
        problem = mapper(exc) if mapper is not None else None
        if problem is not None and not isinstance(problem, ProblemException):
            raise TypeError(
                f"The mapper of {cls.__name__} returned {problem!r}: it must return a ProblemException or None."
            )
        if problem is not None:
            return problem
    return None


def problem_for_exception(exc: BaseException) -> ProblemException | None:
    """The problem ``exc`` answers with, or ``None`` when it is an unexpected failure (500)."""
    if isinstance(exc, ProblemException):
        return exc
    return mapped_problem(exc) or package_problem(exc)


def package_problem(exc: BaseException) -> ProblemException | None:
    """The problem the package itself gives ``exc``, the project's mappings aside."""
    if isinstance(exc, ProblemException):
        return exc
    if isinstance(exc, drf.APIException):
        return _from_api_exception(exc)
    if isinstance(exc, Http404):
        return ProblemException("not-found", own_not_found_detail(exc) or gettext("Not found."))
    if isinstance(exc, PermissionDenied):
        return ProblemException("permission-denied", PERMISSION_DENIED_DETAIL)
    if isinstance(exc, DjangoValidationError):
        return ProblemException(
            "validation-error",
            gettext("The request breaks the rules of the resource."),
            errors=pointer_items(get_error_detail(exc)),
        )
    if isinstance(exc, MultiPartParserError):
        return ProblemException("malformed-request", gettext("The multipart body is malformed."))
    if isinstance(exc, BadRequest):
        return ProblemException("bad-request", gettext("The request was rejected as malformed."))
    if isinstance(exc, IntegrityError):
        violation = unique_violation(exc)
        # Foreign key, NOT NULL and CHECK violations are the service's bugs, not conflicts.
        return _unique_conflict(violation) if violation is not None else None
    if isinstance(exc, (OperationalError, InterfaceError)):
        return ProblemException(
            "database-unavailable",
            gettext("The database cannot be reached; retry later."),
            headers=retry_after_header(DATABASE_UNAVAILABLE_RETRY_AFTER),
        )
    if isinstance(exc, UnreadablePostError):
        return ProblemException("unreadable-request", gettext("The request body could not be read."))
    if isinstance(exc, SuspiciousOperation):
        return _from_suspicious_operation(exc)
    return None


def own_not_found_detail(exc: Http404) -> str | None:
    """The message the project raised ``exc`` with, if any; never a ``Resolver404``'s, which
    lists the URL patterns Django tried."""
    if isinstance(exc, Resolver404) or not exc.args or not isinstance(exc.args[0], (str, Promise)):
        return None
    return str(exc.args[0]).strip() or None


def _from_api_exception(exc: drf.APIException) -> ProblemException:
    if isinstance(exc, drf.ValidationError):
        return ProblemException(
            "validation-error",
            gettext("The request breaks the rules of the resource."),
            errors=pointer_items(exc.detail),
        )
    if isinstance(exc, drf.ParseError):
        return ProblemException("malformed-request", str(exc.detail))
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        # DRF turns these into 403 when no authenticator can send WWW-Authenticate.
        auth_header = getattr(exc, "auth_header", None)
        if auth_header and exc.status_code == 401:
            return ProblemException(
                "authentication-required", str(exc.detail), headers={header_names.WWW_AUTHENTICATE: auth_header}
            )
        # No challenge to send: a 401 without WWW-Authenticate would break RFC 9110.
        return ProblemException("permission-denied", str(exc.detail), status=403)
    if isinstance(exc, drf.Throttled):
        wait: float | None = exc.wait  # type: ignore[attr-defined]  # Throttled.__init__ sets it; the stubs omit it
        headers = retry_after_header(wait) if wait is not None else None
        return ProblemException("rate-limited", str(exc.detail), headers=headers)
    problem_type = problem_types.for_status(exc.status_code)
    if problem_type.status == 500 and exc.status_code != 500:
        # An exception with a non-error status is a bug; its text is not for the client.
        return ProblemException(problem_type, INTERNAL_ERROR_DETAIL)
    status = exc.status_code
    if isinstance(exc.detail, (dict, list)):
        return ProblemException(problem_type, problem_type.title, status=status, errors=pointer_items(exc.detail))
    return ProblemException(problem_type, str(exc.detail), status=status)


def _unique_conflict(violation: UniqueViolation) -> ProblemException:
    # The pointers name model fields, which a ModelSerializer's fields share; the constraint's
    # name and the value stay out of the answer.
    logger.info("Unique constraint %s violated: answered 409", violation.constraint or "(unnamed)")
    headers = retry_after_header(_UNIQUE_CONFLICT_RETRY_AFTER)
    fields = violation.fields
    if not fields:
        return ProblemException(
            "conflict",
            gettext("The request conflicts with an existing record: a uniqueness rule is broken."),
            headers=headers,
        )
    names = ", ".join(fields)
    if len(fields) == 1:
        item_detail = gettext("A record with this value already exists.")
    else:
        item_detail = gettext("A record with this combination of {fields} already exists.").format(fields=names)
    return ProblemException(
        "conflict",
        gettext("The request conflicts with an existing record: another one has the same {fields}.").format(
            fields=names
        ),
        errors=[{"pointer": f"/{name}", "detail": item_detail, "code": "unique"} for name in fields],
        headers=headers,
    )


def request_too_large(limit: int) -> ProblemException:
    return ProblemException(
        "request-too-large",
        gettext("The request body exceeds the limit of {limit} bytes.").format(limit=limit),
        extensions={"limit_bytes": limit},
    )


def _from_suspicious_operation(exc: SuspiciousOperation) -> ProblemException:
    if isinstance(exc, InvalidHostPort):
        return ProblemException("invalid-host", str(exc.detail))
    if isinstance(exc, DisallowedHost):
        return ProblemException("invalid-host", gettext("The Host header names a host this service does not serve."))
    if isinstance(exc, RequestDataTooBig):
        return request_too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(exc, TooManyFieldsSent):
        return ProblemException(
            "too-many-fields",
            gettext("The request has more than {limit} fields.").format(limit=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS),
        )
    if isinstance(exc, TooManyFilesSent):
        return ProblemException(
            "too-many-fields",
            gettext("The request has more than {limit} files.").format(limit=settings.DATA_UPLOAD_MAX_NUMBER_FILES),
        )
    # Other suspicious operations get no detail: their text can describe server internals.
    return ProblemException("bad-request", gettext("The request was rejected as malformed or unsafe."))
