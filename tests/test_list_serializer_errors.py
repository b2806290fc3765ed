"""``many=True`` errors point at their rows whichever format DRF reports them in.

DRF 3.16 reports a ``ListSerializer``'s errors as a dict of the invalid rows (``{1: {...}}``);
DRF 3.18 added ``REST_FRAMEWORK["LIST_SERIALIZER_ERRORS_AS_DICT"] = False`` to bring back the
older list of one entry per row, ``{}`` for a valid one. The pointers must be the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import path
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import DEFAULTS as DRF_DEFAULTS
from rest_framework.test import APIClient
from rest_framework.views import APIView

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls(__name__),
    # The list format is deprecated in DRF 3.18: it warns on every invalid list.
    pytest.mark.filterwarnings("ignore:The list-based error format:PendingDeprecationWarning"),
]

#: Whether the installed DRF has the setting (3.18 and later); before it, 3.16 and 3.17 give
#: the dict and 3.15 the list, whatever the setting says.
HAS_FORMAT_SETTING = "LIST_SERIALIZER_ERRORS_AS_DICT" in DRF_DEFAULTS


class LineSerializer(serializers.Serializer[Any]):
    sku = serializers.CharField()
    quantity = serializers.IntegerField(min_value=1)


class OrderSerializer(serializers.Serializer[Any]):
    lines = LineSerializer(many=True)


class LinesView(APIView):
    """A body that is a list of rows: the ``many=True`` serializer at the top."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    def post(self, request: Request) -> Response:
        serializer = LineSerializer(data=request.data, many=True)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data, status=201)


class OrderView(APIView):
    """The rows nested in an object's field."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    def post(self, request: Request) -> Response:
        serializer = OrderSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data, status=201)


class OwnLinesErrorView(LinesView):
    """A project's view that answers ``serializer.errors`` itself, as DRF's tutorial does."""

    def post(self, request: Request) -> Response:
        serializer = LineSerializer(data=request.data, many=True)
        if not serializer.is_valid():
            return Response(serializer.errors, status=400)
        return Response(serializer.validated_data, status=201)


urlpatterns = [
    path("faults/lines", LinesView.as_view()),
    path("faults/orders", OrderView.as_view()),
    path("faults/own-lines-errors", OwnLinesErrorView.as_view()),
]

#: Row 0 is valid; rows 1 and 3 are not.
ROWS = [
    {"sku": "a", "quantity": 1},
    {"sku": "", "quantity": 1},
    {"sku": "c", "quantity": 2},
    {"sku": "d", "quantity": 0},
]
POINTERS = ["/1/sku", "/3/quantity"]


def list_format(as_dict: bool) -> Any:
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "LIST_SERIALIZER_ERRORS_AS_DICT": as_dict})


def pointers(body: dict[str, Any]) -> list[str]:
    return [item["pointer"] for item in body["errors"]]


@pytest.mark.parametrize("as_dict", [True, False], ids=["dict-format", "list-format"])
def test_the_setting_changes_what_drf_reports(as_dict: bool) -> None:
    # Without this, the tests below could pass on one format twice.
    if not HAS_FORMAT_SETTING:
        pytest.skip("this DRF has no LIST_SERIALIZER_ERRORS_AS_DICT")
    with list_format(as_dict):
        serializer = LineSerializer(data=ROWS, many=True)
        assert not serializer.is_valid()
        assert isinstance(serializer.errors, dict if as_dict else list)


@pytest.mark.parametrize("as_dict", [True, False], ids=["dict-format", "list-format"])
@pytest.mark.parametrize(
    ("url", "body", "expected", "status"),
    [
        ("/faults/lines", ROWS, POINTERS, 422),
        ("/faults/orders", {"lines": ROWS}, [f"/lines{pointer}" for pointer in POINTERS], 422),
        ("/faults/own-lines-errors", ROWS, POINTERS, 400),
    ],
    ids=["top-level", "nested", "own-response"],
)
def test_rows_get_indexed_pointers(as_dict: bool, url: str, body: Any, expected: list[str], status: int) -> None:
    with list_format(as_dict):
        response = APIClient().post(url, body, format="json")
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert pointers(problem) == expected
    assert [item["code"] for item in problem["errors"]] == ["blank", "min_value"]


@pytest.mark.parametrize("as_dict", [True, False], ids=["dict-format", "list-format"])
def test_a_row_level_error_points_at_its_row(as_dict: bool) -> None:
    with list_format(as_dict):
        response = APIClient().post("/faults/lines", [{"sku": "a", "quantity": 1}, "not an object"], format="json")
    assert response.status_code == 422, response.content
    assert pointers(response.json()) == ["/1"]


@pytest.mark.parametrize("as_dict", [True, False], ids=["dict-format", "list-format"])
def test_a_list_level_error_points_at_the_list(as_dict: bool) -> None:
    with list_format(as_dict):
        response = APIClient().post("/faults/orders", {"lines": {"sku": "a"}}, format="json")
    assert response.status_code == 422, response.content
    assert pointers(response.json()) == ["/lines"]
