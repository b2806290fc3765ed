"""Modules that moved, still importable from their old dotted paths with a ``DeprecationWarning``.

Settings name modules by dotted path (``EXCEPTION_HANDLER``, ``handler404``, ``CSRF_FAILURE_VIEW``),
so a move must not break a project that has not updated them yet. A meta path finder answers the
old name with the module at its new home: one object, so ``isinstance`` checks and monkeypatching
keep working. Remove an entry one minor release after it was added.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

PACKAGE = "django_api_conventions"

#: Old dotted path -> new dotted path (both under the package).
MOVED_MODULES: dict[str, str] = {
    f"{PACKAGE}.exception_handler": f"{PACKAGE}.problems.drf_handler",
    f"{PACKAGE}.handlers": f"{PACKAGE}.problems.django_handlers",
    f"{PACKAGE}.problem_types": f"{PACKAGE}.problems.types",
    f"{PACKAGE}.exception_mapping": f"{PACKAGE}.problems.mapping",
    f"{PACKAGE}.error_items": f"{PACKAGE}.problems.error_items",
    f"{PACKAGE}.views": f"{PACKAGE}.problems.pages",
    f"{PACKAGE}.schema_compat": f"{PACKAGE}.contrib.spectacular.compat",
    f"{PACKAGE}.schema_baselines": f"{PACKAGE}.contrib.spectacular.baselines",
    f"{PACKAGE}.pagination.views": f"{PACKAGE}.pagination.drf",
}


class _MovedModuleLoader(importlib.abc.Loader):
    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.new_name}: update the dotted path (in your settings, URLconf or "
            "imports); the old one will stop working in a future release.",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.new_name)

    def exec_module(self, module: ModuleType) -> None:
        """The module at its new home is already executed."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new_name = MOVED_MODULES.get(fullname)
        if new_name is None:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedModuleLoader(new_name))


def install() -> None:
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        # First: a stale copy of an old module (an editable install, leftover files) must not win.
        sys.meta_path.insert(0, MovedModuleFinder())


def current_path(dotted_path: object) -> object:
    """``dotted_path`` with a moved module's old path replaced by its new one (anything else as it is)."""
    if not isinstance(dotted_path, str):
        return dotted_path
    module, _, name = dotted_path.rpartition(".")
    return f"{MOVED_MODULES[module]}.{name}" if module in MOVED_MODULES else dotted_path
