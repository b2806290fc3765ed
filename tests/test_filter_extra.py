"""Without django-filter (the ``filter`` extra) the package imports and a list without filters
works; a view that names filters, or ``TimestampFilter``, says which extra to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = textwrap.dedent("""
    import sys


    class WithoutDjangoFilter:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "django_filters":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)


    sys.meta_path.insert(0, WithoutDjangoFilter())

    import django
    from django.conf import settings

    settings.configure(
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework",
                        "django_api_conventions"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        ROOT_URLCONF=__name__,
    )
    urlpatterns = []
    django.setup()

    from django.contrib.auth.models import User
    from django.core.exceptions import ImproperlyConfigured
    from django.core import checks
    from rest_framework.test import APIRequestFactory
    from rest_framework import generics

    from django_api_conventions.pagination import (
        KeysetPagination, SearchMixin, StrictFilterBackend, StrictQueryParametersMixin,
    )

    checks.run_checks()  # every check runs, E040 among them


    class Plain(StrictQueryParametersMixin, generics.ListAPIView):
        queryset = User.objects.none()
        filter_backends = [StrictFilterBackend]
        pagination_class = None


    request = APIRequestFactory().get("/users")
    view = Plain()
    view.setup(request)
    view.request = view.initialize_request(request)
    view.format_kwarg = None
    assert list(view.filter_queryset(view.get_queryset())) == []


    class Filtered(Plain):
        filterset_fields = ["username"]


    try:
        StrictFilterBackend().filter_queryset(view.request, User.objects.none(), Filtered())
    except ImproperlyConfigured as exc:
        print("view:", exc)
    try:
        from django_api_conventions.pagination import TimestampFilter
    except ImportError as exc:
        print("import:", exc)
""")


def test_the_package_imports_without_django_filter_and_names_the_extra_when_used() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        'view: A view with filters needs django-filter: pip install "django-api-conventions[filter]".',
        "import: The strict filter parts of django-api-conventions apply django-filter FilterSets: "
        'pip install "django-api-conventions[filter]".',
    ]
