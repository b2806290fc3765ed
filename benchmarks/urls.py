"""The example service's URLs plus one list per paginator over the same queryset."""

from django.urls import path

from testproject.urls import urlpatterns as service_urlpatterns

from .pagination_views import PAGINATED_VIEWS, SEARCH_VIEWS

urlpatterns = [
    *[path(f"bench/{name}", view.as_view(), name=f"bench-{name}") for name, view in PAGINATED_VIEWS.items()],
    *[path(route, view, name=f"bench-{name}") for name, (route, view) in SEARCH_VIEWS.items()],
    *service_urlpatterns,
]
