"""Resource naming rules over the project's routes, for the system check warnings W023-W025:
a verb as a path segment (``/invoices/{id}/pay``), a collection named in the singular
(``/invoice/{id}``), nesting deeper than two levels (``/users/{id}/invoices/{id}/payments``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver

from ..conf import api_settings

__all__ = ["VERBS"]

#: Segments that name an action rather than a resource ("search" is not: a POST search endpoint
#: is the conventions' way to express OR filters).
VERBS = frozenset(
    """
    accept activate add apply approve archive assign authorize block calculate cancel capture change
    charge check close complete compute confirm convert copy create deactivate decline delete deposit
    disable download edit enable execute export fetch finalize find generate get import invite list lock
    login logout mark merge modify move notify pay process publish refund register reject remove reopen
    resend reset restart restore retry revoke run send set ship start stop submit subscribe sync
    transfer trigger unarchive unassign unblock unlock unpublish unsubscribe update upload validate
    verify void withdraw
    """.split()  # noqa: SIM905 -- a word list reads best as words
)

_ACTION_NOUNS = {
    "pay": "payments",
    "cancel": "cancellations",
    "refund": "refunds",
    "approve": "approvals",
    "reject": "rejections",
    "send": "deliveries",
    "ship": "shipments",
    "charge": "charges",
    "capture": "captures",
    "confirm": "confirmations",
    "submit": "submissions",
    "transfer": "transfers",
    "invite": "invitations",
    "subscribe": "subscriptions",
    "login": "sessions",
    "logout": "sessions",
    "register": "registrations",
    "void": "voids",
    "archive": "archives",
    "publish": "publications",
    "verify": "verifications",
    "export": "exports",
    "import": "imports",
    "upload": "uploads",
}

_IRREGULAR_PLURALS = frozenset(
    """
    people children men women data media criteria feet teeth mice geese indices matrices analyses news
    series species metadata information equipment feedback staff chassis
    """.split()  # noqa: SIM905 -- a word list reads best as words
)

_GROUP_BODY = r"(?:[^()]|\([^()]*\))*"
_NAMED_GROUP = re.compile(rf"\(\?P<(\w+)>({_GROUP_BODY})\)")
_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")
#: What a group that matches one text and nothing else (``(?P<version>v1)``) may hold.
_LITERAL = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class Route:
    """A route as the warnings show it (``/{version}/invoices/{pk}``) and its view."""

    display: str
    callback: Any

    @property
    def segments(self) -> list[str]:
        return [s for s in self.display.split("/") if s]


def display_route(pattern: str) -> str:
    """``^(?P<version>v[0-9]+)/^invoices/(?P<pk>[^/.]+)$`` -> ``/{version}/invoices/{pk}``.

    A group that matches one text only is shown as that text (``(?P<version>v1)`` -> ``v1``);
    DRF's format suffix is left out.
    """
    text = _without_format_suffix(pattern)
    text = _NAMED_GROUP.sub(lambda m: m.group(2) if _LITERAL.fullmatch(m.group(2)) else "{" + m.group(1) + "}", text)
    text = _CONVERTER.sub(lambda m: "{" + m.group(1) + "}", text)
    text = text.replace("^", "").replace("$", "").replace("\\Z", "").replace("/?", "/")
    text = re.sub(r"/+", "/", "/" + text)
    return text if text == "/" else text.rstrip("/")


def _without_format_suffix(pattern: str) -> str:
    # The suffix format_suffix_patterns and routers append: \.(?P<format>...)/?$ or a converter.
    from rest_framework.settings import api_settings as drf_settings

    kwarg = re.escape(drf_settings.FORMAT_SUFFIX_KWARG)
    pattern = re.sub(rf"(?:\\\.)?\(\?P<{kwarg}>{_GROUP_BODY}\)(?:/\?)?", "", pattern)
    return re.sub(rf"<drf_format_suffix\w*:{kwarg}>", "", pattern)


def project_resolvers() -> list[URLResolver]:
    """The resolvers of the root URLconf, then of each of ``EXTRA_URLCONFS``, once each."""
    root = get_resolver()
    extra = [
        get_resolver(name)
        for name in dict.fromkeys(api_settings.EXTRA_URLCONFS)
        if name not in (root.urlconf_name, settings.ROOT_URLCONF)
    ]
    return [root, *extra]


def iter_routes(resolver: URLResolver | None = None, prefix: str = "") -> Iterator[Route]:
    """Every endpoint of ``resolver`` with its full route; without one, of every URLconf the
    project serves (:func:`project_resolvers`)."""
    if resolver is None:
        for root in project_resolvers():
            yield from iter_routes(root)
        return
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from iter_routes(entry, route)
        elif isinstance(entry, URLPattern):
            yield Route(display_route(route), entry.callback)


def is_drf_view(callback: Any) -> bool:
    view_class = getattr(callback, "cls", None)
    if view_class is None:
        return False
    from rest_framework.views import APIView

    return isinstance(view_class, type) and issubclass(view_class, APIView)


def _is_parameter(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _is_version(segment: str) -> bool:
    return segment == "{version}" or re.fullmatch(r"v[0-9]+", segment) is not None


def _names_collection(segment: str) -> bool:
    # Several words whose last is plural (export-templates): a collection, whatever its first word.
    words = re.split(r"[-_]", segment.lower())
    return len(words) > 1 and looks_plural(words[-1])


def looks_plural(word: str) -> bool:
    last = re.split(r"[-_]", word.lower())[-1]
    if last in _IRREGULAR_PLURALS:
        return True
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def pluralize(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


@dataclass(frozen=True)
class Finding:
    """One broken naming rule: the check, the route, and the values of its message."""

    check_id: str
    route: str
    values: dict[str, str]


def find_naming_problems(route: Route) -> list[Finding]:
    segments = [s for s in route.segments if not _is_version(s)]
    findings = [
        finding
        for index, segment in enumerate(segments)
        if not _is_parameter(segment) and (finding := _segment_problem(route, segments, index)) is not None
    ]
    collections = [
        segment
        for index, segment in enumerate(segments)
        if not _is_parameter(segment) and (index == len(segments) - 1 or _is_parameter(segments[index + 1]))
    ]
    if len(collections) > 2:
        last, parent = collections[-1], collections[-2]
        parent_key = parent[:-1] if looks_plural(parent) and parent.endswith("s") else parent
        findings.append(
            Finding(
                "W025", route.display, {"depth": str(len(collections)), "suggestion": f"/{last}?{parent_key}_id={{id}}"}
            )
        )
    return findings


def _segment_problem(route: Route, segments: list[str], index: int) -> Finding | None:
    """A verb (W023) or a singular collection followed by an id (W024) at ``segments[index]``."""
    segment = segments[index]
    first_word = re.split(r"[-_]", segment.lower())[0]
    if first_word in VERBS and not _names_collection(segment):
        noun = _ACTION_NOUNS.get(first_word, f"{first_word}-requests")
        suggestion = "/".join([*segments[:index], noun])
        return Finding("W023", route.display, {"segment": segment, "suggestion": f"POST /{suggestion}"})
    followed_by_id = index + 1 < len(segments) and _is_parameter(segments[index + 1])
    if followed_by_id and not looks_plural(segment):
        shape = "/".join([*segments[:index], pluralize(segment), *segments[index + 1 :]])
        return Finding("W024", route.display, {"segment": segment, "suggestion": f"/{shape}"})
    return None
