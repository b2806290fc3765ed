"""The public API is what the docs document, no more and no less.

Public modules are the package's parts (every folder with an ``__init__.py``, Django's
``management`` and ``migrations`` aside, and the package itself, which holds ``__version__``
alone), its face (``conf``, ``middleware``, ``models``) and every
module a page names by its dotted path (``django_api_conventions.x.y``, in a ``:::`` directive of
the API reference, a code span or a code block). Each declares ``__all__``; each name of every
``__all__`` of the package resolves and appears on a page (a ``:::`` directive, or a code span
such as ``StrictJSONParser``, ``@idempotent``, ``get_store()`` or a dotted path ending in the name);
and each dotted path a page names imports, its name in its module's ``__all__``. The pages are
read as they are at run time: README.md and every ``docs/**/*.md``.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = "django_api_conventions"
REPOSITORY = Path(__file__).resolve().parent.parent
SOURCE = REPOSITORY / PACKAGE

#: Packages that are Django's machinery, not parts a user imports from.
MACHINERY = {f"{PACKAGE}.management", f"{PACKAGE}.management.commands", f"{PACKAGE}.migrations"}
#: The modules a Django developer looks for at the top of an app.
FACE = {f"{PACKAGE}.conf", f"{PACKAGE}.middleware", f"{PACKAGE}.models"}
#: Dotted names on the pages that are no Python path, each with what it is.
NOT_PATHS = {
    f"{PACKAGE}.cursor": "the default salt of the cursor signatures",
    f"{PACKAGE}.deprecation": "the name of a logger",
}
#: A system check id, ``django_api_conventions.E004``.
_CHECK_ID = re.compile(r"\.[CEIW]\d{3}$")
_DOTTED = re.compile(rf"\b{PACKAGE}(?:\.[A-Za-z_]\w*)+")
_FENCE = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2", re.M | re.S)
#: ``from django_api_conventions.x import a, b`` in a code block: the page shows the import.
_IMPORT = re.compile(rf"\bfrom ({PACKAGE}(?:\.\w+)*) import \(?([\w, \t\n]+)\)?")
_CODE_SPAN = re.compile(r"`([^`]+)`")
#: A name as a code span gives it: ``Name``, ``a.b.Name``, ``@Name``, ``Name()``, ``Name(x, y)``.
_SPAN_NAME = re.compile(r"@?(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(.*\))?", re.S)
_DIRECTIVE = re.compile(r"^:::\s*(\S+)((?:\n[ \t]+.*)*)", re.M)
_MEMBERS = re.compile(r"members:\s*\[([^\]]*)\]")


def pages() -> list[Path]:
    return sorted([REPOSITORY / "README.md", *(REPOSITORY / "docs").rglob("*.md")])


def module_name(path: Path) -> str:
    parts = path.relative_to(REPOSITORY).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_of(module: str) -> Path | None:
    """The file of ``module`` of the package, if it is one."""
    base = REPOSITORY.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def split_path(dotted: str) -> tuple[str, list[str]]:
    """``dotted`` as its longest prefix that is a module of the package, and the names after it."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        if source_of(".".join(parts[:end])):
            return ".".join(parts[:end]), parts[end:]
    raise AssertionError(f"{dotted} names no module of the package")


@cache
def named_paths() -> dict[str, list[str]]:
    """Every dotted path of the package a page names, with the pages naming it."""
    named: dict[str, list[str]] = {}
    for page in pages():
        for match in _DOTTED.finditer(page.read_text()):
            dotted = match[0]
            if dotted in NOT_PATHS or _CHECK_ID.search(dotted):
                continue
            named.setdefault(dotted, []).append(str(page.relative_to(REPOSITORY)))
    return named


@cache
def public_modules() -> list[str]:
    parts = {module_name(path) for path in SOURCE.rglob("__init__.py")} - MACHINERY - {PACKAGE}
    named = {split_path(dotted)[0] for dotted in named_paths()} - {PACKAGE}
    return sorted(parts | FACE | named)


def declared_all(path: Path) -> list[str] | None:
    """The literal ``__all__`` of a module's source, if it declares one."""
    for node in ast.parse(path.read_text()).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "__all__":
            value = getattr(node, "value", None)
            assert value is not None, f"{path}: __all__ without a value"
            return list(ast.literal_eval(value))
    return None


def exported() -> Iterator[tuple[str, str]]:
    """Every ``(module, name)`` of every ``__all__`` of the package."""
    for path in sorted(SOURCE.rglob("*.py")):
        for name in declared_all(path) or []:
            yield module_name(path), name


