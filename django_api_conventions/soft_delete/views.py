"""The ``DELETE`` of a soft-delete model's view."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from .models import including_deleted


class SoftDeleteDestroyMixin:
    """``DELETE`` soft-deletes and answers 204, also when repeated; an id the client cannot see is
    404: the row is looked up through the view's own ``get_queryset()`` and filter backends."""

    def get_queryset_including_deleted(self) -> Any:
        """The view's queryset with deleted rows: its ``get_queryset()``, or for a class-level
        ``queryset`` (built at import time) its model's ``all_objects``."""
        view: Any = self
        if type(view).get_queryset is GenericAPIView.get_queryset:
            return view.queryset.model.all_objects.all()
        with including_deleted():
            return view.get_queryset()

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        view: Any = self
        lookup = view.lookup_url_kwarg or view.lookup_field
        queryset = view.filter_queryset(self.get_queryset_including_deleted())
        instance = get_object_or_404(queryset, **{view.lookup_field: view.kwargs[lookup]})
        view.check_object_permissions(request, instance)
        instance.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
