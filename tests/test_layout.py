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
#: Parts that adapt an optional package and import nothing of ours: any part may use them.
ADAPTERS = (f"{PACKAGE}.redis",)
#: The top floor: the app config wires the parts, and alone may import contrib/ (where the
#: optional package is installed).
TOP = f"{PACKAGE}.apps"
#: The table of check ids and messages that every part's checks import: it imports nothing of ours.
CHECK_MESSAGES = f"{PACKAGE}.check_messages"
#: The checks of the project as a whole: above every part, imported by the app config alone.
PROJECT_CHECKS = "checks"
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


def contrib_imports_below_the_top(edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (source, target)
        for source, target in edges
        if part_of(target) == "contrib" and part_of(source) != "contrib" and source != TOP
    ]


def test_no_part_below_the_app_config_imports_contrib() -> None:
    """contrib/ builds on the parts; the parts never reach up into an integration."""
    assert contrib_imports_below_the_top(EDGES) == []


def test_a_lazy_import_of_contrib_is_seen(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def lookup():\n    from ..contrib.opentelemetry import spans\n")
    module = f"{PACKAGE}.tracing.probe"
    assert contrib_imports_below_the_top([(module, t) for t in imports_of(probe, module)]) != []


def test_only_the_app_config_imports_the_project_checks() -> None:
    """Each part registers its own checks and imports the message table, never checks/."""
    offenders = [
        (source, target)
        for source, target in EDGES
        if part_of(target) == PROJECT_CHECKS and part_of(source) != PROJECT_CHECKS and source != TOP
    ]
    assert offenders == []


def test_the_check_messages_import_nothing_of_the_package() -> None:
    offenders = [(s, t) for s, t in EDGES if s == CHECK_MESSAGES and t.startswith(f"{PACKAGE}.")]
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
        and not in_adapter(source)
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


REPOSITORY = ROOT.parent
#: Every folder of the repository whose modules import each other: the package, the example
#: service and the benchmarks (the tests are no part of the house).
HOUSE = (PACKAGE, "testproject", "benchmarks")


def module_graph(roots: tuple[str, ...] = HOUSE) -> dict[str, set[str]]:
    """module -> the modules of ``roots`` it imports, lazily or not. ``from pkg import mod`` is
    an arrow to ``pkg.mod`` alone, as Python reads it once ``pkg`` is imported."""
    paths = {
        (name := ".".join(path.relative_to(REPOSITORY).with_suffix("").parts)).removesuffix(".__init__"): path
        for root in roots
        for path in (REPOSITORY / root).rglob("*.py")
        if "migrations" not in path.parts
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    targets.add(submodule if submodule in paths else target)
        graph[name] = {target for target in targets if target in paths and target != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The modules that import each other in a loop (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(component)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_modules_import_each_other_in_a_loop() -> None:
    graph = module_graph()
    assert len(graph) > 100
    assert circles(graph) == []


def test_a_loop_is_seen() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [{"a", "b", "c"}]
