"""The example service's URLs, then one list per paginator over the same queryset and the
50-filter list through each filter backend (``benchmarks/filter_views.py``).

The idempotency floors (``benchmarks/floor_views.py``) sit in the service's own versioned API,
just before the orders' routes: resolving ``/v2/bench-floor/orders`` then costs what resolving
``/v2/orders`` does, and the service's routes are matched in the order the service has them."""

from django.urls import URLResolver, path

from django_api_conventions.versioning import versioned_urls
from django_api_conventions.versioning.urls import VersionedURLResolver
from testproject import urls as service

from . import filter_views, floor_views
from .pagination_views import PAGINATED_VIEWS, SEARCH_VIEWS


def _api_with_floors() -> list[URLResolver]:
    api = list(service.api)
    orders = next(index for index, pattern in enumerate(api) if str(pattern.pattern).startswith("^orders"))
    return versioned_urls([*api[:orders], *floor_views.urlpatterns, *api[orders:]])


urlpatterns = [
    *[
        resolver
        for pattern in service.urlpatterns
        for resolver in (_api_with_floors() if isinstance(pattern, VersionedURLResolver) else [pattern])
    ],
    *[path(f"bench/{name}", view.as_view(), name=f"bench-{name}") for name, view in PAGINATED_VIEWS.items()],
    *[path(route, view, name=f"bench-{name}") for name, (route, view) in SEARCH_VIEWS.items()],
    *filter_views.urlpatterns,
]
