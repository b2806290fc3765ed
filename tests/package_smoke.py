"""Checks of the built distributions, run by ``./dev package`` (not collected by pytest).

``python tests/package_smoke.py contents DIST_DIR SOURCE_ROOT``
    The wheel holds the package and its metadata only (no tests, no example service); the
    sdist holds the package, LICENSE, README, CHANGELOG, the tests, the example service, the
    deployment recipe and the docs; both carry the version of ``django_api_conventions.__version__``.

``python -I tests/package_smoke.py installed SOURCE_ROOT``
    Run by the interpreter of a fresh virtualenv into which a wheel or an sdist was installed,
    from a temp directory, isolated (``-I``: neither the current directory nor the script's is
    on ``sys.path``): the package imported is the installed one, every file of the source
    package is installed (migrations, ``py.typed``, templates and static files when there are
    any), and a minimal project on SQLite passes ``check``, migrates, answers problem details,
    replays an idempotent request and lists the management commands; with django-api-compat
    installed beside it (the sdist's run), ``api_compat`` writes and checks its baselines.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import sysconfig
import tarfile
import tempfile
import types
import zipfile
from pathlib import Path

PACKAGE = "django_api_conventions"


def package_files(source_root: Path) -> set[str]:
    """Every file of the source package, relative to the project root, compiled files aside."""
    return {
        path.relative_to(source_root).as_posix()
        for path in (source_root / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def source_version(source_root: Path) -> str:
    match = re.search(r'^__version__ = "([^"]+)"$', (source_root / PACKAGE / "__init__.py").read_text(), re.M)
    assert match, "no __version__ in django_api_conventions/__init__.py"
    return match.group(1)


def check(condition: object, message: str) -> None:
    if not condition:
        raise SystemExit(f"FAIL: {message}")


def check_contents(dist: Path, source_root: Path) -> None:
    version = source_version(source_root)
    expected = package_files(source_root)
    [wheel] = dist.glob("*.whl")
    [sdist] = dist.glob("*.tar.gz")
    check(
        f"-{version}-" in wheel.name and f"-{version}.tar.gz" in sdist.name,
        f"artifacts {wheel.name}, {sdist.name} do not carry the version {version}",
    )

    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"{PACKAGE}-{version}.dist-info"
    check(expected <= names, f"missing from the wheel: {sorted(expected - names)}")
    strays = {n for n in names if not n.startswith((f"{PACKAGE}/", f"{info}/"))}
    check(not strays, f"the wheel holds more than the package: {sorted(strays)}")
    check(f"{info}/licenses/LICENSE" in names, "no LICENSE in the wheel")
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    for line in (
        f"Version: {version}",
        "License-Expression: MIT",
        "Requires-Python: >=3.11",
        "Classifier: Framework :: Django :: 5.2",
        "Classifier: Framework :: Django :: 6.0",
        "Classifier: Programming Language :: Python :: 3.13",
        "Provides-Extra: openapi",
    ):
        check(line in metadata.splitlines(), f"the wheel's METADATA lacks {line!r}")

    with tarfile.open(sdist) as archive:
        root = f"{PACKAGE}-{version}/"
        members = {name.removeprefix(root) for name in archive.getnames()}
    wanted = expected | {
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "pyproject.toml",
        "PKG-INFO",
        "tests/conftest.py",
        "tests/settings.py",
        "tests/package_smoke.py",
        "api-compat/pyproject.toml",
        "testproject/settings.py",
        "testproject/openapi/v2.json",
        "docs/index.md",
        "mkdocs.yml",
        "deploy/nginx/api.conf.template",
        "deploy/gunicorn.conf.py",
    }
    check(wanted <= members, f"missing from the sdist: {sorted(wanted - members)}")
    check(
        not [m for m in members if "__pycache__" in m or m.endswith(".pyc") or m.startswith(".venvs")],
        "the sdist holds compiled files or virtualenvs",
    )
    print(f"contents: {wheel.name} ({len(names)} files), {sdist.name} ({len(members)} entries)")


def smoke_installed(source_root: Path) -> None:
    import django_api_conventions as package

    location = Path(package.__file__).resolve().parent
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    check(site_packages in location.parents, f"imported from {location}, not from {site_packages}")
    check(
        all(Path(entry or ".").resolve() != source_root for entry in sys.path),
        f"the source tree {source_root} is on sys.path",
    )
    check(package.__version__ == source_version(source_root), f"installed version {package.__version__}")
    installed = {
        f"{PACKAGE}/{p.relative_to(location).as_posix()}"
        for p in location.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    expected = package_files(source_root)
    check(expected <= installed, f"not installed: {sorted(expected - installed)}")
    check(
        f"{PACKAGE}/py.typed" in installed and f"{PACKAGE}/migrations/0001_initial.py" in installed,
        "py.typed or the migrations are missing",
    )

    # Inside the current directory: ./dev package runs from a temp dir it removes afterwards.
    workdir = Path(tempfile.mkdtemp(prefix="smoke-", dir=Path.cwd()))
    with_openapi = _configure(workdir)
    from django.conf import settings
    from django.core.management import call_command, get_commands
    from django.db import connection
    from django.test import Client

    compat = "django_api_compat" in settings.INSTALLED_APPS

    call_command("check", fail_level="WARNING")
    call_command("migrate", verbosity=0)
    from django_api_conventions.models import IdempotencyRecord

    check(IdempotencyRecord._meta.db_table in connection.introspection.table_names(), "migrate made no tables")

    client = Client()
    missing = client.get("/nowhere")
    body = json.loads(missing.content)
    check(
        missing.status_code == 404 and missing["Content-Type"] == "application/problem+json" and body["trace_id"],
        f"404 is not a problem: {missing.status_code} {missing['Content-Type']} {missing.content[:200]!r}",
    )
    invalid = client.post("/v1/invoices", data="{}", content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-invalid")
    body = json.loads(invalid.content)
    check(
        invalid.status_code == 422
        and invalid["Content-Type"] == "application/problem+json"
        and body["errors"][0]["pointer"] == "/amount_due",
        f"invalid body: {invalid.status_code} {body}",
    )
    first = client.post(
        "/v1/invoices", data='{"amount_due": 5}', content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    again = client.post(
        "/v1/invoices", data='{"amount_due": 5}', content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    check(
        first.status_code == again.status_code == 201
        and again["Idempotent-Replayed"] == "true"
        and again.content == first.content,
        f"no replay: {first.status_code} {again.status_code} {again.headers}",
    )

    commands = {name for name, app in get_commands().items() if app == PACKAGE}
    wanted = {p.stem for p in (source_root / PACKAGE / "management" / "commands").glob("[!_]*.py")}
    check(commands == wanted, f"management commands {sorted(commands)}, expected {sorted(wanted)}")
    if compat:
        call_command("api_compat", "--update", baseline_dir=str(workdir / "openapi"))
        call_command("api_compat", "--strict", baseline_dir=str(workdir / "openapi"))
        check((workdir / "openapi" / "v1.json").is_file(), "api_compat --update wrote no baseline")
    import django

    print(
        f"installed: {location} ({len(installed)} files), Django {django.get_version()}, "
        f"commands {', '.join(sorted(commands))}, {'with' if with_openapi else 'without'} drf-spectacular"
        f"{', api_compat of django-api-compat' if compat else ''}: ok"
    )


def _configure(workdir: Path) -> bool:
    """A minimal project: the package's middleware, handlers and DRF settings, one versioned
    idempotent view, SQLite in ``workdir``, and django-api-compat's app when it is installed beside
    the package. True when drf-spectacular is installed."""
    import django
    from django.conf import settings

    try:
        import drf_spectacular  # noqa: F401
    except ImportError:
        with_openapi = False
    else:
        with_openapi = True
    rest_framework = {
        "EXCEPTION_HANDLER": "django_api_conventions.problems.drf_handler.problem_exception_handler",
        "DEFAULT_PARSER_CLASSES": ["django_api_conventions.content.StrictJSONParser"],
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_VERSIONING_CLASS": "django_api_conventions.versioning.drf.LifecycleVersioning",
        "UNAUTHENTICATED_USER": None,
    }
    if with_openapi:
        rest_framework["DEFAULT_SCHEMA_CLASS"] = "django_api_conventions.contrib.spectacular.ProblemAutoSchema"
    settings.configure(
        DEBUG=False,
        SECRET_KEY="smoke-test-not-secret",
        ALLOWED_HOSTS=["testserver"],
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework", PACKAGE]
        + (["django_api_compat"] if importlib.util.find_spec("django_api_compat") else []),
        MIDDLEWARE=[
            "django_api_conventions.middleware.TraceIdMiddleware",
            "django_api_conventions.versioning.middleware.VersionLifecycleMiddleware",
            "django_api_conventions.middleware.ProblemDetailsMiddleware",
            "django_api_conventions.middleware.MaintenanceModeMiddleware",
        ],
        CSRF_FAILURE_VIEW="django_api_conventions.problems.django_handlers.csrf_failure",
        ROOT_URLCONF="smoke_urls",
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(workdir / "db.sqlite3")}},
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        USE_TZ=True,
        REST_FRAMEWORK=rest_framework,
        API_CONVENTIONS={"MAINTENANCE_SWITCH_STORE": "database", "VERSIONS": [{"name": "v1", "status": "current"}]},
        # The smoke view posts without credentials, so every caller shares the anonymous scope.
        SILENCED_SYSTEM_CHECKS=[f"{PACKAGE}.W013"],
    )
    django.setup()
    sys.modules["smoke_urls"] = _urlconf()
    return with_openapi


def _urlconf() -> types.ModuleType:
    from django.urls import include, path
    from rest_framework import serializers, status
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from django_api_conventions.idempotency import IdempotencyMixin
    from django_api_conventions.versioning import versioned_urls

    class InvoiceSerializer(serializers.Serializer):
        amount_due = serializers.IntegerField(min_value=1)

    class InvoiceList(IdempotencyMixin, APIView):
        serializer_class = InvoiceSerializer

        def post(self, request: object) -> Response:
            serializer = InvoiceSerializer(data=request.data)  # type: ignore[attr-defined]
            serializer.is_valid(raise_exception=True)
            return Response({"id": "inv_1", **serializer.validated_data}, status=status.HTTP_201_CREATED)

    module = types.ModuleType("smoke_urls")
    module.urlpatterns = [  # type: ignore[attr-defined]
        *versioned_urls([path("invoices", InvoiceList.as_view(), name="invoice-list")]),
        path("", include("django_api_conventions.urls")),
    ]
    for code, view in (
        ("400", "bad_request"),
        ("403", "permission_denied"),
        ("404", "page_not_found"),
        ("500", "server_error"),
    ):
        setattr(module, f"handler{code}", f"django_api_conventions.problems.django_handlers.{view}")
    return module


if __name__ == "__main__":
    mode, *arguments = sys.argv[1:]
    if mode == "contents":
        check_contents(Path(arguments[0]), Path(arguments[1]).resolve())
    else:
        smoke_installed(Path(arguments[0]).resolve())
