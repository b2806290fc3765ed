"""The example service's URLs plus one list per paginator over the same queryset, and the
idempotency floors (``benchmarks/floor_views.py``) under ``/v2/``, and the 50-filter list
through each filter backend (``benchmarks/filter_views.py``)."""

from django.urls import path

from django_api_conventions.versioning import versioned_urls
from testproject.urls import urlpatterns as service_urlpatterns

from . import filter_views, floor_views
from .pagination_views import PAGINATED_VIEWS, SEARCH_VIEWS

urlpatterns = [
    *[path(f"bench/{name}", view.as_view(), name=f"bench-{name}") for name, view in PAGINATED_VIEWS.items()],
    *[path(route, view, name=f"bench-{name}") for name, (route, view) in SEARCH_VIEWS.items()],
    *versioned_urls(floor_views.urlpatterns),
    *filter_views.urlpatterns,
    *service_urlpatterns,
]