def documented_names_of(text: str) -> set[str]:
    """The names ``text`` documents: by ``:::`` directives, imports and code spans."""
    names: set[str] = set()
    for match in _DIRECTIVE.finditer(text):
        names.add(match[1].rpartition(".")[2])
        if members := _MEMBERS.search(match[2]):
            names.update(member.strip() for member in members[1].split(","))
    for match in _IMPORT.finditer(text):
        names.update(name.strip() for name in match[2].split(",") if name.strip())
    for match in _CODE_SPAN.finditer(_FENCE.sub("", text)):
        if spelled := _SPAN_NAME.fullmatch(match[1].strip()):
            names.add(spelled[1])
    return names


@cache
def documented_names() -> frozenset[str]:
    """The names the pages document, and the last name of each dotted path they give."""
    names = {dotted.rpartition(".")[2] for dotted in named_paths()}
    for page in pages():
        names |= documented_names_of(page.read_text())
    return frozenset(names)


@pytest.mark.parametrize("module", public_modules())
def test_a_public_module_declares_its_names(module: str) -> None:
    path = source_of(module)
    assert path is not None and declared_all(path) is not None, (
        f"{module} is public (a part, the package's face or named by the docs) but declares no __all__"
    )


@pytest.mark.parametrize(("module", "name"), sorted(exported()), ids=lambda value: value)
def test_an_exported_name_is_documented(module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name), f"{module}.__all__ names {name}, which it does not define"
    documented = name in documented_names()  # a bool: the message names the fix, not the whole set
    assert documented, (
        f"{module}.__all__ exports {name}, which no page documents: document it in docs/api.md or drop it from __all__"
    )


@pytest.mark.parametrize("dotted", sorted(named_paths()))
def test_a_dotted_path_on_a_page_imports(dotted: str) -> None:
    module, names = split_path(dotted)
    value: object = importlib.import_module(module)
    for index, name in enumerate(names):
        assert hasattr(value, name), f"{dotted} (on {named_paths()[dotted]}): {'.'.join(names[: index + 1])} is missing"
        value = getattr(value, name)
    path = source_of(module)
    assert path is not None
    # A dunder such as ``__version__`` is read, never imported by name.
    if names and not names[0].startswith("__"):
        assert names[0] in (declared_all(path) or []), (
            f"{dotted} is on {named_paths()[dotted]}, not in {module}.__all__"
        )


def test_the_public_modules_are_found() -> None:
    """The lists the tests above run over are computed: they must find the parts and the named modules."""
    found = public_modules()
    parts = ("problems", "idempotency", "idempotency.stores", "pagination", "versioning", "contrib.spectacular")
    assert {f"{PACKAGE}.{part}" for part in parts} <= set(found)
    assert {*FACE, f"{PACKAGE}.problems.types", f"{PACKAGE}.versioning.drf"} <= set(found)
    assert f"{PACKAGE}.migrations" not in found
    assert len(list(exported())) > 100
    assert len(named_paths()) > 50


@pytest.mark.parametrize("dotted", sorted(NOT_PATHS))
def test_a_dotted_name_that_is_no_path_is_still_on_a_page(dotted: str) -> None:
    assert any(dotted in page.read_text() for page in pages()), f"{dotted} is on no page: remove it from NOT_PATHS"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("`StrictJSONParser`", "StrictJSONParser"),
        ("`@idempotent`", "idempotent"),
        ("`get_store()`", "get_store"),
        ("`render_problem(request, problem)`", "render_problem"),
        ("`django_api_conventions.apps.APIConventionsConfig`", "APIConventionsConfig"),
        ("::: django_api_conventions.pagination.Cursor\n", "Cursor"),
        ("::: x.signals\n    options:\n      members: [a_signal, b]\n", "a_signal"),
        ("```python\nfrom django_api_conventions.clients import ANONYMOUS_CLIENT_ID, x\n```", "ANONYMOUS_CLIENT_ID"),
    ],
)
def test_the_pages_document_a_name_so_spelled(text: str, name: str) -> None:
    assert name in documented_names_of(text)


@pytest.mark.parametrize(
    "text",
    [
        "StrictJSONParser in prose",
        "`StrictJSONParser is strict`",
        "```python\nStrictJSONParser()\n```",
    ],
)
def test_the_pages_leave_a_name_otherwise_spelled_undocumented(text: str) -> None:
    assert "StrictJSONParser" not in documented_names_of(text)
