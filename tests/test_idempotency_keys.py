from __future__ import annotations

import pytest
from django.test import RequestFactory

from django_api_conventions.idempotency.keys import read_idempotency_key
from django_api_conventions.problems import ProblemException

factory = RequestFactory()


def read(value: str | None) -> str | None:
    meta = {} if value is None else {"HTTP_IDEMPOTENCY_KEY": value}
    return read_idempotency_key(factory.post("/", **meta))


@pytest.mark.parametrize(
    ("header", "key"),
    [
        ("abc", "abc"),
        ("  padded\t", "padded"),
        ("x" * 255, "x" * 255),
        ("!#$%&'()*+-./:;<=>?@[]^_`{|}~", "!#$%&'()*+-./:;<=>?@[]^_`{|}~"),
        ('"quoted key"', "quoted key"),
        ('"with \\"escapes\\" and \\\\"', 'with "escapes" and \\'),
        ('"a,b"', "a,b"),
    ],
)
def test_valid_keys(header: str, key: str) -> None:
    assert read(header) == key


def test_absent_key() -> None:
    assert read(None) is None


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("", "it is empty"),
        ('""', "it is empty"),
        ("x" * 256, "longer than 255"),
        ("naïve", "characters other than visible ASCII"),
        ("has space", "characters other than visible ASCII"),
        ("line\r\nbreak", "characters other than visible ASCII"),
        ("first, second", "more than once or holds a comma"),
        ('"a", "b"', "not a valid RFC 8941 quoted string"),
        ('"unterminated', "not a valid RFC 8941 quoted string"),
        ('"bad \\n escape"', "not a valid RFC 8941 quoted string"),
    ],
)
def test_invalid_keys_are_400_naming_the_header(header: str, reason: str) -> None:
    with pytest.raises(ProblemException) as raised:
        read(header)
    problem = raised.value
    assert problem.status_code == 400 and problem.problem_type.slug == "idempotency-key-invalid"
    assert reason in str(problem.detail)
    assert problem.errors[0]["header"] == "Idempotency-Key"
