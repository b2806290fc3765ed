"""The package's structure, as docs/development.md draws it, enforced on every import statement.

Every ``import`` and ``from ... import`` of every module counts, at module level or inside a
function: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = "django_api_conventions"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: The parts a newcomer sees first: each a folder of the package.
FEATURES = ("idempotency", "pagination", "versioning")
PROBLEMS = "problems"
#: What every part shares about a request and a response; it builds on the settings alone.
FOUNDATION = "http"
#: The package's face, the modules a Django developer looks for at the top of an app (the
#: admin's autodiscovery imports ``<app>.admin``); everything else lives in the folder of its part.
TOP_LEVEL = {"__init__", "admin", "apps", "check_messages", "conf", "middleware", "models", "urls"}
#: Packages the package may use only when a user installs an extra: contrib/ alone imports them.
OPTIONAL = (
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_redis",
    "redis",
    "psycopg",
    "psycopg2",
    "django_filters",
    "adrf",
    "opentelemetry",
    "health_check",
    "valkey",
    "django_valkey",
)
#: contrib modules that adapt an optional package and import nothing of ours: the features may use them.
ADAPTERS = (f"{PACKAGE}.contrib.redis",)
#: Outside contrib, the optional packages a feature is built on, and its modules that import them
#: (the rest of the feature imports them only on use, so the package imports without them).
BUILT_ON = {
    "django_filters": tuple(
        f"{PACKAGE}.pagination.{name}" for name in ("filters", "filtersets", "parameters", "filter_schema")
    ),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str | None = None) -> Iterator[str]:
    """The absolute names ``path`` (the module ``name``) imports, relative imports resolved."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target
            # ``from . import signals`` imports a module too
            yield from (f"{target}.{alias.name}" for alias in node.names)


def part_of(module: str) -> str | None:
    """The part (``problems``, a feature, ``contrib``...) a module of the package belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == PACKAGE else None


MODULES = sorted(ROOT.rglob("*.py"))
EDGES = [(module_name(path), target) for path in MODULES for target in imports_of(path)]


def test_the_package_has_modules_to_check() -> None:
    assert len(MODULES) > 50
    assert any(target.startswith(f"{PACKAGE}.problems") for _, target in EDGES)


def test_the_package_never_imports_the_example_or_the_tests() -> None:
    offenders = [(source, target) for source, target in EDGES if target.split(".")[0] in ("testproject", "tests")]
    assert offenders == []


def test_the_top_level_holds_only_the_packages_face() -> None:
    assert {path.stem for path in ROOT.glob("*.py")} == TOP_LEVEL


def test_the_foundation_imports_only_the_settings() -> None:
    offenders = [
        (source, target)
        for source, target in EDGES
        if part_of(source) == FOUNDATION
        and target.startswith(f"{PACKAGE}.")
        and part_of(target) not in (FOUNDATION, "conf")
    ]
    assert offenders == []


def test_the_problem_core_imports_no_feature() -> None:
    offenders = [
        (source, target)
        for source, target in EDGES
        if part_of(source) == PROBLEMS and part_of(target) in (*FEATURES, "contrib")
    ]
    assert offenders == []


@pytest.mark.parametrize("feature", FEATURES)
def test_features_never_import_each_other(feature: str) -> None:
    others = set(FEATURES) - {feature}
    offenders = [(s, t) for s, t in EDGES if part_of(s) == feature and part_of(t) in others]
    assert offenders == []


def test_features_use_contrib_only_through_adapters() -> None:
    offenders = [
        (source, target)
        for source, target in EDGES
        if part_of(source) in FEATURES and part_of(target) == "contrib" and not target.startswith(ADAPTERS)
    ]
    assert offenders == []


def in_adapter(module: str) -> str | None:
    """The adapter (a module or a package) ``module`` belongs to."""
    return next((adapter for adapter in ADAPTERS if module == adapter or module.startswith(f"{adapter}.")), None)


def test_adapters_import_nothing_of_the_package() -> None:
    offenders = [
        (s, t) for s, t in EDGES if in_adapter(s) and t.startswith(f"{PACKAGE}.") and in_adapter(t) != in_adapter(s)
    ]
    assert offenders == []


def optional_imports_outside_contrib(edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (source, target)
        for source, target in edges
        if target.split(".")[0] in OPTIONAL
        and part_of(source) != "contrib"
        and source not in BUILT_ON.get(target.split(".")[0], ())
    ]


def test_only_contrib_imports_optional_packages() -> None:
    assert optional_imports_outside_contrib(EDGES) == []


def test_a_lazy_import_of_an_optional_package_is_seen(tmp_path: Path) -> None:
    """An optional package imported inside a function, outside contrib/, breaks the rule too."""
    probe = tmp_path / "probe.py"
    probe.write_text("def describe():\n    from drf_spectacular.drainage import warn\n")
    module = f"{PACKAGE}.pagination.filter_schema"
    assert optional_imports_outside_contrib([(module, t) for t in imports_of(probe, module)]) == [
        (module, "drf_spectacular.drainage"),
        (module, "drf_spectacular.drainage.warn"),
    ]


def test_modules_built_on_an_optional_package_exist() -> None:
    """The allowance above names modules that are there, each importing its package."""
    for package, modules in BUILT_ON.items():
        for module in modules:
            assert any(source == module and target.split(".")[0] == package for source, target in EDGES), module


def test_a_lazy_relative_import_is_seen(tmp_path: Path) -> None:
    """What the rules above must catch: a feature importing another inside a function."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..versioning import lifecycle\n")
    found = list(imports_of(probe, f"{PACKAGE}.pagination.probe"))
    assert f"{PACKAGE}.versioning.lifecycle" in found
    assert {part_of(target) for target in found} == {"versioning"}


def private_imports(path: Path, name: str | None = None) -> Iterator[str]:
    """``module._name`` for each private name ``path`` imports from another module of the package."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        if target.split(".")[0] != PACKAGE:
            continue
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                yield f"{target}.{alias.name}"


def test_modules_use_each_others_public_names_only() -> None:
    """docs/development.md: a leading underscore means "this module only"."""
    offenders = [(module_name(path), name) for path in MODULES for name in private_imports(path)]
    assert offenders == []


def test_a_private_import_is_seen(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from .filters import PREDICATE_CODE, _clean\nfrom django.utils.translation import gettext as _\n")
    assert list(private_imports(probe, f"{PACKAGE}.pagination.probe")) == [f"{PACKAGE}.pagination.filters._clean"]
