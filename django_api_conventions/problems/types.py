"""The registry of problem types: what each error ``type`` URL names and documents."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING

from django.core.exceptions import ImproperlyConfigured
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class ProblemField:
    """A member of a problem body (``errors``) or a response header (``Retry-After``) that a
    problem type carries, as its page documents it, with the ``example`` value its page shows."""

    name: str
    description: StrOrPromise
    # Lists and objects are examples too: left out of the hash, which they would break.
    example: object = field(default=None, hash=False)


@dataclass(frozen=True)
class ProblemType:
    """One kind of error: ``type`` is ``<PROBLEM_BASE_URL>/<slug>``, whose page documents it.

    ``description`` says what happened, ``fix`` what the client does about it (Markdown, lazy
    translations allowed); ``members`` and ``headers`` are what the problem carries beyond the
    standard members, ``example_detail`` the ``detail`` of the page's example.
    """

    slug: str
    title: StrOrPromise
    status: int
    description: StrOrPromise
    fix: StrOrPromise = ""
    members: tuple[ProblemField, ...] = ()
    headers: tuple[ProblemField, ...] = ()
    example_detail: StrOrPromise = ""

    def __post_init__(self) -> None:
        if not _SLUG.fullmatch(self.slug):
            raise ImproperlyConfigured(f"Problem type slug {self.slug!r} must be lower-case words joined by '-'.")
        if not 400 <= self.status <= 599:
            raise ImproperlyConfigured(f"Problem type {self.slug!r} has status {self.status}; it must be 400..599.")


class ProblemTypeRegistry:
    """Problem types by slug; registering a slug again with other content fails."""

    def __init__(self) -> None:
        self._types: dict[str, ProblemType] = {}
        self._default_for_status: dict[int, str] = {}

    def register(self, problem_type: ProblemType, *, default_for_status: bool = False) -> ProblemType:
        existing = self._types.get(problem_type.slug)
        if existing is not None and existing != problem_type:
            raise ImproperlyConfigured(f"Problem type {problem_type.slug!r} is already registered with other content.")
        self._types[problem_type.slug] = problem_type
        if default_for_status:
            self._default_for_status[problem_type.status] = problem_type.slug
        return problem_type

    def get(self, slug: str) -> ProblemType | None:
        return self._types.get(slug) or self._generic(slug)

    def __getitem__(self, slug: str) -> ProblemType:
        problem_type = self.get(slug)
        if problem_type is None:
            raise KeyError(f"No problem type {slug!r} is registered.")
        return problem_type

    def __iter__(self) -> Iterator[ProblemType]:
        return iter(sorted(self._types.values(), key=lambda t: (t.status, t.slug)))

    def for_status(self, status: int) -> ProblemType:
        """The registered default type of an HTTP status, else a generic ``http-<status>`` one."""
        if not 400 <= status <= 599:  # an exception with a non-error status is still a failure
            status = 500
        slug = self._default_for_status.get(status, f"http-{status}")
        return self[slug]

    @staticmethod
    def _generic(slug: str) -> ProblemType | None:
        # Any error status has a documented type, so that ``type`` always resolves.
        match = re.fullmatch(r"http-([45]\d\d)", slug)
        if match is None:
            return None
        status = int(match.group(1))
        # HTTP's own reason phrases (RFC 9110) stay as they are: no catalogue translates them.
        phrase: StrOrPromise
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = _("Client error") if status < 500 else _("Server error")
        return ProblemType(
            slug,
            phrase,
            status,
            format_lazy(
                _("The server answered HTTP {status} ({phrase}); no more specific type applies."),
                status=status,
                phrase=phrase,
            ),
            fix=_GENERIC_CLIENT_FIX if status < 500 else _GENERIC_SERVER_FIX,
        )


_GENERIC_CLIENT_FIX = _("Read `detail`: it says what the service refused. Change the request before sending it again.")
_GENERIC_SERVER_FIX = _(
    "The failure is on the service's side. Retry later (with the same Idempotency-Key for a request that "
    "changes state), and quote `trace_id` when you contact support."
)

problem_types = ProblemTypeRegistry()


def register_problem_type(
    slug: str,
    title: StrOrPromise,
    status: int,
    description: StrOrPromise,
    *,
    fix: StrOrPromise = "",
    members: Iterable[ProblemField] = (),
    headers: Iterable[ProblemField] = (),
    example_detail: StrOrPromise = "",
    default_for_status: bool = False,
) -> ProblemType:
    """Register a problem type of your own (see :class:`ProblemType`) from your
    ``AppConfig.ready()``; pass the texts through ``gettext_lazy`` to have them translated."""
    problem_type = ProblemType(
        slug,
        title,
        status,
        description,
        fix=fix,
        members=tuple(members),
        headers=tuple(headers),
        example_detail=example_detail,
    )
    return problem_types.register(problem_type, default_for_status=default_for_status)


__all__ = ["ProblemField", "ProblemType", "ProblemTypeRegistry", "problem_types", "register_problem_type"]
