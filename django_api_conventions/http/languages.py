"""The response's language: never one the client refuses, and the same on a replay.

Django's ``LocaleMiddleware`` picks the first language of ``Accept-Language`` the site has,
whatever its weight: ``de;q=0`` ("anything but German", RFC 9110 12.4.2) gets German.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.module_loading import import_string
from django.utils.translation.trans_real import parse_accept_lang_header

__all__ = ["is_refused", "language_from_request"]


def is_refused(language: str, ranges: Iterable[tuple[str, float]]) -> bool:
    """Whether the parsed ``Accept-Language`` ``ranges`` give ``language`` a weight of 0.

    The most specific range that matches decides (RFC 4647 3.3.1): ``de-ch;q=0, de`` refuses
    only Swiss German; ``*;q=0`` refuses every language no other range names.
    """
    language = language.lower()
    best: tuple[int, float] | None = None
    for language_range, weight in ranges:
        if language_range == "*":
            specificity = 0
        elif language == language_range or language.startswith(language_range + "-"):
            specificity = len(language_range)
        else:
            continue
        if best is None or specificity > best[0]:
            best = (specificity, weight)
    return best is not None and best[1] == 0


def language_from_request(request: HttpRequest) -> str:
    """Django's ``get_language_from_request()``, but never a language the client refuses.

    After the client's ranges, ``LANGUAGE_CODE`` then the other ``LANGUAGES``; when the client
    refuses them all, ``LANGUAGE_CODE`` (RFC 9110 lets a server disregard the header).
    """
    chosen = translation.get_language_from_request(request)
    ranges = parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", ""))
    if not any(weight == 0 for _, weight in ranges) or not is_refused(chosen, ranges):
        return chosen
    wanted = [language_range for language_range, weight in ranges if weight > 0 and language_range != "*"]
    for candidate in [*wanted, settings.LANGUAGE_CODE, *(code for code, _ in settings.LANGUAGES)]:
        try:
            language = translation.get_supported_language_variant(candidate)
        except LookupError:
            continue
        if not is_refused(language, ranges):
            return language
    return settings.LANGUAGE_CODE


def honour_refused_languages(request: HttpRequest) -> None:
    """Activate another language when ``LocaleMiddleware`` activated one the client refuses;
    the problems middleware calls it before any problem can be answered or any view run."""
    if not settings.USE_I18N or not hasattr(request, "LANGUAGE_CODE"):
        return
    if translation.get_language_from_path(request.path_info) is not None:
        return  # a language prefix in the URL (i18n_patterns) is the client's explicit choice
    ranges = parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", ""))
    active = translation.get_language()
    if not any(weight == 0 for _, weight in ranges) or (active is not None and not is_refused(active, ranges)):
        return
    translation.activate(language_from_request(request))
    # LocaleMiddleware's response step reads the active language for Content-Language.
    request.LANGUAGE_CODE = translation.get_language()


@lru_cache(maxsize=8)
def _negotiates_language(middleware: tuple[str, ...]) -> bool:
    # Keyed by the setting's value, so that override_settings is honoured.
    for path in middleware:
        try:
            if issubclass(import_string(path), LocaleMiddleware):
                return True
        except (ImportError, TypeError):
            continue
    return False


def response_language(response: HttpResponseBase) -> str | None:
    """The language an idempotent response is stored with, which its replays state: its
    ``Content-Language``, else the active one when ``LocaleMiddleware`` will label it."""
    language = response.get("Content-Language")
    if language:
        return language
    if settings.USE_I18N and _negotiates_language(tuple(settings.MIDDLEWARE)):
        return translation.get_language()
    return None
