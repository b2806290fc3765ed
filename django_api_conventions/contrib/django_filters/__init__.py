"""django-filter behind the package's strict backend: ``pip install "django-api-conventions[filter]"``.

A view's ``filterset_class`` may be a ``django_filters.FilterSet`` (or ``filterset_fields`` a
list or dict, as for ``DjangoFilterBackend``): ``StrictFilterBackend``,
``StrictQueryParametersMixin``, ``SearchMixin`` and the OpenAPI schema take it with the
guarantees of the package's own filter sets (:mod:`.adapter`). The package's app config
registers the adapter when django-filter is importable; nothing else to set up.
``TimestampFilter`` parses ISO 8601 as strictly as ``parse_timestamp``.
"""

from .adapter import DjangoFilterSetAdapter, adapt, jsonable, ordering_filters
from .filters import TimestampField, TimestampFilter

__all__ = ["DjangoFilterSetAdapter", "TimestampField", "TimestampFilter", "adapt", "jsonable", "ordering_filters"]
