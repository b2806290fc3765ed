"""Every header name the package sends or reads is spelled once, in ``header_names``."""

from __future__ import annotations

import ast
from pathlib import Path

from django_api_conventions.conf import DEFAULTS
from django_api_conventions.http import header_names

PACKAGE = Path(header_names.__file__).resolve().parent

#: Header names (the ``Link`` relations are ordinary words that other code uses as keys).
NAMES = {
    value: name
    for name, value in vars(header_names).items()
    if name.isupper() and not name.startswith("REL_") and isinstance(value, str)
}


def string_literals(tree: ast.AST) -> list[ast.Constant]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    exported = {  # __all__ names classes: versioning's Deprecation is not the header
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)
        for item in ast.walk(node.value)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | exported
    ]


def test_no_module_spells_a_header_name_of_its_own() -> None:
    spelled = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r} is header_names.{NAMES[node.value]}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "header_names.py"
        for node in string_literals(ast.parse(path.read_text()))
        if node.value in NAMES
    ]
    assert spelled == []


def test_the_header_setting_defaults_to_the_constant() -> None:
    assert DEFAULTS["TRACE_ID_HEADER"] == header_names.REQUEST_ID == "X-Request-ID"
    assert (header_names.CLIENT_ID, header_names.IDEMPOTENCY_KEY) == ("X-Client-ID", "Idempotency-Key")
