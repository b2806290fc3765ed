from __future__ import annotations

import pytest
from django.test import override_settings

from django_api_conventions.clients.client_ids import default_client_id_resolver
from django_api_conventions.conf import DEFAULTS, api_settings


def test_defaults_apply_when_unset() -> None:
    with override_settings(API_CONVENTIONS={}):
        assert DEFAULTS["PAGINATION_MAX_LIMIT"] == api_settings.PAGINATION_MAX_LIMIT


def test_override_settings_is_seen_at_once() -> None:
    with override_settings(API_CONVENTIONS={"PAGINATION_MAX_LIMIT": 3}):
        assert api_settings.PAGINATION_MAX_LIMIT == 3
    assert DEFAULTS["PAGINATION_MAX_LIMIT"] == api_settings.PAGINATION_MAX_LIMIT


def test_import_strings_are_resolved_lazily() -> None:
    with override_settings(API_CONVENTIONS={"CLIENT_ID_RESOLVER": "tests.test_settings_object.resolver"}):
        assert api_settings.CLIENT_ID_RESOLVER is resolver
    assert api_settings.CLIENT_ID_RESOLVER is default_client_id_resolver


def test_a_non_dict_setting_reads_as_defaults() -> None:
    with override_settings(API_CONVENTIONS="oops"):
        assert api_settings.TRACE_ID_HEADER == "X-Request-ID"


@pytest.mark.parametrize("name", ["NOT_A_SETTING", "_private"])
def test_unknown_attributes_raise(name: str) -> None:
    with pytest.raises(AttributeError, match="Invalid API_CONVENTIONS setting"):
        getattr(api_settings, name)


def resolver(request: object) -> str:
    return "fixed"
