"""Query parameters a request may carry: the 400 ``invalid-parameters`` problem for the others."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from django.utils.translation import gettext

from .details import ErrorItem, ProblemException


def parameter_error(name: str, detail: str, code: str) -> ErrorItem:
    return {"parameter": name, "detail": detail, "code": code}


def invalid_parameters(errors: list[ErrorItem]) -> ProblemException:
    """The 400 ``invalid-parameters`` problem naming each parameter of ``errors``."""
    names = ", ".join(item["parameter"] for item in errors)
    detail = gettext("Invalid query parameters: {names}.").format(names=names)
    return ProblemException("invalid-parameters", detail, errors=errors)


def refuse_undeclared(
    query: Mapping[str, Sequence[str]],
    accepted: Iterable[str],
    *,
    repeatable: Collection[str] = (),
    declared_as: Callable[[str], str | None] | None = None,
) -> None:
    """A 400 naming each parameter of ``query`` (names to values) that is not ``accepted``, or
    that is sent twice and not ``repeatable``. ``declared_as`` gives the accepted name a query
    name belongs to (a family's ``attr[*]`` for ``attr[color]``), or ``None``.
    """
    accepted = list(accepted)
    unknown = (
        gettext("Unknown parameter. Accepted: {names}.").format(names=", ".join(accepted))
        if accepted
        else gettext("Unknown parameter: this request takes no query parameters.")
    )
    errors: list[ErrorItem] = []
    for name, values in query.items():
        declared = name if name in accepted or declared_as is None else declared_as(name)
        if declared is None or declared not in accepted:
            errors.append(parameter_error(name, unknown, "unknown"))
        elif len(values) > 1 and declared not in repeatable:
            errors.append(parameter_error(name, gettext("Send this parameter once."), "repeated"))
    if errors:
        raise invalid_parameters(errors)
