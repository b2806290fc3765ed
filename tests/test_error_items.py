from __future__ import annotations

from rest_framework.exceptions import ErrorDetail

from django_api_conventions.problems.error_items import escape_pointer_token, pointer_items


def error(message: str, code: str = "invalid") -> ErrorDetail:
    return ErrorDetail(message, code=code)


def test_pointer_tokens_are_escaped() -> None:
    assert escape_pointer_token("a/b~c") == "a~1b~0c"


def test_many_true_errors_as_a_list_of_rows() -> None:
    # DRF before 3.16 reports many=True errors as one entry per row, {} for valid rows.
    detail = {"lines": [{}, {"sku": [error("blank", "blank")]}, {"non_field_errors": [error("row")]}]}
    assert pointer_items(detail) == [
        {"pointer": "/lines/1/sku", "detail": "blank", "code": "blank"},
        {"pointer": "/lines/2", "detail": "row", "code": "invalid"},
    ]


def test_many_true_errors_as_a_dict_of_rows() -> None:
    detail = {"lines": {3: {"sku": [error("blank", "blank")]}}}
    assert pointer_items(detail) == [{"pointer": "/lines/3/sku", "detail": "blank", "code": "blank"}]


def test_top_level_list_and_plain_strings() -> None:
    assert pointer_items([{"a": ["x"]}, {}]) == [{"pointer": "/0/a", "detail": "x", "code": "invalid"}]
    assert pointer_items("whole body") == [{"pointer": "", "detail": "whole body", "code": "invalid"}]
